#!/usr/bin/env bash
# Byte-range locks over NFSv4.1 and 4.2 (--mix lock, unlock, lockt; the native engine),
# judged outside nfsload against a private nfs-ganesha: tshark's own dissector counts
# LOCK, LOCKU and LOCKT calls and the NFS4ERR_DENIED replies on the wire against the
# report; the server's kernel shows the locks it holds (ganesha's VFS export takes each
# one as an OFD lock on the exported file: /proc/locks, by inode); a lock one client holds
# blocks another's conflicting one and is gone after the run; many requests on one file
# at once (the first LOCK of a lock-owner and those behind it); the server killed and
# restarted mid-run with locks held.
# Needs NFSLOAD, HELPERS, jq, python3 and tshark (capture needs root, as the server does).
set -uo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/capture.sh"
trap '[[ -n $TSHARK_PID ]] && kill -INT "$TSHARK_PID" 2>/dev/null; t_cleanup' EXIT

t_start_server || exit 1
URL41=${URL4/version=4/version=4.1}
URL42=${URL4/version=4/version=4.2}

# tsh ARGS...: the capture read with ganesha's port as RPC.
tsh() { capture_read -d "tcp.port==$NFS_PORT,rpc" "$@"; }
# compounds: one line per COMPOUND on the wire, "call OPS..." or "reply CSTATUS OPS...",
# its operations by number. A frame may hold several RPC messages: tshark joins each
# field's values with commas, so they are split at each SEQUENCE (53), which begins every
# COMPOUND of a session; a reply's statuses are the COMPOUND's, then one per operation.
compounds() {
	tsh -Y "nfs.opcode == 53" -T fields -e rpc.msgtyp -e nfs.opcode -e nfs.nfsstat4 |
		awk -F'\t' '{
			nm = split($1, m, ","); n = split($2, o, ","); ns = split($3, s, ",")
			g = 0; si = 1
			for (i = 1; i <= n; i++) {
				if (o[i] == 53) { g++; ops[g] = ""; cnt[g] = 0 }
				if (g) { ops[g] = ops[g] " " o[i]; cnt[g]++ }
			}
			for (j = 1; j <= g; j++) {
				if (m[j] == 0) { print "call" ops[j]; continue }
				print "reply " s[si] ops[j]; si += 1 + cnt[j]
			}
		}'
}
# n_calls OP: calls whose operation after PUTFH is OP and that hold no CLOSE (teardown's).
n_calls() { awk -v op="$1" '$1 == "call" && $4 == op && !/ 4( |$)/ { k++ } END { print k + 0 }' "$TMP/cmp.txt"; }
# n_denied OP: replies to OP answered NFS4ERR_DENIED (10010).
n_denied() { awk -v op="$1" '$1 == "reply" && $2 == 10010 && $5 == op { k++ } END { print k + 0 }' "$TMP/cmp.txt"; }
# sent OP: the report's requests of OP that got an answer (done, denied, failed).
sent() { jqv "(.ops.$1.ops // 0) + (.ops.$1.denied // 0) + (.ops.$1.errors // 0)"; }

# ---- on the wire: every LOCK, LOCKU, LOCKT the report counts; DENIED = denied ----
# 4 connections on one file, every lock on the shared ranges: they contend.
if capture_start "tcp port $NFS_PORT"; then
	nl --dir w -c 4 -q 4 --nrfiles 1 --size 1m --mix lock=2,unlock=1,lockt=1 \
		--lock-contention 100 --runtime 2s --output-format json "$URL41"
	capture_stop
	compounds >"$TMP/cmp.txt"
	check_eq "wire: 4 connections contend on one file: exit 0" 0 "$RC"
	check_eq "wire: no errors" 0 "$(jqv '[.ops.lock.errors, .ops.unlock.errors, .ops.lockt.errors] | map(. // 0) | add')"
	check_ge "wire: LOCK sent" 1 "$(n_calls 12)"
	check_eq "wire: LOCK calls on the wire = the report's lock (ops + denied + errors)" \
		"$(sent lock)" "$(n_calls 12)"
	check_eq "wire: LOCKU calls on the wire (teardown's apart) = the report's unlock" \
		"$(sent unlock)" "$(n_calls 14)"
	check_eq "wire: LOCKT calls on the wire = the report's lockt" "$(sent lockt)" "$(n_calls 13)"
	check_ge "wire: --lock-contention 100: LOCKs denied" 1 "$(jqv '.ops.lock.denied // 0')"
	check_eq "wire: LOCK's NFS4ERR_DENIED replies on the wire = the report's lock.denied" \
		"$(jqv '.ops.lock.denied // 0')" "$(n_denied 12)"
	check_eq "wire: LOCKT's NFS4ERR_DENIED replies on the wire = the report's lockt.denied" \
		"$(jqv '.ops.lockt.denied // 0')" "$(n_denied 13)"
	# Teardown: each lock stateid's locks released (LOCKU of everything, FREE_STATEID) in
	# the COMPOUND of its file's CLOSE, which then finds no lock held.
	check_ge "teardown: LOCKU and FREE_STATEID before a CLOSE" 1 \
		"$(grep -c '^call 53 22 14 45 4$' "$TMP/cmp.txt")"
	check_eq "teardown: no CLOSE answered NFS4ERR_LOCKS_HELD (10037)" 0 \
		"$(awk '$1 == "reply" && / 4$/ && $2 == 10037' "$TMP/cmp.txt" | wc -l)"
	check_eq "teardown: every COMPOUND with a CLOSE answered NFS4_OK" 0 \
		"$(awk '$1 == "reply" && / 4$/ && $2 != 0' "$TMP/cmp.txt" | wc -l)"
	capture_explain
fi

# Each connection's own ranges (--lock-contention 0): no conflict, no denial.
nl --dir w0 -c 4 -q 4 --nrfiles 1 --size 1m --mix lock=2,unlock=1,lockt=1 \
	--lock-contention 0 --runtime 2s --output-format json "$URL41"
check_eq "contention 0: exit 0" 0 "$RC"
check_ge "contention 0: locks granted" 1 "$(jqv '.ops.lock.ops // 0')"
check_eq "contention 0: no LOCK denied" 0 "$(jqv '.ops.lock.denied // 0')"
check_eq "contention 0: no LOCKT denied" 0 "$(jqv '.ops.lockt.denied // 0')"

# ---- many at once on one file: a lock-owner's first LOCK and those behind it ----
# --iodepth 8 on one file from a fresh connection: 8 LOCKs at once, of which only the
# first can carry open_to_lock_owner4 (the others wait for its lock stateid); over 4.2.
nl --dir q8 -c 2 -q 8 --nrfiles 1 --size 1m --mix lock=1,unlock=1 --runtime 2s \
	--output-format json "$URL42"
check_eq "iodepth 8: exit 0" 0 "$RC"
check_eq "iodepth 8: the report says 4.2 was spoken" 4.2 "$(jqv .settings.nfs_version)"
check_ge "iodepth 8: locks granted" 8 "$(jqv '.ops.lock.ops // 0')"
check_eq "iodepth 8: lock/unlock on one file: no errors" 0 \
	"$(jqv '(.ops.lock.errors // 0) + (.ops.unlock.errors // 0)')"

# ---- a lock held by one client blocks another's; gone after the run ----
# locks_on DIR: the locks the server's kernel holds on DIR/file.000000, as 4 KiB ranges.
locks_on() {
	local ino
	ino=$(stat -c %i "$EXPORT_DIR/$1/file.000000" 2>/dev/null) || { echo 0; return; }
	awk -v ino=":$ino" '$6 ~ ino"$" { e = $8 == "EOF" ? $7 + 4096 : $8 + 1; k += (e - $7) / 4096 }
		END { print k + 0 }' /proc/locks
}
# wait_locks DIR: until the server holds a lock on DIR's file (a bound, no timing).
wait_locks() {
	local i
	for ((i = 0; i < 600; i++)); do
		(($(locks_on "$1") > 0)) && return 0
		sleep 0.1
	done
	return 1
}
# bg NAME ARGS...: nfsload in the background, its report in $TMP/NAME.json, status in .rc.
bg() {
	local name=$1
	shift
	(rc=0; t_run_bounded 120 "$NFSLOAD" --quiet "$@" >"$TMP/$name.json" 2>"$TMP/$name.err" || rc=$?
	 echo "$rc" >"$TMP/$name.rc") &
}

# A holds locks on the 8 shared ranges of its file (a mix of lock only: what it got, it
# keeps); B, another client on the same file, asks for the same ranges: denied where A
# holds them. A's connection and B's draw the same ranges in the same order (same --seed).
# blocks MODE TYPE: the whole case for --lock-type TYPE, dirs MODE*.
blocks() {
	local mode=$1 type=$2 held b_granted
	bg "a$mode" --dir "ab$mode" -c 1 -q 1 --nrfiles 1 --size 1m --mix lock=1 \
		--lock-contention 100 --lock-type "$type" --runtime 6s --keep --output-format json "$URL41"
	check "$mode: A's locks are on the server (/proc/locks)" wait_locks "ab$mode"
	held=$(locks_on "ab$mode")
	nl --dir "ab$mode" -c 1 -q 1 --nrfiles 1 --size 1m --mix lock=1 --lock-contention 100 \
		--lock-type "$type" --runtime 1s --keep --output-format json "$URL41"
	b_granted=$(jqv '.ops.lock.ops // 0')
	check_eq "$mode: B while A holds: exit 0" 0 "$RC"
	if [[ $type == write ]]; then
		check_ge "$mode: B's LOCKs on A's ranges denied" 1 "$(jqv '.ops.lock.denied // 0')"
		check_le "$mode: B granted none of the $held ranges A held (B's + A's <= 8)" 8 \
			$((b_granted + held))
	else
		check_eq "$mode: read locks: none of B's denied" 0 "$(jqv '.ops.lock.denied // 0')"
		check_ge "$mode: read locks: B shares A's ranges" 1 "$b_granted"
	fi
	wait
	check_eq "$mode: A: exit 0" 0 "$(cat "$TMP/a$mode.rc")"
	check_eq "$mode: A: no errors" 0 "$(jq '.ops.lock.errors // 0' "$TMP/a$mode.json")"
	check_eq "$mode: after A and B: nothing locked on the server" 0 "$(locks_on "ab$mode")"
	# C, after A: the ranges A held (C draws them first, as B did) granted, none denied.
	nl --dir "ab$mode" -c 1 -q 1 --nrfiles 1 --size 1m --mix lock=1 --lock-contention 100 \
		--lock-type "$type" --runtime 1s --keep --output-format json "$URL41"
	check_eq "$mode: C after A: exit 0" 0 "$RC"
	check_eq "$mode: C after A: no LOCK denied" 0 "$(jqv '.ops.lock.denied // 0')"
	check_ge "$mode: C after A: locks granted" 1 "$(jqv '.ops.lock.ops // 0')"
}
blocks write write
blocks read read

# ---- the server killed (SIGKILL) and restarted mid-run with locks held ----
# The run goes on (--on-error continue: the calls in flight at the kill are errors), its
# connections come back under new clients and LOCK again what they held; after the run
# nothing is left locked and a fresh client locks every range the run drew.
bg rs --dir rs -c 2 -q 4 --nrfiles 1 --size 1m --mix lock=3,unlock=1 --runtime 8s --keep \
	--on-error continue --output-format json "$URL41"
check "restart: the run's locks are on the server" wait_locks rs
kill -KILL "$GANESHA_PID" 2>/dev/null
t_restart_server
wait
check_eq "restart: the run ends, exit 0" 0 "$(cat "$TMP/rs.rc")"
check_ge "restart: locks made again under the new clients (state.locks_remade)" 1 \
	"$(jq '.state.locks_remade // 0' "$TMP/rs.json")"
check_eq "restart: nothing left locked on the server" 0 "$(locks_on rs)"
nl --dir rs -c 2 -q 4 --nrfiles 1 --size 1m --mix lock=1 --runtime 1s --keep \
	--output-format json "$URL41"
check_eq "restart: a fresh client after: exit 0" 0 "$RC"
check_ge "restart: a fresh client after: locks granted" 1 "$(jqv '.ops.lock.ops // 0')"
check_eq "restart: a fresh client after: none denied" 0 "$(jqv '.ops.lock.denied // 0')"

t_summary
