#!/usr/bin/env bash
# What each RPC security flavour costs the native engine: AUTH_SYS against RPCSEC_GSS krb5
# (authentication only), krb5i (a checksum over every call and reply body) and krb5p (every
# body sealed), side by side, on a private MIT KDC (tests/kdc.sh) and nfs-ganesha (loopback).
# Client and server share the machine's cores, so the server's crypto competes with the
# client's: the figure that says something about the client is its CPU time per operation
# (or per MiB); ops/s and latency are mostly the server's. The server's CPU per operation
# (ganesha's utime+stime from /proc/PID/stat around each run) is shown too: its share of
# the cost.
#
#   bench/krb5.sh [NFSLOAD_BINARY]          (default build/nfsload; copied into the output
#                                            directory first, so a rebuild meanwhile is harmless)
#   bench/krb5.sh --table DIR               print the tables again from DIR/rows.tsv
#
# Workloads (each flavour, BENCH_ROUNDS rounds, the flavours taking turns with the order
# rotating every round; the tables show medians):
#   (a) 4 KiB random read, NFSv3, 1 connection, iodepth 16, one file of BENCH_FILESIZE
#   (b) 1 MiB sequential write, NFSv3, 1 connection, iodepth 4 (CPU per MiB too)
#   (c) (a) over NFSv4.1 (one session, one connection)
# Servers: ganesha's Kerberos export (GANESHA_KRB5) takes krb5, krb5i and krb5p but not
# AUTH_SYS, and tests/ganesha.sh has no export taking all four. So there are two servers
# of the same binary, FSAL (VFS) and machine, exporting the same directory
# (GANESHA_EXPORT): a plain one (SecType sys) for sys and the Kerberos one for the rest.
# They never run at the same time: a flavour's turn stops the other and restarts its
# own (same ports), followed by an unmeasured warm-up read of BENCH_WARMUP seconds. The
# files are laid out once (sys), every run uses them with --skip-layout --keep.
# Client CPU: nfsload's own figure for the I/O phase (JSON .cpu.us_per_op, getrusage of the
# process: user+sys), and the whole process under GNU time (with set-up: the Kerberos
# ticket and the GSS context per connection).
#
# Environment:
#   BENCH_SECONDS=5            run time of each measured run
#   BENCH_ROUNDS=3             rounds
#   BENCH_FLAVOURS="sys krb5 krb5i krb5p"   the flavours (a subset to rerun one)
#   BENCH_WORKLOADS="a b c"    the workloads
#   BENCH_FILESIZE=256m        size of the file of each workload
#   BENCH_WARMUP=1             seconds of the unmeasured read after a server (re)start (0: none)
#   BENCH_OUT=DIR              raw outputs and report.txt (default build/bench/krb5-DATE)
#   BENCH_KEEP=1               keep the KDC's and servers' state directory
# Needs root (the server), nfs-ganesha (+ -vfs), rpcbind, libnfs-utils, krb5-kdc,
# krb5-admin-server, krb5-user, python3, jq, GNU time (/usr/bin/time).
set -uo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
TABLE_ONLY=
if [[ ${1:-} == --table ]]; then
	TABLE_ONLY=${2:?usage: bench/krb5.sh --table DIR}
	set --
fi
NFSLOAD_SRC=${1:-$ROOT/build/nfsload}
SECS=${BENCH_SECONDS:-5}
ROUNDS=${BENCH_ROUNDS:-3}
FLAVOURS=${BENCH_FLAVOURS:-sys krb5 krb5i krb5p}
WORKLOADS=${BENCH_WORKLOADS:-a b c}
FILESIZE=${BENCH_FILESIZE:-256m}
WARMUP=${BENCH_WARMUP:-1}
OUT=${BENCH_OUT:-$ROOT/build/bench/krb5-$(date +%Y%m%d-%H%M%S)}
REPORT=$OUT/report.txt
ROWS=$OUT/rows.tsv
ROUND=0

die() { echo "bench: $*" >&2; exit 1; }
say() { echo "$*" | tee -a "$REPORT"; }

# rows.tsv: 1 workload, 2 flavour, 3 round, 4 status, 5 ops, 6 bytes, 7 seconds,
# 8 p50 us, 9 p99 us, 10 own cpu us/op (I/O phase), 11 GNU time cpu s (whole process),
# 12 server cpu s, 13 load average (1 min) at the run's start, 14 note
tables() {
	echo
	echo "## median of $(awk -F'\t' '{ print $3 }' "$ROWS" | sort -u | wc -l) rounds"
	echo "cpu us/op = nfsload's own user+sys for the I/O phase / ops (JSON .cpu.us_per_op);"
	echo "cpu us/MiB = the same per MiB moved; proc = the whole process under GNU time (with"
	echo "set-up: ticket, GSS context) / ops; x sys = this flavour's median cpu us/op (per MiB for"
	echo "writes) / sys's; srv = nfs-ganesha's utime+stime during the run / ops (10 ms ticks);"
	echo "p50/p99 = latency per op, submission to completion. Server: same binary and FSAL,"
	echo "sys on a plain export, krb5* on the Kerberos one, one at a time, same directory."
	awk -F'\t' '
	function median(key, k,   n, i, j, t, v) {
		n = cnt[key, k]
		if (!n) return ""
		for (i = 1; i <= n; i++) v[i] = val[key, k, i]
		for (i = 2; i <= n; i++) for (j = i; j > 1 && v[j - 1] > v[j]; j--) {
			t = v[j]; v[j] = v[j - 1]; v[j - 1] = t }
		return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
	}
	function add(key, k, x) { val[key, k, ++cnt[key, k]] = x }
	function f(x, fmtx) { return x == "" ? "-" : sprintf(fmtx, x) }
	{
		key = $1 SUBSEP $2
		if (!($1 in wseen)) { wseen[$1] = 1; worder[++nw] = $1 }
		if (!(key in seen)) { seen[key] = 1; forder[$1, ++nf[$1]] = $2 }
		runs[key]++
		if ($4 == "ok") okruns[key]++; else bad[key] = $4
		if ($5 > 0 && $7 > 0) {
			mib = $6 / 1048576
			add(key, "iops", $5 / $7); add(key, "mibs", mib / $7)
			if ($10 != "-") {
				add(key, "cop", $10); add(key, "cmib", mib > 0 ? $10 * $5 / mib : 0)
				bycop[key, $3] = $10; bycmib[key, $3] = mib > 0 ? $10 * $5 / mib : 0
			}
			add(key, "proc", $11 * 1e6 / $5)
			add(key, "srv", $12 * 1e6 / $5); add(key, "smib", mib > 0 ? $12 * 1e6 / mib : 0)
			add(key, "p50", $8); add(key, "p99", $9)
			if ($3 > maxr[$1]) maxr[$1] = $3
		}
	}
	END {
		for (w = 1; w <= nw; w++) {
			wl = worder[w]; byte = wl ~ /write/
			print ""
			print "### " wl
			if (byte)
				printf "| flavour | status | ops/s | MiB/s | cpu us/op | cpu us/MiB | proc us/op | x sys (per MiB) | p50 us | p99 us | srv us/op | srv us/MiB | srv x sys |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|\n"
			else
				printf "| flavour | status | ops/s | MiB/s | cpu us/op | proc us/op | x sys | p50 us | p99 us | srv us/op | srv x sys |\n|---|---|---|---|---|---|---|---|---|---|---|\n"
			sk = wl SUBSEP "sys"
			notes = ""
			for (i = 1; i <= nf[wl]; i++) {
				fl = forder[wl, i]; key = wl SUBSEP fl
				st = okruns[key] == runs[key] ? "ok " runs[key] "/" runs[key] : \
					sprintf("%s %d/%d", bad[key], runs[key] - okruns[key], runs[key])
				cop = median(key, "cop"); cmib = median(key, "cmib")
				scop = median(sk, "cop"); scmib = median(sk, "cmib")
				srv = median(key, "srv"); ssrv = median(sk, "srv")
				vs = "-"; svs = "-"
				if (fl != "sys" && scop != "") vs = sprintf("%.2fx", byte ? cmib / scmib : cop / scop)
				if (fl != "sys" && ssrv > 0) svs = sprintf("%.2fx", srv / ssrv)
				if (byte)
					printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", fl, st,
						f(median(key, "iops"), "%.0f"), f(median(key, "mibs"), "%.1f"), f(cop, "%.1f"),
						f(cmib, "%.0f"), f(median(key, "proc"), "%.1f"), vs, f(median(key, "p50"), "%.0f"),
						f(median(key, "p99"), "%.0f"), f(srv, "%.1f"), f(median(key, "smib"), "%.0f"), svs
				else
					printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", fl, st,
						f(median(key, "iops"), "%.0f"), f(median(key, "mibs"), "%.1f"), f(cop, "%.2f"),
						f(median(key, "proc"), "%.2f"), vs, f(median(key, "p50"), "%.0f"),
						f(median(key, "p99"), "%.0f"), f(srv, "%.2f"), svs
				# ranges of the rounds, and the ratio to sys within each round
				n = cnt[key, "cop"]; lo = hi = val[key, "cop", 1]
				for (j = 2; j <= n; j++) {
					if (val[key, "cop", j] < lo) lo = val[key, "cop", j]
					if (val[key, "cop", j] > hi) hi = val[key, "cop", j]
				}
				pr = ""
				if (fl != "sys")
					for (r = 1; r <= maxr[wl]; r++) {
						a = byte ? bycmib[key, r] : bycop[key, r]
						b = byte ? bycmib[sk, r] : bycop[sk, r]
						pr = pr sprintf("%s%s", r > 1 ? " " : "", (a != "" && b > 0) ? sprintf("%.2fx", a / b) : "-")
					}
				notes = notes sprintf("%s: cpu us/op %s over the rounds%s\n", fl,
					n ? sprintf("%.2f..%.2f", lo, hi) : "-", pr != "" ? "; x sys round by round: " pr : "")
			}
			printf "\n%s", notes
		}
	}' "$ROWS"
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
[[ -x $NFSLOAD_SRC ]] || die "$NFSLOAD_SRC: not built (make, or pass the binary)"
for cmd in krb5kdc kadmin.local kinit ganesha.nfsd; do
	command -v "$cmd" >/dev/null || die "$cmd not installed (scripts/deps.sh test)"
done
"$NFSLOAD_SRC" --help 2>&1 | grep -q -- '--sec' || die "$NFSLOAD_SRC has no --sec (no Kerberos)"

mkdir -p "$OUT" || die "cannot create $OUT"
: >"$REPORT"
: >"$ROWS"
NFSLOAD=$OUT/nfsload
cp "$NFSLOAD_SRC" "$NFSLOAD" || die "cannot copy $NFSLOAD_SRC"
STATE=$(mktemp -d /tmp/nfsload-krb5-bench.XXXXXX)
cleanup() {
	local s
	for s in sys krb5; do "$ROOT/tests/ganesha.sh" stop "$STATE/srv-$s" >/dev/null 2>&1; done
	for s in sys krb5; do "$ROOT/tests/ganesha.sh" stop-rpcbind "$STATE/srv-$s" >/dev/null 2>&1; done
	"$ROOT/tests/kdc.sh" stop "$STATE/kdc" >/dev/null 2>&1
	if [[ ${BENCH_KEEP:-} == 1 ]]; then
		echo "bench: state kept in $STATE" >&2
	else
		rm -rf "$STATE"
	fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# --- the realm and the servers ---------------------------------------------------------
"$ROOT/tests/kdc.sh" start "$STATE/kdc" >"$OUT/kdc-start.log" 2>&1 ||
	{ cat "$OUT/kdc-start.log" >&2; die "the KDC did not start"; }
export KRB5_CONFIG=$STATE/kdc/krb5/krb5.conf # nfsload finds the client keytab through it
DATA=$STATE/data
mkdir -p "$DATA"

envval() { sed -n "s/^$2=//p" "$1/env"; } # not sourced: the URLs hold '&'
CUR=
STARTS=0
# use_server sys|krb5: the server of that kind up, the other stopped; sets URL3, URL41,
# GANESHA_PID.
use_server() {
	local want=$1 dir=$STATE/srv-$1 ok
	[[ $CUR == "$want" ]] && return 0
	if [[ -n $CUR ]]; then
		"$ROOT/tests/ganesha.sh" stop "$STATE/srv-$CUR" >>"$OUT/ganesha.log" 2>&1
	fi
	echo "=== $(date '+%T') $want" >>"$OUT/ganesha.log"
	if [[ -r $dir/env ]]; then
		"$ROOT/tests/ganesha.sh" restart "$dir" >>"$OUT/ganesha.log" 2>&1
	elif [[ $want == krb5 ]]; then
		GANESHA_KRB5=$STATE/kdc/krb5 GANESHA_EXPORT=$DATA "$ROOT/tests/ganesha.sh" start "$dir" \
			>>"$OUT/ganesha.log" 2>&1
	else
		GANESHA_EXPORT=$DATA "$ROOT/tests/ganesha.sh" start "$dir" >>"$OUT/ganesha.log" 2>&1
	fi
	ok=$?
	((ok == 0)) || { tail -n 20 "$OUT/ganesha.log" >&2; die "nfs-ganesha ($want) did not start"; }
	CUR=$want
	STARTS=$((STARTS + 1))
	GANESHA_PID=$(envval "$dir" GANESHA_PID)
	URL3=$(envval "$dir" URL3)
	URL41=$(envval "$dir" URL4)
	URL41=${URL41/version=4/version=4.1}
	[[ -n $URL3 && -n $GANESHA_PID ]] || die "tests/ganesha.sh wrote no usable $dir/env"
}

server_of() { [[ $1 == sys ]] && echo sys || echo krb5; }

use_server sys
{
	echo "# RPC security flavours: sys, krb5, krb5i, krb5p, $(date -u '+%F %T UTC')"
	echo "machine: $(nproc) CPUs, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)," \
		"kernel $(uname -r), $(sed -n 's/^PRETTY_NAME="\(.*\)"/\1/p' /etc/os-release)," \
		"$(awk '/MemTotal/ { printf "%.1f GiB RAM", $2 / 1048576 }' /proc/meminfo)"
	echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
	echo "server: nfs-ganesha $(dpkg-query -W -f '${Version}' nfs-ganesha 2>/dev/null)," \
		"FSAL_VFS on $(df -T "$DATA" | awk 'NR == 2 { print $2 }'), 127.0.0.1; sys: a plain export," \
		"krb5*: the Kerberos export (GANESHA_KRB5), one at a time, both exporting $DATA"
	echo "Kerberos: MIT krb5 $(dpkg-query -W -f '${Version}' libgssapi-krb5-2 2>/dev/null)," \
		"KDC on 127.0.0.1; the client's keys: $(klist -ke "$(envval "$STATE/kdc/krb5" CLIENT_KEYTAB)" \
			2>/dev/null | sed -n 's/.*(\(.*\)).*/\1/p' | sort -u | tr '\n' ' ')"
	echo "nfsload: $NFSLOAD_SRC ($("$NFSLOAD" --version 2>/dev/null | tr '\n' ' '));" \
		"source $(git -C "$ROOT" describe --always --dirty 2>/dev/null)"
	echo "run time ${SECS}s x $ROUNDS rounds; flavours: $FLAVOURS; workloads: $WORKLOADS;" \
		"file $FILESIZE; warm-up after a server start ${WARMUP}s"
	echo "raw outputs: $OUT"
	echo
} | tee -a "$REPORT"

# --- running one measurement -----------------------------------------------------------
srv_ticks() { awk '{ print $14 + $15 }' "/proc/$GANESHA_PID/stat" 2>/dev/null || echo 0; }
TCK=$(getconf CLK_TCK)

# measure NAME LIMIT CMD...: run CMD under GNU time and timeout; leaves $B.out, $B.err,
# $B.time, and sets RC, CPU_S, SRV_S, LOAD1.
measure() {
	local name=$1 limit=$2 s0 s1
	shift 2
	B=$OUT/$name
	say "\$ $(printf '%q ' "$@")"
	LOAD1=$(cut -d' ' -f1 /proc/loadavg)
	s0=$(srv_ticks)
	/usr/bin/time -f '%e %U %S %M %w %c' -o "$B.time" timeout -k 5 "$limit" "$@" >"$B.out" 2>"$B.err"
	RC=$?
	s1=$(srv_ticks)
	CPU_S=$(tail -n 1 "$B.time" | awk '{ print $2 + $3 }')
	SRV_S=$(awk -v a="$s0" -v b="$s1" -v t="$TCK" 'BEGIN { print (b - a) / t }')
	sleep 1 # let the server settle between runs
}

status_of() { # after a run: ok, errors=N, sec=X (another flavour ran), hung, failed(rc=N)
	case $RC in
	0) jq -r --arg sec "$2" 'if .settings.sec != $sec then "sec=\(.settings.sec)"
		elif .total.errors > 0 then "errors=\(.total.errors)" else "ok" end' "$1" 2>/dev/null ||
		echo no-json ;;
	124 | 137) echo hung ;;
	*) echo "failed(rc=$RC)" ;;
	esac
}

row() { # the 14 columns of rows.tsv (see tables)
	local IFS=$'\t'
	echo "$*" >>"$ROWS"
}

# run_nfsload WL FLAVOUR OP URL ARGS...: one measured run, one row.
run_nfsload() {
	local wl=$1 fl=$2 op=$3 url=$4 j st
	shift 4
	B=$OUT/$wl-$fl-r$ROUND
	j=$B.json
	measure "$wl-$fl-r$ROUND" $((SECS + 60)) "$NFSLOAD" --sec "$fl" "$@" --runtime "${SECS}s" \
		--skip-layout --keep --quiet --output-format json --output "$j" "$url"
	st=$(status_of "$j" "$fl")
	read -ra v < <(jq -r --arg op "$op" '[.total.count, .total.bytes, .duration_ns / 1e9,
		((.ops[$op].lat_ns.p50 // 0) / 1000), ((.ops[$op].lat_ns.p99 // 0) / 1000),
		(.cpu.us_per_op // "-")] | @tsv' "$j" 2>/dev/null)
	if ((${#v[@]} != 6)); then # no report (a run that hung or was refused)
		[[ $st == ok ]] && st=no-json
		row "$wl" "$fl" "$ROUND" "$st" 0 0 0 - - - "$CPU_S" "$SRV_S" "$LOAD1" \
			"$(tail -n 1 "$B.err" | cut -c1-200)"
		return
	fi
	row "$wl" "$fl" "$ROUND" "$st" "${v[@]}" "$CPU_S" "$SRV_S" "$LOAD1" \
		"$(jq -r '.limits_note' "$j" | cut -c1-160)"
}

# --- the files: laid out once (sys), outside the measured runs ---------------------------
layout() { # layout NAME ARGS...: an nfsload run that creates and fills the file, kept
	local name=$1
	shift
	say "\$ $(printf '%q ' "$NFSLOAD" "$@" --keep --quiet --output-format json \
		--output "$OUT/layout-$name.json" "$URL3")   # layout"
	timeout -k 5 600 "$NFSLOAD" "$@" --keep --quiet --output-format json \
		--output "$OUT/layout-$name.json" "$URL3" >"$OUT/layout-$name.out" 2>"$OUT/layout-$name.err" ||
		die "layout $name failed: $(tail -n 1 "$OUT/layout-$name.err")"
	jq -e '.layout.stats.errors == 0 and .total.errors == 0' "$OUT/layout-$name.json" >/dev/null ||
		die "layout $name: errors (see $OUT/layout-$name.json)"
}
say "## layout"
layout read -t 1 -c 1 -q 4 --rw write --bs 1m --size "$FILESIZE" --nrfiles 1 --runtime 1s --dir kb-read
if [[ " $WORKLOADS " == *" b "* ]]; then
	layout write -t 1 -c 1 -q 4 --rw write --bs 1m --size "$FILESIZE" --nrfiles 1 --runtime 1s --dir kb-write
fi

A4K=(-t 1 -c 1 -q 16 --rw randread --bs 4k --size "$FILESIZE" --nrfiles 1 --dir kb-read)
W1M=(-t 1 -c 1 -q 4 --rw write --bs 1m --size "$FILESIZE" --nrfiles 1 --dir kb-write)

# turn FLAVOUR: its server up (a warm-up read after a start), then its runs of the workloads.
turn() {
	local fl=$1 before=$STARTS w
	use_server "$(server_of "$fl")"
	if ((STARTS != before && WARMUP > 0)); then
		say "\$ $NFSLOAD --sec $fl ${A4K[*]} --runtime ${WARMUP}s --skip-layout ... $URL3   # warm-up"
		timeout -k 5 $((WARMUP + 30)) "$NFSLOAD" --sec "$fl" "${A4K[@]}" --runtime "${WARMUP}s" \
			--skip-layout --keep --quiet --output-format json --output "$OUT/warmup-$fl-r$ROUND.json" \
			"$URL3" >/dev/null 2>"$OUT/warmup-$fl-r$ROUND.err" ||
			say "warm-up $fl failed: $(tail -n 1 "$OUT/warmup-$fl-r$ROUND.err")"
	fi
	for w in $WORKLOADS; do
		case $w in
		a) run_nfsload a-v3-randread-4k-qd16 "$fl" read "$URL3" "${A4K[@]}" ;;
		b) run_nfsload b-v3-write-1m-qd4 "$fl" write "$URL3" "${W1M[@]}" ;;
		c) run_nfsload c-v41-randread-4k-qd16 "$fl" read "$URL41" "${A4K[@]}" ;;
		esac
	done
}

read -ra FL <<<"$FLAVOURS"
for ((ROUND = 1; ROUND <= ROUNDS; ROUND++)); do
	say ""
	say "# round $ROUND of $ROUNDS"
	for ((k = 0; k < ${#FL[@]}; k++)); do
		turn "${FL[(ROUND - 1 + k) % ${#FL[@]}]}"
	done
done

# --- the tables ------------------------------------------------------------------------
{
	echo
	echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg); load (1 min) at the runs'" \
		"starts: $(awk -F'\t' '{ print $13 }' "$ROWS" | sort -n | awk '{ v[NR] = $1 }
			END { printf "%s..%s (median %s)", v[1], v[NR], v[int((NR + 1) / 2)] }')"
	echo "server starts: $STARTS (sys and krb5 servers never up at once)"
	tables
} | tee -a "$REPORT"
echo
echo "report: $REPORT"
