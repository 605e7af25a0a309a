# shellcheck shell=bash
# Helpers for integration tests. Source it: . "$(dirname "$0")/lib.sh"
#
#   t_start_server [NAME]      private nfs-ganesha (tests/ganesha.sh) in $TMP/srv-NAME
#                              (NAME defaults to main); exports NFS_PORT MNT_PORT
#                              EXPORT_DIR URL3 URL4 GANESHA_PID of the server just started
#                              (and NLM_PORT with GANESHA_NLM=1)
#   t_restart_server [NAME]    same ports, data kept; re-exports the variables
#   t_stop_server [NAME]
#   check NAME CMD...          passes when CMD exits 0
#   check_eq NAME EXPECTED ACTUAL
#   check_ge NAME BOUND ACTUAL passes when ACTUAL >= BOUND (numbers, decimals allowed)
#   check_le NAME BOUND ACTUAL passes when ACTUAL <= BOUND
#   check_match NAME REGEX STRING   bash =~ (extended regex)
#   t_run_bounded SECONDS CMD...    runs CMD; past SECONDS kills its whole process
#                              group, records a failure and returns 124; else CMD's status.
#                              A sanitizer report from it (or found before it) is a failure.
#   t_san_clean                true when the last t_run_bounded left no sanitizer report
#   t_skip NAME WHY            a check not run here: "skip - NAME: WHY", counted as skipped
#   t_free_port                prints a TCP port nobody listens on (for 'unreachable' tests)
#   json_ok FILE               FILE is non-empty and holds JSON
#   proxy_start ARGS...        helper_proxy in front of ganesha's NFS port: PROXY_PID,
#                              PROXY_PORT, PROXY_URL
#   t_summary                  prints "N passed, M failed, K skipped"; non-zero if any
#                              failed; with T_COUNTS set (make integration), also writes
#                              "N M K" there
#
# Results are kept in a file, so checks also count inside $(...) and pipelines.
# On exit (also on INT/TERM) every server is stopped, then the rpcbind a server start
# started (none ran before), and $TMP removed (T_KEEP=1 keeps it).
# If you set your own EXIT trap, call t_cleanup from it.
#
# Sanitizer reports (builds made with make SAN=...): every process the suite starts
# writes its ASan, LSan, TSan (and UBSan, where its runtime allows) report to a file
# of $TMP/san, not to stderr, and exits with its sanitizer's own status, never 1 (nfsload's
# own failure). The files are read after (and before) every t_run_bounded, at every
# check, at t_summary and at exit: each one is a failure naming the command and the
# report's summary line, whatever exit status the run was expected to have.

T_LIB_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TMP=$(mktemp -d "${TMPDIR:-/tmp}/nfsload-test.XXXXXX")
T_RESULTS=$TMP/results
: >"$T_RESULTS"
T_BOUNDED_PID=

t_cleanup() {
	local dir late=0 p f k
	if [[ -n $T_BOUNDED_PID ]]; then
		kill -KILL -- "-$T_BOUNDED_PID" 2>/dev/null || true
		{ wait "$T_BOUNDED_PID"; } 2>/dev/null || true
	fi
	for dir in "$TMP"/srv-*; do
		if [[ -d $dir ]]; then
			"$T_LIB_DIR/ganesha.sh" stop "$dir" || true
		fi
	done
	for dir in "$TMP"/srv-*; do
		if [[ -d $dir ]]; then
			"$T_LIB_DIR/ganesha.sh" stop-rpcbind "$dir" || true
		fi
	done
	# A report written after t_summary (a helper ending at exit) still fails the suite,
	# and the counts make test reads say so.
	t_san_claim "found after the summary" || late=1
	if ((late)) && [[ -n ${T_SUMMARY_DONE:-} ]]; then
		read -r p f k <<<"$(t_counts)"
		echo "$p passed, $f failed, $k skipped"
		if [[ -n ${T_COUNTS:-} ]]; then
			echo "$p $f $k" >"$T_COUNTS"
		fi
	fi
	if [[ -n ${T_KEEP:-} ]]; then
		echo "# kept $TMP"
	else
		rm -rf "$TMP"
	fi
	if ((late)); then
		exit 1
	fi
}
trap t_cleanup EXIT
exec {T_LOG_FD}>&1	# the suite's own output, whatever a caller redirects

# ---- sanitizer reports ----
# Each sanitizer its own exit status, none of nfsload's (0-3), of timeout's (124-127) or
# a signal's (128+): ASan 81, UBSan 82, TSan 66 (its default, which CI's log names).
# LeakSanitizer shares ASan's: inside the ASan runtime both are one flag (LSAN_OPTIONS,
# read after ASAN_OPTIONS, would set it for both), so the report file says which.
# Appended to what the caller set (the Makefile's suppressions, CI's UBSAN_OPTIONS):
# the last value of a flag wins.
#  - log_path: reports go to $T_SAN_DIR/report.EXE.PID (log_exe_name), whether or not
#    the caller redirected stderr, and never into an output a check parses.
#  - UBSan: halt_on_error=1 always (CI sets it too): a report is a failure, and it is
#    how one is seen when its runtime ignores log_path. That is gcc's -fsanitize=
#    address,undefined: libubsan.so's start-up hands log_path to __sanitizer_set_report_path,
#    which the dynamic linker binds to libasan.so's copy, so libubsan keeps writing to
#    stderr (a UBSan-only build, or -static-libubsan, writes the file). There, exit 82
#    is the report, and the run's stderr, when it is a file, gives its first line.
T_SAN_DIR=$TMP/san
T_SAN_ASAN=81
T_SAN_UBSAN=82
T_SAN_TSAN=66
mkdir -p "$T_SAN_DIR/claimed"
# print_suppressions=0: the list of suppressions used (tests/lsan.supp's libnfs leak)
# is no report, and every file there is one.
T_SAN_LOG="log_path=$T_SAN_DIR/report:log_exe_name=1:print_suppressions=0"
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}exitcode=$T_SAN_ASAN:$T_SAN_LOG"
export LSAN_OPTIONS="${LSAN_OPTIONS:+$LSAN_OPTIONS:}exitcode=$T_SAN_ASAN:$T_SAN_LOG"
export UBSAN_OPTIONS="print_stacktrace=1:${UBSAN_OPTIONS:+$UBSAN_OPTIONS:}halt_on_error=1:exitcode=$T_SAN_UBSAN:$T_SAN_LOG"
# TSan's options are spaces, not colons, in the Makefile's value: both separate flags.
export TSAN_OPTIONS="${TSAN_OPTIONS:+$TSAN_OPTIONS:}exitcode=$T_SAN_TSAN:$T_SAN_LOG"
T_SAN_RUN=0	# reports the last t_run_bounded claimed (t_san_clean)

# t_san_record WHAT WHERE: one failure, on the suite's own output (a check inside
# $(...) would have its line swallowed), counted like any other.
t_san_record() {
	echo "FAIL - sanitizer report: $1 $2" >&"$T_LOG_FD"
	echo fail >>"$T_RESULTS"
	echo "$1 $2" >>"$T_SAN_DIR/found"
}

# t_san_claim WHERE: each report file not yet claimed is moved aside (rename: one
# claimer wins, also between concurrent subshells) and recorded as a failure with its
# summary line, its process (EXE[PID] from the file name) and WHERE; the report up to
# its SUMMARY line goes to the log as comments ($TMP goes at exit). Returns 1 if it
# claimed any.
t_san_claim() {
	local f base kept what proc n=0
	for f in "$T_SAN_DIR"/report.*; do
		[[ -e $f ]] || continue
		base=${f##*/}
		kept=$T_SAN_DIR/claimed/$base.${EPOCHREALTIME/./}.$BASHPID
		mv "$f" "$kept" 2>/dev/null || continue
		n=$((n + 1))
		proc=${base#report.}	# EXE.PID (PID alone where a runtime leaves the name out)
		[[ $proc == *.* ]] && proc="${proc%.*}[${proc##*.}]" || proc="pid $proc"
		# The SUMMARY line names the kind and where (file:line in function); a report
		# cut short (still being written) by its first line that says anything.
		what=$(grep -m1 '^SUMMARY: ' "$kept" | sed 's/^SUMMARY: //')
		[[ -n $what ]] || what=$(grep -m1 -E 'ERROR: |WARNING: |runtime error: ' "$kept" |
			sed 's/^==[^=]*==//')
		[[ -n $what ]] || what="(report file still empty)"
		# and the first frame of ours (an interceptor's or the runtime's say little)
		what+=$(awk '/^ *#[0-9]+ / && !/libsanitizer|__interceptor|lib[alt]san\.so/ {
			sub(/^ *#[0-9]+ (0x[0-9a-f]+ in )?/, ""); sub(/ \([^ ]*\+0x[0-9a-f]+\)$/, "")
			print ", at " $0; exit }' "$kept")
		t_san_record "$what ($proc)" "$1"
		awk 'NR > 40 { exit } { print "#   " $0 } /^SUMMARY: / { exit }' "$kept" >&"$T_LOG_FD"
	done
	((n == 0))
}

# t_san_status RC CMD...: a bounded run's exit status that only a sanitizer gives,
# when this run claimed no report file for it (UBSan beside ASan writes none: above).
t_san_status() {
	local rc=$1 err what= me=$BASHPID
	shift
	[[ -n ${SAN:-} ]] && ((T_SAN_RUN == 0)) || return 0
	case $rc in
	"$T_SAN_UBSAN")
		# (The shell's stderr here is the run's: the caller's redirection.)
		err=$(readlink "/proc/$me/fd/2" 2>/dev/null)
		if [[ -f $err ]]; then
			what=$(grep -a -m1 -E 'runtime error: |SUMMARY: UndefinedBehaviorSanitizer' "$err")
		fi
		[[ -n $what ]] || what="(its report is on the run's stderr)"
		t_san_record "UndefinedBehaviorSanitizer (exit $rc) $what" "in: $(t_show "$*")"
		T_SAN_RUN=1
		;;
	"$T_SAN_ASAN" | "$T_SAN_TSAN")
		t_san_record "exit $rc (a sanitizer's) and no report file" "in: $(t_show "$*")"
		T_SAN_RUN=1
		;;
	esac
}

# True when the last t_run_bounded (in this shell) left no sanitizer report.
t_san_clean() { ((T_SAN_RUN == 0)); }
trap 'exit 130' INT
trap 'exit 143' TERM

t_pass() {
	t_san_claim "found at check: $1" || true
	echo "ok - $1"
	echo ok >>"$T_RESULTS"
}

# t_fail NAME MESSAGE
t_fail() {
	t_san_claim "found at check: $1" || true
	echo "FAIL - $1: $2"
	echo fail >>"$T_RESULTS"
}

# Long values (command output) are cut to keep FAIL lines readable.
t_show() {
	local s=$1
	if ((${#s} > 300)); then
		s="${s:0:300}..."
	fi
	printf "'%s'" "$s"
}

check() {
	local name=$1 rc=0
	shift
	"$@" || rc=$?
	if ((rc == 0)); then
		t_pass "$name"
	else
		t_fail "$name" "expected exit 0, got $rc from: $*"
	fi
}

check_eq() {
	if [[ $3 == "$2" ]]; then
		t_pass "$1"
	else
		t_fail "$1" "expected $(t_show "$2"), got $(t_show "$3")"
	fi
}

# t_num_cmp OP A B: true when A OP B numerically; false if either is not a number.
t_num_cmp() {
	awk -v a="$2" -v b="$3" -v op="$1" 'BEGIN {
		num = "^[-+]?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][-+]?[0-9]+)?$"
		if (a !~ num || b !~ num) exit 1
		exit !(op == ">=" ? a + 0 >= b + 0 : a + 0 <= b + 0)
	}'
}

check_ge() {
	if t_num_cmp ">=" "$3" "$2"; then
		t_pass "$1"
	else
		t_fail "$1" "expected >= $2, got $(t_show "$3")"
	fi
}

check_le() {
	if t_num_cmp "<=" "$3" "$2"; then
		t_pass "$1"
	else
		t_fail "$1" "expected <= $2, got $(t_show "$3")"
	fi
}

check_match() {
	if [[ $3 =~ $2 ]]; then
		t_pass "$1"
	else
		t_fail "$1" "expected match /$2/, got $(t_show "$3")"
	fi
}

# t_skip NAME WHY: a check this machine cannot make (no O_DIRECT, no tmpfs, ...): said,
# and counted as skipped in the closing line, never as passed.
t_skip() {
	echo "skip - $1: $2"
	echo skip >>"$T_RESULTS"
}

# coreutils timeout makes itself a process group leader and signals the whole group
# (TERM, then KILL 5 s later). It runs in the background so that cleanup on INT/TERM
# can kill the group; stdin is passed on explicitly (a background job gets /dev/null).
t_run_bounded() {
	local secs=$1 rc=0 start=$SECONDS t0=${EPOCHREALTIME/./} ms
	shift
	# Reports already there are an earlier process's (a direct run, a helper).
	t_san_claim "found before: $(t_show "$*")" || true
	T_SAN_RUN=0
	timeout -k 5 "$secs" "$@" <&0 &
	T_BOUNDED_PID=$!
	wait "$T_BOUNDED_PID" || rc=$?
	T_BOUNDED_PID=
	t_san_claim "in: $(t_show "$*")" || T_SAN_RUN=1
	t_san_status "$rc" "$@"
	# T_TIMING=FILE: one line per bounded run (suite, milliseconds, command): where a
	# suite's time goes. A run over 15 s says so in the log anyway (none is meant to
	# take that long: a CI run's suite once took 30 s more than it does, unexplained).
	ms=$(((${EPOCHREALTIME/./} - t0) / 1000))
	[[ -n ${T_TIMING:-} ]] && printf '%s %d %s\n' "${0##*/}" "$ms" "$*" >>"$T_TIMING"
	((ms > 15000)) && echo "# long run: $((ms / 1000)) s: $*" >&"$T_LOG_FD"
	if ((rc == 124 || (rc == 137 && SECONDS - start >= secs))); then
		t_fail "bounded run" "timed out after ${secs}s: $*"
		return 124
	fi
	return "$rc"
}

t_free_port() {
	python3 - <<'EOF'
import random, socket
while True:
    port = random.randint(20000, 60000)
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        s.bind(("127.0.0.1", port))
    except OSError:
        continue
    finally:
        s.close()
    print(port)
    break
EOF
}

# nfsload runs: NFSLOAD (default build/nfsload) and HELPERS (build/tests) as the
# Makefile passes them. nl ARGS... runs nfsload --quiet bounded in time, stdout to
# $OUT, stderr to $ERR, status in $RC; jqv FILTER reads $OUT with jq.
# NL_ENGINE (empty: the default, native): the engine a suite's runs use unless they
# name one (a later --engine wins), so a suite about libnfs says so once.
NFSLOAD=$(realpath "${NFSLOAD:-build/nfsload}")
HELPERS=${HELPERS:-build/tests}
OUT=$TMP/out
ERR=$TMP/err
NL_ENGINE=${NL_ENGINE:-}
nl() {
	RC=0
	t_run_bounded 120 "$NFSLOAD" --quiet ${NL_ENGINE:+--engine "$NL_ENGINE"} "$@" >"$OUT" \
		2>"$ERR" || RC=$?
}
jqv() { jq -r "$1" "$OUT"; }
# proxy_start ARGS...: tests/helper_proxy.c on a free port in front of ganesha's NFS
# port (ARGS: its arguments after the two ports); sets PROXY_PID, PROXY_PORT and
# PROXY_URL (NFSv3, MOUNT straight to ganesha). timeout bounds it should the script
# die without its EXIT trap.
PROXY_PID=
proxy_start() {
	local i
	: >"$TMP/proxy.out"
	timeout -k 30 300 "$HELPERS/helper_proxy" 0 "$NFS_PORT" "$@" >"$TMP/proxy.out" 2>"$TMP/proxy.err" &
	PROXY_PID=$!
	PROXY_PORT=
	for ((i = 0; i < 50; i++)); do
		PROXY_PORT=$(sed -n 's/^port \([0-9][0-9]*\)$/\1/p' "$TMP/proxy.out")
		[[ -n $PROXY_PORT ]] && break
		sleep 0.1
	done
	if [[ -z $PROXY_PORT ]]; then
		t_fail "proxy $*: start" "no port line; stderr: $(cat "$TMP/proxy.err")"
		return 1
	fi
	PROXY_URL="nfs://127.0.0.1/export?version=3&nfsport=$PROXY_PORT&mountport=$MNT_PORT"
}

# json_ok FILE: a non-empty file holding JSON (jq -e . passes on an empty one).
json_ok() { [[ -s $1 ]] && jq -e . "$1" >/dev/null; }

# Export the variables from a state dir's env file (KEY=VALUE lines, not shell-quoted).
t_load_env() {
	local key value
	while IFS='=' read -r key value; do
		case $key in
		NFS_PORT | MNT_PORT | EXPORT_DIR | GANESHA_PID | URL3 | URL4 | URL3P | URL4P | NLM_PORT)
			export "$key=$value" ;;
		esac
	done <"$1/env"
}

# t_server_cmd start|restart [NAME]
t_server_cmd() {
	local dir=$TMP/srv-${2:-main} out
	if ! out=$("$T_LIB_DIR/ganesha.sh" "$1" "$dir" 2>&1); then
		t_fail "$1 server ${2:-main}" "$out"
		return 1
	fi
	t_load_env "$dir"
	echo "# server ${2:-main}: $URL3 (pid $GANESHA_PID, $EXPORT_DIR)"
}

t_start_server() {
	t_server_cmd start "${1:-main}"
}

t_restart_server() {
	t_server_cmd restart "${1:-main}"
}

t_stop_server() {
	"$T_LIB_DIR/ganesha.sh" stop "$TMP/srv-${1:-main}"
}

# t_counts: "PASSED FAILED SKIPPED" from the results file.
t_counts() {
	echo "$(grep -c '^ok$' "$T_RESULTS") $(grep -c '^fail$' "$T_RESULTS")" \
		"$(grep -c '^skip$' "$T_RESULTS")"
}

# The suite's own check on sanitizers: passes when no process of it left a report
# (each one found was a failure of its own where it was found).
t_summary() {
	local passed failed skipped
	t_san_claim "found at the end of the suite" || true
	if [[ ! -s $T_SAN_DIR/found ]]; then
		t_pass "sanitizer report: none from this suite's processes"
	fi
	read -r passed failed skipped <<<"$(t_counts)"
	echo "$passed passed, $failed failed, $skipped skipped"
	if [[ -n ${T_COUNTS:-} ]]; then
		echo "$passed $failed $skipped" >"$T_COUNTS"
	fi
	T_SUMMARY_DONE=1
	((failed == 0))
}

# t_merged_pct OP PCT FILES...: the percentile PCT of OP over the JSON reports FILES, merged
# by hand (for tests/merge.sh and mpi.sh, against nfsload's own merge): buckets added by
# their lower bound, the first whose running count reaches ceil(PCT% of all), its
# midpoint, kept within the smallest min and the largest max of the reports.
t_merged_pct() {
	local op=$1 pct=$2
	shift 2
	jq -s --arg op "$op" --argjson p "$pct" '
		. as $in
		| ([$in[].ops[$op].buckets[]] | group_by(.[0])
			| map([.[0][0], .[0][1], (map(.[2]) | add)]) | sort_by(.[0])) as $b
		| ($b | map(.[2]) | add) as $n
		| ([($p * $n / 100 | ceil), 1] | max) as $rank
		| ([foreach $b[] as $x (0; . + $x[2]; [., $x])] | map(select(.[0] >= $rank))
			| first | .[1]) as $hit
		| ($hit[0] + ((($hit[1] - $hit[0]) / 2) | floor)) as $mid
		| ([$in[].ops[$op].lat_ns.min] | min) as $lo
		| ([$in[].ops[$op].lat_ns.max] | max) as $hi
		| [[$mid, $lo] | max, $hi] | min' "$@"
}
