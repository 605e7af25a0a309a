#!/usr/bin/env bash
# What --op-log costs the client: CPU per operation at iodepth 16 with and without it,
# side by side on one private nfs-ganesha (loopback), the modes taking turns every round
# (the order rotating), and the null engine (no server: nfsload's own cost, the worst
# case for a relative figure).
#
#   bench/oplog.sh [NFSLOAD_BINARY]        (default build/nfsload)
#
# Modes: off (no --op-log), csv (--op-log FILE.csv), zst (--op-log FILE.csv.zst).
# Workloads: native) --engine native, NFSv3, 4 KiB random reads, 1 thread, 1 connection,
# iodepth 16; null) --engine null, 1 thread, 1 connection, iodepth 16.
# cpu us/op = nfsload's user+sys over the measured window / operations (the JSON's
# .cpu.us_per_op: rows are formatted and compressed on the worker thread inside it; the
# last buffer's flush, after it, is at most 1 MiB). ratio = a mode's median / off's median.
#
# Environment: BENCH_SECONDS=3, BENCH_ROUNDS=9 (the host's load moves a single
# run's cpu us/op by 2x either way: only medians of many turns say anything), BENCH_OUT=DIR (default
# build/bench/oplog-DATE), BENCH_WORKLOADS="native null".
# Needs root (the server), nfs-ganesha, rpcbind, libnfs-utils, jq.
set -uo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
NFSLOAD=$(realpath "${1:-$ROOT/build/nfsload}")
SECONDS_RUN=${BENCH_SECONDS:-3}
ROUNDS=${BENCH_ROUNDS:-9}
WORKLOADS=${BENCH_WORKLOADS:-native null}
OUT=${BENCH_OUT:-$ROOT/build/bench/oplog-$(date +%Y%m%d-%H%M%S)}
STATE=$OUT/state
ROWS=$OUT/rows.tsv
mkdir -p "$OUT" || exit 1
: >"$ROWS"

die() { echo "bench: $*" >&2; exit 1; }
cleanup() {
	"$ROOT/tests/ganesha.sh" stop "$STATE/srv" >/dev/null 2>&1
	"$ROOT/tests/ganesha.sh" stop-rpcbind "$STATE/srv" >/dev/null 2>&1
	rm -f "$OUT"/*.csv "$OUT"/*.csv.zst
}
trap cleanup EXIT

URL3=
if [[ " $WORKLOADS " == *" native "* ]]; then
	"$ROOT/tests/ganesha.sh" start "$STATE/srv" >"$OUT/ganesha.log" 2>&1 ||
		die "no server (tests/ganesha.sh start): $(tail -3 "$OUT/ganesha.log")"
	URL3=$(sed -n 's/^URL3=//p' "$STATE/srv/env")
	[[ -n $URL3 ]] || die "tests/ganesha.sh wrote no URL3"
	"$NFSLOAD" --quiet --engine native -t 1 -c 1 -q 16 --rw randread --bs 4k --size 64m \
		--runtime 1s --keep "$URL3" >"$OUT/layout.out" 2>&1 || die "layout failed"
fi

# one WORKLOAD MODE ROUND: a run, its row in rows.tsv.
one() {
	local w=$1 mode=$2 round=$3 log=() args json=$OUT/$1-$2-r$3.json
	case $mode in
	csv) log=(--op-log "$OUT/$w.csv") ;;
	zst) log=(--op-log "$OUT/$w.csv.zst") ;;
	esac
	if [[ $w == native ]]; then
		args=(--engine native -t 1 -c 1 -q 16 --rw randread --bs 4k --size 64m --skip-layout
			--keep "$URL3")
	else
		args=(--engine null -t 1 -c 1 -q 16 --rw randread --bs 4k)
	fi
	echo "\$ nfsload --runtime ${SECONDS_RUN}s ${log[*]} ${args[*]}" >>"$OUT/commands.txt"
	if ! "$NFSLOAD" --quiet --runtime "${SECONDS_RUN}s" "${log[@]}" --output-format json \
		--output "$json" "${args[@]}" 2>"$OUT/$w-$mode-r$round.err"; then
		printf '%s\t%s\t%s\tfailed\t0\t0\t-\n' "$w" "$mode" "$round" >>"$ROWS"
		return
	fi
	jq -r --arg w "$w" --arg m "$mode" --arg r "$round" \
		'[$w, $m, $r, (if .total.errors == 0 then "ok" else "errors" end), .total.ops,
		  (.total.iops | floor), .cpu.us_per_op] | @tsv' "$json" >>"$ROWS"
	if [[ $mode != off ]]; then
		local f=${log[1]} rows
		rows=$( ([[ $f == *.zst ]] && zstd -dc "$f" || cat "$f") | awk 'NR > 1' | wc -l)
		echo "$w $mode r$round: $rows rows, report $(jq '.total.ops + .total.errors' "$json"), $(du -k "$f" | cut -f1) KiB" \
			>>"$OUT/rows-check.txt"
		rm -f "$f"
	fi
}

modes=(off csv zst)
for ((round = 1; round <= ROUNDS; round++)); do
	for w in $WORKLOADS; do
		for ((k = 0; k < 3; k++)); do
			one "$w" "${modes[(k + round) % 3]}" "$round"
		done
	done
done

{
	echo "## --op-log: client CPU per operation, median of $ROUNDS rounds of ${SECONDS_RUN}s"
	echo "(cpu us/op = user+sys of nfsload over the measured window / ops; ratio = / off's)"
	awk -F'\t' '
	function median(k,   n, i, j, t, v) {
		n = cnt[k]
		for (i = 1; i <= n; i++) v[i] = val[k, i]
		for (i = 2; i <= n; i++) for (j = i; j > 1 && v[j - 1] > v[j]; j--) {
			t = v[j]; v[j] = v[j - 1]; v[j - 1] = t }
		return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
	}
	$4 == "ok" { k = $1 SUBSEP $2; val[k, ++cnt[k]] = $7; val[k, "iops", ++cnt[k, "iops"]] = $6
		if (!($1 in ws)) { ws[$1] = 1; order[++nw] = $1 } }
	$4 != "ok" { bad[$1 SUBSEP $2]++ }
	END {
		printf "| workload | mode | IOPS (median) | cpu us/op | ratio |\n|---|---|---|---|---|\n"
		for (i = 1; i <= nw; i++) {
			off = median(order[i] SUBSEP "off")
			for (m = 1; m <= 3; m++) {
				mode = m == 1 ? "off" : m == 2 ? "csv" : "zst"
				k = order[i] SUBSEP mode
				if (!cnt[k]) { printf "| %s | %s | failed | | |\n", order[i], mode; continue }
				c = median(k)
				printf "| %s | %s | %d | %.2f | %.2fx |\n", order[i], mode, median(k SUBSEP "iops"), c,
					(off > 0 ? c / off : 0)
			}
		}
	}' "$ROWS"
	echo
	echo "per round (workload mode round status ops iops cpu_us_op):"
	sort "$ROWS" | sed 's/^/  /'
	echo "rows written vs the report's operations:"
	sed 's/^/  /' "$OUT/rows-check.txt"
} | tee "$OUT/report.txt"
