# shellcheck shell=bash
# A capture on the loopback interface (dumpcap, read back with tshark), for the suites that judge nfsload by what
# goes over the wire (wire.sh, wiretime.sh). Source it after lib.sh; the script's EXIT
# trap should end a capture left running ($TSHARK_PID).
#
#   capture_start FILTER   dumpcap on lo with the capture filter FILTER (e.g. "tcp port
#                          $NFS_PORT"), into $CAP, until capture_stop; returns once the
#                          capture is live; false (and a failed check) if it did not start
#   capture_stop           returns once every packet sent before it is in $CAP and dumpcap
#                          has ended; false (and a failed check) if not, or if the capture
#                          dropped packets
#   capture_read ARGS...   tshark reading $CAP with ARGS (decode-as, -Y, -T ...), with TCP
#                          segments put back in sequence order before RPC reassembly
#   capture_wire_io JSON...  "read N BYTES write N BYTES": NFSv3 READ/WRITE calls (and
#                          the bytes they ask for) sent inside the reports' measured windows
#   capture_explain        after a capture's checks: if any failed since its capture_stop,
#                          prints (as "# " lines) what the capture holds per TCP stream
#
# Neither waits a fixed time. dumpcap sees a packet only when the kernel hands over the
# ring block that holds it (at the latest after its 250 ms read timeout), writes it out
# later still, and drops whatever it has not read when it is told to stop: on a loaded
# machine a fixed pause before the stop lost the last segments of a 1 MiB WRITE, and
# tshark then decoded one WRITE of two. So each end is proved by a mark: a UDP datagram
# to 127.0.0.1 port 7 (echo: nobody need listen; Wireshark shows the bytes as echo data,
# never as anything malformed; the port unreachable that comes back is ICMP, outside the
# filter) carrying a token found nowhere else. dumpcap keeps the packets' order, so once
# the file holds the end mark it holds everything sent before it: nfsload has exited by
# then, so every call it made and every reply it read is in.
#
# The order in the file is not always TCP's order, though. On lo a packet is captured as
# it is received (libpcap leaves out the sending side's copy), by the CPU whose backlog it
# was queued to, and the segments of one connection may be queued on both CPUs (the
# sender's thread, and softirq sending more as ACKs open the window): on a loaded machine
# one CPU then hands over a later segment before the other hands over the earlier one
# (seen under the sanitizer build on 2 busy cores, in about 1 run in 20 of wire.sh's 1 MiB
# WRITEs: bytes 634753..700236 of a stream, then 605004..634753, the earlier one stamped
# first, the file not in time order; sometimes the server's TCP saw the reordering too:
# duplicate ACKs, D-SACK, spurious retransmissions). No packet is lost. By default
# tshark (4.0, tcp.reassemble_out_of_order FALSE) takes such an earlier segment for a
# retransmission and leaves it out of the reassembly: the record it belongs to is never
# completed and its call is not decoded at all (one 1 MiB WRITE of two, with all its bytes
# in the file) or is decoded as malformed. capture_read has tshark hold segments that come
# ahead of a gap and reassemble in sequence order, as nfsload's own reader does
# (src/trace/trace_tcp.c). Every reading of a capture goes through it.

# Every suite that sources this reads captures with tshark: without it, say so once.
if ! command -v tshark >/dev/null; then
	t_fail "tshark" "not installed (scripts/deps.sh test installs it)"
	t_summary
	exit 1
fi

CAP=$TMP/cap.pcap
TSHARK_PID=
CAP_MARK_PORT=7
CAP_MARKS=0
CAP_TOKEN=
CAP_WAIT_S=60	# a bound for a broken capture, not a timing assumption
CAP_FAILS=0	# failed checks so far when the last capture stopped (capture_explain)

# capture_mark WHAT: sends one mark; its token in CAP_TOKEN.
capture_mark() {
	CAP_TOKEN="nfsload-capture-$1-$$-$((++CAP_MARKS))-${EPOCHREALTIME/./}"
	printf '%s' "$CAP_TOKEN" >"/dev/udp/127.0.0.1/$CAP_MARK_PORT"
}

# capture_has TOKEN: the capture file holds TOKEN (dumpcap flushes what it has written
# about every 100 ms while it runs; a file cut mid-packet still holds what came before).
capture_has() { [[ -f $CAP ]] && grep -aqF "$1" "$CAP"; }

capture_start() {
	local i
	rm -f "$CAP"
	: >"$TMP/tshark.err"
	# dumpcap itself (what tshark -w runs): live in ~0.1 s, where tshark first loads every
	# dissector (~2 s a capture).
	# CAP_SNAPLEN: bytes kept of each packet (unset: all), for a capture read for its
	# headers only (tcp.len is the IP header's; a mark's token fits in 128).
	timeout -k 10 300 dumpcap -q -B 64 -i lo ${CAP_SNAPLEN:+-s "$CAP_SNAPLEN"} \
		-f "($1) or (udp dst port $CAP_MARK_PORT and dst host 127.0.0.1)" \
		-w "$CAP" 2>"$TMP/tshark.err" &
	TSHARK_PID=$!
	# dumpcap says "Capturing on" a moment before its filter catches anything (seen under
	# load): marks until one is in the file.
	for ((i = 0; i < CAP_WAIT_S * 10; i++)); do
		if grep -q "Capturing on" "$TMP/tshark.err"; then
			capture_mark start
			if capture_has "nfsload-capture-start-$$-"; then
				return 0
			fi
		fi
		kill -0 "$TSHARK_PID" 2>/dev/null || break
		sleep 0.1
	done
	t_fail "capture: dumpcap started and saw its start mark" \
		"last mark $CAP_TOKEN; dumpcap: $(cat "$TMP/tshark.err")"
	capture_kill
	return 1
}

capture_kill() {
	kill -INT "$TSHARK_PID" 2>/dev/null
	wait "$TSHARK_PID" 2>/dev/null
	TSHARK_PID=
}

capture_stop() {
	local i token dropped
	CAP_FAILS=$(grep -c '^fail' "$T_RESULTS")
	capture_mark end
	token=$CAP_TOKEN
	for ((i = 0; i < CAP_WAIT_S * 10; i++)); do
		capture_has "$token" && break
		sleep 0.1
	done
	capture_kill
	if ! capture_has "$token"; then
		t_fail "capture: complete (the end mark in the file)" \
			"no $token after ${CAP_WAIT_S}s; dumpcap: $(cat "$TMP/tshark.err")"
		return 1
	fi
	# dumpcap ends with "Packets received/dropped on interface 'Loopback: lo': R/D (...)":
	# a capture that dropped packets (D > 0, the ring overflowed) cannot be judged.
	dropped=$(sed -n 's#^Packets received/dropped on interface .*: [0-9]*/\([0-9]*\) .*#\1#p' \
		"$TMP/tshark.err")
	if [[ -z $dropped || $dropped != 0 ]]; then
		t_fail "capture: no packet dropped" "dumpcap: $(tr '\n' ' ' <"$TMP/tshark.err")"
		return 1
	fi
}

capture_read() {
	tshark -r "$CAP" -o tcp.reassemble_out_of_order:TRUE "$@" 2>/dev/null
}

# capture_explain: when a check since the last capture_stop failed, what tshark makes of
# $CAP, per TCP stream: the client's port, frames and payload bytes each way, the RPC
# records decoded (calls, replies), and each expert message tshark raised, counted (the
# TCP analysis: segments out of order or not captured, retransmissions, duplicate ACKs,
# full or zero windows; malformed records). The capture file is kept with T_KEEP=1.
capture_explain() {
	local decode=(-d "tcp.port==$NFS_PORT,rpc") order=
	(($(grep -c '^fail' "$T_RESULTS") > CAP_FAILS)) || return 0
	[[ -n ${MNT_PORT:-} ]] && decode+=(-d "tcp.port==$MNT_PORT,rpc")
	command -v capinfos >/dev/null &&
		order="; in time order: $(capinfos -o "$CAP" 2>/dev/null | sed -n 's/^Strict time order: *//p')"
	echo "# capture $CAP: $(capture_read -T fields -e frame.number | wc -l) frames$order;" \
		"dumpcap: $(grep -i 'captured\|dropped' "$TMP/tshark.err" | tr '\n' ' ')"
	capture_read "${decode[@]}" -Y tcp -T fields -E occurrence=a -E 'aggregator=|' -e tcp.stream \
		-e tcp.srcport -e tcp.dstport -e tcp.len -e rpc.msgtyp -e _ws.expert.message |
		awk -F'\t' -v nfs="$NFS_PORT" -v mnt="${MNT_PORT:-}" '
		{ s = $1; up = $3 == nfs || $3 == mnt; port[s] = up ? $2 : $3
		  f[s, up]++; b[s, up] += $4
		  n = split($5, m, "|"); for (i = 1; i <= n; i++) r[s, m[i]]++
		  k = split($6, e, "|")
		  for (i = 1; i <= k; i++) if (e[i] !~ /^Connection |connection closing/) { sub(/ \(#[0-9]+\)$/, "", e[i]); x[s "\t" e[i]]++ } }
		END { for (s in port)
			printf "# stream %s, client port %s: %d frames, %d bytes to the server, %d frames, %d bytes back; RPC calls %d, replies %d\n", s, port[s], f[s, 1], b[s, 1], f[s, 0], b[s, 0], r[s, 0], r[s, 1]
		      for (k in x) { split(k, a, "\t"); printf "# stream %s: %s (x%d)\n", a[1], a[2], x[k] } }' |
		sort -V
}

# capture_wire_io JSON...: "read N BYTES write N BYTES": the READ and WRITE calls tshark sees in
# the capture sent inside the measured windows of the reports JSON... (start_unix_ns,
# duration_ns: not the layouts before them) and the bytes they ask for (count3).
capture_wire_io() {
	capture_read -d "tcp.port==$NFS_PORT,rpc" -Y "rpc.msgtyp == 0 && nfs" -T fields \
		-E occurrence=a -E aggregator=, -e frame.time_epoch -e nfs.procedure_v3 -e nfs.count3 |
		python3 -c '
import json, sys
win = [(r["start_unix_ns"] / 1e9, (r["start_unix_ns"] + r["duration_ns"]) / 1e9)
       for r in (json.load(open(f)) for f in sys.argv[1:])]
n = {"6": [0, 0], "7": [0, 0]}
for line in sys.stdin:
    t, procs, counts = (line.rstrip("\n").split("\t") + ["", ""])[:3]
    if not any(a <= float(t) <= b for a, b in win):
        continue
    counts = iter(counts.split(",") if counts else [])
    for p in procs.split(","):
        if p in n:
            n[p][0] += 1
            n[p][1] += int(next(counts))
print("read %d %d write %d %d" % (n["6"][0], n["6"][1], n["7"][0], n["7"][1]))
' "$@"
}
