#!/usr/bin/env bash
# Soak benchmark: one long nfsload run with many connections against nfs-ganesha on
# loopback, to show that nfsload's memory stays flat, that nothing fails, and that its
# counts add up. While nfsload runs, its VmRSS and VmHWM (/proc/PID/status) are sampled
# every 5 s into rss.csv; at the end the JSON report and the samples are summed up with
# three verdicts: RSS stable (growth after warm-up under 2%), no errors, counts consistent
# (the connections' ops and the interval series' ops both add up to the total).
#
#   bench/soak.sh [NFSLOAD_BINARY]          (default build/nfsload; make soak does this)
#
# Environment:
#   SOAK_CONNS=1000       --connections
#   SOAK_QD=4             --iodepth
#   SOAK_SECONDS=600      --runtime, in seconds
#   SOAK_THREADS=2        --threads
#   SOAK_SIZE=64x16m      the file set: NRFILES x SIZE of each (--nrfiles, --size)
#   SOAK_RW=randread      --rw (e.g. randrw for 50/50 random reads and writes)
#   SOAK_URL=nfs://127.0.0.1/...   an NFS server already running on 127.0.0.1 (default:
#                         a private nfs-ganesha on free loopback ports, tests/ganesha.sh)
#   SOAK_OUT=DIR          raw outputs (default build/soak/run-DATE)
#   SOAK_RESULTS=FILE     the summary is appended here too (default build/soak/results.txt)
# Warm-up: RSS is compared from the first sample 60 s into the measured phase (10% of
# the run when that is shorter). Exit status: 0 when every verdict holds, 1 when one
# fails (or nfsload failed), 2 for bad settings; 130/143 when interrupted.
# Needs jq; root for the private server (nfs-ganesha, rpcbind, libnfs-utils, python3).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
NFSLOAD=${1:-$ROOT/build/nfsload}
CONNS=${SOAK_CONNS:-1000}
QD=${SOAK_QD:-4}
SECS=${SOAK_SECONDS:-600}
THREADS=${SOAK_THREADS:-2}
SIZE=${SOAK_SIZE:-64x16m}
RW=${SOAK_RW:-randread}
URL=${SOAK_URL:-}
OUT=${SOAK_OUT:-$ROOT/build/soak/run-$(date +%Y%m%d-%H%M%S)}
RESULTS=${SOAK_RESULTS:-$ROOT/build/soak/results.txt}
SAMPLE_S=5
INTERVAL=10s

usage_error() {
	echo "soak: $*" >&2
	exit 2
}
die() {
	echo "soak: $*" >&2
	exit 1
}

for v in CONNS QD SECS THREADS; do
	[[ ${!v} =~ ^[1-9][0-9]*$ ]] || usage_error "SOAK_${v/SECS/SECONDS}=${!v}: a positive integer"
done
[[ $SIZE =~ ^([1-9][0-9]*)x([1-9][0-9]*[kKmMgG]?)$ ]] ||
	usage_error "SOAK_SIZE=$SIZE: NRFILES x SIZE, e.g. 64x16m"
NRFILES=${BASH_REMATCH[1]}
FILESIZE=${BASH_REMATCH[2]}
if [[ -n $URL && ! $URL =~ ^nfs://127\.0\.0\.1[:/] ]]; then
	usage_error "SOAK_URL=$URL: only a server on 127.0.0.1 (nfs://127.0.0.1/...)"
fi
[[ -x $NFSLOAD ]] || usage_error "$NFSLOAD is not an executable (build it with make)"
command -v jq >/dev/null || die "jq not found (apt-get install jq)"
if [[ -z $URL && $(id -u) != 0 ]]; then
	die "must run as root for the private nfs-ganesha (or set SOAK_URL)"
fi

mkdir -p "$OUT" "$(dirname "$RESULTS")"
JSON=$OUT/nfsload.json
CSV=$OUT/rss.csv
REPORT=$OUT/report.txt

STATE=""
NFSLOAD_PID=""
SAMPLER_PID=""
# shellcheck disable=SC2317  # only called by the traps
cleanup() {
	local i
	if [[ -n $SAMPLER_PID ]]; then
		kill "$SAMPLER_PID" 2>/dev/null || true
	fi
	# A background job of a script ignores SIGINT: stop nfsload with SIGTERM, which
	# still writes its report and removes its files, then insist.
	if [[ -n $NFSLOAD_PID ]] && kill -0 "$NFSLOAD_PID" 2>/dev/null; then
		kill -TERM "$NFSLOAD_PID" 2>/dev/null || true
		for ((i = 0; i < 150; i++)); do
			kill -0 "$NFSLOAD_PID" 2>/dev/null || break
			sleep 0.1
		done
		kill -KILL "$NFSLOAD_PID" 2>/dev/null || true
	fi
	if [[ -n $STATE ]]; then
		"$ROOT/tests/ganesha.sh" stop "$STATE" >/dev/null 2>&1 || true
		"$ROOT/tests/ganesha.sh" stop-rpcbind "$STATE" >/dev/null 2>&1 || true
		rm -rf "$STATE"
	fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Both ends of every connection are file descriptors; the private server inherits this
# limit. nfsload raises its own (RLIMIT_NOFILE) as far as the hard limit allows.
need_fds=$((CONNS + 1024))
if (($(ulimit -n) < need_fds)); then
	ulimit -n "$need_fds" 2>/dev/null ||
		echo "soak: cannot raise the open-file limit to $need_fds (is $(ulimit -n))" >&2
fi

SERVER="an NFS server already running at $URL"
if [[ -z $URL ]]; then
	STATE=$(mktemp -d /tmp/nfsload-soak.XXXXXX)
	"$ROOT/tests/ganesha.sh" start "$STATE" >"$OUT/ganesha-start.log" 2>&1 ||
		{ cat "$OUT/ganesha-start.log" >&2; die "nfs-ganesha did not start"; }
	URL=$(sed -n 's/^URL3=//p' "$STATE/env") # not sourced: the URL holds '&'
	[[ -n $URL ]] || die "tests/ganesha.sh wrote no URL3 to $STATE/env"
	SERVER="private nfs-ganesha $(dpkg-query -W -f '${Version}' nfs-ganesha 2>/dev/null)"
	SERVER+=" (FSAL_VFS on $(df -T "$STATE" | awk 'NR == 2 { print $2 }'), pid"
	SERVER+=" $(sed -n 's/^GANESHA_PID=//p' "$STATE/env"))"
fi

CMD=("$NFSLOAD" --threads "$THREADS" --connections "$CONNS" --iodepth "$QD" --rw "$RW"
	--bs 4k --size "$FILESIZE" --nrfiles "$NRFILES" --runtime "${SECS}s"
	--interval "$INTERVAL" --quiet --output-format json --output "$JSON" "$URL")

usec_now() { echo "${EPOCHREALTIME/./}"; }

# sample PID T0_USEC: one CSV row (t_s,rss_kib,hwm_kib) every SAMPLE_S seconds while PID
# lives. Watchdog: SIGTERM once the run is 300 s overdue, SIGKILL 60 s later.
# shellcheck disable=SC2317  # runs in the background
sample() {
	local pid=$1 t0=$2 now left rss hwm limit=$(((SECS + 300) * 1000000))
	echo "t_s,rss_kib,hwm_kib" >"$CSV"
	while true; do
		read -r rss hwm < <(awk '/^VmRSS:/ { r = $2 } /^VmHWM:/ { h = $2 }
			END { print r, h }' "/proc/$pid/status" 2>/dev/null) || break
		[[ -n $rss ]] || break # gone, or a zombie (no memory figures)
		now=$(usec_now)
		printf '%d.%03d,%s,%s\n' $(((now - t0) / 1000000)) $(((now - t0) / 1000 % 1000)) \
			"$rss" "$hwm" >>"$CSV"
		if ((now - t0 > limit + 60000000)); then
			kill -KILL "$pid" 2>/dev/null || true
		elif ((now - t0 > limit)); then
			echo "soak: nfsload still runs $((SECS + 300)) s after its start: SIGTERM" >&2
			kill -TERM "$pid" 2>/dev/null || true
		fi
		# Sleep to the next multiple of SAMPLE_S since T0: no drift on a busy machine.
		left=$((SAMPLE_S * 1000000 - ($(usec_now) - t0) % (SAMPLE_S * 1000000)))
		sleep "$((left / 1000000)).$(printf '%06d' $((left % 1000000)))"
	done
}

# Date and source tree at the start, those the binary was built from: a long run can
# outlive commits made meanwhile.
START_DATE=$(date -u '+%F %T UTC')
COMMIT=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)
if [[ -n $(git -C "$ROOT" status --short src include 2>/dev/null) ]]; then
	COMMIT+=" with uncommitted changes"
fi

echo "soak: $(printf '%q ' "${CMD[@]}")" >&2
echo "soak: outputs in $OUT; about $((SECS / 60)) min $((SECS % 60)) s" >&2
T0=$(usec_now)
"${CMD[@]}" >"$OUT/nfsload.out" 2>"$OUT/nfsload.err" &
NFSLOAD_PID=$!
sample "$NFSLOAD_PID" "$T0" &
SAMPLER_PID=$!
RC=0
wait "$NFSLOAD_PID" || RC=$?
NFSLOAD_PID=""
wait "$SAMPLER_PID" || true
SAMPLER_PID=""
if [[ ! -s $JSON ]] || ! jq -e .total >/dev/null 2>&1 <"$JSON"; then
	cat "$OUT/nfsload.err" >&2
	die "nfsload exited with $RC and wrote no JSON report ($JSON)"
fi

# --- the figures ------------------------------------------------------------------------
# The measured window, in seconds since nfsload started (the samples' clock).
read -r WIN_START WIN_END < <(jq -r --argjson t0 "$T0" '
	((.start_unix_ns / 1000 - $t0) / 1e6) as $s | "\($s) \($s + .duration_ns / 1e9)"' "$JSON")
WARM=$((SECS / 10 < 60 ? SECS / 10 : 60))
# warm max end final hwm samples: RSS (KiB) at the first sample WARM s into the window,
# the highest and the last in the window from there on, the last sample of the process
# (its teardown), its VmHWM then, and the samples after the warm-up.
read -r RSS_WARM RSS_MAX RSS_END RSS_FINAL HWM_FINAL NSAMPLES < <(awk -F, \
	-v from="$(awk -v s="$WIN_START" -v w="$WARM" 'BEGIN { print s + w }')" -v to="$WIN_END" '
	NR > 1 { final = $2; hwm = $3 }
	NR > 1 && $1 >= from && $1 <= to {
		if (!n++) warm = $2
		if ($2 > max) max = $2
		end = $2
	}
	END { print warm + 0, max + 0, end + 0, final + 0, hwm + 0, n + 0 }' "$CSV")
GROWTH=$((RSS_MAX - RSS_WARM))
GROWTH_PCT=$(awk -v g="$GROWTH" -v w="$RSS_WARM" 'BEGIN { printf "%.2f", w ? 100 * g / w : 0 }')
END_PCT=$(awk -v e="$RSS_END" -v w="$RSS_WARM" 'BEGIN { printf "%+.2f", w ? 100 * (e - w) / w : 0 }')
# RSS once a minute of the window (the curve's shape).
RSS_CURVE=$(awk -F, -v s="$WIN_START" -v to="$WIN_END" '
	NR > 1 && $1 >= s && $1 <= to && int(($1 - s) / 60) >= next_min {
		printf "%s%dm %.1f", sep, int(($1 - s) / 60), $2 / 1024; sep = ", "
		next_min = int(($1 - s) / 60) + 1
	}' "$CSV")

# shellcheck disable=SC2016  # jq's $variables
SUMMARY=$(jq -r '
	def median: sort | if length == 0 then 0 elif length % 2 == 1 then .[length / 2 | floor]
		else (.[length / 2 - 1] + .[length / 2]) / 2 end;
	def r1: . * 10 | round / 10;
	(.settings.interval_ns * 0.9) as $full
	| ([.series | group_by(.start_ns)[] | select(.[0].len_ns >= $full)
		| (map(.ops) | add) / (.[0].len_ns / 1e9)]) as $iv
	| "ops_by_type\t" + ([.ops | to_entries[] | select(.value.count > 0 or .value.errors > 0)
		| "\(.key) \(.value.count) ops, \(.value.errors) errors, \(.value.iops | round) IOPS"]
		| join("; ")),
	  "total_ops\t\(.total.count)",
	  "total_errors\t\(.total.errors)",
	  "iops\t\(.total.iops | round)",
	  "cpu\tuser \(.cpu.user_s) s, sys \(.cpu.sys_s) s, \((.cpu.user_s + .cpu.sys_s) * 1e6
		/ ([.total.count, 1] | max) * 100 | round / 100) us per op (JSON us_per_op \(.cpu.us_per_op));"
		+ " threads busy \([.threads[].busy_pct | r1 | "\(.)%"] | join(" "))",
	  "intervals\t\($iv | length) full intervals of \(.settings.interval_ns / 1e9) s, IOPS per"
		+ " interval min \($iv | min // 0 | round), median \($iv | median | round), max"
		+ " \($iv | max // 0 | round)",
	  "steady\t\(.steady_state.verdict)",
	  "health\t\([.connections[] | select(.error != "")] | length) failed, \(.outliers.stuck
		| length) stuck, \(.outliers.slow | length) outliers; timeouts \([.connections[].timeouts]
		| add); reconnects \([.connections[].reconnects] | add)\(if .outages then "; outages"
		+ " \(.outages.count) on \(.outages.connections) connections, \(.outages.failed_ops)"
		+ " failed ops, longest stall \(.outages.max_stall_ns / 1e6 | r1) ms, longest reconnect"
		+ " \(.outages.max_reconnect_ns / 1e6 | r1) ms, \(.outages.unrecovered) unrecovered"
		else "" end)",
	  "errors_by_kind\t\([.connections[].errors_by_kind | to_entries[]] | group_by(.key)
		| map("\(.[0].key):\(map(.value) | add)") | join(" ") | if . == "" then "none" else . end)",
	  "setup\t\(.connections | length) connections up in \(.setup.connect_ns / 1e6 | r1) ms;"
		+ " layout \(if .layout.ran then "\(.layout.stats.bytes / 1048576 | round) MiB in"
		+ " \(.layout.duration_ns / 1e6 | round) ms, \(.layout.stats.errors) errors"
		else "not run" end); measured \(.duration_ns / 1e9 | r1) s\(if .interrupted
		then " (interrupted)" else "" end)",
	  "conn_ops_sum\t\([.connections[].ops] | add)",
	  "series_ops_sum\t\([.series[].ops] | add)"' "$JSON")
fig() { awk -F'\t' -v k="$1" '$1 == k { print $2 }' <<<"$SUMMARY"; }
TOTAL=$(fig total_ops)
ERRORS=$(fig total_errors)
CONN_SUM=$(fig conn_ops_sum)
SERIES_SUM=$(fig series_ops_sum)

verdict() { # verdict OK TEXT_OK TEXT_FAIL
	if (($1)); then
		echo "verdict: $2"
	else
		echo "verdict: FAILED: $3"
	fi
}

{
	echo "# nfsload soak, started $START_DATE, commit $COMMIT"
	echo "machine: $(nproc) CPUs, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)," \
		"kernel $(uname -r), $(awk '/MemTotal/ { printf "%.1f GiB RAM", $2 / 1048576 }' /proc/meminfo)," \
		"libnfs $(dpkg-query -W -f '${Version}' 'libnfs[0-9]*' 2>/dev/null | head -1)"
	echo "server: $SERVER"
	echo "nfsload: $("$NFSLOAD" --version 2>/dev/null | head -1)"
	echo "command: $(printf '%q ' "${CMD[@]}")"
	echo "raw outputs: $OUT (nfsload.json, rss.csv every ${SAMPLE_S} s, nfsload.err)"
	echo "nfsload exit status: $RC"
	echo "run: $(fig setup)"
	echo "ops: $(fig ops_by_type)"
	echo "total: $TOTAL ops, $ERRORS errors, $(fig iops) IOPS"
	echo "errors by kind: $(fig errors_by_kind)"
	echo "connections: $(fig health)"
	echo "client CPU: $(fig cpu)"
	echo "intervals: $(fig intervals)"
	echo "steady state: $(fig steady)"
	echo "RSS (KiB): warm-up $RSS_WARM (first sample ${WARM} s into the measured phase)," \
		"max after it $RSS_MAX, end $RSS_END ($END_PCT%), growth $GROWTH KiB ($GROWTH_PCT%);" \
		"$NSAMPLES samples; at exit $RSS_FINAL, VmHWM $HWM_FINAL"
	echo "RSS by minute (MiB): $RSS_CURVE"
	verdict "$((RC == 0))" "nfsload exit status 0" "nfsload exit status $RC (see $OUT/nfsload.err)"
	verdict "$(awk -v p="$GROWTH_PCT" -v n="$NSAMPLES" 'BEGIN { print (n > 0 && p < 2) }')" \
		"RSS stable: growth after warm-up $GROWTH KiB ($GROWTH_PCT%, under 2%)" \
		"RSS grew $GROWTH KiB ($GROWTH_PCT%) after warm-up, 2% allowed ($NSAMPLES samples)"
	verdict "$((ERRORS == 0))" "no errors" "$ERRORS errors"
	verdict "$((CONN_SUM == TOTAL && SERIES_SUM == TOTAL))" \
		"counts consistent: connections $CONN_SUM = series $SERIES_SUM = total $TOTAL ops" \
		"counts inconsistent: connections $CONN_SUM, series $SERIES_SUM, total $TOTAL ops"
	echo
} >"$REPORT"
FAILED=$(grep -c '^verdict: FAILED' "$REPORT" || true)
tee -a "$RESULTS" <"$REPORT"
echo "soak: report $REPORT, appended to $RESULTS" >&2
((FAILED == 0)) || exit 1
