#!/usr/bin/env bash
# Side-by-side client-efficiency benchmark on one private nfs-ganesha (loopback):
# nfsload, fio's nfs engine (when a fio with that engine is found) and a bare libnfs poll
# loop (bench/bare_libnfs.c). Client and server share the machine's cores, so the figure
# that says something about the client is its CPU time (user+sys) per operation / per MiB.
# First, bench/micro.c: the cost of recording one operation and of one interval's
# hand-over and merge of the statistics (no server involved). Workload 6 runs nfsload
# with and without --hdr-log (1 s and 100 ms intervals): the cost of the interval series
# and the HdrHistogram log, as CPU per operation against the same run without the log.
#
#   bench/run.sh [NFSLOAD_BINARY]          (default build/nfsload; skipped if absent)
#
# Environment:
#   BENCH_SECONDS=10      run time of workloads 1-4 and 6
#   BENCH_ROUNDS=3        workloads 1-4 and 6 run this many times, the tools taking turns;
#                         the table shows the median of each figure (the machine is noisy)
#   BENCH_SECONDS_1000=10 run time of workload 5 (1000 connections)
#   BENCH_FILESIZE=256m   size of each test file
#   BENCH_OUT=DIR         where raw outputs and report.txt go (default build/bench/run-DATE)
#   BENCH_KEEP=1          keep the server's state directory (and its test files)
#   FIO=/path/to/fio      fio built with its nfs engine (default: fio on PATH, if it has it)
# Needs root (the server), nfs-ganesha, rpcbind, libnfs-dev, jq; GNU time (/usr/bin/time)
# for peak RSS (without it, CPU comes from bash's time builtin).
set -uo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
NFSLOAD=${1:-$ROOT/build/nfsload}
SECS=${BENCH_SECONDS:-10}
ROUNDS=${BENCH_ROUNDS:-3}
ROUND=1
SECS1000=${BENCH_SECONDS_1000:-10}
FILESIZE=${BENCH_FILESIZE:-256m}
OUT=${BENCH_OUT:-$ROOT/build/bench/run-$(date +%Y%m%d-%H%M%S)}
REPORT=$OUT/report.txt
ROWS=$OUT/rows.tsv
BARE=$ROOT/build/bench/bare_libnfs
MICRO=$ROOT/build/bench/micro

die() { echo "bench: $*" >&2; exit 1; }
say() { echo "$*" | tee -a "$REPORT"; }

mib_of() { # 256m / 1g / 4096 -> MiB (whole)
	local s=${1,,}
	case $s in
	*g) echo $((${s%g} * 1024)) ;;
	*m) echo "${s%m}" ;;
	*k) echo $((${s%k} / 1024)) ;;
	*) echo $((s / 1048576)) ;;
	esac
}

command -v jq >/dev/null || die "jq not found"
GNU_TIME=1
if [[ ! -x /usr/bin/time ]]; then
	GNU_TIME=0
	echo "bench: no /usr/bin/time (package time): CPU from bash's time, no peak RSS" >&2
fi
[[ $(id -u) == 0 ]] || die "must run as root (the nfs-ganesha server needs it)"
FILE_MIB=$(mib_of "$FILESIZE")
((FILE_MIB >= 1)) || die "BENCH_FILESIZE=$FILESIZE: at least 1m"

mkdir -p "$OUT" "$ROOT/build/bench" || die "cannot create $OUT"
: >"$REPORT"
: >"$ROWS"
STATE=$(mktemp -d /tmp/nfsload-bench.XXXXXX)
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

# 1000 connections: sockets on both sides (ganesha inherits this limit).
ulimit -n 8192 2>/dev/null || ulimit -n 4096 2>/dev/null || true

# --- the tools -------------------------------------------------------------------------
HAVE_NFSLOAD=0
if [[ -x $NFSLOAD ]]; then
	HAVE_NFSLOAD=1
else
	echo "bench: nfsload not built ($NFSLOAD missing): skipping its runs" >&2
fi
HAVE_FIO=0
FIO=${FIO:-$(command -v fio || true)}
if [[ -n $FIO && -x $FIO ]] && "$FIO" --enghelp=nfs 2>/dev/null | grep -q nfs_url; then
	HAVE_FIO=1
else
	echo "bench: no fio with the nfs engine (set FIO=/path/to/fio): skipping fio" >&2
fi
HAVE_BARE=0
read -ra NFS_CFLAGS <<<"$(pkg-config --cflags libnfs 2>/dev/null)"
read -ra NFS_LIBS <<<"$(pkg-config --libs libnfs 2>/dev/null || echo -lnfs)"
if ${CC:-cc} -std=c11 -D_GNU_SOURCE -O2 -Wall -Wextra -Werror "${NFS_CFLAGS[@]}" \
	-o "$BARE" "$ROOT/bench/bare_libnfs.c" "${NFS_LIBS[@]}" >"$OUT/bare-build.log" 2>&1; then
	HAVE_BARE=1
else
	echo "bench: bench/bare_libnfs.c did not build (see $OUT/bare-build.log): skipping it" >&2
fi

# The micro-benchmark: compiled from the sources it measures, with the Makefile's -O2.
HAVE_MICRO=0
if ${CC:-cc} -std=c11 -D_GNU_SOURCE -I"$ROOT/include" -I"$ROOT/src" -O2 -g -Wall -Wextra -Werror \
	-o "$MICRO" "$ROOT/bench/micro.c" "$ROOT/src/measure/hist.c" "$ROOT/src/measure/stats.c" "$ROOT/src/measure/hdrlog.c" \
	"$ROOT/src/workload/verify.c" "$ROOT/src/workload/pattern.c" "$ROOT/src/workload/workload.c" \
	"$ROOT/src/workload/distrib.c" "$ROOT/src/base/units.c" \
	-lz -lxxhash -lpthread -lm >"$OUT/micro-build.log" 2>&1; then
	HAVE_MICRO=1
else
	echo "bench: bench/micro.c did not build (see $OUT/micro-build.log): skipping it" >&2
fi

# --- the server and the test files -----------------------------------------------------
"$ROOT/tests/ganesha.sh" start "$STATE" >"$OUT/ganesha-start.log" 2>&1 ||
	{ cat "$OUT/ganesha-start.log" >&2; die "nfs-ganesha did not start"; }
envval() { sed -n "s/^$1=//p" "$STATE/env"; } # not sourced: the URLs hold '&'
URL3=$(envval URL3)
EXPORT_DIR=$(envval EXPORT_DIR)
GANESHA_PID=$(envval GANESHA_PID)
[[ -n $URL3 && -d $EXPORT_DIR ]] || die "tests/ganesha.sh wrote no usable $STATE/env"
mkdir -p "$EXPORT_DIR/bench"
# Real data, straight onto the server's disk (fio's nfs engine cannot lay files out).
if ! { dd if=/dev/urandom of="$EXPORT_DIR/bench/read.dat" bs=1M count="$FILE_MIB" status=none &&
	cp "$EXPORT_DIR/bench/read.dat" "$EXPORT_DIR/bench/write.dat" && sync; }; then
	die "cannot lay out test files in $EXPORT_DIR"
fi

{
	echo "# nfsload side-by-side benchmark, $(date -u '+%F %T UTC')"
	echo "machine: $(nproc) CPUs, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)," \
		"kernel $(uname -r), $(sed -n 's/^PRETTY_NAME="\(.*\)"/\1/p' /etc/os-release)," \
		"$(awk '/MemTotal/ { printf "%.1f GiB RAM", $2 / 1048576 }' /proc/meminfo)"
	echo "server: nfs-ganesha $(dpkg-query -W -f '${Version}' nfs-ganesha 2>/dev/null)," \
		"FSAL_VFS on $(df -T "$EXPORT_DIR" | awk 'NR == 2 { print $2 }'), 127.0.0.1, pid $GANESHA_PID"
	echo "libnfs: $(pkg-config --modversion libnfs 2>/dev/null)"
	((HAVE_NFSLOAD)) && echo "nfsload: $NFSLOAD ($("$NFSLOAD" --version 2>/dev/null | head -1))"
	((HAVE_FIO)) && echo "fio: $FIO ($("$FIO" --version 2>/dev/null))"
	echo "run time ${SECS}s (workload 5: ${SECS1000}s), test files ${FILE_MIB} MiB, URL $URL3"
	echo "raw outputs: $OUT"
	echo
} | tee -a "$REPORT"

# --- the micro-benchmark (the server is up but idle) ----------------------------------
say "## 0. micro-benchmark: statistics recording and the interval hand-over (bench/micro.c)"
if ((HAVE_MICRO)); then
	say "\$ $MICRO"
	if "$MICRO" >"$OUT/micro.out" 2>"$OUT/micro.err"; then
		tee -a "$REPORT" <"$OUT/micro.out"
	else
		say "micro: failed (rc=$?, see $OUT/micro.err)"
	fi
else
	say "micro: skipped (did not build, see $OUT/micro-build.log)"
fi

# --- running one measurement -----------------------------------------------------------
srv_ticks() { awk '{ print $14 + $15 }' "/proc/$GANESHA_PID/stat" 2>/dev/null || echo 0; }
TCK=$(getconf CLK_TCK)

# measure WL TOOL LIMIT CMD...: run CMD under GNU time and timeout; leaves $B.out, $B.err,
# $B.time ("elapsed user sys maxrss_kb"), and sets RC, CPU_S, RSS_KB, SRV_S.
measure() {
	local wl=$1 tool=$2 limit=$3 s0 s1 t
	shift 3
	B=$OUT/$wl-$tool-r$ROUND
	say "\$ $(printf '%q ' "$@")"
	s0=$(srv_ticks)
	if ((GNU_TIME)); then
		/usr/bin/time -f '%e %U %S %M' -o "$B.time" timeout -k 5 "$limit" "$@" >"$B.out" 2>"$B.err"
		RC=$?
	else
		local TIMEFORMAT='%R %U %S 0'
		{ time timeout -k 5 "$limit" "$@" >"$B.out" 2>"$B.err"; } 2>"$B.time"
		RC=$?
	fi
	s1=$(srv_ticks)
	t=$(tail -n 1 "$B.time")
	CPU_S=$(awk '{ print $2 + $3 }' <<<"$t")
	RSS_KB=$(awk '{ print $4 }' <<<"$t")
	SRV_S=$(awk -v a="$s0" -v b="$s1" -v t="$TCK" 'BEGIN { print (b - a) / t }')
	sleep 1 # let the server settle between runs
}

# row WL TOOL STATUS OPS BYTES SECS P50_US P99_US NOTE
row() {
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" "$5" "$6" \
		"$7" "$8" "$CPU_S" "$RSS_KB" "$SRV_S" "$9" >>"$ROWS"
}

failed_status() { # after a non-zero RC
	case $RC in
	124 | 137) echo hung ;;
	*) echo "failed(rc=$RC)" ;;
	esac
}

# nfsload WL DIRNAME OPDIR ARGS...
run_nfsload() {
	run_nfsload_as nfsload "$@"
}

# nfsload under another name in the table (a variant of its options): TOOL WL DIRNAME OPDIR
# ARGS... An ARG of @HDR@ becomes $OUT/WL-TOOL-rROUND.hdr (the HdrHistogram log).
run_nfsload_as() {
	local tool=$1 wl=$2 dir=$3 op=$4 j hdr a note
	local -a args=()
	shift 4
	if ((!HAVE_NFSLOAD)); then
		say "$wl $tool: skipped (not built)"
		return
	fi
	hdr=$OUT/$wl-$tool-r$ROUND.hdr
	for a in "$@"; do
		[[ $a == @HDR@ ]] && a=$hdr
		args+=("$a")
	done
	measure "$wl" "$tool" $((SECS + 120)) "$NFSLOAD" "${args[@]}" --dir "$dir" --skip-layout \
		--keep --output-format json --output "$OUT/$wl-$tool-r$ROUND.json" "$URL3"
	j=$B.json
	if ((RC != 0)) || ! jq -e .total.count "$j" >/dev/null 2>&1; then
		row "$wl" "$tool" "$( ((RC)) && failed_status || echo 'no-json')" 0 0 0 - - "see $B.err"
		return
	fi
	note=$(jq -r '"own cpu \(.cpu.us_per_op * 100 | round / 100) us/op; connect \(.setup.connect_ns / 1e6 * 10 | round / 10) ms"' "$j")
	[[ -f $hdr ]] && note+="; hdr log $(grep -c '^Tag=' "$hdr") lines"
	# shellcheck disable=SC2046
	row "$wl" "$tool" "$(jq -r 'if .total.errors > 0 then "errors=\(.total.errors)" else "ok" end' "$j")" \
		$(jq -r --arg op "$op" '[.total.count, .total.bytes, .duration_ns / 1e9,
			((.ops[$op].lat_ns.p50 // 0) / 1000), ((.ops[$op].lat_ns.p99 // 0) / 1000)] | @tsv' "$j") \
		"$note"
}

# Workload 6, one variant: off (the interval series only, always on), hdr (--hdr-log at
# the default 1 s interval), hdr100ms (--hdr-log at 100 ms intervals: 10x the rate).
run_w6() {
	local -a w6=(--threads 1 --connections 1 --iodepth 16 --rw randread "${COMMON[@]}")
	case $1 in
	off) run_nfsload_as nfsload w6-interval-hdr nfsload-read read "${w6[@]}" ;;
	hdr) run_nfsload_as nfsload+hdr w6-interval-hdr nfsload-read read "${w6[@]}" \
		--interval 1s --hdr-log @HDR@ ;;
	hdr100ms) run_nfsload_as nfsload+hdr100ms w6-interval-hdr nfsload-read read "${w6[@]}" \
		--interval 100ms --hdr-log @HDR@ ;;
	esac
}

# fio WL OPDIR ARGS...
run_fio() {
	local wl=$1 op=$2 j nfail note
	shift 2
	if ((!HAVE_FIO)); then
		say "$wl fio: skipped (no fio with the nfs engine)"
		return
	fi
	measure "$wl" fio $((SECS + 30)) "$FIO" --name="$wl" --ioengine=nfs --nfs_url="$URL3" \
		--size="$FILESIZE" --time_based --runtime="$SECS" --lat_percentiles=1 \
		--output-format=json --output="$OUT/$wl-fio-r$ROUND.raw" "$@"
	# fio's nfs engine logs into the --output file too: keep the JSON object only.
	j=$B.json
	sed -n '/^{$/,/^}$/p' "$B.raw" >"$j" 2>/dev/null
	nfail=$(grep -c '^Failed NFS operation' "$B.raw" 2>/dev/null)
	note=""
	((nfail > 0)) && note="$nfail ops failed at its end (the engine closes with I/O in flight)"
	if ((RC != 0)) || ! jq -e '.jobs[0]' "$j" >/dev/null 2>&1; then
		row "$wl" fio "$( ((RC)) && failed_status || echo 'no-json')" 0 0 0 - - \
			"limit ${SECS}+30 s; see $B.err"
		return
	fi
	# shellcheck disable=SC2046
	row "$wl" fio "$(jq -r 'if .jobs[0].error != 0 then "error=\(.jobs[0].error)" else "ok" end' "$j")" \
		$(jq -r --arg op "$op" '.jobs[0] as $x | [($x.read.total_ios + $x.write.total_ios),
			($x.read.io_bytes + $x.write.io_bytes), ([$x.read.runtime, $x.write.runtime] | max) / 1000,
			(($x[$op].lat_ns.percentile["50.000000"] // 0) / 1000),
			(($x[$op].lat_ns.percentile["99.000000"] // 0) / 1000)] | @tsv' "$j") \
		"$note"
}

# bare WL QD BS
run_bare() {
	local wl=$1 line
	if ((!HAVE_BARE)); then
		say "$wl bare: skipped (did not build)"
		return
	fi
	measure "$wl" bare $((SECS + 30)) "$BARE" "$URL3" /bench/read.dat "$SECS" "$2" "$3"
	line=$(grep '^ops=' "$B.out")
	if ((RC != 0)) || [[ -z $line ]]; then
		row "$wl" bare "$( ((RC)) && failed_status || echo 'no-output')" 0 0 0 - - "see $B.err"
		return
	fi
	kv() { sed -n "s/.* *\\b$1=\\([^ ]*\\).*/\\1/p" <<<"$line"; }
	local bs
	bs=$(awk -v b="$3" 'BEGIN { n = b + 0; u = tolower(substr(b, length(b)));
		print n * (u == "k" ? 1024 : u == "m" ? 1048576 : 1) }')
	row "$wl" bare ok "$(kv ops)" "$(($(kv ops) * bs))" "$(kv secs)" "$(kv p50_us)" "$(kv p99_us)" \
		"own cpu $(kv cpu_us_per_op) us/op (I/O phase)"
}

# --- nfsload lays out its own files: once, outside the measured runs -------------------
if ((HAVE_NFSLOAD)); then
	for rw in read write; do
		d=$rw
		say "\$ $(printf '%q ' "$NFSLOAD" --threads 1 --connections 1 --iodepth 1 --rw $rw --bs 1m \
			--size "$FILESIZE" --nrfiles 1 --runtime 1s --dir "nfsload-$d" --keep --quiet \
			--output-format json --output "$OUT/layout-$d.json" "$URL3")   # layout pass"
		if ! timeout -k 5 300 "$NFSLOAD" --threads 1 --connections 1 --iodepth 1 --rw $rw --bs 1m \
			--size "$FILESIZE" --nrfiles 1 --runtime 1s --dir "nfsload-$d" --keep --quiet \
			--output-format json --output "$OUT/layout-$d.json" "$URL3" \
			>"$OUT/layout-$d.out" 2>"$OUT/layout-$d.err"; then
			say "nfsload layout pass failed (see $OUT/layout-$d.err): skipping nfsload"
			HAVE_NFSLOAD=0
		fi
	done
fi
COMMON=(--bs 4k --size "$FILESIZE" --nrfiles 1 --runtime "${SECS}s")

for ((ROUND = 1; ROUND <= ROUNDS; ROUND++)); do
say ""
say "# round $ROUND of $ROUNDS"
say ""
say "## 1. 4 KiB random read, 1 connection, iodepth 16"
run_nfsload w1-randread-qd16 nfsload-read read --threads 1 --connections 1 --iodepth 16 \
	--rw randread "${COMMON[@]}"
run_fio w1-randread-qd16 read --filename=/bench/read.dat --rw=randread --bs=4k --iodepth=16
run_bare w1-randread-qd16 16 4k

say ""
say "## 2. 4 KiB random read, 64 connections x iodepth 4 (nfsload: 2 threads; fio: 64 processes)"
run_nfsload w2-randread-64x4 nfsload-read read --threads 2 --connections 64 --iodepth 4 \
	--rw randread "${COMMON[@]}"
run_fio w2-randread-64x4 read --filename=/bench/read.dat --rw=randread --bs=4k --iodepth=4 \
	--numjobs=64 --group_reporting

say ""
say "## 3. 1 MiB sequential read, 1 connection, iodepth 4"
run_nfsload w3-seqread-1m nfsload-read read --threads 1 --connections 1 --iodepth 4 \
	--rw read --bs 1m --size "$FILESIZE" --nrfiles 1 --runtime "${SECS}s"
run_fio w3-seqread-1m read --filename=/bench/read.dat --rw=read --bs=1m --iodepth=4

say ""
say "## 4. 1 MiB sequential write, 1 connection, iodepth 4"
run_nfsload w4-seqwrite-1m nfsload-write write --threads 1 --connections 1 --iodepth 4 \
	--rw write --bs 1m --size "$FILESIZE" --nrfiles 1 --runtime "${SECS}s"
run_fio w4-seqwrite-1m write --filename=/bench/write.dat --rw=write --bs=1m --iodepth=4

say ""
say "## 6. interval series and HdrHistogram log on vs off: 4 KiB random read, 1 connection, iodepth 16"
# The variants take turns, the first one rotating with the round (drift spreads evenly).
W6=(off hdr hdr100ms)
for ((k = 0; k < 3; k++)); do
	run_w6 "${W6[(ROUND - 1 + k) % 3]}"
done

done

say ""
say "## 5. 1000 connections, 2 threads, iodepth 1, 4 KiB random read"
run_nfsload w5-1000conn nfsload-read read --threads 2 --connections 1000 --iodepth 1 \
	--rw randread --bs 4k --size "$FILESIZE" --nrfiles 1 --runtime "${SECS1000}s"

# --- the table -------------------------------------------------------------------------
{
	echo
	echo "## Results (median of $ROUNDS rounds for workloads 1-4 and 6)"
	echo "client CPU = user+sys of the whole client process (GNU time; fio: with its job processes)."
	echo "RSS = peak resident set of the client (fio: of its largest process). p50/p99 = per-op"
	echo "latency, submission to completion (fio: lat_ns with lat_percentiles=1). 'vs fio' and"
	echo "'vs bare' = this tool's median / theirs in the same workload (CPU: lower is better)."
	echo "Workload 6: nfsload = interval series only (always on), +hdr = --interval 1s --hdr-log,"
	echo "+hdr100ms = --interval 100ms --hdr-log; 'vs off' in the note = its median / nfsload's"
	echo "(target: CPU within 5%, i.e. <= 1.05x). 'rounds' = lowest..highest cpu us/op of the"
	echo "rounds: a ratio inside that spread is the machine's noise, not the log's cost (see the"
	echo "micro-benchmark's swap_merge_us and hdrlog_write_us for what an interval costs)."
	echo
	awk -F'\t' '
	function median(key, k,   n, i, j, t, v) {
		n = cnt[key]
		for (i = 1; i <= n; i++) v[i] = val[key, k, i]
		for (i = 2; i <= n; i++) for (j = i; j > 1 && v[j - 1] > v[j]; j--) {
			t = v[j]; v[j] = v[j - 1]; v[j - 1] = t }
		return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
	}
	{
		key = $1 SUBSEP $2
		if (!(key in seen)) { seen[key] = 1; order[++nkeys] = key }
		runs[key]++
		if ($4 > 0 && $6 > 0) {
			c = ++cnt[key]
			val[key, "iops", c] = $4 / $6; val[key, "mibs", c] = $5 / $6 / 1048576
			val[key, "cop", c] = $9 * 1e6 / $4
			val[key, "cmib", c] = $5 > 0 ? $9 * 1e6 / ($5 / 1048576) : 0
			val[key, "p50", c] = $7; val[key, "p99", c] = $8
			val[key, "rss", c] = $10 / 1024; val[key, "sop", c] = $11 * 1e6 / $4
			if ($3 == "ok") okruns[key]++
		} else bad[key] = $3
		note[key] = $12
		if ($2 ~ /^nfsload\+/) hasvar[$1] = 1
	}
	END {
		for (r = 1; r <= nkeys; r++) {
			key = order[r]
			if (cnt[key]) { m[key, "cop"] = median(key, "cop"); m[key, "iops"] = median(key, "iops") }
		}
		fmt = "%-17s | %-16s | %-10s | %9s | %8s | %9s | %10s | %8s | %8s | %7s | %9s | %10s | %10s | %11s | %s\n"
		printf fmt, "workload", "tool", "status", "IOPS", "MiB/s", "cpu us/op", "cpu us/MiB", \
			"p50 us", "p99 us", "RSS MiB", "srv us/op", "CPU vs fio", "CPU vs bare", \
			"IOPS vs fio", "note"
		for (r = 1; r <= nkeys; r++) {
			key = order[r]; split(key, kk, SUBSEP); wl = kk[1]; tool = kk[2]
			fk = wl SUBSEP "fio"; bk = wl SUBSEP "bare"
			st = (okruns[key] == runs[key]) ? "ok" : sprintf("%s %d/%d", (key in bad) ? bad[key] : "errors", \
				runs[key] - okruns[key], runs[key])
			if (!cnt[key]) {
				printf fmt, wl, tool, st, "-", "-", "-", "-", "-", "-", "-", "-", "-", "-", "-", note[key]
				continue
			}
			rf = ((fk, "cop") in m) ? sprintf("%.2fx", m[key, "cop"] / m[fk, "cop"]) : "-"
			# A variant of nfsload (nfsload+...): against plain nfsload in the same workload.
			ok = wl SUBSEP "nfsload"; vs = ""
			if (tool ~ /^nfsload\+/ && ((ok, "cop") in m))
				vs = sprintf("CPU vs off %.3fx, IOPS vs off %.3fx; ", m[key, "cop"] / m[ok, "cop"], \
					m[key, "iops"] / m[ok, "iops"])
			if (wl in hasvar && tool ~ /^nfsload/) {
				lo = hi = val[key, "cop", 1]
				for (i = 2; i <= cnt[key]; i++) {
					if (val[key, "cop", i] < lo) lo = val[key, "cop", i]
					if (val[key, "cop", i] > hi) hi = val[key, "cop", i]
				}
				vs = vs sprintf("rounds %.2f..%.2f us/op; ", lo, hi)
			}
			rb = ((bk, "cop") in m) ? sprintf("%.2fx", m[key, "cop"] / m[bk, "cop"]) : "-"
			ri = ((fk, "iops") in m) ? sprintf("%.2fx", m[key, "iops"] / m[fk, "iops"]) : "-"
			printf fmt, wl, tool, st, sprintf("%.0f", median(key, "iops")), \
				sprintf("%.1f", median(key, "mibs")), sprintf("%.2f", median(key, "cop")), \
				sprintf("%.0f", median(key, "cmib")), sprintf("%.0f", median(key, "p50")), \
				sprintf("%.0f", median(key, "p99")), sprintf("%.1f", median(key, "rss")), \
				sprintf("%.2f", median(key, "sop")), rf, rb, ri, vs note[key]
		}
	}' "$ROWS"
	if [[ -s $OUT/micro.out ]]; then
		echo
		echo "## Micro-benchmark (bench/micro.c; thread CPU, medians)"
		grep -v '^#' "$OUT/micro.out"
	fi
} | tee -a "$REPORT"
echo
echo "report: $REPORT"
