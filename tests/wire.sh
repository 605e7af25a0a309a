#!/usr/bin/env bash
# nfsload's NFS on the wire, judged by an independent reader: tshark (Wireshark's
# dissectors) decodes a capture on the loopback interface, filtered to the private
# nfs-ganesha's two ports, of runs against it. What tshark counts must be what nfsload
# reports, and what it decodes must be well-formed NFS:
#   - NFSv3, both NFS engines: one READ call and one NFS3_OK reply per read reported,
#     every call AUTH_SYS; the native engine: one MNT per connection, one UMNT per run;
#   - NFSv3, both engines, one seeded 4 KiB randrw: the same counts, on the wire too;
#   - NFSv4.1 (native), two connections on one session: one READ operation per read,
#     every COMPOUND but EXCHANGE_ID, CREATE_SESSION and DESTROY_CLIENTID opens with
#     SEQUENCE, each slot's sequence ids go 1, 2, 3 ... without a gap or a repeat, the
#     session carried by both connections, each client and session set up and destroyed
#     once (RECLAIM_COMPLETE before any OPEN); 1 MiB WRITEs as one operation each.
# Needs NFSLOAD, HELPERS, jq, tshark (capture needs root, as the server does).
set -uo pipefail
. "$(dirname "$0")/lib.sh"

t_start_server || exit 1
URL41=${URL4/version=4/version=4.1}
. "$(dirname "$0")/capture.sh"
trap '[[ -n $TSHARK_PID ]] && kill -INT "$TSHARK_PID" 2>/dev/null; t_cleanup' EXIT

# tsh ARGS...: tshark reading the capture (capture_read: segments reassembled in sequence
# order, as loopback may hand them over out of it), RPC decoded on both ports.
tsh() {
	capture_read -d "tcp.port==$NFS_PORT,rpc" -d "tcp.port==$MNT_PORT,rpc" "$@"
}
# count_rpc PROG PROC MSGTYP [STATUS_FIELD]: records on the wire (several may share a
# frame) of program PROG, procedure PROC, calls (0) or replies (1); with STATUS_FIELD,
# only replies whose status field is 0.
count_rpc() {
	tsh -T fields -E occurrence=a -E aggregator=, -e rpc.program -e rpc.procedure \
		-e rpc.msgtyp ${4:+-e "$4"} |
		awk -F'\t' -v prog="$1" -v proc="$2" -v typ="$3" -v st="${4:-}" '
		{ n = split($1, p, ","); split($2, q, ","); split($3, m, ",")
		  if (st != "") split($4, s, ",")
		  for (i = 1; i <= n; i++)
			if (p[i] == prog && q[i] == proc && m[i] == typ && (st == "" || s[i] == "0"))
				c++ }
		END { print c + 0 }'
}
malformed() { tsh -Y "_ws.malformed" | wc -l; }
# count_field FIELD VALUE: occurrences of FIELD equal to VALUE, over every record.
count_field() {
	tsh -T fields -E occurrence=a -E aggregator=, -e "$1" | tr ',' '\n' | grep -c "^$2\$"
}

# Files laid out beforehand, outside the captures.
nl --engine native --dir wire -c 2 -q 4 --rw write --bs 1m --size 1m --nrfiles 2 --keep "$URL3"
check_eq "layout: exit 0" 0 "$RC"

# --- NFSv3 set-up: 8 connections on 2 files, each file looked up twice (the control
# connection's check of the layout, then the first connection to have it: the others
# take its handle, src/engine/native/native_known.c), and 2 MNTs (control, first data one).
if capture_start "tcp port $NFS_PORT or tcp port $MNT_PORT"; then
	nl --engine native --dir wire -c 8 -q 1 --rw read --bs 4k --size 1m --nrfiles 2 \
		--runtime 1s --keep "$URL3"
	capture_stop
	check_eq "v3 native set-up of 8: exit 0" 0 "$RC"
	check_eq "v3 native set-up of 8: each file looked up twice" \
		"file.000000 file.000000 file.000001 file.000001" \
		"$(tsh -Y 'rpc.msgtyp == 0 && nfs.procedure_v3 == 3' -T fields -e nfs.name |
			grep '^file\.' | sort | tr '\n' ' ' | sed 's/ $//')"
	check_eq "v3 native set-up of 8: 2 MNT calls" 2 "$(count_rpc 100005 1 0)"
	capture_explain
fi

# --- NFSv3 -------------------------------------------------------------------------
for engine in native libnfs; do
	name="v3 $engine"
	capture_start "tcp port $NFS_PORT or tcp port $MNT_PORT" || break
	nl --engine "$engine" --dir wire -c 2 -q 4 --rw read --bs 4k --size 1m --nrfiles 2 \
		--keep --output-format json "$URL3"
	capture_stop
	check_eq "$name: exit 0" 0 "$RC"
	reads=$(jqv .ops.read.count)
	check_eq "$name: 2 x 1 MiB in 4 KiB reads reported" 512 "$reads"
	check_eq "$name: READ calls on the wire == reads reported" "$reads" "$(count_rpc 100003 6 0)"
	check_eq "$name: NFS3_OK READ replies == reads reported" "$reads" \
		"$(count_rpc 100003 6 1 nfs.status)"
	check_eq "$name: every READ asked for 4096 bytes" "" \
		"$(tsh -Y 'rpc.msgtyp == 0 && nfs.procedure_v3 == 6' -T fields -E occurrence=a \
			-E aggregator=, -e nfs.count3 | tr ',' '\n' | grep -v '^4096$' | sort -u)"
	check_eq "$name: every call AUTH_SYS as uid 0, with a machine name" \
		"$(count_field rpc.msgtyp 0) $(count_field rpc.msgtyp 0)" \
		"$(count_field rpc.auth.uid 0) $(count_field rpc.auth.machinename '.\+')"
	check_eq "$name: nothing malformed" 0 "$(malformed)"
	if [[ $engine == native ]]; then
		# The control connection's MNT and the first data connection's: the second
		# takes the handles the first got (src/engine/native/native_known.c). One UMNT.
		check_eq "$name: MNT calls: the control connection's and the first data one's" 2 \
			"$(count_rpc 100005 1 0)"
		check_eq "$name: one UMNT for the run" 1 "$(count_rpc 100005 3 0)"
		check_eq "$name: the UMNT answered" 1 "$(count_rpc 100005 3 1)"
	fi
	capture_explain
done

# --- Two independent clients as each other's oracle ---------------------------------
# The same seeded 4 KiB randrw, a fixed amount of it, through both engines against the
# same files: each engine reports the same reads, writes and bytes (per connection too)
# as the other, no error, and the server is sent exactly that many READ and WRITE calls
# and answers each NFS3_OK. On the files laid out above (2 x 1 MiB in /wire).
for engine in libnfs native; do
	name="agree $engine"
	capture_start "tcp port $NFS_PORT" || break
	nl --engine "$engine" --dir wire -c 2 -q 4 --rw randrw --bs 4k --size 1m --nrfiles 2 \
		--io-size 2m --seed 7 --skip-layout --keep --output-format json "$URL3"
	capture_stop
	check_eq "$name: exit 0, no errors" "0 0" "$RC $(jqv .total.errors)"
	check_eq "$name: 512 operations of 4 KiB" "512 $((2 << 20))" \
		"$(jqv '"\(.total.count) \(.ops.read.bytes + .ops.write.bytes)"')"
	# One decoding of the capture: READ (6) and WRITE (7) calls, and their NFS3_OK replies.
	tsh -T fields -E occurrence=a -E aggregator=, -e rpc.program -e rpc.procedure \
		-e rpc.msgtyp -e nfs.status |
		awk -F'\t' '{ n = split($1, p, ","); split($2, q, ","); split($3, m, ",")
			       split($4, s, ",")
			       for (i = 1; i <= n; i++)
				if (p[i] == 100003 && (q[i] == 6 || q[i] == 7) &&
				    (m[i] == 0 || s[i] == "0"))
					c[q[i] " " m[i]]++ }
			     END { printf "%d %d %d %d\n", c["6 0"], c["7 0"], c["6 1"], c["7 1"] }' \
		>"$TMP/agree-wire-$engine"
	check_eq "$name: the server got the READ and WRITE calls reported, each NFS3_OK" \
		"$(jqv '"\(.ops.read.count) \(.ops.write.count) \(.ops.read.count) \(.ops.write.count)"')" \
		"$(cat "$TMP/agree-wire-$engine")"
	jqv '"reads \(.ops.read.count) \(.ops.read.bytes) writes \(.ops.write.count) \(.ops.write.bytes) conns \([.connections[].ops] | map(tostring) | join(","))"' \
		>"$TMP/agree-$engine"
	capture_explain
done
echo "# agree: libnfs: $(cat "$TMP/agree-libnfs"); native: $(cat "$TMP/agree-native")"
check_eq "agree: both engines count the same reads, writes, bytes per connection" \
	"$(cat "$TMP/agree-libnfs")" "$(cat "$TMP/agree-native")"
check_eq "agree: the server saw the same READ and WRITE calls from both" \
	"$(cat "$TMP/agree-wire-libnfs")" "$(cat "$TMP/agree-wire-native")"

# --- NFSv4.1, two connections on one session ------------------------------------------
# The COMPOUNDs as tshark decodes them, one line per call in capture order:
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
    for rpc, nfs in zip(aslist(l["rpc"]), aslist(l.get("nfs", []))):
        if rpc.get("rpc.msgtyp") != "0" or "nfs.ops.count_tree" not in nfs:
            continue
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
# op_count OP: operations OP in the calls.
op_count() { awk -v op="$1" '{ n = split($5, o, ","); for (i = 1; i <= n; i++) c += o[i] == op } END { print c + 0 }' "$TMP/compounds"; }

name="v4.1 one session of 2"
if capture_start "tcp port $NFS_PORT or tcp port $MNT_PORT"; then
	nl --engine native --dir wire -c 2 --connections-per-session 2 -q 4 --rw read --bs 4k \
		--size 1m --nrfiles 2 --keep --output-format json "$URL41"
	capture_stop
	compounds >"$TMP/compounds"
	check_eq "$name: exit 0" 0 "$RC"
	reads=$(jqv .ops.read.count)
	check_eq "$name: 512 reads reported" 512 "$reads"
	check_eq "$name: READ operations on the wire == reads reported" "$reads" "$(op_count 25)"
	# The control connection's client and session, and the data session's.
	for op in 42:EXCHANGE_ID 43:CREATE_SESSION 58:RECLAIM_COMPLETE 44:DESTROY_SESSION \
		57:DESTROY_CLIENTID; do
		check_eq "$name: ${op#*:} twice (control, data)" 2 "$(op_count "${op%%:*}")"
	done
	check_eq "$name: every other COMPOUND opens with SEQUENCE" "" \
		"$(awk '$2 == "-" && $5 !~ /^(42|43|57)$/' "$TMP/compounds")"
	check_eq "$name: each slot's sequence ids 1, 2, 3 ... (no gap, no repeat)" "" \
		"$(awk '$2 != "-" { k = $2 " " $3; if ($4 != last[k] + 1) print k ": " last[k] " then " $4; last[k] = $4 }' "$TMP/compounds")"
	check_eq "$name: one session on two connections, one on one (control)" "1 2" \
		"$(awk '$2 != "-" { s[$2 " " $1] = 1 } END { for (k in s) { split(k, a, " "); n[a[1]]++ }
			for (x in n) print n[x] }' "$TMP/compounds" | sort -n | tr '\n' ' ' | sed 's/ $//')"
	check_eq "$name: RECLAIM_COMPLETE before any OPEN on each session" "" \
		"$(awk '$2 != "-" { if ($5 ~ /(^|,)58(,|$)/) r[$2] = 1; if ($5 ~ /(^|,)18(,|$)/ && !r[$2]) print $2 }' "$TMP/compounds")"
	check_eq "$name: nothing malformed" 0 "$(malformed)"
	capture_explain
fi

name="v4.1 1 MiB writes"
if capture_start "tcp port $NFS_PORT or tcp port $MNT_PORT"; then
	nl --engine native --dir wire -c 2 --connections-per-session 2 -q 2 --rw write --bs 1m \
		--size 1m --nrfiles 2 --keep --output-format json "$URL41"
	capture_stop
	check_eq "$name: exit 0" 0 "$RC"
	writes=$(jqv .ops.write.count)
	check_eq "$name: 2 writes reported" 2 "$writes"
	check_eq "$name: each a WRITE of 1048576 bytes on the wire" "1048576 1048576" \
		"$(tsh -Y 'rpc.msgtyp == 0 && nfs.opcode == 38' -T fields -E occurrence=a \
			-E aggregator=, -e nfs.write.data_length | tr ',' '\n' | sort | tr '\n' ' ' | sed 's/ $//')"
	check_eq "$name: nothing malformed" 0 "$(malformed)"
	capture_explain
fi

t_summary
