#!/usr/bin/env bash
# nfsload --replay judged on the wire by tshark. Captures not made by nfsload (fio's nfs
# engine, NFSv3 random 70/30 and NFSv4.0 random reads, in tests/data, see its README;
# libnfs's nfs-cp, nfs-cat and nfs-ls, captured here) and one of nfsload's own --mix
# (metadata) are replayed against an empty work directory, each replay captured too:
# READ and WRITE calls on the replay's wire within 1% of the capture's, the other
# requests within 20% (both counted by tshark, not by nfsload; set-up kinds apart: MOUNT,
# FSINFO, NFSv4 session plumbing and OPEN/CLOSE, which the replay's own connections do
# at their set-up), the span of the READs and WRITEs on the wire within 15% of the
# capture's (halved with --replay-speed 2), no new errors, the capture's own latency in
# the report (its p50 as tshark's rpc.time says), the namespace made in the work
# directory only, and a file that is not a capture refused with exit status 2 before
# anything is written. An NFSv4.2 capture refused where the URL or engine lacks 4.2; and
# (where nfsload speaks NFSv4.2) a 4.2 client's capture replayed as its own operations.
# Needs NFSLOAD, jq, python3, tshark, editcap, nfs-ls/nfs-cat/nfs-cp (libnfs-utils).
set -uo pipefail
. "$(dirname "$0")/lib.sh"

for tool in tshark editcap nfs-cp nfs-cat nfs-ls; do
	if ! command -v "$tool" >/dev/null; then
		t_fail "$tool" "not installed (scripts/deps.sh test installs it)"
		t_summary
		exit 1
	fi
done
DATA=$(cd "$(dirname "$0")/data" && pwd)
t_start_server || exit 1
URL41=${URL4/version=4/version=4.1}
. "$(dirname "$0")/capture.sh"
trap '[[ -n $TSHARK_PID ]] && kill -INT "$TSHARK_PID" 2>/dev/null; t_cleanup' EXIT

# wire CAPTURE PORTS [SINCE_NS UNTIL_NS]: what tshark sees of the NFS calls in CAPTURE
# (the TCP connections to the server's PORTS, "P P ...", decoded as RPC), sent from
# SINCE_NS to UNTIL_NS (Unix ns; a replay's measured phase: not its set-up, not its
# clean-up) if given. Prints
#   read N / write N      READ and WRITE operations (NFSv4: in COMPOUNDs)
#   meta N                other requests (v3 calls, v4 COMPOUNDs) but the set-up kinds
#   span S                seconds from the first READ or WRITE call to the last
#   p50_read US           median rpc.time of READ replies (microseconds)
wire() {
	local port decode=()
	# Decoded as RPC by the server's ports, named (-d), not found by tshark's heuristics
	# (a guess is not a judge to rely on). tshark tries a connection's server port, as
	# its SYN says, before the other one: libnfs binds reserved client ports (512-1023),
	# where protocols tshark knows have ports of their own (decoded by port alone, one
	# run's nfs-cat connection, READs and all, was taken for something else).
	for port in $2; do
		decode+=(-d "tcp.port==$port,rpc")
	done
	tshark -r "$1" "${decode[@]}" -o tcp.reassemble_out_of_order:TRUE \
		-Y rpc -T fields -E separator=/t -E occurrence=a -E aggregator=, \
		-e frame.time_epoch -e rpc.msgtyp -e rpc.program -e rpc.programversion \
		-e rpc.procedure -e rpc.time -e nfs.ops.count -e nfs.opcode 2>/dev/null | python3 -c '
import statistics, sys
since = float(sys.argv[1]) / 1e9 if len(sys.argv) > 1 else 0
until = float(sys.argv[2]) / 1e9 if len(sys.argv) > 2 else float("inf")
plumbing = {53, 42, 43, 44, 57, 58, 35, 36, 30, 22, 24, 10, 9}
opening = {18, 4, 20}
n = {"read": 0, "write": 0, "meta": 0}
io_times, rtt = [], []
def split(s):
    return s.split(",") if s else []
for line in sys.stdin:
    t, typ, prog, vers, proc, rtime, counts, opcodes = (line.rstrip("\n").split("\t") + [""] * 8)[:8]
    t = float(t)
    typ, prog, vers, proc = split(typ), split(prog), split(vers), split(proc)
    if typ and all(x == "1" for x in typ):
        # Replies: the latency tshark gives NFSv3 READs (the programs of replies are
        # not listed, so only frames of v3 READ replies alone count).
        if set(proc) == {"6"} and rtime and not counts:
            rtt += [float(x) * 1e6 for x in split(rtime)]
        continue
    if t < since or t > until:
        continue
    ops = [int(o) for o in split(opcodes)]
    comp = []
    for c in split(counts):
        comp.append(ops[:int(c)])
        ops = ops[int(c):]
    comp = iter(comp)
    for i in range(len(typ)):
        if typ[i] != "0" or i >= len(prog) or prog[i] != "100003" or proc[i] == "0":
            continue
        if vers[i] == "3":
            kind = {"6": "read", "7": "write", "19": None}.get(proc[i], "meta")
            if kind:
                n[kind] += 1
            if kind in ("read", "write"):
                io_times.append(t)
            continue
        c = next(comp, [])
        if 25 in c or 38 in c:
            n["read"] += c.count(25)
            n["write"] += c.count(38)
            io_times.append(t)
        elif set(c) - plumbing and not set(c) & opening:
            n["meta"] += 1
for k, v in n.items():
    print(k, v)
print("span", max(io_times) - min(io_times) if io_times else 0)
print("p50_read", statistics.median(rtt) if rtt else 0)
' ${3:+"$3" "$4"}
}
# server_ports CAPTURE: the ports the capture's servers answered on (sources of SYN-ACKs),
# for a capture made elsewhere (tests/data's: its README says how, not which ports).
server_ports() {
	tshark -r "$1" -Y "tcp.flags.syn == 1 && tcp.flags.ack == 1" -T fields -e tcp.srcport \
		2>/dev/null | sort -un | tr '\n' ' '
}
val() { awk -v k="$1" '$1 == k { print $2 }' "$2"; }

# within NAME A B PCT: |A - B| <= PCT% of B
within() {
	check "$1: $2 within $4% of $3" python3 -c "import sys; a, b, p = map(float, sys.argv[1:]); sys.exit(0 if abs(a - b) <= p / 100 * b else 1)" "$2" "$3" "$4"
}

# replay_check NAME TRACE URL [SPEED]: replays TRACE on URL (a work directory of its own,
# removed after), captured; checks the counts, the span, the statuses, the latency.
replay_check() {
	local name=$1 trace=$2 url=$3 speed=${4:-1} dir start span_tr span_rp ports
	dir=rp-$name
	dir=${dir//[^A-Za-z0-9-]/-}
	# A capture made here went to this server's ports; one from tests/data to its own.
	ports="$NFS_PORT $MNT_PORT"
	[[ $trace == "$DATA"/* ]] && ports=$(server_ports "$trace")
	check_match "$name: the capture's server ports found" "^[0-9]+( [0-9]+)* ?$" "$ports"
	wire "$trace" "$ports" >"$TMP/trace.counts"
	capture_start "tcp port $NFS_PORT or tcp port $MNT_PORT" || return
	nl --replay "$trace" --replay-speed "$speed" --dir "$dir" --output-format json "$url"
	capture_stop || return
	check_eq "$name: exit 0" 0 "$RC"
	json_ok "$OUT" || { t_fail "$name: JSON" "$(head -c 300 "$ERR")"; return; }
	start=$(jqv .start_unix_ns)
	wire "$CAP" "$NFS_PORT $MNT_PORT" "$start" "$((start + $(jqv .duration_ns)))" >"$TMP/replay.counts"
	for k in read write; do
		if [[ $(val $k "$TMP/trace.counts") -gt 0 ]]; then
			within "$name: $k calls on the wire" "$(val $k "$TMP/replay.counts")" \
				"$(val $k "$TMP/trace.counts")" 1
		else
			check_eq "$name: no $k calls, as in the capture" 0 "$(val $k "$TMP/replay.counts")"
		fi
	done
	within "$name: other requests on the wire" "$(val meta "$TMP/replay.counts")" \
		"$(val meta "$TMP/trace.counts")" 20
	check_eq "$name: no new errors" 0 "$(jqv .replay.new_errors)"
	if [[ $(jqv .replay.new_errors) != 0 ]]; then
		echo "# $name: errors by op $(jq -c '[.ops | to_entries[] |
			select(.value.errors > 0) | {(.key): .value.errors}]' "$OUT"), by connection \
			$(jq -c '[.connections[]? | .errors_by_kind]' "$OUT"), late $(jqv .replay.late)"
	fi
	check_eq "$name: every operation issued" 0 "$(jqv .replay.not_issued)"
	check_eq "$name: nothing failed that did not fail in the capture" 0 "$(jqv .total.errors)"
	span_tr=$(val span "$TMP/trace.counts")
	span_rp=$(val span "$TMP/replay.counts")
	# The pace, judged where 15% of the span is well above a loaded host's lateness (a
	# few to 15 ms under TSan): the fio captures' 2 s. A capture of a fraction of a
	# second (libnfs's 66 ms, the mix's 0.4 s) would judge the host, not the replay.
	if [[ $speed != max ]] && python3 -c "import sys; sys.exit(0 if $span_tr >= 1 else 1)"; then
		within "$name: span of the READs and WRITEs on the wire (x$speed)" "$span_rp" \
			"$(python3 -c "print($span_tr / $speed)")" 15
	fi
	echo "# $name: $(tr '\n' ' ' <"$TMP/trace.counts") | replay: $(tr '\n' ' ' <"$TMP/replay.counts")"
}

# Bad input: one line, exit 2, nothing written (no work directory made).
printf 'not a capture at all\n' >"$TMP/bad.pcap"
nl --replay "$TMP/bad.pcap" --dir rp-bad "$URL3"
check_eq "not a capture: exit 2" 2 "$RC"
check_eq "not a capture: one line" 1 "$(wc -l <"$ERR")"
check_match "not a capture: says so" "bad.pcap: not a pcap or pcapng capture" "$(cat "$ERR")"
check "not a capture: nothing written" test ! -e "$EXPORT_DIR/rp-bad"
nl --replay "$TMP/none.pcap" --dir rp-bad "$URL3"
check_eq "missing capture: exit 2" 2 "$RC"
nl --replay "$DATA/fio-v3-randrw.pcap.gz" -c 4 --dir rp-bad "$URL3"
check_eq "--replay with -c: exit 2" 2 "$RC"
check_match "--replay with -c: names it" "not with --connections" "$(cat "$ERR")"
nl --replay-speed 2 --dir rp-bad "$URL3"
check_eq "--replay-speed alone: exit 2" 2 "$RC"
nl --replay "$DATA/fio-v3-randrw.pcap.gz" --replay-speed fast --dir rp-bad "$URL3"
check_eq "--replay-speed fast: exit 2" 2 "$RC"
check "bad input: nothing written" test ! -e "$EXPORT_DIR/rp-bad"

# fio's nfs engine: NFSv3 random 70/30 twice as fast, NFSv4.0 random reads as captured
# (replayed over NFSv4.1), and the NFSv3 one over NFSv4.1 as fast as it allows.
replay_check "fio v3 randrw x2" "$DATA/fio-v3-randrw.pcap.gz" "$URL3" 2
p50_tr=$(val p50_read "$TMP/trace.counts")
p50_ours=$(jq '.replay.ops.read.trace.lat_ns.p50 / 1000' "$OUT")
within "fio v3 randrw: the capture's READ p50 in the report (tshark's rpc.time)" "$p50_ours" "$p50_tr" 5
check "fio v3 randrw: the work directory removed" test ! -e "$EXPORT_DIR/rp-fio-v3-randrw-x2"
replay_check "fio v4.0 randread" "$DATA/fio-v40-randread.pcap.gz" "$URL41"
nl --replay "$DATA/fio-v3-randrw.pcap.gz" --replay-speed max --dir rp-max --output-format json \
	--report "$TMP/replay.html" "$URL41"
check_eq "fio v3 randrw on v4.1, max: exit 0" 0 "$RC"
check_match "fio v3 randrw on v4.1, max: the HTML report's replay section" \
	'<section id="replay"><h2>Replay</h2>.*<td>read</td><td>700</td>' \
	"$(tr -d '\n' <"$TMP/replay.html")"
check_eq "fio v3 randrw on v4.1, max: 700 reads, 300 writes" "700 300" \
	"$(jq -r '"\(.ops.read.count) \(.ops.write.count)"' "$OUT")"
check_eq "fio v3 randrw on v4.1, max: no errors" 0 "$(jqv .total.errors)"

# Damaged captures: what can be decoded is replayed, one line says what was left out.
zcat "$DATA/fio-v3-randrw.pcap.gz" >"$TMP/fio3.pcap"
editcap -s 300 "$TMP/fio3.pcap" "$TMP/cut.pcap"
nl --replay "$TMP/cut.pcap" --replay-speed max --dir rp-cut --output-format json "$URL3"
check_eq "snap length 300: exit 0" 0 "$RC"
check_eq "snap length 300: one line on stderr" 1 "$(wc -l <"$ERR")"
check_match "snap length 300: says what was left out" \
	"left out: .*packets cut by the snap length" "$(cat "$ERR")"
check_ge "snap length 300: READs (short calls) replayed" 1 "$(jqv .ops.read.count)"
check_le "snap length 300: no more READs than the capture had" 700 "$(jqv .ops.read.count)"
check_match "snap length 300: the report says it too" "cut by the snap length" \
	"$(jqv .replay.trace.left_out)"
head -c 2500000 "$TMP/fio3.pcap" >"$TMP/trunc.pcap"
nl --replay "$TMP/trunc.pcap" --replay-speed max --dir rp-cut "$URL3"
check_eq "truncated: exit 0" 0 "$RC"
check_match "truncated: one line, what was left out" "^nfsload: --replay .*left out: " \
	"$(cat "$ERR")"

# libnfs's utilities, captured here: copy a file in, read it back, list a directory.
mkdir -p "$EXPORT_DIR/lsdir" && for i in $(seq 1 20); do : >"$EXPORT_DIR/lsdir/e$i"; done
head -c 3000000 /dev/urandom >"$TMP/src.bin"
U3="nfs://127.0.0.1/export/%s?version=3&nfsport=$NFS_PORT&mountport=$MNT_PORT"
if capture_start "tcp port $NFS_PORT or tcp port $MNT_PORT"; then
	# shellcheck disable=SC2059
	{ nfs-cp "$TMP/src.bin" "$(printf "$U3" cp.bin)" &&
	  nfs-cat "$(printf "$U3" cp.bin)" >"$TMP/back.bin" &&
	  nfs-ls -R "$(printf "$U3" lsdir)"; } >"$TMP/libnfs.out" 2>&1
	check_eq "libnfs utilities: ran" 0 "$?"
	capture_stop && cp "$CAP" "$TMP/libnfs.pcap"
fi
check "libnfs utilities: the file came back" cmp -s "$TMP/src.bin" "$TMP/back.bin"
rm -rf "$EXPORT_DIR/lsdir" "$EXPORT_DIR/cp.bin"
replay_check "libnfs nfs-cp, nfs-cat, nfs-ls" "$TMP/libnfs.pcap" "$URL3"
# Kept: the names the capture needed, in the work directory only; a second replay on them.
nl --replay "$TMP/libnfs.pcap" --replay-speed max --dir rp-keep --keep "$URL3"
check_eq "libnfs, kept: exit 0" 0 "$RC"
check "libnfs, kept: its data file" test -f "$EXPORT_DIR/rp-keep/file.000000"
check_ge "libnfs, kept: the data file as large as the reads need" 3000000 \
	"$(stat -c %s "$EXPORT_DIR/rp-keep/file.000000")"
check_eq "libnfs, kept: nothing outside the work directory" "rp-keep" \
	"$(ls "$EXPORT_DIR" | tr '\n' ' ' | sed 's/ $//')"
nl --replay "$TMP/libnfs.pcap" --replay-speed max --dir rp-keep --keep "$URL3"
check_eq "libnfs, again on what was kept: exit 0" 0 "$RC"
check_match "libnfs, again: no new errors" " 0 new errors" "$(cat "$OUT")"

# nfsload's own metadata mix, on two connections: many requests of many kinds.
if capture_start "tcp port $NFS_PORT or tcp port $MNT_PORT"; then
	nl --engine native -c 2 -q 1 --dir mixsrc --runtime 300ms \
		--mix getattr=30,lookup=25,access=15,readdir=10,setattr=10,mkdir=5,rmdir=5 "$URL3"
	check_eq "mix capture: exit 0" 0 "$RC"
	capture_stop && cp "$CAP" "$TMP/mix.pcap"
fi
replay_check "nfsload --mix" "$TMP/mix.pcap" "$URL3"
# One connection makes and removes the trees the others work in: at max speed only the
# capture's order on names keeps them apart.
nl --replay "$TMP/mix.pcap" --replay-speed max --dir rp-mixmax --output-format json "$URL3"
check_eq "nfsload --mix, max: exit 0" 0 "$RC"
check_eq "nfsload --mix, max: no new errors" 0 "$(jqv .replay.new_errors)"
check_eq "nfsload --mix, max: every operation issued" 0 "$(jqv .replay.not_issued)"

# An NFSv4.2 capture (READ_PLUS, SEEK, ALLOCATE ... made by hand: tests/data/README) needs a
# 4.2 connection and the native engine: refused with one line, exit 2, nothing written.
has42="NFSv4.2 (version=4.2 or version=4 in the URL) and the native engine"
nl --replay "$DATA/v42-made.pcap" --dir rp-v42 --keep "$URL3"	# (kept: what a run would leave)
check_eq "v4.2 capture on version=3: exit 2" 2 "$RC"
check_eq "v4.2 capture on version=3: one line naming the op and what has it" \
	"nfsload: --replay $DATA/v42-made.pcap: read_plus needs $has42, not version=3" "$(cat "$ERR")"
nl --replay "$DATA/v42-made.pcap" --dir rp-v42 "$URL41"
check_eq "v4.2 capture on version=4.1: exit 2" 2 "$RC"
check_eq "v4.2 capture on version=4.1: one line" \
	"nfsload: --replay $DATA/v42-made.pcap: read_plus needs $has42, not version=4.1" \
	"$(cat "$ERR")"
nl --replay "$DATA/v42-made.pcap" --dir rp-v42 --engine libnfs "$URL4"
check_eq "v4.2 capture on libnfs: exit 2" 2 "$RC"
check_match "v4.2 capture on libnfs: names the engine" "with --engine libnfs$" "$(cat "$ERR")"
check "v4.2 capture: nothing written" test ! -e "$EXPORT_DIR/rp-v42"

# wire42 CAPTURE [SINCE_NS UNTIL_NS]: the NFSv4.2 operations of the calls to this server
# (COMPOUNDs of minor version 2, tshark's own dissector), "NAME N" per opcode seen.
wire42() {
	tshark -r "$1" -d "tcp.port==$NFS_PORT,rpc" -o tcp.reassemble_out_of_order:TRUE \
		-Y "tcp.dstport == $NFS_PORT && nfs.minorversion == 2" -T fields -E occurrence=a \
		-E aggregator=, -e frame.time_epoch -e nfs.opcode 2>/dev/null | python3 -c '
import sys
since = float(sys.argv[1]) / 1e9 if len(sys.argv) > 1 else 0
until = float(sys.argv[2]) / 1e9 if len(sys.argv) > 2 else float("inf")
names = {68: "read_plus", 69: "seek", 59: "allocate", 62: "deallocate", 63: "io_advise",
         60: "copy", 71: "clone", 72: "getxattr", 73: "setxattr", 74: "listxattrs",
         75: "removexattr"}
n = {}
for line in sys.stdin:
    t, ops = (line.rstrip("\n").split("\t") + [""])[:2]
    if not since <= float(t) <= until:
        continue
    for o in ops.split(",") if ops else []:
        if int(o) in names:
            n[names[int(o)]] = n.get(names[int(o)], 0) + 1
for k in sorted(n):
    print(k, n[k])
' ${2:+"$2" "$3"}
}

# replay_v42: a 4.2 client's capture (nfsload's own --mix of READ_PLUS, SEEK, ALLOCATE,
# DEALLOCATE on version=4.2; not IO_ADVISE: nfs-ganesha 4.3 dies at the CLOSE of a file
# that got one, see tests/v42.sh, and the replay needs the server after) replayed on version=4.2 and on version=4 (asked for
# 4.2): each v4.2 operation on the replay's wire, in COMPOUNDs of minor version 2, as many
# times as in the capture (tshark counts both), the report's counts the same, no new errors.
# Needs the native engine's NFSv4.2 (issue 30's other parts) and a ganesha that grants 4.2.
replay_v42() {
	local url42=${URL4/version=4/version=4.2} url start k v
	if capture_start "tcp port $NFS_PORT"; then
		nl -c 2 -q 2 --dir v42src --size 1m --bs 4k --runtime 500ms \
			--mix read_plus=2,seek=1,allocate=1,deallocate=1 "$url42"
		check_eq "v4.2 mix capture: exit 0" 0 "$RC"
		capture_stop && cp "$CAP" "$TMP/v42.pcap"
	fi
	[[ -s $TMP/v42.pcap ]] || return
	wire42 "$TMP/v42.pcap" >"$TMP/v42.trace.counts"
	check_eq "v4.2 mix capture: its v4.2 ops on the wire" \
		"allocate deallocate read_plus seek" \
		"$(awk '{ print $1 }' "$TMP/v42.trace.counts" | tr '\n' ' ' | sed 's/ $//')"
	for url in "$url42" "$URL4"; do
		v=${url#*\?}
		v=${v%%&*}	# "version=4.2": the check names' (the ports vary)
		capture_start "tcp port $NFS_PORT" || return
		nl --replay "$TMP/v42.pcap" --dir rp-v42e --output-format json "$url"
		capture_stop || return
		check_eq "v4.2 replay on $v: exit 0" 0 "$RC"
		json_ok "$OUT" || { t_fail "v4.2 replay on $v: JSON" "$(head -c 300 "$ERR")"; continue; }
		start=$(jqv .start_unix_ns)
		wire42 "$CAP" "$start" "$((start + $(jqv .duration_ns)))" >"$TMP/v42.replay.counts"
		check_eq "v4.2 replay on $v: each v4.2 op on the wire (minor version 2) as in the capture" \
			"$(cat "$TMP/v42.trace.counts")" "$(cat "$TMP/v42.replay.counts")"
		# sent: done and failed (nfs-ganesha 4.3 answers every READ_PLUS short, see
		# tests/v42.sh: errors in the trace's replies and the replay's alike)
		for k in $(awk '{ print $1 }' "$TMP/v42.trace.counts"); do
			check_eq "v4.2 replay on $v: $k in the report as on the capture's wire" \
				"$(val "$k" "$TMP/v42.trace.counts")" "$(jqv ".ops.$k.ops + .ops.$k.errors")"
		done
		check_eq "v4.2 replay on $v: no new errors" 0 "$(jqv .replay.new_errors)"
		echo "# v4.2 replay on $v: capture $(tr '\n' ' ' <"$TMP/v42.trace.counts")| replay $(tr '\n' ' ' <"$TMP/v42.replay.counts")"
	done
}
if "$NFSLOAD" --version 2>&1 | grep -q "NFSv4\.2"; then
	replay_v42
else
	t_skip "v4.2 replay end to end" "this build's engines do not speak NFSv4.2 ($NFSLOAD --version)"
fi

t_summary
