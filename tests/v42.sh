#!/usr/bin/env bash
# NFSv4.2's operations as workload operations (--mix read_plus, seek, allocate, deallocate,
# io_advise, copy, clone and the xattr operations; --read-plus; --sparse), judged outside
# nfsload: the worker's side first with the null engine (no server: what it sends, how a
# refusal ends the run or is counted), then against a private nfs-ganesha 4.3 over
# version=4.2: each operation on the wire (tshark's own dissector, minor version 2 in the
# COMPOUND, as many as the report counts), and its effect on the server's file (stat's
# st_blocks, python's lseek(SEEK_HOLE)). ganesha 4.3 has no COPY or CLONE and its VFS
# export no xattrs: they meet the refusal path there.
# Needs NFSLOAD, HELPERS, jq, python3 and tshark (capture needs root, as the server does).
# V42_NULL_ONLY=1: the null engine's part only (no server, no capture); V42_V3_ONLY=1: that
# and --sparse over NFSv3 (what runs before the engine speaks 4.2).
set -uo pipefail
. "$(dirname "$0")/lib.sh"
if [[ -z ${V42_NULL_ONLY:-} ]]; then
	. "$(dirname "$0")/capture.sh"
	trap '[[ -n $TSHARK_PID ]] && kill -INT "$TSHARK_PID" 2>/dev/null; t_cleanup' EXIT
fi

ALL42=read_plus=1,seek=1,allocate=1,deallocate=1,io_advise=1,copy=1,clone=1,getxattr=1
ALL42=$ALL42,setxattr=1,listxattrs=1,removexattr=1
OPS42="read_plus seek allocate deallocate io_advise copy clone getxattr setxattr listxattrs removexattr"

# ---- the worker's side, with the null engine ----
# Every v4.2 op of a mix is sent and completes, beside a name op on the tree.
nl --engine null --dir n1 -c 2 -q 4 --mix "$ALL42,getattr=1" --size 1m --bs 64k --nrfiles 3 \
	--runtime 1s --output-format json
check_eq "null: a mix of every v4.2 op: exit 0" 0 "$RC"
for op in $OPS42 getattr; do
	check_ge "null: $op in the mix completes" 1 "$(jqv ".ops.$op.ops // 0")"
done
check_eq "null: no errors" 0 "$(jqv '[.ops[].errors] | add')"
check_eq "null: the mix's data files are laid out (3 of 1 MiB, beside the trees)" \
	$(((3 << 20) + 2 * 4 * 16 * 4096)) "$(jqv '.layout.stats.bytes')"
# A mix of name ops only lays out no data file, as before.
nl --engine null --dir n2 -c 1 --mix getattr=1 --size 1m --runtime 1s --output-format json
check_eq "null: a mix without v4.2 ops lays out no data file" 0 \
	"$(jqv '.layout.stats.ops - 1 * 4 * 16')"

# --read-plus: every read a READ_PLUS, its bytes split into data and holes.
nl --engine null --dir n3 -c 2 -q 2 --rw randread --read-plus --size 1m --bs 64k \
	--runtime 1s --output-format json
check_eq "null: --read-plus: exit 0" 0 "$RC"
check_eq "null: --read-plus: no READ" 0 "$(jqv .ops.read.ops)"
check_ge "null: --read-plus: reads go as READ_PLUS" 1 "$(jqv .ops.read_plus.ops)"
check_eq "null: --read-plus: 64 KiB each" $(($(jqv .ops.read_plus.ops) * 65536)) \
	"$(jqv .ops.read_plus.bytes)"
check_eq "null: --read-plus: data + holes = bytes" "$(jqv .ops.read_plus.bytes)" \
	"$(jqv '.ops.read_plus.data_bytes + .ops.read_plus.hole_bytes')"
check_eq "null: --read-plus: no holes from the null engine" 0 "$(jqv .ops.read_plus.hole_bytes)"
nl --engine null --dir n3 -c 1 --rw read --read-plus --size 1m --bs 64k
check_match "null: --read-plus: the text report splits data and holes" \
	"read_plus: 1.00 MiB of data, 0 B of holes" "$(cat "$OUT")"

# A refusal under --on-error stop: the run ends at its first use, one line, exit 1.
NFSLOAD_NULL_REFUSE=copy:ENOSYS nl --engine null --dir n4 -c 2 -q 2 \
	--mix read_plus=4,copy=1 --size 1m --bs 64k --nrfiles 2 --runtime 30s \
	--on-error stop --output-format json
check_eq "null: copy refused (OP_ILLEGAL), --on-error stop: exit 1" 1 "$RC"
check_eq "null: copy refused: one line naming the op and the answer" \
	"nfsload: copy: the server answered NFS4ERR_OP_ILLEGAL (it does not have COPY)" \
	"$(grep 'copy:' "$ERR")"
check_le "null: copy refused: the run ended before its --runtime of 30 s" 29 \
	"$(jqv '.duration_ns / 1e9 | floor')"
NFSLOAD_NULL_REFUSE=getxattr:EOPNOTSUPP nl --engine null --dir n5 -c 1 \
	--mix read_plus=1,getxattr=1 --size 1m --bs 64k --runtime 30s --on-error stop
check_eq "null: getxattr refused (NOTSUPP), --on-error stop: exit 1" 1 "$RC"
check_match "null: getxattr refused: names NFS4ERR_NOTSUPP" \
	"^nfsload: getxattr: the server answered NFS4ERR_NOTSUPP \\(it does not support GETXATTR\\)$" \
	"$(grep getxattr: "$ERR")"

# An engine that knows the server lacks the op refuses it at queue(): the same line and end.
NFSLOAD_NULL_REFUSE=seek:EOPNOTSUPP:queue nl --engine null --dir n8 -c 1 \
	--mix read_plus=1,seek=1 --size 1m --bs 64k --runtime 30s --on-error stop
check_eq "null: seek refused at queue(), --on-error stop: exit 1" 1 "$RC"
check_eq "null: seek refused at queue(): its one line" \
	"nfsload: seek: the server answered NFS4ERR_NOTSUPP (it does not support SEEK)" \
	"$(grep 'seek:' "$ERR")"
check_eq "null: seek refused at queue(): no other line on stderr" 0 \
	"$(grep -cv 'seek:' "$ERR")"

# With --on-error continue the refusals are counted, under their own status, and the run goes on.
NFSLOAD_NULL_REFUSE=clone:ENOSYS,setxattr:EOPNOTSUPP nl --engine null --dir n6 -c 2 \
	--mix getattr=1,clone=1,setxattr=1 --size 1m --bs 64k --nrfiles 2 --runtime 1s \
	--output-format json
check_eq "null: refusals with --on-error continue: exit 0" 0 "$RC"
check_eq "null: clone refused every time: no clone done" 0 "$(jqv .ops.clone.ops)"
check_ge "null: clone's refusals counted" 1 "$(jqv .ops.clone.errors)"
check_ge "null: setxattr's refusals counted" 1 "$(jqv .ops.setxattr.errors)"
check_ge "null: the run went on (getattr)" 1 "$(jqv .ops.getattr.ops)"
check_eq "null: clone's refusals named NFS4ERR_OP_ILLEGAL" "$(jqv .ops.clone.errors)" \
	"$(jqv '[.connections[].errors_by_kind.NFS4ERR_OP_ILLEGAL // 0] | add')"
check_eq "null: setxattr's refusals named NFS4ERR_NOTSUPP" "$(jqv .ops.setxattr.errors)" \
	"$(jqv '[.connections[].errors_by_kind.NFS4ERR_NOTSUPP // 0] | add')"
check_eq "null: no refusal line with --on-error continue" 0 \
	"$(grep -c 'the server answered' "$ERR")"

# A failed request's refill waits for the loop's next turn (worker.c's deferred check): with
# nothing else in flight that turn must not sleep until some event (the 1 s tick), or
# --on-error continue would count one refusal a second per connection. Judged by the
# thread's voluntary context switches (the report's sleeps): one per refusal if it slept.
NFSLOAD_NULL_REFUSE=clone:ENOSYS nl --engine null --dir n7 -t 1 -c 1 -q 1 \
	--mix getattr=1,clone=1 --size 1m --bs 64k --runtime 1s --output-format json
check_eq "null: refusals, one in flight: exit 0" 0 "$RC"
refused=$(jqv .ops.clone.errors)
check_ge "null: refusals, one in flight: counted" 1 "$refused"
check_le "null: a refused request does not send its thread to sleep (sleeps x 100 <= $refused refusals)" \
	"$refused" "$(jqv '([.threads[].sleeps] | add) * 100')"

if [[ -n ${V42_NULL_ONLY:-} ]]; then
	t_summary
	exit
fi

# ---- against nfs-ganesha over NFSv4.2 ----
t_start_server || exit 1
URL42=${URL4/version=4/version=4.2}

# python3 on the server's file: the offset lseek(SEEK_HOLE) finds from 0 (the size: no hole).
hole_at() {
	python3 -c 'import os, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
print(os.lseek(fd, 0, os.SEEK_HOLE))' "$EXPORT_DIR/$1" 2>/dev/null || echo missing
}
# Its 512-byte blocks on the server's disk (st_blocks), 0 when missing.
blocks_of() { stat -c %b "$EXPORT_DIR/$1" 2>/dev/null || echo 0; }

# --sparse needs no v4.2 of its own: its layout over NFSv3 leaves holes on the server's
# disk, the file has its whole size, and READs of the holes check clean (as zeros).
nl --dir sp3 -c 2 -q 4 --rw read --sparse --verify --size 1m --bs 64k --nrfiles 2 \
	--output-format json --keep "$URL3"
check_eq "sparse over NFSv3: exit 0" 0 "$RC"
check_eq "sparse over NFSv3: the layout wrote every 4th block of 64 KiB" $((2 * 4 * 65536)) \
	"$(jqv .layout.stats.bytes)"
for f in file.000000 file.000001; do
	check_eq "sparse over NFSv3: $f has its whole size" $((1 << 20)) \
		"$(stat -c %s "$EXPORT_DIR/sp3/$f" 2>/dev/null)"
	check_eq "sparse over NFSv3: $f: lseek(SEEK_HOLE) finds the hole after block 0" 65536 \
		"$(hole_at "sp3/$f")"
done
check_eq "sparse over NFSv3: every byte read" $((2 << 20)) "$(jqv .ops.read.bytes)"
check_eq "sparse over NFSv3: holes read as zeros check clean" 0 "$(jqv .verify.mismatches)"

if [[ -n ${V42_V3_ONLY:-} ]]; then
	t_summary
	exit
fi

# tsh ARGS...: the capture's NFS calls (the capture holds client-to-server packets only).
tsh() { capture_read -d "tcp.port==$NFS_PORT,rpc" "$@"; }
# v4 opcodes (RFC 7862, RFC 8276)
declare -A OPCODE=([read_plus]=68 [seek]=69 [allocate]=59 [deallocate]=62 [io_advise]=63
	[copy]=60 [clone]=71 [getxattr]=72 [setxattr]=73 [listxattrs]=74 [removexattr]=75)

# Each op on the wire, in COMPOUNDs of minor version 2, as many as the report counts (the
# refused ones too: they went out). -q 1 and --on-error continue: every op is sent.
# IO_ADVISE apart, at the end: nfs-ganesha 4.3 dies (a segfault in libganesha_nfsd) at the
# CLOSE of a file that got IO_ADVISE, and the checks after this one need the server.
# wire_ops OPS...: the checks of one such capture, for OPS.
wire_ops() {
	local op code want got
	tsh -Y "nfs.opcode" -T fields -e nfs.minorversion -e nfs.opcode >"$TMP/ops.txt"
	for op in "$@"; do
		code=${OPCODE[$op]}
		want=$(jqv ".ops.$op.ops + .ops.$op.errors")
		# One line per frame: minor versions, then opcodes, comma-separated (a frame may
		# hold several calls).
		got=$(awk -F'\t' -v c="$code" '{ n = split($2, o, ","); for (i = 1; i <= n; i++) k += o[i] == c }
			END { print k + 0 }' "$TMP/ops.txt")
		check_ge "wire: $op sent" 1 "$got"
		check_eq "wire: $op: as many on the wire as the report counts" "$want" "$got"
		check_eq "wire: $op: only in COMPOUNDs of minor version 2" 0 \
			"$(awk -F'\t' -v c="$code" '{ n = split($2, o, ","); m = split($1, v, ",")
				for (i = 1; i <= n; i++) if (o[i] == c) for (j = 1; j <= m; j++) if (v[j] != 2) k++ }
				END { print k + 0 }' "$TMP/ops.txt")"
	done
}
OPS42_BUT_ADVISE=${OPS42/io_advise /}
if capture_start "tcp dst port $NFS_PORT"; then
	nl --dir w42 -c 1 -q 1 --mix "${ALL42/io_advise=1,/}" --size 1m --bs 64k --nrfiles 2 \
		--runtime 2s --output-format json "$URL42"
	capture_stop
	check_eq "wire: a mix of every v4.2 op but io_advise over version=4.2: exit 0" 0 "$RC"
	check_eq "wire: the report says 4.2 was spoken" 4.2 "$(jqv .settings.nfs_version)"
	# shellcheck disable=SC2086
	wire_ops $OPS42_BUT_ADVISE
	capture_explain
fi

# --sparse over version=4.2: the layout leaves holes on the server's disk, the file has its
# whole size, and READs of it check clean (the holes as zeros).
nl --dir sp -c 1 -q 4 --rw read --sparse --verify --size 1m --bs 64k --keep \
	--output-format json "$URL42"
check_eq "sparse: --sparse --verify over 4.2: exit 0" 0 "$RC"
check_eq "sparse: the file has its whole size" $((1 << 20)) \
	"$(stat -c %s "$EXPORT_DIR/sp/file.000000" 2>/dev/null)"
check_eq "sparse: lseek(SEEK_HOLE) finds the hole after block 0" 65536 "$(hole_at sp/file.000000)"
check_le "sparse: at most a third of the file on disk (st_blocks x 512 x 3 <= its size)" $((1 << 20)) \
	"$(($(blocks_of sp/file.000000) * 512 * 3))"
check_eq "sparse: READ of it checks clean" 0 "$(jqv .verify.mismatches)"
check_eq "sparse: READ returned every byte" $((1 << 20)) "$(jqv .ops.read.bytes)"

# READ_PLUS of the sparse file, judged by what tshark reads in the server's replies: each
# reply covering its 64 KiB (data and holes) is a READ_PLUS done, each one short is a short
# transfer in the report, and the report's data and hole bytes are the complete replies'.
# Only when the server answers every READ_PLUS whole is what it returned checked against
# the pattern and the holes (nfs-ganesha 4.3 answers each with one empty data segment at
# offset 0: every one is short, and that part is a counted skip naming it).
if capture_start "tcp port $NFS_PORT"; then
	nl --dir sp -c 1 -q 1 --rw read --read-plus --sparse --verify --verify-continue \
		--size 1m --bs 64k --keep --on-error continue --output-format json "$URL42"
	capture_stop
	tsh -Y "rpc.msgtyp == 1 && nfs.opcode == 68" -T fields -e nfs.read.data_length \
		-e nfs.length4 -e nfs.content.type >"$TMP/rp.txt"
	# per reply: data bytes, hole bytes (length4 fields after a hole's content type)
	awk -F'\t' '{ d = 0; h = 0; n = split($1, a, ","); for (i = 1; i <= n; i++) d += a[i]
		n = split($2, b, ","); for (i = 1; i <= n; i++) h += b[i]; print d, h }' \
		"$TMP/rp.txt" >"$TMP/rp.sum"
	calls=$(tsh -Y "rpc.msgtyp == 0 && nfs.opcode == 68" -T fields -e frame.number | wc -l)
	whole=$(awk '$1 + $2 >= 65536' "$TMP/rp.sum" | wc -l)
	short=$(awk '$1 + $2 < 65536' "$TMP/rp.sum" | wc -l)
	check_eq "read_plus: READ_PLUS calls on the wire = the report's ops and errors" \
		"$(jqv '.ops.read_plus.ops + .ops.read_plus.errors')" "$calls"
	check_eq "read_plus: a reply on the wire for each" "$calls" "$(wc -l <"$TMP/rp.sum")"
	check_eq "read_plus: replies covering their range (tshark) = the report's READ_PLUS done" \
		"$whole" "$(jqv .ops.read_plus.ops)"
	check_eq "read_plus: short replies (tshark) = the report's short transfers" "$short" \
		"$(jqv '[.connections[].errors_by_kind["short transfer"] // 0] | add')"
	check_eq "read_plus: data bytes = the complete replies' data on the wire" \
		"$(awk '$1 + $2 >= 65536 { s += $1 } END { print s + 0 }' "$TMP/rp.sum")" \
		"$(jqv .ops.read_plus.data_bytes)"
	check_eq "read_plus: data + holes = bytes" "$(jqv .ops.read_plus.bytes)" \
		"$(jqv '.ops.read_plus.data_bytes + .ops.read_plus.hole_bytes')"
	if ((short == 0)); then
		check_eq "read_plus: the whole sparse file" $((1 << 20)) "$(jqv .ops.read_plus.bytes)"
		check_ge "read_plus: reports holes" 1 "$(jqv .ops.read_plus.hole_bytes)"
		check_eq "read_plus: its bytes check clean against the pattern, as READ's" 0 \
			"$(jqv .verify.mismatches)"
	else
		why="the server answered $short of $calls READ_PLUS short (tshark; nfs-ganesha 4.3: one empty data segment each)"
		t_skip "read_plus: the whole sparse file" "$why"
		t_skip "read_plus: reports holes" "$why"
		t_skip "read_plus: its bytes check clean against the pattern, as READ's" "$why"
	fi
	capture_explain
fi

# ALLOCATE gives the holes space on the server's disk (st_blocks grows).
before=$(blocks_of sp/file.000000)
nl --dir sp -c 1 -q 1 --mix allocate=1 --size 1m --bs 64k --runtime 2s --keep \
	--on-error stop --output-format json "$URL42"
check_eq "allocate: exit 0" 0 "$RC"
check_ge "allocate: done" 1 "$(jqv .ops.allocate.ops)"
check_ge "allocate: st_blocks grew (before $before)" $((before + 1)) "$(blocks_of sp/file.000000)"

# DEALLOCATE punches a hole that lseek(SEEK_HOLE) finds inside a file written whole.
nl --dir dl -c 1 -q 4 --rw write --size 1m --bs 64k --keep "$URL42"
check_eq "deallocate: the file written whole: exit 0" 0 "$RC"
check_eq "deallocate: no hole before" $((1 << 20)) "$(hole_at dl/file.000000)"
nl --dir dl -c 1 -q 1 --mix deallocate=1 --size 1m --bs 64k --runtime 2s --keep \
	--on-error stop --output-format json "$URL42"
check_eq "deallocate: exit 0" 0 "$RC"
check_ge "deallocate: done" 1 "$(jqv .ops.deallocate.ops)"
check_le "deallocate: lseek(SEEK_HOLE) finds a hole inside the file" $(((1 << 20) - 65536)) \
	"$(hole_at dl/file.000000)"

# The refusals: one line naming the op and the server's answer, exit 1, at the first use.
for op in copy clone getxattr setxattr listxattrs removexattr; do
	nl --dir "rf$op" -c 1 -q 1 --mix "seek=4,$op=1" --size 1m --bs 64k --nrfiles 2 \
		--runtime 30s --on-error stop --output-format json "$URL42"
	check_eq "refused: $op, --on-error stop: exit 1" 1 "$RC"
	check_match "refused: $op: one line naming the op and the answer" \
		"^nfsload: $op: the server answered NFS4ERR_(NOTSUPP|OP_ILLEGAL) \\(it does not (support|have) ${op^^}\\)$" \
		"$(grep "^nfsload: $op:" "$ERR")"
	check_eq "refused: $op: counted once per connection at most (1)" 1 "$(jqv ".ops.$op.errors")"
	check_le "refused: $op: the run ended before its --runtime of 30 s" 29 \
		"$(jqv '.duration_ns / 1e9 | floor')"
done
t_skip "setxattr: the value read back with getfattr on the server's file" \
	"ganesha 4.3's VFS export has no xattr support: SETXATTR is refused, nothing to read back"

# --on-error continue: the refused ones counted, the others done.
nl --dir ct -c 2 -q 2 --mix seek=2,copy=1,getxattr=1 --size 1m --bs 64k --nrfiles 2 \
	--runtime 2s --output-format json "$URL42"
check_eq "continue: exit 0" 0 "$RC"
check_eq "continue: no copy done" 0 "$(jqv .ops.copy.ops)"
check_ge "continue: copy's refusals counted" 1 "$(jqv .ops.copy.errors)"
check_ge "continue: getxattr's refusals counted" 1 "$(jqv .ops.getxattr.errors)"
check_ge "continue: seek went on" 1 "$(jqv .ops.seek.ops)"
check_eq "continue: seek without errors" 0 "$(jqv .ops.seek.errors)"
check_eq "continue: every error is a refusal, named as the server answered" \
	"$(jqv '.ops.copy.errors + .ops.getxattr.errors')" \
	"$(jqv '[.connections[].errors_by_kind | (.NFS4ERR_NOTSUPP // 0) + (.NFS4ERR_OP_ILLEGAL // 0)] | add')"

# The issue's example: everything ganesha has runs clean; getxattr and setxattr (no xattrs
# on its VFS export) are counted as refusals (the mix's default --on-error continue), and
# read_plus's short replies as short transfers (ganesha 4.3's READ_PLUS, above).
nl --dir ex -c 2 -q 4 --mix read=4,read_plus=2,seek=1,allocate=1,deallocate=1,getxattr=2,setxattr=1 \
	--size 4m --bs 64k --runtime 3s --output-format json "$URL42"
check_eq "example: exit 0" 0 "$RC"
for op in read seek allocate deallocate; do
	check_ge "example: $op done" 1 "$(jqv ".ops.$op.ops")"
	check_eq "example: $op without errors" 0 "$(jqv ".ops.$op.errors")"
done
check_ge "example: read_plus sent" 1 "$(jqv '.ops.read_plus.ops + .ops.read_plus.errors')"
check_eq "example: read_plus's errors are its short transfers" "$(jqv .ops.read_plus.errors)" \
	"$(jqv '[.connections[].errors_by_kind["short transfer"] // 0] | add')"
for op in getxattr setxattr; do
	check_ge "example: $op's refusals counted" 1 "$(jqv ".ops.$op.errors")"
done

# IO_ADVISE, last: on the wire in minor version 2 COMPOUNDs, as many as the report counts.
if capture_start "tcp dst port $NFS_PORT"; then
	nl --dir ia -c 1 -q 1 --mix io_advise=1 --size 1m --bs 64k --runtime 1s \
		--output-format json "$URL42"
	capture_stop
	check_eq "wire: io_advise over version=4.2: exit 0" 0 "$RC"
	wire_ops io_advise
	capture_explain
fi

t_summary
