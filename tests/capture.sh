# shellcheck shell=bash
# A tshark capture on the loopback interface, for the suites that judge nfsload by what
# goes over the wire (wire.sh, wiretime.sh). Source it after lib.sh; the script's EXIT
# trap should end a capture left running ($TSHARK_PID).
#
#   capture_start FILTER   tshark on lo with the capture filter FILTER (e.g. "tcp port
#                          $NFS_PORT"), into $CAP, until capture_stop; returns once the
#                          capture is live; false (and a failed check) if it did not start
#   capture_stop           returns once every packet sent before it is in $CAP and tshark
#                          has ended; false (and a failed check) if not, or if the capture
#                          dropped packets
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

CAP=$TMP/cap.pcap
TSHARK_PID=
CAP_MARK_PORT=7
CAP_MARKS=0
CAP_TOKEN=
CAP_WAIT_S=60	# a bound for a broken capture, not a timing assumption

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
	timeout -k 10 300 tshark -q -B 64 -i lo \
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
	t_fail "capture: tshark started and saw its start mark" \
		"last mark $CAP_TOKEN; tshark: $(cat "$TMP/tshark.err")"
	capture_kill
	return 1
}

capture_kill() {
	kill -INT "$TSHARK_PID" 2>/dev/null
	wait "$TSHARK_PID" 2>/dev/null
	TSHARK_PID=
}

capture_stop() {
	local i token
	capture_mark end
	token=$CAP_TOKEN
	for ((i = 0; i < CAP_WAIT_S * 10; i++)); do
		capture_has "$token" && break
		sleep 0.1
	done
	capture_kill
	if ! capture_has "$token"; then
		t_fail "capture: complete (the end mark in the file)" \
			"no $token after ${CAP_WAIT_S}s; tshark: $(cat "$TMP/tshark.err")"
		return 1
	fi
	# tshark -q ends with "N packets captured" and, when the ring overflowed, a line
	# saying how many were dropped: such a capture cannot be judged.
	if grep -qi "dropped" "$TMP/tshark.err"; then
		t_fail "capture: no packet dropped" "$(grep -i "dropped" "$TMP/tshark.err")"
		return 1
	fi
}
