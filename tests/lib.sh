# shellcheck shell=bash
# Helpers for integration tests. Source it: . "$(dirname "$0")/lib.sh"
#
#   t_start_server [NAME]      private nfs-ganesha (tests/ganesha.sh) in $TMP/srv-NAME
#                              (NAME defaults to main); exports NFS_PORT MNT_PORT
#                              EXPORT_DIR URL3 URL4 GANESHA_PID of the server just started
#   t_restart_server [NAME]    same ports, data kept; re-exports the variables
#   t_stop_server [NAME]
#   check NAME CMD...          passes when CMD exits 0
#   check_eq NAME EXPECTED ACTUAL
#   check_ge NAME BOUND ACTUAL passes when ACTUAL >= BOUND (numbers, decimals allowed)
#   check_le NAME BOUND ACTUAL passes when ACTUAL <= BOUND
#   check_match NAME REGEX STRING   bash =~ (extended regex)
#   t_run_bounded SECONDS CMD...    runs CMD; past SECONDS kills its whole process
#                              group, records a failure and returns 124; else CMD's status
#   t_free_port                prints a TCP port nobody listens on (for 'unreachable' tests)
#   json_ok FILE               FILE is non-empty and holds JSON
#   proxy_start ARGS...        helper_proxy in front of ganesha's NFS port: PROXY_PID,
#                              PROXY_PORT, PROXY_URL
#   t_summary                  prints "N passed, M failed"; non-zero if any failed; with
#                              T_COUNTS set (make integration), also writes "N M" there
#
# Results are kept in a file, so checks also count inside $(...) and pipelines.
# On exit (also on INT/TERM) every server is stopped, then the rpcbind a server start
# started (none ran before), and $TMP removed (T_KEEP=1 keeps it).
# If you set your own EXIT trap, call t_cleanup from it.

T_LIB_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TMP=$(mktemp -d "${TMPDIR:-/tmp}/nfsload-test.XXXXXX")
T_RESULTS=$TMP/results
: >"$T_RESULTS"
T_BOUNDED_PID=

t_cleanup() {
	local dir
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
	if [[ -n ${T_KEEP:-} ]]; then
		echo "# kept $TMP"
	else
		rm -rf "$TMP"
	fi
}
trap t_cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

t_pass() {
	echo "ok - $1"
	echo ok >>"$T_RESULTS"
}

# t_fail NAME MESSAGE
t_fail() {
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

# coreutils timeout makes itself a process group leader and signals the whole group
# (TERM, then KILL 5 s later). It runs in the background so that cleanup on INT/TERM
# can kill the group; stdin is passed on explicitly (a background job gets /dev/null).
exec {T_LOG_FD}>&1	# the suite's own output, whatever a caller redirects
t_run_bounded() {
	local secs=$1 rc=0 start=$SECONDS t0=${EPOCHREALTIME/./} ms
	shift
	timeout -k 5 "$secs" "$@" <&0 &
	T_BOUNDED_PID=$!
	wait "$T_BOUNDED_PID" || rc=$?
	T_BOUNDED_PID=
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
		NFS_PORT | MNT_PORT | EXPORT_DIR | GANESHA_PID | URL3 | URL4 | URL3P | URL4P)
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

t_summary() {
	local passed failed
	passed=$(grep -c '^ok$' "$T_RESULTS" || true)
	failed=$(grep -c '^fail$' "$T_RESULTS" || true)
	echo "$passed passed, $failed failed"
	if [[ -n ${T_COUNTS:-} ]]; then
		echo "$passed $failed" >"$T_COUNTS"
	fi
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
