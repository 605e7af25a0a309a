# shellcheck shell=bash
# What the two fault suites (faults.sh, native_faults.sh) share: bounded runs with
# their times, and the "chaos" that kills the server mid-run. Source it after lib.sh.
#
#   run BOUND ARGS...     nfsload --quiet bounded by BOUND seconds, stdout to $OUT, stderr
#                         to $ERR, status in $RC; wall-clock start and end (EPOCHREALTIME)
#                         in $T_BEGIN, $T_END
#   jqv FILTER, parses, secs A B
#   chaos KILL_AFTER [RESTART_AFTER]   kill -9 ganesha once the run measures (see below)
#   chaos_wait            after the run: $T_KILL, $T_UP, the server's variables reloaded
#   ensure_server         start ganesha again if a test left it dead

run() {
	local bound=$1
	shift
	RC=0
	T_BEGIN=$EPOCHREALTIME
	t_run_bounded "$bound" "$NFSLOAD" --quiet ${NL_ENGINE:+--engine "$NL_ENGINE"} "$@" >"$OUT" \
		2>"$ERR" || RC=$?
	T_END=$EPOCHREALTIME
	if ((RC != 0)); then
		echo "# exit $RC; stderr: $(head -c 600 "$ERR")"
	fi
}
jqv() { jq -r "$1" "$OUT" 2>/dev/null; }
parses() { json_ok "$OUT"; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }

# measuring: waits until the run has cut its first interval (a line in $TMP/hlog, its
# --hdr-log); false if $TMP/run.done appears first (nfsload ended early).
measuring() {
	local i
	for ((i = 0; i < 600; i++)); do
		[[ -e $TMP/run.done ]] && return 1
		grep -q '^Tag=' "$TMP/hlog" 2>/dev/null && return 0
		sleep 0.1
	done
	return 0
}

# chaos KILL_AFTER [RESTART_AFTER]: in the background, once the measured phase has
# run an interval (the first line in $TMP/hlog, the run's --hdr-log), wait KILL_AFTER
# more seconds, kill -9 ganesha, then RESTART_AFTER seconds later restart it (same
# ports, data kept). Gives up if $TMP/run.done appears first (nfsload ended early).
# Writes "kill T" and "up T" (EPOCHREALTIME) to $TMP/chaos; CHAOS_PID is its pid.
CHAOS_PID=
chaos() {
	local kill_after=$1 restart_after=${2:-}
	rm -f "$TMP/run.done" "$TMP/hlog"
	: >"$TMP/chaos"
	(
		measuring || exit 0
		sleep "$kill_after"
		[[ -e $TMP/run.done ]] && exit 0
		if [[ $(cat "/proc/$GANESHA_PID/comm" 2>/dev/null) != ganesha.nfsd ]]; then
			t_fail "chaos" "pid $GANESHA_PID is not ganesha.nfsd"
			exit 1
		fi
		kill -KILL "$GANESHA_PID"
		echo "kill $EPOCHREALTIME" >>"$TMP/chaos"
		[[ -n $restart_after ]] || exit 0
		sleep "$restart_after"
		t_restart_server >/dev/null && echo "up $EPOCHREALTIME" >>"$TMP/chaos"
	) &
	CHAOS_PID=$!
}

chaos_wait() {
	touch "$TMP/run.done"
	wait "$CHAOS_PID" 2>/dev/null
	CHAOS_PID=
	t_load_env "$TMP/srv-main"
	T_KILL=$(sed -n 's/^kill //p' "$TMP/chaos")
	T_UP=$(sed -n 's/^up //p' "$TMP/chaos")
}

ensure_server() {
	if [[ $(cat "/proc/$GANESHA_PID/comm" 2>/dev/null) != ganesha.nfsd ]]; then
		t_restart_server >/dev/null || exit 1
	fi
}
