#!/usr/bin/env bash
# The native engine against the libnfs engine (and fio's nfs engine) on one private
# nfs-ganesha (loopback), side by side. Client and server share the machine's cores, so the
# figure that says something about a client is its CPU time (user+sys of the whole process,
# GNU time) per operation or per MiB; ops/s are mostly the server's.
#
#   bench/native.sh [NFSLOAD_BINARY]        (default build/nfsload)
#
# Workloads (a)-(e) run BENCH_ROUNDS times, the tools taking turns (the order rotates every
# round); the table shows medians. Tools: libnfs = --engine libnfs; native = --engine native
# (sockets on io_uring); native-epoll = the same with NFSLOAD_IO_URING=0; native-wire = native
# with --wire-time (a packet tap when run as root), native-stamps = native with
# --wire-source stamps (socket timestamps), in (a) and (b) (target: cpu within 1.1x of native's);
# native-libev = native with NFSLOAD_RING_WAIT=0 (its threads sleep in libev's epoll_wait, not
# in their ring: the way before), native-bw100 and native-bw200 = native with --batch-wait
# 100us and 200us, in (a) and the strace pass.
#   (a) 4 KiB random read, NFSv3, 1 connection, iodepth 16 (target: native <= 0.6x libnfs)
#       (e) fio's nfs engine runs the same workload on the same file (1 job)
#   (b) 4 KiB random read, NFSv3, 64 connections x iodepth 4 on one thread (target <= 0.4x)
#   (c) 1 MiB sequential write, NFSv3, 1 connection, iodepth 4, per MiB (target <= 0.5x)
#   (d) NFSv4.1 1 MiB sequential write, then read, 16 connections on one session
#       (--connections-per-session 16), one file per connection; libnfs 4.0 cannot send
#       NFSv4 writes over 3,904 bytes: its refusal is recorded once
#   (g) stress mode: 4 KiB random read, NFSv3, 1 connection, iodepth 64, each engine plain
#       and with --max-load 32 (libnfs-max32, native-max32: a wake per 32 replies), and fio's
#       nfs engine at iodepth 64 (the issue measured ~2 us vs ~22 us per read by hand)
# Then once each:
#   (f) BENCH_MANY connections from one process, 2 threads, iodepth 1, 4 KiB random read
#       on 32 files of 16 KiB, NFSv3 and NFSv4.1 (16 connections per session): set-up time
#       ("all up in"), peak RSS, and whether every connection completed I/O. 32 files, not one
#       per connection: a v4.1 OPEN holds a server fd, and 9920 sockets + 9920 open files pass
#       ganesha's fd limit (OPENs fail with EIO)
#   a probe: (d)'s write with all 16 connections of the session on one file (before be23d1f
#       all but one got EBADF)
#   with BENCH_STRACE=1: (a)-(c) again under strace -f -c: system calls per operation,
#       and (where perf can count raw_syscalls:sys_enter) once more without strace
#
# Environment:
#   BENCH_SECONDS=5        run time of (a)-(d) and (g)
#   BENCH_ROUNDS=3         rounds of (a)-(d) and (g)
#   BENCH_WORKLOADS="a b c d-write d-read g"  the rounds' workloads (a subset to rerun one)
#   BENCH_FILESIZE=256m    size of the test file of (a)-(c)
#   BENCH_MANY=9920        connections of (f) (0: skip (f)). Not 10000: nfs-ganesha 4.3 refuses a connection
#                          whose fd number reaches RPC_Max_Connections (at most 10000) and
#                          holds ~24 fds of its own, plus NFSv3's MOUNT connections during
#                          set-up; NFSv4.1 with 16 per session on 2 threads needs a multiple of 32
#   BENCH_SECONDS_MANY=5   run time of (f)
#   BENCH_STRACE=1         the strace pass (0: skip)
#   BENCH_STRACE_ROUNDS=1  rounds of the strace pass (tools take turns, the order rotating)
#   BENCH_STRACE_WORKLOADS="a b c"  the strace pass's workloads
#   BENCH_LIMIT_LIBNFS_MANY=60  time limit of libnfs's run in (f)
#   BENCH_OUT=DIR          raw outputs and report.txt (default build/bench/native-DATE)
#   BENCH_KEEP=1           keep the server's state directory
#   FIO=/path/to/fio       fio built with its nfs engine (default: fio on PATH, if it has it)
#   BENCH_BASE=/path/to/nfsload  another build (e.g. of an older commit): its native engine
#                          runs as tool native-base in (a), (b) and the strace pass, taking
#                          turns with the others (before/after in one run, on one server)
#
#   bench/native.sh --table DIR             print the tables again from DIR/rows.tsv
# Needs root (the server), nfs-ganesha, rpcbind, libnfs-utils, jq, GNU time (/usr/bin/time);
# strace for the strace pass.
set -uo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
TABLE_ONLY=
if [[ ${1:-} == --table ]]; then
	TABLE_ONLY=${2:?usage: bench/native.sh --table DIR}
	set --
fi
NFSLOAD=${1:-$ROOT/build/nfsload}
SECS=${BENCH_SECONDS:-5}
ROUNDS=${BENCH_ROUNDS:-3}
FILESIZE=${BENCH_FILESIZE:-256m}
MANY=${BENCH_MANY:-9920}
SECS_MANY=${BENCH_SECONDS_MANY:-5}
STRACE=${BENCH_STRACE:-1}
SROUNDS=${BENCH_STRACE_ROUNDS:-1}
SWORKLOADS=${BENCH_STRACE_WORKLOADS:-a b c}
BASE=${BENCH_BASE:-}
OUT=${BENCH_OUT:-$ROOT/build/bench/native-$(date +%Y%m%d-%H%M%S)}
REPORT=$OUT/report.txt
ROWS=$OUT/rows.tsv
ROUND=0

die() { echo "bench: $*" >&2; exit 1; }
say() { echo "$*" | tee -a "$REPORT"; }

# The tables, from $ROWS (and $OUT/strace.tsv).
tables() {
	echo
	echo "## (a)-(e), (g): median of $(awk -F'\t' '$1 ~ /^a-/ && $2 == "libnfs"' "$ROWS" | wc -l) rounds"
	echo "cpu = user+sys of the whole client process (GNU time) / ops (or / MiB); own = nfsload's"
	echo "own figure for the I/O phase only (.cpu.us_per_op); csw = context switches per op"
	echo "(voluntary + involuntary); srv = nfs-ganesha's CPU per op. p50/p99 = latency per op,"
	echo "submission to completion. 'vs libnfs' = this tool's median cpu / libnfs's (lower is better)."
	echo
	awk -F'\t' '
	function median(key, k,   n, i, j, t, v) {
		n = k == "own" ? nown[key] : cnt[key]
		if (!n) return "-"
		for (i = 1; i <= n; i++) v[i] = val[key, k, i]
		for (i = 2; i <= n; i++) for (j = i; j > 1 && v[j - 1] > v[j]; j--) {
			t = v[j]; v[j] = v[j - 1]; v[j - 1] = t }
		return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
	}
	$1 ~ /^[a-eg]-/ && $1 !~ /^d-v40/ {
		key = $1 SUBSEP $2
		if (!(key in seen)) { seen[key] = 1; order[++nkeys] = key }
		runs[key]++
		if ($3 == "ok") okruns[key]++; else bad[key] = $3
		if ($4 > 0 && $6 > 0) {
			c = ++cnt[key]
			val[key, "iops", c] = $4 / $6; val[key, "mibs", c] = $5 / $6 / 1048576
			val[key, "cop", c] = $9 * 1e6 / $4
			val[key, "cmib", c] = $5 > 0 ? $9 * 1e6 / ($5 / 1048576) : 0
			# by round, for the paired ratios (the k-th row of a key is round k)
			byround[key, runs[key]] = $1 ~ /write|1m/ ? val[key, "cmib", c] : val[key, "cop", c]
			if ($13 != "-") val[key, "own", ++nown[key]] = $13
			val[key, "csw", c] = $12 / $4
			val[key, "p50", c] = $7; val[key, "p99", c] = $8
			val[key, "rss", c] = $10 / 1024; val[key, "sop", c] = $11 * 1e6 / $4
		}
		note[key] = $16
	}
	END {
		fmt = "%-20s | %-12s | %-10s | %8s | %7s | %9s | %10s | %8s | %6s | %8s | %8s | %7s | %7s | %-22s\n"
		printf fmt, "workload", "tool", "status", "ops/s", "MiB/s", "cpu us/op", "cpu us/MiB", \
			"own us/op", "csw/op", "p50 us", "p99 us", "RSS MiB", "srv us/op", "cpu vs libnfs"
		for (r = 1; r <= nkeys; r++) {
			key = order[r]; split(key, kk, SUBSEP); wl = kk[1]; tool = kk[2]
			st = okruns[key] == runs[key] ? "ok" : sprintf("%s %d/%d", bad[key], runs[key] - okruns[key], runs[key])
			if (!cnt[key]) {
				printf fmt, wl, tool, st, "-", "-", "-", "-", "-", "-", "-", "-", "-", "-", note[key]
				continue
			}
			lk = wl SUBSEP "libnfs"; vs = "-"
			if (cnt[lk] && tool != "libnfs") {
				byte = wl ~ /write|1m/
				vs = sprintf("%.2fx", byte ? median(key, "cmib") / median(lk, "cmib") : \
					median(key, "cop") / median(lk, "cop"))
			}
			lo = hi = val[key, "cop", 1]
			for (i = 2; i <= cnt[key]; i++) {
				if (val[key, "cop", i] < lo) lo = val[key, "cop", i]
				if (val[key, "cop", i] > hi) hi = val[key, "cop", i]
			}
			printf fmt, wl, tool, st, sprintf("%.0f", median(key, "iops")), \
				sprintf("%.1f", median(key, "mibs")), sprintf("%.2f", median(key, "cop")), \
				sprintf("%.0f", median(key, "cmib")), \
				(nown[key] ? sprintf("%.2f", median(key, "own")) : "-"), \
				sprintf("%.2f", median(key, "csw")), sprintf("%.0f", median(key, "p50")), \
				sprintf("%.0f", median(key, "p99")), sprintf("%.1f", median(key, "rss")), \
				sprintf("%.2f", median(key, "sop")), vs
			printf "%-20s   rounds: cpu us/op %.2f..%.2f%s\n", "", lo, hi, \
				(note[key] != "" && note[key] != "-" ? "; " note[key] : "")
			if (cnt[lk] && tool != "libnfs") {
				pr = ""
				for (i = 1; i <= runs[key]; i++)
					pr = pr sprintf("%s%s", i > 1 ? " " : "", \
						(((key, i) in byround) && ((lk, i) in byround)) ? \
						sprintf("%.2fx", byround[key, i] / byround[lk, i]) : "-")
				printf "%-20s   vs libnfs in the same round: %s\n", "", pr
			}
			nk = wl SUBSEP "native"
			if (tool ~ /-(wire|stamps)$/ && cnt[nk]) {
				pr = ""
				for (i = 1; i <= runs[key]; i++)
					pr = pr sprintf("%s%s", i > 1 ? " " : "", \
						(((key, i) in byround) && ((nk, i) in byround)) ? \
						sprintf("%.2fx", byround[key, i] / byround[nk, i]) : "-")
				printf "%-20s   %s vs native without: %.2fx (medians); same round: %s\n", \
					"", tool ~ /-wire$/ ? "--wire-time" : "--wire-source stamps", \
					median(key, "cop") / median(nk, "cop"), pr
			}
		}
	}' "$ROWS"
	echo
	echo "## once: libnfs with NFSv4 1 MiB writes; 16 connections of one session on one shared file"
	awk -F'\t' '$1 ~ /^(d-v40|probe)/ {
		idle = $15 == "-" ? "" : sprintf(", %s of the connections did no I/O", $15)
		printf "%-24s %-8s %s: %s ops, %.1f MiB/s%s; %s\n", $1, $2, $3, $4,
			($6 > 0 ? $5 / $6 / 1048576 : 0), idle, $16 }' "$ROWS"
	echo
	echo "## (f) many connections from one process (2 threads, iodepth 1, 32 files)"
	printf '%-26s | %-12s | %-10s | %10s | %12s | %9s | %8s | %9s | %s\n' workload tool status \
		"all up in" "peak RSS MiB" "ops/s" "cpu us/op" "no I/O" "note"
	awk -F'\t' '$1 ~ /^f-/ {
		printf "%-26s | %-12s | %-10s | %10s | %12.1f | %9s | %8s | %9s | %s\n", $1, $2, $3,
			$14 == "-" ? "-" : sprintf("%.0f ms", $14), $10 / 1024,
			($6 > 0 ? sprintf("%.0f", $4 / $6) : "-"), ($4 > 0 ? sprintf("%.2f", $9 * 1e6 / $4) : "-"),
			$15, $16 }' "$ROWS"
	if [[ -s $OUT/strace.tsv ]]; then
		echo
		echo "## system calls per operation (strace -f -c, 3 s runs; 'unstraced': perf's count of"
		echo "## raw_syscalls:sys_enter in a run of its own, the whole process)"
		awk -F'\t' '{ printf "%-18s %-12s %8d ops  %6.2f calls/op  unstraced %5s  (%s)\n", $1, $2,
			$3, $4, ($6 == "" ? "-" : $6), $5 }' "$OUT/strace.tsv"
	fi
}

if [[ -n $TABLE_ONLY ]]; then
	OUT=$TABLE_ONLY
	ROWS=$OUT/rows.tsv
	[[ -s $ROWS ]] || die "$ROWS: no rows"
	tables
	exit 0
fi

command -v jq >/dev/null || die "jq not found"
[[ -x /usr/bin/time ]] || die "no /usr/bin/time (apt-get install time)"
[[ $(id -u) == 0 ]] || die "must run as root (the nfs-ganesha server needs it)"
[[ -x $NFSLOAD ]] || die "$NFSLOAD: not built (make, or pass the binary)"
[[ -z $BASE || -x $BASE ]] || die "BENCH_BASE=$BASE: not an executable"
"$NFSLOAD" --help 2>&1 | grep -- --connections-per-session >/dev/null ||
	die "$NFSLOAD has no native engine (--connections-per-session missing)"
WORKLOADS=${BENCH_WORKLOADS:-a b c d-write d-read g}
((MANY % 32 == 0)) || die "BENCH_MANY=$MANY: a multiple of 32 (2 threads x 16 per session)"

# Sockets on both sides: the server inherits this limit, and so does the client.
ulimit -n "$(ulimit -Hn)" 2>/dev/null
(($(ulimit -n) >= MANY + 512)) ||
	die "ulimit -n is $(ulimit -n): (f) needs $((MANY + 512)) (lower BENCH_MANY)"

mkdir -p "$OUT" || die "cannot create $OUT"
: >"$REPORT"
: >"$ROWS"
STATE=$(mktemp -d /tmp/nfsload-native-bench.XXXXXX)
cleanup() {
	"$ROOT/tests/ganesha.sh" stop "$STATE" >/dev/null 2>&1
	"$ROOT/tests/ganesha.sh" stop-rpcbind "$STATE" >/dev/null 2>&1 # if it started one
	if [[ ${BENCH_KEEP:-} == 1 ]]; then
		echo "bench: server state kept in $STATE" >&2
	else
		rm -rf "$STATE"
	fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

HAVE_FIO=0
FIO=${FIO:-$(command -v fio || true)}
if [[ -n $FIO && -x $FIO ]] && "$FIO" --enghelp=nfs 2>/dev/null | grep -q nfs_url; then
	HAVE_FIO=1
else
	echo "bench: no fio with the nfs engine (set FIO=/path/to/fio): skipping (e)" >&2
fi
HAVE_PERF=0
command -v perf >/dev/null && perf stat -e raw_syscalls:sys_enter true >/dev/null 2>&1 && HAVE_PERF=1
if ((STRACE)) && ! command -v strace >/dev/null; then
	echo "bench: no strace: skipping the strace pass" >&2
	STRACE=0
fi

# --- the server ------------------------------------------------------------------------
# Its own connection limit at ganesha's maximum, for (f).
GANESHA_MAX_CONNECTIONS=10000 "$ROOT/tests/ganesha.sh" start "$STATE" >"$OUT/ganesha-start.log" 2>&1 ||
	{ cat "$OUT/ganesha-start.log" >&2; die "nfs-ganesha did not start"; }
envval() { sed -n "s/^$1=//p" "$STATE/env"; } # not sourced: the URLs hold '&'
URL3=$(envval URL3)
EXPORT_DIR=$(envval EXPORT_DIR)
GANESHA_PID=$(envval GANESHA_PID)
URL41="nfs://127.0.0.1/export?version=4.1&nfsport=$(envval NFS_PORT)"
URL4=$(envval URL4)
[[ -n $URL3 && -d $EXPORT_DIR ]] || die "tests/ganesha.sh wrote no usable $STATE/env"

{
	echo "# native engine vs libnfs engine (vs fio's nfs engine), $(date -u '+%F %T UTC')"
	echo "machine: $(nproc) CPUs, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)," \
		"kernel $(uname -r), $(sed -n 's/^PRETTY_NAME="\(.*\)"/\1/p' /etc/os-release)," \
		"$(awk '/MemTotal/ { printf "%.1f GiB RAM", $2 / 1048576 }' /proc/meminfo)"
	echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
	echo "server: nfs-ganesha $(dpkg-query -W -f '${Version}' nfs-ganesha 2>/dev/null)," \
		"FSAL_VFS on $(df -T "$EXPORT_DIR" | awk 'NR == 2 { print $2 }'), 127.0.0.1, pid $GANESHA_PID," \
		"RPC_Max_Connections 10000, slot_table_size $(sed -n 's/.*slot_table_size = \([0-9]*\);/\1/p' \
			"$STATE/ganesha.conf")"
	echo "libnfs: $(pkg-config --modversion libnfs 2>/dev/null); liburing:" \
		"$(dpkg-query -W -f '${Version}' liburing2 2>/dev/null)"
	echo "nfsload: $NFSLOAD ($("$NFSLOAD" --version 2>/dev/null | tr '\n' ' '));" \
		"source $(git -C "$ROOT" describe --always --dirty 2>/dev/null)"
	[[ -n $BASE ]] && echo "native-base: $BASE (source $(git -C "$(dirname "$BASE")/.." describe --always --dirty 2>/dev/null))"
	((HAVE_FIO)) && echo "fio: $FIO ($("$FIO" --version 2>/dev/null))"
	echo "run time ${SECS}s x $ROUNDS rounds; (f): $MANY connections, ${SECS_MANY}s; ulimit -n $(ulimit -n)"
	echo "URLs: $URL3 ; $URL41"
	echo "raw outputs: $OUT"
	echo
} | tee -a "$REPORT"

# --- running one measurement -----------------------------------------------------------
srv_ticks() { awk '{ print $14 + $15 }' "/proc/$GANESHA_PID/stat" 2>/dev/null || echo 0; }
TCK=$(getconf CLK_TCK)

# measure NAME LIMIT CMD...: run CMD under GNU time and timeout; leaves $B.out, $B.err,
# $B.time, and sets RC, CPU_S, RSS_KB, CSW (voluntary + involuntary context switches), SRV_S.
measure() {
	local name=$1 limit=$2 s0 s1 t
	shift 2
	B=$OUT/$name
	say "\$ $(printf '%q ' "$@")"
	s0=$(srv_ticks)
	/usr/bin/time -f '%e %U %S %M %w %c' -o "$B.time" timeout -k 5 "$limit" "$@" >"$B.out" 2>"$B.err"
	RC=$?
	s1=$(srv_ticks)
	t=$(tail -n 1 "$B.time")
	CPU_S=$(awk '{ print $2 + $3 }' <<<"$t")
	RSS_KB=$(awk '{ print $4 }' <<<"$t")
	CSW=$(awk '{ print $5 + $6 }' <<<"$t")
	SRV_S=$(awk -v a="$s0" -v b="$s1" -v t="$TCK" 'BEGIN { print (b - a) / t }')
	sleep 1 # let the server settle between runs
}

status_of() { # after a run: ok, errors=N, hung, failed(rc=N)
	case $RC in
	0) jq -r 'if .total.errors > 0 then "errors=\(.total.errors)" else "ok" end' "$1" 2>/dev/null ||
		echo no-json ;;
	124 | 137) echo hung ;;
	*) echo "failed(rc=$RC)" ;;
	esac
}

# row WL TOOL STATUS OPS BYTES SECS P50_US P99_US OWN_US_PER_OP CONNECT_MS IDLE_CONNS NOTE
row() {
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" \
		"$5" "$6" "$7" "$8" "$CPU_S" "$RSS_KB" "$SRV_S" "$CSW" "$9" "${10}" "${11}" "${12}" >>"$ROWS"
}

# The command of one nfsload run: TOOL (libnfs, native, native-epoll; -max32: with
# --max-load 32; the others as the header says) URL ARGS...
nfsload_cmd() {
	local tool=$1 url=$2
	shift 2
	CMD=()
	local bin=$NFSLOAD
	[[ $tool == *-base ]] && bin=$BASE
	[[ $tool == *-epoll ]] && CMD=(env NFSLOAD_IO_URING=0)
	[[ $tool == *-libev ]] && CMD=(env NFSLOAD_RING_WAIT=0)
	CMD+=("$bin" --engine "${tool%%-*}" "$@")
	[[ $tool == *-max32 ]] && CMD+=(--max-load 32)
	[[ $tool == *-wire ]] && CMD+=(--wire-time)
	[[ $tool == *-stamps ]] && CMD+=(--wire-source stamps)
	[[ $tool == *-bw100 ]] && CMD+=(--batch-wait 100us)
	[[ $tool == *-bw200 ]] && CMD+=(--batch-wait 200us)
	CMD+=(--skip-layout --keep --quiet --output-format json --output "$B.json" "$url")
}

# run_nfsload WL TOOL OP LIMIT URL ARGS...: one measured run, one row.
run_nfsload() {
	local wl=$1 tool=$2 op=$3 limit=$4 url=$5 j st
	shift 5
	B=$OUT/$wl-$tool-r$ROUND
	nfsload_cmd "$tool" "$url" "$@"
	measure "$wl-$tool-r$ROUND" "$limit" "${CMD[@]}"
	j=$B.json
	st=$(status_of "$j")
	read -ra v < <(jq -r --arg op "$op" '[.total.count, .total.bytes, .duration_ns / 1e9,
		((.ops[$op].lat_ns.p50 // 0) / 1000), ((.ops[$op].lat_ns.p99 // 0) / 1000), .cpu.us_per_op,
		(.setup.connect_ns / 1e6), ([.connections[] | select(.ops == 0)] | length)] | @tsv' \
		"$j" 2>/dev/null)
	if ((${#v[@]} != 8)); then # no report (a run that hung or was refused)
		[[ $st == ok ]] && st=no-json
		row "$wl" "$tool" "$st" 0 0 0 - - - - - "$(tail -n 1 "$B.err" | cut -c1-200)"
		return
	fi
	row "$wl" "$tool" "$st" "${v[@]}" "$(jq -r '.limits_note' "$j" | cut -c1-160)"
}

# run_fio WL ARGS...: fio's nfs engine, one job.
run_fio() {
	local wl=$1 j nfail note
	shift
	B=$OUT/$wl-fio-r$ROUND
	measure "$wl-fio-r$ROUND" $((SECS + 30)) "$FIO" --name="$wl" --ioengine=nfs --nfs_url="$URL3" \
		--time_based --runtime="$SECS" --lat_percentiles=1 --output-format=json \
		--output="$B.raw" "$@"
	# fio's nfs engine logs into the --output file too: keep the JSON object only.
	j=$B.json
	sed -n '/^{$/,/^}$/p' "$B.raw" >"$j" 2>/dev/null
	nfail=$(grep -c '^Failed NFS operation' "$B.raw" 2>/dev/null)
	note=""
	((nfail > 0)) && note="$nfail ops failed at its end (the engine closes with I/O in flight)"
	if ((RC != 0)) || ! jq -e '.jobs[0]' "$j" >/dev/null 2>&1; then
		row "$wl" fio "$( ((RC == 124 || RC == 137)) && echo hung || echo "failed(rc=$RC)")" \
			0 0 0 - - - - - "see $B.err"
		return
	fi
	# shellcheck disable=SC2046
	row "$wl" fio "$(jq -r 'if .jobs[0].error != 0 then "error=\(.jobs[0].error)" else "ok" end' "$j")" \
		$(jq -r '.jobs[0] as $x | [($x.read.total_ios + $x.write.total_ios),
			($x.read.io_bytes + $x.write.io_bytes), ([$x.read.runtime, $x.write.runtime] | max) / 1000,
			(($x.read.lat_ns.percentile["50.000000"] // 0) / 1000),
			(($x.read.lat_ns.percentile["99.000000"] // 0) / 1000)] | @tsv' "$j") - - - "$note"
}

# --- the files: laid out once, outside the measured runs -------------------------------
# layout NAME URL ARGS...: an nfsload run that creates and fills the files, kept.
layout() {
	local name=$1 url=$2
	shift 2
	say "\$ $(printf '%q ' "$NFSLOAD" "$@" --keep --quiet --output-format json \
		--output "$OUT/layout-$name.json" "$url")   # layout"
	if ! timeout -k 5 600 "$NFSLOAD" "$@" --keep --quiet --output-format json \
		--output "$OUT/layout-$name.json" "$url" >"$OUT/layout-$name.out" 2>"$OUT/layout-$name.err"; then
		die "layout $name failed: $(tail -n 1 "$OUT/layout-$name.err")"
	fi
	jq -e '.layout.stats.errors == 0 and .total.errors == 0' "$OUT/layout-$name.json" >/dev/null ||
		die "layout $name: errors (see $OUT/layout-$name.json)"
}
say "## layout"
# Only what the workloads asked for read (the strace pass reads (a)-(c)'s).
wants() { [[ " $WORKLOADS $( ((STRACE)) && echo a c) " == *" $1"* ]]; }
layout v3-read "$URL3" --engine libnfs -t 1 -c 1 -q 4 --rw write --bs 1m --size "$FILESIZE" \
	--nrfiles 1 --runtime 1s --dir nb-read
if wants c; then
	layout v3-write "$URL3" --engine libnfs -t 1 -c 1 -q 4 --rw write --bs 1m --size "$FILESIZE" \
		--nrfiles 1 --runtime 1s --dir nb-write
fi
if wants d; then
	layout v41 "$URL41" --engine native -t 1 -c 16 --connections-per-session 16 -q 4 --rw write \
		--bs 1m --size 64m --nrfiles 16 --runtime 1s --dir nb-v41
fi
if ((MANY > 0)); then
	layout many "$URL3" --engine native -t 1 -c 16 -q 4 --rw write --bs 16k --size 16k \
		--nrfiles 32 --runtime 1s --dir nb-many
fi
READ_FILE=$(cd "$EXPORT_DIR" && find nb-read -name "file.*" | sort | head -1)
[[ -n $READ_FILE ]] || die "no file in $EXPORT_DIR/nb-read"

# --- (a)-(e), rounds interleaved -------------------------------------------------------
A4K=(--rw randread --bs 4k --size "$FILESIZE" --nrfiles 1 --dir nb-read)
W1M=(--rw write --bs 1m --size "$FILESIZE" --nrfiles 1 --dir nb-write)
V41=(--bs 1m --size 64m --nrfiles 16 --dir nb-v41 -t 1 -c 16 --connections-per-session 16 -q 4)

# one WORKLOAD TOOL: a run of one tool in one workload.
one() {
	local lim=$((SECS + 60))
	case $1 in
	a) if [[ $2 == fio ]]; then
		((HAVE_FIO)) && run_fio a-randread-qd16 --filename="/$READ_FILE" --size="$FILESIZE" \
			--rw=randread --bs=4k --iodepth=16
	else
		run_nfsload a-randread-qd16 "$2" read $lim "$URL3" -t 1 -c 1 -q 16 "${A4K[@]}" --runtime "${SECS}s"
	fi ;;
	b) run_nfsload b-randread-64x4 "$2" read $lim "$URL3" -t 1 -c 64 -q 4 "${A4K[@]}" --runtime "${SECS}s" ;;
	c) run_nfsload c-write-1m "$2" write $lim "$URL3" -t 1 -c 1 -q 4 "${W1M[@]}" --runtime "${SECS}s" ;;
	d-write) run_nfsload d-v41-write-16conn "$2" write $lim "$URL41" --rw write "${V41[@]}" --runtime "${SECS}s" ;;
	d-read) run_nfsload d-v41-read-16conn "$2" read $lim "$URL41" --rw read "${V41[@]}" --runtime "${SECS}s" ;;
	g) if [[ $2 == fio ]]; then
		((HAVE_FIO)) && run_fio g-randread-qd64 --filename="/$READ_FILE" --size="$FILESIZE" \
			--rw=randread --bs=4k --iodepth=64
	else
		run_nfsload g-randread-qd64 "$2" read $lim "$URL3" -t 1 -c 1 -q 64 "${A4K[@]}" --runtime "${SECS}s"
	fi ;;
	esac
}

for ((ROUND = 1; ROUND <= ROUNDS; ROUND++)); do
	say ""
	say "# round $ROUND of $ROUNDS"
	for w in $WORKLOADS; do
		case $w in
		a) tools=(libnfs native native-epoll native-wire native-stamps native-libev native-bw100
			native-bw200 fio ${BASE:+native-base}) ;;
		b) tools=(libnfs native native-epoll native-wire native-stamps ${BASE:+native-base}) ;;
		d-*) tools=(native native-epoll) ;;
		g) tools=(libnfs native libnfs-max32 native-max32 fio) ;;
		*) tools=(libnfs native native-epoll) ;;
		esac
		n=${#tools[@]}
		for ((k = 0; k < n; k++)); do
			one "$w" "${tools[(ROUND - 1 + k) % n]}"
		done
	done
done

# --- once: libnfs and NFSv4 1 MiB writes; 16 connections on one shared file --------------
ROUND=1
wants d && say "" && say "# once"
if wants d; then
	run_nfsload d-v40-write libnfs write $((SECS + 60)) "$URL4" --rw write -t 1 -c 16 -q 4 \
		--bs 1m --size 64m --nrfiles 16 --dir nb-v40 --runtime "${SECS}s"
	run_nfsload probe-v41-shared-file native write $((SECS + 60)) "$URL41" --rw write -t 1 \
		-c 16 --connections-per-session 16 -q 4 --bs 1m --size 64m --nrfiles 1 --dir nb-v41 \
		--runtime "${SECS}s"
fi

# --- (f) many connections from one process ---------------------------------------------
if ((MANY > 0)); then
	say ""
	say "# (f) $MANY connections, 2 threads, iodepth 1, 32 files of 16 KiB"
	MANYARGS=(-t 2 -c "$MANY" -q 1 --rw randread --bs 4k --size 16k --nrfiles 32 --dir nb-many
		--runtime "${SECS_MANY}s")
	LIM=$((SECS_MANY + 90))
	run_nfsload f-many-v3 native read $LIM "$URL3" "${MANYARGS[@]}"
	run_nfsload f-many-v3 native-epoll read $LIM "$URL3" "${MANYARGS[@]}"
	run_nfsload f-many-v41-16persession native read $LIM "$URL41" "${MANYARGS[@]}" \
		--connections-per-session 16
	run_nfsload f-many-v3 libnfs read "${BENCH_LIMIT_LIBNFS_MANY:-60}" "$URL3" "${MANYARGS[@]}"
fi

# --- system calls per operation --------------------------------------------------------
if ((STRACE)); then
	say ""
	say "# strace -f -c (3 s each; strace slows the run: counts per op, not times)"
	: >"$OUT/strace.tsv"
	STOOLS=(libnfs native native-epoll native-libev native-bw100 native-bw200 ${BASE:+native-base})
	((HAVE_FIO)) && STOOLS+=(fio)	# (a) only: fio's nfs engine, the same reads
	# scmd TOOL URL ARGS...: CMD for the strace pass (fio: workload (a)'s job); sops B: its ops.
	scmd() {
		if [[ $1 == fio ]]; then
			CMD=("$FIO" --name=a --ioengine=nfs --nfs_url="$2" --filename="/$READ_FILE"
				--size="$FILESIZE" --rw=randread --bs=4k --iodepth=16 --time_based --runtime=3
				--output-format=json --output="$B.raw")
		else
			nfsload_cmd "$@" --runtime 3s
		fi
	}
	sops() {
		if [[ $tool == fio ]]; then
			sed -n '/^{$/,/^}$/p' "$1.raw" 2>/dev/null | jq -r '.jobs[0].read.total_ios' 2>/dev/null
		else
			jq -r '.total.count' "$1.json" 2>/dev/null
		fi
	}
	for ((sr = 1; sr <= SROUNDS; sr++)); do
	for w in $SWORKLOADS; do
		# The order rotates each round, as in the timed rounds.
		for ((ti = 0; ti < ${#STOOLS[@]}; ti++)); do
			tool=${STOOLS[(ti + sr - 1) % ${#STOOLS[@]}]}
			case $w in
			a) wl=a-randread-qd16 op=read args=(-t 1 -c 1 -q 16 "${A4K[@]}") ;;
			b) wl=b-randread-64x4 op=read args=(-t 1 -c 64 -q 4 "${A4K[@]}") ;;
			c) wl=c-write-1m op=write args=(-t 1 -c 1 -q 4 "${W1M[@]}") ;;
			esac
			[[ $tool == fio && $w != a ]] && continue
			((SROUNDS > 1)) && wl+=" r$sr"
			B=$OUT/strace-${wl// /-}-$tool
			scmd "$tool" "$URL3" "${args[@]}"
			say "\$ strace -f -c -o $B.strace $(printf '%q ' "${CMD[@]}")"
			timeout -k 5 60 strace -f -c -o "$B.strace" "${CMD[@]}" >/dev/null 2>"$B.err"
			ops=$(sops "$B")
			if ! [[ $ops =~ ^[0-9]+$ ]] || ((ops == 0)); then
				say "strace $wl $tool: no result (see $B.err)"
				continue
			fi
			# The top five calls and the total, per operation.
			# strace -c lines: % time, seconds, usecs/call, calls, [errors,] syscall.
			awk -v w="$wl" -v t="$tool" -v n="$ops" '
				$1 ~ /^[0-9.]+$/ && NF >= 5 { if ($NF == "total") tot = $4; else calls[$NF] = $4 }
				END {
					s = ""
					for (k = 0; k < 5; k++) {
						best = ""
						for (x in calls) if (best == "" || calls[x] > calls[best]) best = x
						if (best == "") break
						s = s sprintf("%s%s %.2f", k ? ", " : "", best, calls[best] / n)
						delete calls[best]
					}
					printf "%s\t%s\t%d\t%.2f\t%s", w, t, n, tot / n, s
				}' "$B.strace" >>"$OUT/strace.tsv"
			# The same run without strace (which stops the client at every call, so
			# more replies wait per wake): perf's count of system calls entered.
			pc=-
			if ((HAVE_PERF)); then
				B=$OUT/perf-${wl// /-}-$tool
				scmd "$tool" "$URL3" "${args[@]}"
				say "\$ perf stat -e raw_syscalls:sys_enter $(printf '%q ' "${CMD[@]}")"
				timeout -k 5 60 perf stat -x, -e raw_syscalls:sys_enter -o "$B.perf" "${CMD[@]}" \
					>/dev/null 2>"$B.err"
				n=$(awk -F, '$3 ~ /raw_syscalls:sys_enter/ { print $1 }' "$B.perf" 2>/dev/null)
				o=$(sops "$B")
				[[ $n =~ ^[0-9]+$ && $o =~ ^[0-9]+$ ]] && ((o > 0)) &&
					pc=$(awk -v n="$n" -v o="$o" 'BEGIN { printf "%.2f", n / o }')
			fi
			printf '\t%s\n' "$pc" >>"$OUT/strace.tsv"
		done
	done
	done
fi

# --- the tables ------------------------------------------------------------------------
{
	echo
	echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
	tables
} | tee -a "$REPORT"
echo
echo "report: $REPORT"
