#!/usr/bin/env bash
# One NFSv4.1 session across threads (trunking, as the Linux client's nconnect shares
# one session among its CPUs): --threads 2 --connections 16 --connections-per-session 16,
# each thread handing out only its own slice of the session's slots. Judged on the wire
# by tshark (a capture on the loopback interface, filtered to the private nfs-ganesha's
# port) and by the report:
#   - one client and one session for the 16 connections (one EXCHANGE_ID, one
#     CREATE_SESSION, one DESTROY_SESSION and DESTROY_CLIENTID on them), every SEQUENCE
#     on them carrying that session id, and each of the 16 carrying it (the control
#     connection has a client and session of its own);
#   - each slot's sequence ids going 1, 2, 3 ... without a gap or a repeat, though two
#     threads send on the session at once, and each slot's READs and WRITEs going over
#     the connections of one thread only;
#   - both threads and every connection doing I/O, no errors, and --verify clean;
#   - every READ and WRITE on the wire one the report counts (run, layout, read-back).
# Needs NFSLOAD, HELPERS, jq, python3, tshark (capture needs root, as the server does).
set -uo pipefail
. "$(dirname "$0")/lib.sh"

t_start_server || exit 1
URL41=${URL4/version=4/version=4.1}
. "$(dirname "$0")/capture.sh"
trap '[[ -n $TSHARK_PID ]] && kill -INT "$TSHARK_PID" 2>/dev/null; t_cleanup' EXIT

tsh() { capture_read -d "tcp.port==$NFS_PORT,rpc" "$@"; }
# The COMPOUND calls, one line each in capture order:
# "tcp-stream sessionid slot seqid op,op,..." (sessionid/slot/seqid "-" without SEQUENCE).
compounds() {
	tsh -Y "rpc.msgtyp == 0 && nfs.procedure_v4 == 1" -T json --no-duplicate-keys |
		python3 -c '
import json, sys
def aslist(x):
    return x if isinstance(x, list) else [x]
for f in json.load(sys.stdin):
    l = f["_source"]["layers"]
    stream = l["tcp"]["tcp.stream"]
    # A frame may hold several records, and the end of an earlier one (an "rpc" entry
    # with no message type, no "nfs" entry): pair the COMPOUND calls with their
    # "nfs" entries, not every "rpc" entry with whatever "nfs" entry comes next.
    calls = [r for r in aslist(l["rpc"]) if r.get("rpc.msgtyp") == "0" and
             r.get("rpc.program") == "100003" and r.get("rpc.procedure") == "1"]
    args_of = [n for n in aslist(l.get("nfs", [])) if "nfs.ops.count_tree" in n]
    if len(calls) != len(args_of):
        print(stream, "unpaired", "-", "-", "frame", f["_source"]["layers"]["frame"]["frame.number"])
    for nfs in args_of:
        t = nfs["nfs.ops.count_tree"]
        ops = aslist(t.get("nfs.opcode", []))
        args = aslist(t.get("nfs.opcode_tree", [{}] * len(ops)))
        sess = slot = seq = "-"
        if ops and ops[0] == "53":
            a = args[0]
            sess, slot, seq = a["nfs.session_id4"], a["nfs.slotid"], str(int(a["nfs.seqid"], 16))
        print(stream, sess, slot, seq, ",".join(ops))
'
}
op_count() { awk -v op="$1" '{ n = split($5, o, ","); for (i = 1; i <= n; i++) c += o[i] == op } END { print c + 0 }' "$TMP/compounds"; }

name="v4.1 one session of 16 on 2 threads"
if capture_start "tcp port $NFS_PORT"; then
	nl --engine native --dir trunk --threads 2 --connections 16 --connections-per-session 16 \
		-q 4 --rw randrw --bs 4k --size 1m --nrfiles 16 --io-size 24m --verify \
		--output-format json "$URL41"
	capture_stop
	compounds >"$TMP/compounds"
	check_eq "$name: exit 0" 0 "$RC"
	check_eq "$name: no errors" 0 "$(jqv '[.ops[].errors] | add')"
	check_eq "$name: verify clean" 0 "$(jqv .verify.mismatches)"
	check_ge "$name: verify read blocks back" 1 "$(jqv .verify.blocks_checked)"
	check_match "$name: the report says one session of 16" "1 session of 16 connections" \
		"$(jqv .limits_note)"
	check_eq "$name: every connection did I/O" 16 \
		"$(jqv '[.connections[] | select(.ops > 0)] | length')"
	check_eq "$name: both threads did I/O" "0 1" \
		"$(jqv '[.connections[] | select(.ops > 0) | .thread] | unique | map(tostring) | join(" ")')"
	check_eq "$name: both threads carry 8 connections each" "8 8" \
		"$(jqv '[.threads[].connections] | map(tostring) | join(" ")')"
	# The data session: the one on 16 connections (the control connection has its own,
	# and makes another should it have to mount again for the clean-up).
	check_eq "$name: one session on 16 connections" 1 \
		"$(awk '$2 != "-" && !seen[$2 " " $1]++ { n[$2]++ } END { for (x in n) if (n[x] == 16) c++; print c + 0 }' "$TMP/compounds")"
	data=$(awk '$2 != "-" && !seen[$2 " " $1]++ { n[$2]++ } END { for (x in n) if (n[x] == 16) print x }' "$TMP/compounds")
	awk -v d="$data" '$2 == d { print $1 }' "$TMP/compounds" | sort -u >"$TMP/streams"
	# on_data AWK-CONDITION: the calls on the data session's 16 connections that match it.
	on_data() { awk -v d="$data" "NR == FNR { s[\$1] = 1; next } (\$1 in s) && ($1)" "$TMP/streams" "$TMP/compounds"; }
	check_eq "$name: every SEQUENCE on those connections carries that session" "" \
		"$(on_data '$2 != "-" && $2 != d')"
	for op in 42:EXCHANGE_ID 43:CREATE_SESSION 44:DESTROY_SESSION 57:DESTROY_CLIENTID; do
		check_eq "$name: one ${op#*:} on those connections" 1 \
			"$(on_data "\$5 ~ /(^|,)${op%%:*}(,|\$)/" | wc -l)"
	done
	check_eq "$name: every other COMPOUND opens with SEQUENCE" "" \
		"$(awk '$2 == "-" && $5 !~ /^(42|43|57)$/' "$TMP/compounds")"
	check_eq "$name: each slot's sequence ids 1, 2, 3 ... (no gap, no repeat)" "" \
		"$(awk '$2 != "-" { k = $2 " " $3; if ($4 != last[k] + 1) print k ": " last[k] " then " $4; last[k] = $4 }' "$TMP/compounds" | head -5)"
	# Each thread hands out only its own slots: a slot's READs and WRITEs went over the
	# connections of one thread (8), never over all 16 (set-up's calls aside: at set-up
	# the connections share one loop and every slot).
	check_le "$name: a slot's READs and WRITEs over one thread's connections at most" 8 \
		"$(awk -v d="$data" '$2 == d && $5 ~ /(^|,)(25|38)(,|$)/ && !seen[$3 " " $1]++ { n[$3]++ }
			END { for (x in n) if (n[x] > m) m = n[x]; print m + 0 }' "$TMP/compounds")"
	# Every READ and WRITE on the wire, once each: on the data session's connections the
	# run's own, the layout's writes (and what it sent again) and the --verify pass's
	# read-back, as the report counts them (with their errors: none); elsewhere (the
	# control connection) one WRITE alone: the new work directory's marker, written in the
	# COMPOUND that creates it (SEQUENCE PUTROOTFH LOOKUP LOOKUP OPEN GETFH WRITE).
	data_rw=$(on_data '$5 ~ /(^|,)(25|38)(,|$)/' | awk '{ k = split($5, o, ","); for (i = 1; i <= k; i++) n += o[i] == 25 || o[i] == 38 } END { print n + 0 }')
	echo "# $name: on the wire READ $(op_count 25) WRITE $(op_count 38), on the data session $data_rw; report: $(jqv '"read \(.ops.read.count)+\(.ops.read.errors) write \(.ops.write.count)+\(.ops.write.errors) layout \(.layout.stats.count)+\(.layout.stats.errors) retried \(.layout.retried) verify pass \(.verify.pass.stats.count)+\(.verify.pass.stats.errors)"')"
	check_eq "$name: the READs and WRITEs on the data session, those of the run, the layout and the read-back" \
		"$(jqv '([.ops.read, .ops.write, .layout.stats, .verify.pass.stats | .count + .errors] | add) + .layout.retried')" \
		"$data_rw"
	check_eq "$name: besides, one WRITE: the work directory's marker, where it is created" \
		"1 1" "$(( $(op_count 25) + $(op_count 38) - data_rw )) $(awk '$5 ~ /(^|,)18,10,38$/' "$TMP/compounds" | wc -l)"
	check_eq "$name: nothing malformed" 0 "$(tsh -Y _ws.malformed | wc -l)"
	capture_explain
fi

t_summary
