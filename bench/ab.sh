#!/usr/bin/env bash
# A/B of two nfsload binaries on one private nfs-ganesha (loopback), rounds alternating,
# and the cost of nfsload itself through the null engine (no server).
#
#   bench/ab.sh BEFORE_BINARY AFTER_BINARY
#
# Workloads (the same files for both binaries, laid out once):
#   1. 4 KiB random reads, 1 connection, iodepth 16 (NFSv3)
#   2. 4 KiB random reads, 64 connections x iodepth 4 on 2 threads (NFSv3)
# Each round runs every workload with both binaries, the order swapped every round, so
# drift in the shared machine's load falls on both. The figure that shows the client's
# own cost is client CPU (user+sys of the nfsload process) per operation; the server
# shares the 2 cores, so IOPS is reported but says little about the client.
# Then, with AFTER_BINARY only: --engine null, closed loop, one thread, one connection at
# iodepth 64 (and 8 connections x 64): nfsload's own overhead per operation.
#
# Environment: AB_ROUNDS=3, AB_SECONDS=10, AB_OUT=DIR (default build/bench/ab-DATE).
# Needs root (the server), nfs-ganesha, rpcbind, jq.
set -uo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
ROUNDS=${AB_ROUNDS:-3}
SECS=${AB_SECONDS:-10}
OUT=${AB_OUT:-$ROOT/build/bench/ab-$(date +%Y%m%d-%H%M%S)}

die() { echo "ab: $*" >&2; exit 1; }
(($# == 2)) || die "usage: $0 BEFORE_BINARY AFTER_BINARY"
A=$(realpath "$1") B=$(realpath "$2")
[[ -x $A && -x $B ]] || die "both binaries must be executable"
command -v jq >/dev/null || die "jq not found"
[[ $(id -u) == 0 ]] || die "must run as root (the nfs-ganesha server needs it)"
mkdir -p "$OUT" || die "cannot create $OUT"
REPORT=$OUT/report.txt
: >"$REPORT"
say() { echo "$*" | tee -a "$REPORT"; }

STATE=$(mktemp -d /tmp/nfsload-ab.XXXXXX)
cleanup() {
	"$ROOT/tests/ganesha.sh" stop "$STATE" >/dev/null 2>&1
	"$ROOT/tests/ganesha.sh" stop-rpcbind "$STATE" >/dev/null 2>&1 # if it started one
	rm -rf "$STATE"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

"$ROOT/tests/ganesha.sh" start "$STATE" >/dev/null || die "nfs-ganesha did not start"
URL=$(sed -n 's/^URL3=//p' "$STATE/env")

say "# nfsload A/B, $(date -u '+%F %T UTC')"
say "machine: $(nproc) CPUs, $(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1), kernel $(uname -r)"
say "A (before): $A ($("$A" --version | head -1))"
say "B (after):  $B ($("$B" --version | head -1))"
say "rounds: $ROUNDS x ${SECS} s per workload and binary, order swapped every round"
say ""

# The files, once, kept for every run (both binaries adopt the marked directory).
"$B" --quiet --dir ab --rw write --bs 1m --size 256m --nrfiles 8 -c 8 -q 4 --keep "$URL" \
	>/dev/null || die "layout failed"

workloads=(
	"qd16:-c 1 -t 1 -q 16"
	"64x4:-c 64 -t 2 -q 4"
)

# run BINARY LABEL WORKLOAD ROUND: one run, its figures appended to rows.tsv.
run() {
	local bin=$1 label=$2 name=${3%%:*} args=${3#*:} round=$4 json
	json=$OUT/$name-$label-$round.json
	# shellcheck disable=SC2086
	timeout -k 5 $((SECS + 60)) "$bin" --quiet --dir ab --rw randread --bs 4k --size 256m \
		--nrfiles 8 --skip-layout --keep --runtime "${SECS}s" $args --output-format json \
		--output "$json" "$URL" || echo "ab: $label $name round $round: exit $?" >&2
	jq -r --arg l "$label" --arg n "$name" --arg r "$round" \
		'[$n, $l, $r, .cpu.us_per_op, .total.iops, .ops.read.lat_ns.p99] | @tsv' "$json" \
		>>"$OUT/rows.tsv"
}

: >"$OUT/rows.tsv"
for ((round = 1; round <= ROUNDS; round++)); do
	for w in "${workloads[@]}"; do
		if ((round % 2)); then
			run "$A" A "$w" "$round"
			run "$B" B "$w" "$round"
		else
			run "$B" B "$w" "$round"
			run "$A" A "$w" "$round"
		fi
	done
done

say "workload  round  A us/op  B us/op  B/A    A IOPS   B IOPS"
for w in "${workloads[@]}"; do
	name=${w%%:*}
	for ((round = 1; round <= ROUNDS; round++)); do
		a=$(awk -v n="$name" -v r="$round" '$1 == n && $2 == "A" && $3 == r' "$OUT/rows.tsv")
		b=$(awk -v n="$name" -v r="$round" '$1 == n && $2 == "B" && $3 == r' "$OUT/rows.tsv")
		awk -v a="$a" -v b="$b" -v n="$name" -v r="$round" 'BEGIN {
			split(a, x, "\t"); split(b, y, "\t")
			printf "%-8s  %5d  %7.2f  %7.2f  %5.3f  %7.0f  %7.0f\n", n, r, x[4], y[4],
				(x[4] > 0 ? y[4] / x[4] : 0), x[5], y[5] }' | tee -a "$REPORT"
	done
	awk -v n="$name" '$1 == n { s[$2] += $4; c[$2]++; if (!($2 in lo) || $4 < lo[$2]) lo[$2] = $4
		if ($4 > hi[$2]) hi[$2] = $4 } END {
		printf "%-8s  mean   %7.2f  %7.2f  %5.3f  (A %.2f..%.2f, B %.2f..%.2f)\n", n,
			s["A"] / c["A"], s["B"] / c["B"], (s["B"] / c["B"]) / (s["A"] / c["A"]),
			lo["A"], hi["A"], lo["B"], hi["B"] }' "$OUT/rows.tsv" | tee -a "$REPORT"
done

say ""
say "null engine (B only, closed loop, ${SECS} s): nfsload's own cost per operation"
for args in "-c 1 -t 1 -q 64" "-c 8 -t 1 -q 64"; do
	json=$OUT/null-${args// /}.json
	# shellcheck disable=SC2086
	"$B" --quiet --engine null --rw randread --bs 4k $args --runtime "${SECS}s" \
		--output-format json --output "$json" || echo "ab: null $args: exit $?" >&2
	jq -r --arg a "$args" '"  \($a): \(.cpu.us_per_op) us/op, \(.total.iops | floor) ops/s, " +
		"thread busy \(.threads[0].busy_pct | floor)%"' "$json" | tee -a "$REPORT"
done
say ""
say "raw JSON and rows.tsv in $OUT"
