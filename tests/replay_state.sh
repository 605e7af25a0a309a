#!/usr/bin/env bash
# nfsload --replay of NFSv4 state (issue 31 item 5): the OPENs that hold, CLOSE, LOCK, LOCKU,
# LOCKT and OPEN_DOWNGRADE of a capture replayed as operations of their own, with their
# stateids and lock-owners mapped onto the replay's own (held slots), judged by tshark. Two
# captures: tests/data/v41-state.pcap (made by hand, tests/data/mkstate.py: every kind, a
# LOCKT denied, a CLOSE and a LOCK of an open it never shows) and one of nfsload's own
# native engine holding opens (--open-files) with --mix open, close, lock, unlock, lockt on
# two connections, captured here. For each kind: the report's calls = tshark's count of the
# capture's less what names an open the capture never showed (the report's skipped.state),
# the replay's wire (its measured phase) = the same, the report's ops (done, errors, denied)
# = the replay's wire; the capture's denials (NFS4ERR_DENIED, SHARE_DENIED) in the report's
# trace side; no BAD_STATEID or OLD_STATEID answered on the replay's wire (the stateids were
# the replay's own, not the capture's), no new errors, every operation issued, and nothing
# left of the work directory.
# Needs NFSLOAD, jq, python3, tshark, dumpcap.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

for tool in tshark dumpcap jq python3; do
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

KINDS="open close lock unlock lockt open_downgrade"

# state_wire CAPTURE PORT [SINCE_NS UNTIL_NS]: tshark's own count of the state operations in
# the COMPOUNDs sent to PORT (from SINCE_NS to UNTIL_NS, Unix ns, if given), "KIND N" for
# each of KINDS, but those of a COMPOUND that holds an OPEN and a CLOSE both (an open
# that holds nothing: a set-up's, a CREATE's, --mix open without --open-files; replayed
# as one operation of the set-up, a CREATE or an OPEN, not as state); and of the replies
# at any time: "denied N" (operations answered NFS4ERR_DENIED or NFS4ERR_SHARE_DENIED:
# each such COMPOUND has the status twice, its own and its last operation's),
# "bad_stateid N", "old_stateid N" (statuses seen).
state_wire() {
	tshark -r "$1" -d "tcp.port==$2,rpc" -o tcp.reassemble_out_of_order:TRUE \
		-Y "rpc && tcp.port == $2" -T fields -E occurrence=a -E aggregator=, \
		-e frame.time_epoch -e tcp.dstport -e rpc.msgtyp -e nfs.ops.count -e nfs.opcode \
		-e nfs.nfsstat4 2>/dev/null | python3 -c '
import sys
port = sys.argv[1]
since = float(sys.argv[2]) / 1e9 if len(sys.argv) > 2 else 0
until = float(sys.argv[3]) / 1e9 if len(sys.argv) > 3 else float("inf")
kinds = {18: "open", 4: "close", 12: "lock", 14: "unlock", 13: "lockt", 21: "open_downgrade"}
n = {k: 0 for k in kinds.values()}
st = {10010: 0, 10015: 0, 10025: 0, 10024: 0}
def split(s):
    return s.split(",") if s else []
for line in sys.stdin:
    t, dport, typ, counts, ops, stats = (line.rstrip("\n").split("\t") + [""] * 6)[:6]
    if dport == port and "0" in split(typ):
        if not since <= float(t) <= until:
            continue
        ops = [int(o) for o in split(ops)]
        for c in split(counts):
            comp, ops = ops[:int(c)], ops[int(c):]
            if 18 in comp and 4 in comp:
                continue
            for o in comp:
                if o in kinds:
                    n[kinds[o]] += 1
    elif dport != port:
        for s in split(stats):
            if int(s) in st:
                st[int(s)] += 1
for k, v in n.items():
    print(k, v)
print("denied", (st[10010] + st[10015]) // 2)
print("bad_stateid", st[10025])
print("old_stateid", st[10024])
' "$2" ${3:+"$3" "$4"}
}
val() { awk -v k="$1" '$1 == k { print $2 }' "$2"; }

# replay_state NAME CAPTURE PORT LEFT [SPEED]: replays CAPTURE (its server's port PORT) on
# NFSv4.1 (at --replay-speed SPEED, default the trace's pace), captured; LEFT ("close 1
# lock 1"): its state ops on an open it never shows.
replay_state() {
	local name=$1 trace=$2 port=$3 left=$4 speed=${5:-1} dir k n nleft=0 start
	dir=rs-${name//[^A-Za-z0-9-]/-}
	state_wire "$trace" "$port" >"$TMP/st.trace"
	check_ge "$name: state ops in the capture (tshark)" 1 \
		"$(awk '$1 != "denied" && $1 !~ /stateid/ { s += $2 } END { print s + 0 }' "$TMP/st.trace")"
	capture_start "tcp port $NFS_PORT" || return
	nl --replay "$trace" --replay-speed "$speed" --dir "$dir" --output-format json "$URL41"
	capture_stop || return
	check_eq "$name: exit 0" 0 "$RC"
	json_ok "$OUT" || { t_fail "$name: JSON" "$(head -c 300 "$ERR")"; return; }
	start=$(jqv .start_unix_ns)
	state_wire "$CAP" "$NFS_PORT" "$start" "$((start + $(jqv .duration_ns)))" >"$TMP/st.replay"
	for k in $KINDS; do
		n=$(($(val "$k" "$TMP/st.trace") - $(echo "$left" | awk -v k="$k" '{ for (i = 1; i < NF; i += 2) if ($i == k) print $(i + 1) }' | awk '{ s += $1 } END { print s + 0 }')))
		nleft=$((nleft + $(val "$k" "$TMP/st.trace") - n))
		check_eq "$name: $k: the report's calls = the capture's less those left out" "$n" \
			"$(jqv ".replay.ops.$k.calls // 0")"
		check_eq "$name: $k: on the replay's wire = the capture's less those left out" "$n" \
			"$(val "$k" "$TMP/st.replay")"
		check_eq "$name: $k: the report's done, errors and denied = the replay's wire" \
			"$(val "$k" "$TMP/st.replay")" \
			"$(jqv "(.ops.$k.ops // 0) + (.ops.$k.errors // 0) + (.ops.$k.denied // 0)")"
	done
	check_eq "$name: left out as on an open the capture never showed (skipped.state)" \
		"$nleft" "$(jqv .replay.skipped.state)"
	check_eq "$name: the capture's denials in the report's trace side" \
		"$(val denied "$TMP/st.trace")" "$(jqv '[.replay.ops[].trace.denied // 0] | add')"
	state_wire "$CAP" "$NFS_PORT" >"$TMP/st.replay.all"
	check_eq "$name: no BAD_STATEID answered on the replay's wire" 0 \
		"$(val bad_stateid "$TMP/st.replay.all")"
	check_eq "$name: no OLD_STATEID answered on the replay's wire" 0 \
		"$(val old_stateid "$TMP/st.replay.all")"
	check_eq "$name: no new errors" 0 "$(jqv .replay.new_errors)"
	check_eq "$name: every operation issued" 0 "$(jqv .replay.not_issued)"
	check_eq "$name: nothing failed" 0 "$(jqv .total.errors)"
	[[ $(jqv .total.errors) == 0 ]] ||
		echo "# $name: errors by op: $(jq -c '[.ops | to_entries[] | select(.value.errors > 0) |
			{(.key): .value.errors}] | add' "$OUT") by kind: $(jq -c \
			'[.connections[].errors_by_kind] | add' "$OUT")"
	check "$name: the work directory removed" test ! -e "$EXPORT_DIR/$dir"
	echo "# $name: capture $(tr '\n' ' ' <"$TMP/st.trace")| replay $(tr '\n' ' ' <"$TMP/st.replay")"
	capture_explain
}

# The capture made by hand: its CLOSE and LOCK of an open it never shows are left out.
replay_state "made v4.1 state" "$DATA/v41-state.pcap" 2049 "close 1 lock 1"

# A run that holds no state (NFSv3): the capture replayed as before (its OPENs as OPENs of
# a name, its CLOSEs with the set-up, its locks left out), not refused.
nl --replay "$DATA/v41-state.pcap" --dir rs-v3 --output-format json "$URL3"
check_eq "made v4.1 state on NFSv3: exit 0" 0 "$RC"
check_eq "made v4.1 state on NFSv3: its OPENs replayed as OPENs, nothing as state" \
	"$(val open "$TMP/st.trace") 0 0" \
	"$(jqv '"\(.replay.ops.open.calls) \(.replay.state.ops) \(.replay.state.open_slots)"')"

# nfsload's own: held opens and locks on two connections, the mix's open, close, lock,
# unlock and lockt among them.
if capture_start "tcp port $NFS_PORT"; then
	nl -c 2 -q 2 --dir stsrc --open-files 3 --size 64k --runtime 500ms \
		--mix open=2,close=2,lock=3,unlock=3,lockt=1 --output-format json "$URL41"
	check_eq "nfsload state capture: exit 0" 0 "$RC"
	capture_stop && cp "$CAP" "$TMP/own.pcap"
fi
if [[ -s $TMP/own.pcap ]]; then
	replay_state "nfsload --open-files --mix" "$TMP/own.pcap" "$NFS_PORT" ""
	# As fast as it goes: only the order of each open's own operations (the slot's
	# previous one done first) keeps a LOCK after its OPEN, a CLOSE after its LOCKU.
	replay_state "nfsload --open-files --mix, max" "$TMP/own.pcap" "$NFS_PORT" "" max
fi

t_summary
