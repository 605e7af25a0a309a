# shellcheck shell=bash
# A tshark capture on the loopback interface, for the suites that judge nfsload by what
# goes over the wire (wire.sh, wiretime.sh). Source it after lib.sh; the script's EXIT
# trap should end a capture left running ($TSHARK_PID).
#
#   capture_start FILTER   tshark on lo with the capture filter FILTER (e.g. "tcp port
#                          $NFS_PORT"), into $CAP, until capture_stop; false if it did not start
#   capture_stop           the last packets in, then tshark ended

CAP=$TMP/cap.pcap
TSHARK_PID=

capture_start() {
	local i
	rm -f "$CAP"
	: >"$TMP/tshark.err"
	timeout -k 10 120 tshark -q -B 64 -i lo -f "$1" -w "$CAP" 2>"$TMP/tshark.err" &
	TSHARK_PID=$!
	for ((i = 0; i < 100; i++)); do
		if grep -q "Capturing on" "$TMP/tshark.err"; then
			sleep 1	# dumpcap says so a moment before its first packet (seen under load)
			return 0
		fi
		sleep 0.1
	done
	t_fail "capture: tshark started" "$(cat "$TMP/tshark.err")"
	return 1
}

capture_stop() {
	sleep 0.3	# the last replies and the FINs reach the capture
	kill -INT "$TSHARK_PID" 2>/dev/null
	wait "$TSHARK_PID" 2>/dev/null
	TSHARK_PID=
}
