#!/usr/bin/env bash
# The native engine (--engine native) against a misbehaving server, NFSv3 and NFSv4.1,
# on io_uring and on epoll sockets (NFSLOAD_IO_URING=0):
#   a) one connection's replies mangled mid-run by tests/helper_proxy.c (a record cut
#      short and the connection closed, results inverted, an absurd record mark, two
#      replies swapped, 64 random bytes, a stray record no call waits for): the run ends
#      on its own, nothing crashes, the damaged connection is reported and the others
#      are untouched; swapped replies are matched by xid (no error at all); random bytes
#      that read as a plausible record mark leave a connection waiting for a record that
#      never comes: it is lost after --timeout and made again; replies that stop coming
#      just before the stop are counted as unanswered at the stop (and by --merge);
#   b) the same faults on a reply of a connection's set-up, and of the control
#      connection's: set-up fails cleanly and says why; replies that succeeded made to
#      say "later" (JUKEBOX, DELAY): sent again after a backoff, counted, no error;
#   c) the server killed (kill -9) and restarted under a run, also with 16 connections
#      on one NFSv4.1 session: every connection comes back (a new session) and works.
# NFS goes through the proxy (v3's MOUNT straight to ganesha); the server restarts
# are direct. Needs NFSLOAD (the binary), HELPERS (build/tests, with helper_proxy), jq.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/chaos.sh"

WORK=(--engine native -t 2 -c 4 -q 4 --rw randrw --bs 4k --size 8m --nrfiles 4 --dir nf
	--output-format json)

# A sanitizer's report (ASan, LSan, UBSan, TSan) from the last run: tests/lib.sh reads
# them (report files, and the sanitizers' exit statuses) after every bounded run, and
# records each as a failure of its own; this check names the case it broke.
no_sanitizer_report() { t_san_clean; }

# facts: what the checks read from the report, in one jq pass (empty if it does not
# parse). The hit connections are those with an outage or errors (the damaged one).
HIT='[.connections[] | select((.outages | length) >= 1 or .errors > 0)]'
facts() {
	read -r F_TOTAL F_SUM F_ERRORS F_OUTAGES F_UNRECOVERED F_CONNS F_CLEAN F_DOWN F_HIT \
		F_HIT_OUTAGES F_HIT_RECOVERED F_HIT_ETIMEDOUT F_HIT_LATE <<<"$(jqv "$HIT as \$hit | [
		.total.count, ([.connections[].ops] | add), .total.errors, .outages.count,
		.outages.unrecovered, (.connections | length),
		([.connections[] | select((.outages | length) == 0 and .reconnects == 0 and
			.errors == 0)] | length),
		([.connections[] | select(.down)] | length),
		(\$hit | length), (\$hit[0].outages // [] | length),
		([\$hit[0].outages[]?.recovered] | all), (\$hit[0].errors_by_kind.ETIMEDOUT // 0),
		([\$hit[0].outages[]? | .detected_ns - .start_ns >= 1000000000] | all)
		] | @tsv")"
}

# Every run: it ended on its own (t_run_bounded also fails on its own), no signal, no
# sanitizer report, and the report parses and adds up. Reads the facts.
sane() {
	local name=$1
	check "$name: ended on its own" test "$RC" -ne 124
	check_le "$name: no crash (exit status < 128)" 127 "$RC"
	check "$name: no sanitizer report from the run" no_sanitizer_report
	check "$name: JSON report parses" parses
	facts
	check_eq "$name: sum of connections' ops == total ops" "$F_TOTAL" "$F_SUM"
}

# The exit status the manual gives for a time-based run with --on-error continue: 0, or
# 1 when a connection was still down at the end (and stderr says so).
status_as_documented() {
	if [[ $F_DOWN == 0 ]]; then
		check_eq "$1: exit 0 (every connection up at the end)" 0 "$RC"
	else
		check_eq "$1: exit 1 ($F_DOWN connection(s) down at the end)" 1 "$RC"
	fi
}

# proxy_stop NAME REGEX: SIGTERM to the proxy itself (not the timeout around it); it
# must exit 0 and its stderr must match REGEX (the fault it fired).
proxy_stop() {
	local rc=0
	[[ -n $PROXY_PID ]] || return 0
	pkill -TERM -P "$PROXY_PID" 2>/dev/null || kill -TERM "$PROXY_PID" 2>/dev/null
	wait "$PROXY_PID" || rc=$?
	PROXY_PID=
	check_eq "$1: proxy exits 0 on SIGTERM" 0 "$rc"
	check_match "$1: proxy fired the fault" "$2" "$(cat "$TMP/proxy.err")"
}

# sockets uring|epoll: the socket kind of the runs that follow.
sockets() {
	if [[ $1 == epoll ]]; then export NFSLOAD_IO_URING=0; else unset NFSLOAD_IO_URING; fi
}

# The URL through the proxy: v3 as proxy_start makes it, v4.1 with the proxy as nfsport.
proxy_url() {
	if [[ $1 == 3 ]]; then
		echo "$PROXY_URL"
	else
		echo "nfs://127.0.0.1/export?version=4.1&nfsport=$PROXY_PORT"
	fi
}

trap '[[ -n $PROXY_PID ]] && kill -TERM "$PROXY_PID" 2>/dev/null
	[[ -n $CHAOS_PID ]] && { touch "$TMP/run.done"; wait "$CHAOS_PID"; }
	t_cleanup' EXIT

t_start_server || exit 1
URL41=${URL4/version=4/version=4.1}
echo "# nfsload: $("$NFSLOAD" --version | head -1)"

# Lay the files out directly against ganesha (kept; v3 and v4.1 share them), so the
# proxied runs skip the layout and their faults, timed from the accept, fall in the
# measured phase.
run 60 "${WORK[@]}" --runtime 1s --keep "$URL3"
check_eq "layout: exit 0" 0 "$RC"
check_eq "layout: ran" true "$(jqv .layout.ran)"
run 60 --engine native -t 1 -c 2 -q 2 --rw read --bs 1m --size 8m --nrfiles 2 --dir big \
	--output-format json --runtime 1s --keep "$URL3"
check_eq "layout 1 MiB: exit 0" 0 "$RC"

# a) Accept order at the proxy: 1 is nfsload's control connection, 2..5 the four data
# connections in no fixed order of their ids. The fault acts on the first reply record
# that starts 300 ms after accept 2, well inside the 1 s measured phase; the damaged
# connection is found as the one with an outage or errors.
FAULT_AT=300

# mangled NAME KIND URLVER ARGS...: one run through a fresh proxy with KIND on accept 2,
# the checks every kind shares, then those of the kind. Random bytes from --seed 1: their
# first word, read as a record mark, is far over any record's size. MANGLE_AT is where
# the fault acts (@MS or #R, helper_proxy's syntax) and MANGLE_END how the run ends:
# FAULT_AT and 1 s unless set.
mangled() {
	local name=$1 kind=$2 ver=$3 url fired
	shift 3
	proxy_start 0 --fault "2:$kind${MANGLE_AT:-@$FAULT_AT}" --seed 1 || return 1
	url=$(proxy_url "$ver")
	run 30 "$@" ${MANGLE_END:---runtime 1s} --timeout 1s --on-error continue "$url"
	proxy_stop "$name" "^fault: conn 2 $kind at [0-9]+ ms"
	sane "$name"
	status_as_documented "$name"
	fired=$(grep "^fault: conn 2 $kind" "$TMP/proxy.err" | cut -c1-160)
	echo "# $name: $fired"
	case $kind in
	reorder)
		check_match "$name: two replies were swapped (not released by timeout)" \
			"sent after the next one" "$fired"
		check_eq "$name: no errors (replies matched by xid)" 0 "$F_ERRORS"
		check_eq "$name: no outage" 0 "$F_OUTAGES"
		check_eq "$name: every connection clean" "$F_CONNS" "$F_CLEAN"
		;;
	stray)
		# A well-formed record no call waits for is dropped, as a late reply is.
		check_eq "$name: no errors (the stray record is dropped)" 0 "$F_ERRORS"
		check_eq "$name: every connection clean" "$F_CONNS" "$F_CLEAN"
		;;
	*)
		echo "# $name: hit $(jqv "$HIT | map({id, errors_by_kind, outages: (.outages | length)})
			| tostring")"
		check_eq "$name: the damaged connection reported (one with an outage or errors)" 1 \
			"$F_HIT"
		check_eq "$name: the others untouched (no outage, reconnect or error)" \
			"$((F_CONNS - 1))" "$F_CLEAN"
		;;
	esac
	case $kind in
	truncate | badmark | garbage)
		# The stream cannot be read past the damage: the connection is lost and re-made.
		check_eq "$name: its connection lost once and re-made" "1 true" \
			"$F_HIT_OUTAGES $F_HIT_RECOVERED"
		check_eq "$name: outages.unrecovered == 0" 0 "$F_UNRECOVERED"
		;;
	esac
}

for ver in 3 4.1; do
	for s in uring epoll; do
		sockets "$s"
		for kind in truncate corrupt badmark reorder garbage stray; do
			mangled "v$ver $s $kind" "$kind" "$ver" "${WORK[@]}"
		done
	done
	sockets uring
	# Records of 1 MiB, each read from the socket in many pieces. Not timed: the record
	# that starts 300 ms after the accept came as late as 900 ms into a 1 s run on a
	# loaded machine (1 MiB records come slowly there), too late for the cut connection
	# to be made again (17-365 ms seen) or for a held record to have one after it. So
	# the fault acts on record 10 of the stream, past any set-up (v3 at most 4 records,
	# v4.1 6 here), and the run is of a size (32 records a connection): it cannot end
	# before that record, and it waits for the cut connection to be made again and read
	# the rest of its share.
	for kind in truncate reorder $([[ $ver == 4.1 ]] && echo corrupt); do
		MANGLE_AT="#10" MANGLE_END="--io-size 64m" \
			mangled "v$ver 1 MiB reads $kind" "$kind" "$ver" --engine native -t 1 -c 2 \
			-q 2 --rw read --bs 1m --size 8m --nrfiles 2 --dir big --output-format json
	done
done
# Two connections on one NFSv4.1 session (10 slots): one member's stream is cut, and cut
# again 300 ms after it was made again (accept 4): each time it comes back, the other
# member goes on. The calls in flight when a member drops keep their slots (the server
# may or may not have taken their sequence ids): a member must come back all the same.
name="v4.1 one session, a member cut twice"
proxy_start 0 --fault "2:truncate@$FAULT_AT" --fault "4:badmark@$FAULT_AT" --seed 1 || exit 1
run 30 --engine native -t 1 -c 2 --connections-per-session 2 -q 4 --rw randrw --bs 4k \
	--size 8m --nrfiles 2 --dir nf --output-format json --runtime 2s --timeout 1s \
	"$(proxy_url 4.1)"
proxy_stop "$name" "fault: conn 4 badmark at [0-9]+ ms"
sane "$name"
check_eq "$name: exit 0" 0 "$RC"
check_eq "$name: one session of 2" "1 session of 2 connections" \
	"$(jqv .limits_note | grep -o '1 session of 2 connections')"
check_eq "$name: the member lost twice, made again each time" "2 true" \
	"$F_HIT_OUTAGES $F_HIT_RECOVERED"
check_eq "$name: no connection down at the end" 0 "$F_DOWN"
check_eq "$name: the other member untouched" 1 "$F_CLEAN"

# A member coming back to a session whose other member keeps every slot left busy (a
# server that grants 8 slots; the cut member's 4 requests in flight keep theirs; the
# other's iodepth 4): the slot one of the other's replies frees goes to the returning
# member's binding SEQUENCE, not to the next request the other issues from that reply.
name="v4.1 8 slots, a member cut, the other filling the rest"
GANESHA_SLOTS=8 t_start_server slots8 || exit 1
proxy_start 0 --fault "2:truncate@$FAULT_AT" --seed 1 || exit 1
run 30 --engine native -t 1 -c 2 --connections-per-session 2 -q 4 --rw write --bs 4k \
	--size 64m --nrfiles 2 --dir slots --output-format json --runtime 2s --timeout 1s \
	"$(proxy_url 4.1)"
proxy_stop "$name" "fault: conn 2 truncate at [0-9]+ ms"
t_stop_server slots8
t_load_env "$TMP/srv-main"
sane "$name"
check_eq "$name: exit 0" 0 "$RC"
check_match "$name: 8 slots granted" "1 session of 2 connections, 8 slots granted" \
	"$(jqv .limits_note)"
check_eq "$name: the member lost once, made again" "1 true" "$F_HIT_OUTAGES $F_HIT_RECOVERED"
check_eq "$name: no connection down at the end" 0 "$F_DOWN"
check_eq "$name: the other member untouched" 1 "$F_CLEAN"

# A session of 16 that may span 2 threads on a server granting 8 slots: the members'
# slices cannot each hold a slot, so set-up says so (and names what to change).
name="v4.1 8 slots for a session of 16 on 2 threads"
GANESHA_SLOTS=8 t_start_server slots8 || exit 1
nl --engine native -t 2 -c 16 --connections-per-session 16 -q 1 --rw read --bs 4k --size 64k \
	--nrfiles 16 --dir slots16 --runtime 1s "${URL4/version=4/version=4.1}"
t_stop_server slots8
t_load_env "$TMP/srv-main"
check_eq "$name: exit 1" 1 "$RC"
check_match "$name: says why" "grants 8 slots, fewer than the session's 16 connections" \
	"$(cat "$ERR")"

# 64 random bytes whose first word reads as the mark of a 2.6 MB record (--seed 187:
# 0x80295838): the connection waits for bytes that never come, its calls get no reply,
# so it is lost after --timeout (checked once a second) and made again.
desync() {
	local name=$1 ver=$2 sent='64 bytes before record [0-9]+ \(xid 0x[0-9a-f]+\): 80295838'
	proxy_start 0 --fault "2:garbage@$FAULT_AT" --seed 187 || return 1
	run 30 "${WORK[@]}" --runtime 3s --timeout 1s "$(proxy_url "$ver")"
	proxy_stop "$name" "^fault: conn 2 garbage at [0-9]+ ms: $sent"
	sane "$name"
	check_eq "$name: exit 0" 0 "$RC"
	check_eq "$name: one connection lost, once, and made again" "1 1 true" \
		"$F_HIT $F_HIT_OUTAGES $F_HIT_RECOVERED"
	check_ge "$name: its calls timed out (ETIMEDOUT >= 1)" 1 "$F_HIT_ETIMEDOUT"
	check_eq "$name: lost no sooner than --timeout after the last reply" true "$F_HIT_LATE"
	check_eq "$name: the others untouched" 3 "$F_CLEAN"
}
desync "v3 uring garbage, plausible mark" 3
sockets epoll
desync "v4.1 epoll garbage, plausible mark" 4.1
unset NFSLOAD_IO_URING

# Replies that stop coming just before the stop: accept 2 stalled 1 s after its accept,
# in a 2 s run with --timeout 3s: its requests time out 4 s after the accept, after the
# stop (2 s and the set-up after it; set-up would have to take 2 s). The drain waits
# for them until --timeout ends them: the report must count them (unanswered_at_stop),
# not show a clean run that took --timeout longer than asked. --merge adds them up.
unanswered() {
	local name=$1 ver=$2 n
	shift 2
	proxy_start 0 --fault "2:stall@1000" || return 1
	run 60 "$@" --runtime 2s --timeout 3s "$(proxy_url "$ver")"
	proxy_stop "$name" "^fault: conn 2 stall at [0-9]+ ms"
	sane "$name"
	status_as_documented "$name"
	n=$(jqv .total.unanswered_at_stop)
	check_ge "$name: requests in flight at the stop left unanswered (>= 1)" 1 "$n"
	check_eq "$name: the total is the connections' sum" "$n" \
		"$(jqv '[.connections[].unanswered_at_stop] | add')"
	check_eq "$name: all on the stalled connection" 1 \
		"$(jqv '[.connections[] | select(.unanswered_at_stop > 0)] | length')"
	cp "$OUT" "$TMP/unanswered.json"
	check_eq "$name: --merge adds them up" "$((2 * n))" \
		"$("$NFSLOAD" --merge "$TMP/unanswered.json" "$TMP/unanswered.json" \
			--output-format json | jq .total.unanswered_at_stop)"
	check_match "$name: --merge's text says so" \
		"unanswered at the stop: $((2 * n)) requests in flight" \
		"$("$NFSLOAD" --merge "$TMP/unanswered.json" "$TMP/unanswered.json")"
}
# The count is the worker's (slots_done.c), whatever the engine or version: native v3
# and v4.1 (its requests also hold session slots through the drain), and the libnfs
# engine's requests, which end in the same worker.
unanswered "v3 replies stalled at the stop" 3 "${WORK[@]}"
unanswered "v4.1 replies stalled at the stop" 4.1 "${WORK[@]}"
WORK_LIBNFS=("${WORK[@]}")
WORK_LIBNFS[1]=libnfs
unanswered "v3 libnfs replies stalled at the stop" 3 "${WORK_LIBNFS[@]}"

echo "# a) done at $SECONDS s"

# b) A reply of a connection's set-up mangled, the R-th record the server sends on
# accept 2 (--fault 2:KIND#R; v3: FSINFO, LOOKUP of the directory, of a file; v4.1:
# EXCHANGE_ID, CREATE_SESSION, RECLAIM_COMPLETE, OPEN): that connection cannot be set
# up, so the run ends at once with exit 1 and says why.
setup_fault() {
	local name=$1 spec=$2 ver=$3 kind=${2#*:}
	proxy_start 0 --fault "$spec" --seed 1 || return 1
	run 30 "${WORK[@]}" --runtime 1s --timeout 1s "$(proxy_url "$ver")"
	proxy_stop "$name" "^fault: conn ${spec%%:*} ${kind%%#*} at [0-9]+ ms: "
	check "$name: ended on its own" test "$RC" -ne 124
	check_le "$name: no crash (exit status < 128)" 127 "$RC"
	check "$name: no sanitizer report from the run" no_sanitizer_report
	check_eq "$name: exit 1" 1 "$RC"
}
# (Garbage only on the first: past the mark it fails as a cut record does.)
for kind in truncate corrupt garbage; do
	for r in 1 2 3; do
		[[ $kind == garbage && $r != 1 ]] && continue
		setup_fault "v3 set-up record $r $kind" "2:$kind#$r" 3
		check_match "v3 set-up record $r $kind: says so" "failed to set up" "$(cat "$ERR")"
	done
	for r in 1 2 3 5; do
		[[ $kind == garbage && $r != 1 ]] && continue
		setup_fault "v4.1 set-up record $r $kind" "2:$kind#$r" 4.1
		check_match "v4.1 set-up record $r $kind: says so" "failed to set up" "$(cat "$ERR")"
	done
done
# The control connection (accept 1, src/engine/native/native_ctl.c) mounts and makes the work
# directory: its second reply corrupted (v3: the LOOKUP of the work directory, after
# FSINFO; v4.1: CREATE_SESSION). It fails, saying the reply was bad (not what a bad
# reply might be taken for: "does not exist", "not nfsload's").
for ver in 3 4.1; do
	setup_fault "v$ver control connection record 2 corrupt" "1:corrupt#2" "$ver"
	check_match "v$ver control connection record 2 corrupt: says the reply was bad" \
		"bad reply|does not parse" "$(cat "$ERR")"
done

echo "# b) done at $SECONDS s"

# b2) The server says "later": replies that had succeeded made to say NFS3ERR_JUKEBOX or
# NFS4ERR_DELAY (--fault 2:jukebox|delay#R, on records 20, 40 and 60 of accept 2 or the
# first fitting ones after them; past the set-up). Each such request goes again after a
# backoff: no error, no outage, and the report counts the requests sent again. Reads and
# a mix of operations that may be done twice (the server did them once already).
MIXRO=(--engine native -t 1 -c 2 -q 4 --mix getattr=1,lookup=1,access=1,readdir=1,read=1,open=1
	--dirs 2 --files-per-dir 8 --file-size 8k --dir nfmix --output-format json)
run 60 "${MIXRO[@]}" --runtime 1s --keep "$URL3"
check_eq "mix layout: exit 0" 0 "$RC"
later() {
	local name=$1 kind=$2 ver=$3 fired
	shift 3
	proxy_start 0 --fault "2:$kind#20" --fault "2:$kind#40" --fault "2:$kind#60" || return 1
	run 30 "$@" --runtime 1s --timeout 2s --keep "$(proxy_url "$ver")"
	proxy_stop "$name" "^fault: conn 2 $kind at [0-9]+ ms: record [0-9]+ .*says later"
	sane "$name"
	fired=$(grep -c "^fault: conn 2 $kind at .*says later" "$TMP/proxy.err")
	check_eq "$name: three replies said later" 3 "$fired"
	check_eq "$name: exit 0" 0 "$RC"
	check_eq "$name: no errors" 0 "$F_ERRORS"
	check_eq "$name: no outage" 0 "$F_OUTAGES"
	check_match "$name: the report counts the requests sent again" \
		"; $fired requests sent again after the server said later" "$(jqv .limits_note)"
}
later "v3 I/O jukebox" jukebox 3 "${WORK[@]}" --rw read
later "v4.1 I/O delay" delay 4.1 "${WORK[@]}" --rw read
later "v3 mix jukebox" jukebox 3 "${MIXRO[@]}"
sockets epoll
later "v4.1 mix delay, epoll" delay 4.1 "${MIXRO[@]}"
unset NFSLOAD_IO_URING

echo "# b2) done at $SECONDS s"

# c) The server killed (kill -9) 0.3 s into the second half-second interval of an 8 s run
# and restarted 1 s later (8 s, not 5: on a loaded host ganesha took 2.5-2.8 s from the kill
# to serving again and a 5 s run ended 0.7 s after, before 16 members of a session were
# made again): every connection is lost, made again (NFSv4.1: a new client
# and session; Graceless), and works again before the run's end; the run ends on time
# with exit 0, as the libnfs engine's does (tests/faults.sh).

# restart_run NAME URL NCONN ARGS...
restart_run() {
	local name=$1 url=$2 n=$3 after
	shift 3
	chaos 0.3 1
	run 60 --engine native -q 4 --rw randrw --bs 4k --size 8m --dir nf --output-format json \
		--runtime 8s --interval 500ms --timeout 1s --hdr-log "$TMP/hlog" "$@" "$url"
	chaos_wait
	check_match "$name: the server was killed and came back" '^[0-9.]+ [0-9.]+$' "$T_KILL $T_UP"
	echo "# $name: since nfsload started: killed at $(secs "$T_BEGIN" "${T_KILL:-0}") s," \
		"up again at $(secs "$T_BEGIN" "${T_UP:-0}") s, ended at $(secs "$T_BEGIN" "$T_END") s"
	sane "$name"
	check_eq "$name: exit 0" 0 "$RC"
	check_eq "$name: every connection has an outage" "$n" \
		"$(jqv '[.connections[] | select((.outages | length) >= 1)] | length')"
	check_eq "$name: every outage recovered" true "$(jqv '[.connections[].outages[].recovered] | all')"
	check_eq "$name: outages.unrecovered == 0" 0 "$F_UNRECOVERED"
	check_eq "$name: no connection down at the end" 0 "$F_DOWN"
	# The restart in the window's time is at most its time since nfsload started.
	after=$(awk -v a="$T_BEGIN" -v b="${T_UP:-0}" 'BEGIN { printf "%d", (b - a) * 1e9 }')
	check_ge "$name: ops in the intervals after the restart" 1 \
		"$(jqv "[.series[] | select(.start_ns >= $after) | .ops] | add // 0")"
	check_eq "$name: every connection completed an op after the restart" "$n" \
		"$(jqv "[.connections[] | select(.last_done_ns >= $after)] | length")"
	echo "# $name: outages $(jqv '.outages | tostring')"
}

# (8 s a run: NFSv3 on io_uring only; NFSv4.1, with more to re-make, on both.)
restart_run "restart v3 uring" "$URL3" 4 -t 2 -c 4 --nrfiles 4
ensure_server
for s in uring epoll; do
	sockets "$s"
	restart_run "restart v4.1 $s" "$URL41" 4 -t 2 -c 4 --nrfiles 4
	ensure_server
done
unset NFSLOAD_IO_URING
# 16 connections on one session (one file each: see the report), then a restart: the
# session is gone at the server, so coming back means a new one for all 16.
restart_run "restart v4.1 16 on one session" "$URL41" 16 -t 1 -c 16 --nrfiles 16 \
	--connections-per-session 16
check_match "restart v4.1 16 on one session: one session of 16" "1 session of 16 connections" \
	"$(jqv .limits_note)"
ensure_server
# The same session across 2 threads (8 connections each, each thread its own slots):
# each thread's share finds the session gone and makes one of its own; all 16 come back.
restart_run "restart v4.1 16 on one session, 2 threads" "$URL41" 16 -t 2 -c 16 --nrfiles 16 \
	--connections-per-session 16
check_match "restart v4.1 16 on one session, 2 threads: one session of 16" \
	"1 session of 16 connections" "$(jqv .limits_note)"
check_eq "restart v4.1 16 on one session, 2 threads: both threads did I/O" "0 1" \
	"$(jqv '[.connections[] | select(.ops > 0) | .thread] | unique | map(tostring) | join(" ")')"
ensure_server
echo "# c) done at $SECONDS s"

t_summary
