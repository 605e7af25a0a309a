#!/usr/bin/env bash
# The local engine against fio's io_uring engine: 4 KiB random reads at iodepth 32 from
# one file in the page cache, one thread each, side by side in one run, the tools taking
# turns (the order rotates every round). The figure is client CPU per operation: user+sys
# of the whole process (GNU time, children included) over the operations it reported.
# Target (issue 11): nfsload --engine local within 1.5x of fio.
#
#   bench/local.sh [NFSLOAD_BINARY]        (default build/nfsload)
#
# Tools: nfsload = --engine local (registered read buffers, one submit per loop turn);
# fio = --ioengine=io_uring with its defaults; fio-fixed = the same with fixedbufs=1
# registerfiles=1 (registered buffers and files, the closest to nfsload's setting).
#
# Environment:
#   BENCH_SECONDS=5      run time of each run
#   BENCH_ROUNDS=3       rounds (the table shows each run and the medians)
#   BENCH_FILESIZE=256m  size of the file (it must fit in the page cache)
#   BENCH_DIR=DIR        directory for the file (default: a new one under ${TMPDIR:-/tmp},
#                        removed at the end)
#   FIO=/path/to/fio     default /work/peer/fio/fio if it is there, else fio on PATH
# Needs jq and GNU time (/usr/bin/time).
set -uo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
NFSLOAD=$(realpath "${1:-$ROOT/build/nfsload}")
SECS=${BENCH_SECONDS:-5}
ROUNDS=${BENCH_ROUNDS:-3}
SIZE=${BENCH_FILESIZE:-256m}
if [[ -z ${FIO:-} ]]; then
	FIO=/work/peer/fio/fio
	[[ -x $FIO ]] || FIO=$(command -v fio || true)
fi
for need in "$NFSLOAD" "$FIO" /usr/bin/time; do
	[[ -x $need ]] || { echo "bench/local.sh: $need: not found" >&2; exit 2; }
done
command -v jq >/dev/null || { echo "bench/local.sh: needs jq" >&2; exit 2; }
"$FIO" --enghelp=io_uring >/dev/null 2>&1 ||
	{ echo "bench/local.sh: $FIO has no io_uring engine" >&2; exit 2; }

OWN_DIR=
if [[ -z ${BENCH_DIR:-} ]]; then
	BENCH_DIR=$(mktemp -d "${TMPDIR:-/tmp}/nfsload-bench-local.XXXXXX")
	OWN_DIR=$BENCH_DIR
fi
RAW=$(mktemp -d "${TMPDIR:-/tmp}/nfsload-bench-raw.XXXXXX")
cleanup() {
	rm -rf "$BENCH_DIR/bench" "$RAW"
	[[ -n $OWN_DIR ]] && rmdir "$OWN_DIR" 2>/dev/null
}
trap cleanup EXIT
FILE=$BENCH_DIR/bench/file.000000

echo "== machine: $(uname -srm), $(nproc) CPUs, $(lscpu 2>/dev/null |
	sed -n 's/^Model name: *//p' | head -1)"
echo "== file: $FILE ($SIZE, $(stat -f -c %T "$BENCH_DIR"), in the page cache)"
echo "== nfsload: $NFSLOAD ($("$NFSLOAD" --version | head -1)); fio: $FIO ($("$FIO" --version))"

# The file: written once by nfsload (kept), then read whole so every page is cached.
"$NFSLOAD" --quiet --engine local --dir bench --rw write --bs 1m --size "$SIZE" --keep \
	"$BENCH_DIR" >/dev/null || { echo "bench/local.sh: cannot write $FILE" >&2; exit 1; }
cat "$FILE" >/dev/null

NFSLOAD_CMD=("$NFSLOAD" --quiet --engine local --dir bench --size "$SIZE" --skip-layout --keep
	--rw randread --bs 4k -q 32 -c 1 -t 1 --runtime "${SECS}s" --output-format json
	"$BENCH_DIR")
# invalidate=0: fio would otherwise drop the file's pages before it starts.
FIO_CMD=("$FIO" --name=randread --filename="$FILE" --ioengine=io_uring --rw=randread --bs=4k
	--iodepth=32 --size="$SIZE" --time_based --runtime="${SECS}s" --invalidate=0
	--norandommap --randrepeat=0 --numjobs=1 --output-format=json)
echo "== nfsload: ${NFSLOAD_CMD[*]}"
echo "== fio:     ${FIO_CMD[*]}"
echo "== fio-fixed: the fio command with --fixedbufs=1 --registerfiles=1"

# run TOOL ROUND: one run; appends "tool round ops cpu_s us_per_op" to $RAW/rows.
run() {
	local tool=$1 round=$2 out=$RAW/$1.$2 ops
	case $tool in
	nfsload) /usr/bin/time -f "%U %S" -o "$out.time" "${NFSLOAD_CMD[@]}" >"$out.json" 2>"$out.err"
		ops=$(jq -r '.ops.read.count' "$out.json") ;;
	fio) /usr/bin/time -f "%U %S" -o "$out.time" "${FIO_CMD[@]}" >"$out.json" 2>"$out.err"
		ops=$(jq -r '.jobs[0].read.total_ios' "$out.json") ;;
	fio-fixed) /usr/bin/time -f "%U %S" -o "$out.time" "${FIO_CMD[@]}" --fixedbufs=1 \
			--registerfiles=1 >"$out.json" 2>"$out.err"
		ops=$(jq -r '.jobs[0].read.total_ios' "$out.json") ;;
	esac
	awk -v t="$tool" -v r="$round" -v ops="$ops" '{ cpu = $1 + $2 }
		END { printf "%s %d %d %.2f %.3f\n", t, r, ops, cpu, (ops > 0 ? cpu * 1e6 / ops : 0) }' \
		"$out.time" >>"$RAW/rows"
}

tools=(nfsload fio fio-fixed)
for ((r = 1; r <= ROUNDS; r++)); do
	for ((k = 0; k < ${#tools[@]}; k++)); do
		run "${tools[(k + r - 1) % ${#tools[@]}]}" "$r"
	done
done

printf "\n%-10s %5s %12s %9s %10s %12s\n" tool round ops cpu_s ops/s "us/op (CPU)"
awk -v s="$SECS" '{ printf "%-10s %5d %12d %9.2f %10.0f %12.3f\n", $1, $2, $3, $4, $3 / s, $5 }' \
	"$RAW/rows"
median() { awk -v t="$1" '$1 == t { print $5 }' "$RAW/rows" | sort -n |
	awk '{ v[NR] = $1 } END { print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
n=$(median nfsload) f=$(median fio) ff=$(median fio-fixed)
echo
echo "median CPU per 4 KiB read: nfsload ${n} us, fio ${f} us, fio-fixed ${ff} us"
awk -v n="$n" -v f="$f" -v ff="$ff" 'BEGIN {
	printf "ratio nfsload/fio %.2fx, nfsload/fio-fixed %.2fx (target: <= 1.5x)\n", n / f, n / ff }'
