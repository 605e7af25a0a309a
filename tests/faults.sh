#!/usr/bin/env bash
# Fault tests: connections lost during a run, and what --on-error continue|stop
# make of it. A connection reset or stalled by tests/helper_proxy.c (--fault; NFS
# through the proxy, MOUNT straight to ganesha, as in latency.sh), and the server
# killed (kill -9) and restarted under a run. Needs NFSLOAD (the binary), HELPERS
# (build/tests, with helper_proxy), jq.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/chaos.sh"
# libnfs's faults: tests/native_faults.sh has the native engine's. The accept order at the
# proxy below is libnfs's (its control connection first).
NL_ENGINE=libnfs

WORK=(-t 2 -q 4 --rw randrw --bs 4k --size 8m --nrfiles 4 --output-format json)

# The checks every run's report must pass: it parses, and the parts add up.
report_adds_up() {
	local name=$1
	check "$name: JSON report parses" parses
	check_eq "$name: sum of connections' ops == total ops" "$(jqv .total.count)" \
		"$(jqv '[.connections[].ops] | add')"
	check_eq "$name: sum of ops per op type == total ops" "$(jqv .total.count)" \
		"$(jqv '[.ops[].count] | add')"
	echo "# $name: outages $(jqv '.outages | tostring')"
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

trap '[[ -n $PROXY_PID ]] && kill -TERM "$PROXY_PID" 2>/dev/null
	[[ -n $CHAOS_PID ]] && { touch "$TMP/run.done"; wait "$CHAOS_PID"; }
	t_cleanup' EXIT

t_start_server || exit 1
echo "# nfsload: $("$NFSLOAD" --version)"

# Lay the files out directly against ganesha (kept), so the proxied runs skip the
# layout and their faults, timed from the accept, fall in the measured phase.
run 60 "${WORK[@]}" --dir flt -c 4 --runtime 1s --keep "$URL3"
check_eq "layout: exit 0" 0 "$RC"
check_eq "layout: ran" true "$(jqv .layout.ran)"

# Accept order at the proxy (see latency.sh): 1 is nfsload's control connection, 2..5
# the four data connections in no fixed order of their ids; a connection made again
# is a new accept (6, ...), without the fault. So the faulted one is found as the one
# with an outage.
FAULTED='[.connections[] | select((.outages | length) >= 1)]'
CLEAN='[.connections[] | select((.outages | length) == 0 and .reconnects == 0 and .errors == 0)] | length'

# a) One connection reset (RST) 1.5 s after its accept: it is made again and goes on.
proxy_start 0 --fault 2:reset@1500 || exit 1
run 60 "${WORK[@]}" --dir flt -c 4 --runtime 3s "$PROXY_URL"
proxy_stop "reset" '^fault: conn 2 reset at [0-9]+ ms'
check_eq "reset: exit 0" 0 "$RC"
check_eq "reset: layout skipped" false "$(jqv .layout.ran)"
check_eq "reset: exactly one connection with reconnects == 1" 1 \
	"$(jqv '[.connections[] | select(.reconnects == 1)] | length')"
check_eq "reset: it has one outage" 1 "$(jqv "$FAULTED | .[0].outages | length")"
check_eq "reset: the outage recovered" true "$(jqv "$FAULTED | .[0].outages[0].recovered")"
check_ge "reset: the outage's failed ops >= 1 (iodepth 4 in flight)" 1 \
	"$(jqv "$FAULTED | .[0].outages[0].failed_ops")"
check_ge "reset: the connection counts ECONNABORTED >= 1" 1 \
	"$(jqv "$FAULTED | .[0].errors_by_kind.ECONNABORTED")"
check_ge "reset: stall_ns > 0 (completed after reconnecting)" 1 \
	"$(jqv "$FAULTED | .[0].outages[0].stall_ns")"
check_le "reset: stall_ns < 1 s" 999999999 "$(jqv "$FAULTED | .[0].outages[0].stall_ns")"
check_eq "reset: the other three: no outage, no reconnect, no error" 3 "$(jqv "$CLEAN")"
check_eq "reset: its outage's times in order (start_ns <= detected_ns)" true \
	"$(jqv "$FAULTED | .[0].outages[0] | .start_ns <= .detected_ns")"
check_eq "reset: no connection down at the end" 0 "$(jqv '[.connections[] | select(.down)] | length')"
check_eq "reset: outages.count == 1" 1 "$(jqv .outages.count)"
check_eq "reset: outages.unrecovered == 0" 0 "$(jqv .outages.unrecovered)"
report_adds_up "reset"
echo "# reset: the faulted connection: $(jqv "$FAULTED | map({id, errors_by_kind, outages}) | tostring")"

# b) One connection's replies stop 1.5 s after its accept (the socket stays open):
# lost after --timeout 2s without a reply, made again (a new accept, not stalled).
proxy_start 0 --fault 3:stall@1500 || exit 1
run 60 "${WORK[@]}" --dir flt -c 4 --runtime 7s --timeout 2s "$PROXY_URL"
proxy_stop "stall" '^fault: conn 3 stall at [0-9]+ ms'
check_eq "stall: exit 0" 0 "$RC"
check_eq "stall: exactly one connection with an outage" 1 "$(jqv "$FAULTED | length")"
check_eq "stall: its outages all recovered" true "$(jqv "$FAULTED | [.[0].outages[].recovered] | all")"
check_ge "stall: its ETIMEDOUT + ECONNABORTED >= 1" 1 \
	"$(jqv "$FAULTED | .[0].errors_by_kind | (.ETIMEDOUT // 0) + (.ECONNABORTED // 0)")"
check_ge "stall: reconnects >= 1" 1 "$(jqv "$FAULTED | .[0].reconnects")"
check_eq "stall: the other three: no outage, no reconnect, no error" 3 "$(jqv "$CLEAN")"
check_eq "stall: its outages' times in order (start_ns <= detected_ns)" true \
	"$(jqv "$FAULTED | [.[0].outages[] | .start_ns <= .detected_ns] | all")"
check_eq "stall: no connection down at the end" 0 "$(jqv '[.connections[] | select(.down)] | length')"
check_eq "stall: outages.unrecovered == 0" 0 "$(jqv .outages.unrecovered)"
report_adds_up "stall"
echo "# stall: the faulted connection: $(jqv "$FAULTED | map({id, errors_by_kind, outages}) | tostring")"

# c) The server is killed (kill -9) 3 s into the measured phase and restarted 2 s
# later: every connection is lost and made again, the run goes on to its end and
# cleans up. Direct to ganesha; NFSv3, then NFSv4 (Graceless: re-opens at once),
# there random reads only (libnfs 4.0 cannot send 4 KiB NFSv4 writes).
restart_run() {
	local name=$1 url=$2 dir=$3 after
	shift 3
	chaos 2 2
	run 90 "${WORK[@]}" --dir "$dir" -c 8 --runtime 12s --timeout 2s --hdr-log "$TMP/hlog" "$@" "$url"
	chaos_wait
	check_match "$name: the server was killed and came back" '^[0-9.]+ [0-9.]+$' "$T_KILL $T_UP"
	echo "# $name: since nfsload started: killed at $(secs "$T_BEGIN" "${T_KILL:-0}") s," \
		"up again at $(secs "$T_BEGIN" "${T_UP:-0}") s, ended at $(secs "$T_BEGIN" "$T_END") s"
	check_eq "$name: exit 0" 0 "$RC"
	check_eq "$name: every connection has an outage" 8 \
		"$(jqv '[.connections[] | select((.outages | length) >= 1)] | length')"
	check_eq "$name: every outage recovered" true "$(jqv '[.connections[].outages[].recovered] | all')"
	check_eq "$name: outages.unrecovered == 0" 0 "$(jqv .outages.unrecovered)"
	check_eq "$name: outages.connections == 8" 8 "$(jqv .outages.connections)"
	check_eq "$name: no connection down at the end" 0 "$(jqv '[.connections[] | select(.down)] | length')"
	# The restart, in the window's time, is at most its time since nfsload started.
	after=$(awk -v a="$T_BEGIN" -v b="${T_UP:-0}" 'BEGIN { printf "%d", (b - a) * 1e9 }')
	check_ge "$name: ops in the intervals after the restart" 1 \
		"$(jqv "[.series[] | select(.start_ns >= $after) | .ops] | add // 0")"
	# shellcheck disable=SC2016  # jq's $l
	check_ge "$name: ops in the last interval" 1 \
		"$(jqv '(.series | map(.start_ns) | max) as $l | [.series[] | select(.start_ns == $l) | .ops] | add')"
	report_adds_up "$name"
	check_eq "$name: the work directory was removed" "" "$(ls -d "$EXPORT_DIR/$dir" 2>/dev/null)"
}
restart_run "restart v3" "$URL3" rst3
ensure_server
restart_run "restart v4" "$URL4" rst4 --rw randread
ensure_server

# d) --on-error stop: the server killed 3 s into the run, not restarted: the run
# ends soon after (within --timeout + 10 s), exit 1, the report still written.
chaos 2
run 90 "${WORK[@]}" --dir stop3 -c 8 --runtime 12s --timeout 2s --on-error stop \
	--hdr-log "$TMP/hlog" "$URL3"
chaos_wait
check_match "stop: the server was killed" '^[0-9.]+$' "$T_KILL"
check_eq "stop: exit 1" 1 "$RC"
echo "# stop: nfsload ended $(secs "${T_KILL:-0}" "$T_END") s after the kill"
check_le "stop: ended within --timeout + 10 s of the kill" 12 "$(secs "${T_KILL:-0}" "$T_END")"
check "stop: JSON report parses" parses
check_ge "stop: errors > 0" 1 "$(jqv .total.errors)"
ensure_server

# e) --on-error continue, the server killed 2 s into a 6 s run and not restarted:
# the run still ends on time, exit 1, every connection down and unrecovered.
chaos 1
run $((6 + 2 + 15)) "${WORK[@]}" --dir down3 -c 4 --runtime 6s --timeout 2s --hdr-log "$TMP/hlog" "$URL3"
chaos_wait
check_match "down at end: the server was killed" '^[0-9.]+$' "$T_KILL"
check_eq "down at end: exit 1" 1 "$RC"
echo "# down at end: nfsload ran $(secs "$T_BEGIN" "$T_END") s"
check_ge "down at end: ran to its planned end (>= 6 s)" 6 "$(secs "$T_BEGIN" "$T_END")"
check_le "down at end: ended on time (<= runtime + timeout + 15 s)" 23 "$(secs "$T_BEGIN" "$T_END")"
check_ge "down at end: the measured window lasted its planned 6 s" 5900000000 "$(jqv .duration_ns)"
check_eq "down at end: every connection has an outage" 4 \
	"$(jqv '[.connections[] | select((.outages | length) >= 1)] | length')"
check_eq "down at end: every connection's last outage unrecovered" true \
	"$(jqv '[.connections[] | .outages[-1].recovered == false] | all')"
check_eq "down at end: outages.unrecovered == connections" 4 "$(jqv .outages.unrecovered)"
report_adds_up "down at end"

# f) The server hangs (SIGSTOP) for 4 s and resumes (SIGCONT): no socket fails, the
# connections are lost to --timeout without a reply, made again once it answers.
ensure_server
rm -f "$TMP/run.done" "$TMP/hlog"
: >"$TMP/chaos"
(
	measuring || exit 0
	sleep 1
	kill -STOP "$GANESHA_PID" && echo "stop $EPOCHREALTIME" >>"$TMP/chaos"
	sleep 4
	kill -CONT "$GANESHA_PID" && echo "cont $EPOCHREALTIME" >>"$TMP/chaos"
) &
CHAOS_PID=$!
run 90 "${WORK[@]}" --dir hang3 -c 4 --runtime 12s --timeout 2s --hdr-log "$TMP/hlog" "$URL3"
touch "$TMP/run.done"
wait "$CHAOS_PID"
CHAOS_PID=
kill -CONT "$GANESHA_PID" 2>/dev/null
check_eq "hang: stopped and resumed" 2 "$(wc -l <"$TMP/chaos")"
check_eq "hang: exit 0" 0 "$RC"
check_eq "hang: every connection has an outage" 4 \
	"$(jqv '[.connections[] | select((.outages | length) >= 1)] | length')"
check_eq "hang: every outage recovered" true "$(jqv '[.connections[].outages[].recovered] | all')"
check_eq "hang: lost to timeouts (ETIMEDOUT on every connection)" 4 \
	"$(jqv '[.connections[] | select(.errors_by_kind.ETIMEDOUT >= 1)] | length')"
# The record must cover the fault: lost only after --timeout without a reply, and no
# I/O between SIGSTOP and SIGCONT (4 s).
check_eq "hang: detected no sooner than --timeout after the last success" true \
	"$(jqv '[.connections[].outages[0] | .detected_ns - .start_ns >= 1900000000] | all')"
check_eq "hang: the stall covers the 4 s the server was stopped" true \
	"$(jqv '[.connections[].outages[0].stall_ns >= 3900000000] | all')"
report_adds_up "hang"

# g) The server is killed (kill -9) during the layout (4 files of 128 MiB), once 64 MiB
# are on disk, and restarted 1 s later: the layout's writes lost with their connections
# are sent again once the connections are back, so every file is whole: at size, and a --verify-only
# read of every block is clean. (--verify: a hole would read as a block without its
# header. Sanitizer builds lay out half of it.)
ensure_server
per_file=128m kill_at=$((64 << 20))
if [[ -n ${SAN:-} ]]; then
	per_file=64m kill_at=$((16 << 20))
fi
size=$(numfmt --from=iec "${per_file^^}")
laid_out() { stat -c %s "$EXPORT_DIR"/lay3/file.* 2>/dev/null | awk '{ s += $1 } END { print s + 0 }'; }
rm -f "$TMP/run.done"
: >"$TMP/chaos"
(
	for ((i = 0; i < 3000; i++)); do
		[[ -e $TMP/run.done ]] && exit 0
		(($(laid_out) >= kill_at)) && break
		sleep 0.02
	done
	if [[ $(cat "/proc/$GANESHA_PID/comm" 2>/dev/null) != ganesha.nfsd ]]; then
		t_fail "layout chaos" "pid $GANESHA_PID is not ganesha.nfsd"
		exit 1
	fi
	kill -KILL "$GANESHA_PID"
	echo "kill $EPOCHREALTIME" >>"$TMP/chaos"
	echo "at $(laid_out)" >>"$TMP/chaos"
	sleep 1
	t_restart_server >/dev/null && echo "up $EPOCHREALTIME" >>"$TMP/chaos"
) &
CHAOS_PID=$!
run 180 -t 2 -c 4 -q 4 --rw read --size "$per_file" --nrfiles 4 --runtime 1s --verify --keep \
	--dir lay3 --output-format json "$URL3"
chaos_wait
at=$(sed -n 's/^at //p' "$TMP/chaos")
check_match "layout outage: the server was killed and came back" '^[0-9.]+ [0-9.]+$' "$T_KILL $T_UP"
check_le "layout outage: killed before the layout was done" $((4 * size - 1)) "${at:-$((4 * size))}"
echo "# layout outage: killed with $((${at:-0} >> 20)) MiB on disk, $(secs "$T_BEGIN" "${T_KILL:-0}") s" \
	"after nfsload started, up again at $(secs "$T_BEGIN" "${T_UP:-0}") s, ended at" \
	"$(secs "$T_BEGIN" "$T_END") s; layout $(jqv '.layout | {retried, errors: .stats.errors} | tostring')"
check_eq "layout outage: exit 0" 0 "$RC"
check_eq "layout outage: the layout ran" true "$(jqv .layout.ran)"
check_ge "layout outage: writes re-issued" 1 "$(jqv .layout.retried)"
check_eq "layout outage: every failed write re-issued" 0 "$(jqv '.layout.stats.errors - .layout.retried')"
check_eq "layout outage: every outage recovered" true "$(jqv '[.connections[].outages[].recovered] | all')"
check_eq "layout outage: every file at size" "$size $size $size $size" \
	"$(stat -c %s "$EXPORT_DIR"/lay3/file.* 2>/dev/null | paste -sd " ")"
check_eq "layout outage: no mismatch in the measured reads" 0 "$(jqv .verify.mismatches)"
run 120 -t 2 -c 4 --size "$per_file" --nrfiles 4 --verify-only --dir lay3 --output-format json "$URL3"
check_eq "layout outage: --verify-only is clean (exit 0)" 0 "$RC"
check_eq "layout outage: --verify-only checked every block" $((4 * size / 4096)) "$(jqv .verify.blocks_checked)"
check_eq "layout outage: --verify-only found no mismatch" 0 "$(jqv .verify.mismatches)"
rm -rf "$EXPORT_DIR/lay3"

t_summary
