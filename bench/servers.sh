#!/usr/bin/env bash
# Many connections over two servers (issue 13's target): two private nfs-ganesha on
# loopback exporting one directory (--shared-namespace), each at ganesha's connection
# maximum (RPC_Max_Connections 10000). The native engine, NFSv3, 4 KiB random reads at
# iodepth 1 on 32 files of 16 KiB, 2 threads:
#   - BENCH_SMALL (1000) connections over both servers, then BENCH_BIG (18000) connections;
#   - for each: set-up time ("all up in"), peak RSS (GNU time), client CPU per operation
#     (user+sys of the whole process / operations), connections without I/O, per-server
#     split; the big run's CPU per op as a ratio of the small one's (target <= 1.2x),
#     set-up under 15 s, RSS under 700 MB.
# BENCH_ROUNDS (2) rounds, small and big taking turns.
#
#   bench/servers.sh [NFSLOAD_BINARY]         (default build/nfsload)
#
# Environment: BENCH_SECONDS=5, BENCH_SMALL=1000, BENCH_BIG=18000, BENCH_ROUNDS=2,
# BENCH_OUT=DIR (default build/bench/servers-DATE). Needs root (the servers), jq,
# GNU time, ulimit -n >= BENCH_BIG + 1024.
set -uo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
NFSLOAD=${1:-$ROOT/build/nfsload}
SECS=${BENCH_SECONDS:-5}
SMALL=${BENCH_SMALL:-1000}
BIG=${BENCH_BIG:-18000}
ROUNDS=${BENCH_ROUNDS:-2}
OUT=${BENCH_OUT:-$ROOT/build/bench/servers-$(date +%Y%m%d-%H%M%S)}
REPORT=$OUT/report.txt

die() { echo "bench: $*" >&2; exit 1; }
say() { echo "$*" | tee -a "$REPORT"; }

[[ $(id -u) == 0 ]] || die "must run as root (the nfs-ganesha servers need it)"
[[ -x $NFSLOAD ]] || die "$NFSLOAD: not built"
[[ -x /usr/bin/time ]] || die "no /usr/bin/time (apt-get install time)"
command -v jq >/dev/null || die "jq not found"
ulimit -n "$(ulimit -Hn)" 2>/dev/null
(($(ulimit -n) >= BIG + 1024)) || die "ulimit -n is $(ulimit -n): needs $((BIG + 1024))"
mkdir -p "$OUT" || die "cannot create $OUT"
: >"$REPORT"

STATE=$(mktemp -d /tmp/nfsload-servers-bench.XXXXXX)
cleanup() {
	"$ROOT/tests/ganesha.sh" stop "$STATE/b" >/dev/null 2>&1
	"$ROOT/tests/ganesha.sh" stop "$STATE/a" >/dev/null 2>&1
	"$ROOT/tests/ganesha.sh" stop-rpcbind "$STATE/a" >/dev/null 2>&1
	rm -rf "$STATE"
}
trap cleanup EXIT
GANESHA_MAX_CONNECTIONS=10000 "$ROOT/tests/ganesha.sh" start "$STATE/a" >"$OUT/a.log" 2>&1 ||
	die "server a did not start: $(tail -n 3 "$OUT/a.log")"
A=$(sed -n 's/^URL3=//p' "$STATE/a/env")
EXPORT=$(sed -n 's/^EXPORT_DIR=//p' "$STATE/a/env")
GANESHA_EXPORT=$EXPORT GANESHA_MAX_CONNECTIONS=10000 "$ROOT/tests/ganesha.sh" start "$STATE/b" \
	>"$OUT/b.log" 2>&1 || die "server b did not start: $(tail -n 3 "$OUT/b.log")"
B=$(sed -n 's/^URL3=//p' "$STATE/b/env")

say "# $SMALL and $BIG connections over two servers, $(date -u '+%F %T UTC')"
say "machine: $(nproc) CPUs, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)," \
	"kernel $(uname -r), $(awk '/MemTotal/ { printf "%.1f GiB RAM", $2 / 1048576 }' /proc/meminfo)"
say "nfsload: $NFSLOAD, source $(git -C "$ROOT" describe --always --dirty 2>/dev/null)"
say "servers: $A ; $B (one export directory)"

# --timeout 30: two servers and the client share the cores; at 18,000 connections a
# first reply can take over 5 s, and a connection taken for lost then makes it worse.
ARGS=(--engine native -t 2 -q 1 --rw randread --bs 4k --size 16k --nrfiles 32 --dir sb
	--shared-namespace --keep --quiet --output-format json --timeout 30)
"$NFSLOAD" "${ARGS[@]}" -c 16 --rw write --runtime 1s --output "$OUT/layout.json" "$A" "$B" \
	>/dev/null 2>"$OUT/layout.err" || die "layout failed: $(tail -n 1 "$OUT/layout.err")"

# one NAME N: a run with N connections; a row in rows.tsv.
one() {
	local name=$1 n=$2 j=$OUT/$1.json t
	say "\$ $NFSLOAD ${ARGS[*]} -c $n --runtime ${SECS}s --skip-layout --output $j A B"
	/usr/bin/time -f '%e %U %S %M' -o "$OUT/$name.time" timeout -k 5 $((SECS + 120)) \
		"$NFSLOAD" "${ARGS[@]}" -c "$n" --runtime "${SECS}s" --skip-layout --output "$j" "$A" "$B" \
		>"$OUT/$name.out" 2>"$OUT/$name.err"
	t=$(tail -n 1 "$OUT/$name.time")
	if ! jq -e .total "$j" >/dev/null 2>&1; then
		printf '%s\t%s\tfailed\t%s\n' "$n" "$name" "$(tail -n 1 "$OUT/$name.err")" >>"$OUT/rows.tsv"
		return
	fi
	printf '%s\t%s\t%s\n' "$n" "$name" "$(jq -r --arg t "$t" '($t | split(" ")) as $g |
		[.total.ops, .setup.connect_ns / 1e9, (($g[1] | tonumber) + ($g[2] | tonumber)),
		 .cpu.us_per_op,
		 ($g[3] | tonumber) / 1024, ([.connections[] | select(.ops == 0)] | length),
		 ([.servers[].connections] | join("+")), ([.servers[].stats.ops] | join("+")),
		 .total.errors] | @tsv' "$j")" >>"$OUT/rows.tsv"
	sleep 2
}

: >"$OUT/rows.tsv"
for ((r = 1; r <= ROUNDS; r++)); do
	if ((r % 2)); then one "small-r$r" "$SMALL"; one "big-r$r" "$BIG"
	else one "big-r$r" "$BIG"; one "small-r$r" "$SMALL"; fi
done

say ""
say "cpu us/op: the whole process (set-up included) / ops; own: nfsload's figure for the I/O phase"
say "connections | run | ops | all up in s | cpu s | cpu us/op | own us/op | RSS MiB | no I/O | conns per server | ops per server | errors"
awk -F'\t' '$3 != "failed" { printf "%11s | %-8s | %9d | %11.2f | %5.2f | %9.2f | %9.2f | %7.1f | %6d | %s | %s | %d\n",
	$1, $2, $3, $4, $5, $3 ? $5 * 1e6 / $3 : 0, $6, $7, $8, $9, $10, $11 }
	$3 == "failed" { printf "%11s | %-8s | failed: %s\n", $1, $2, $4 }' "$OUT/rows.tsv" | tee -a "$REPORT"
awk -F'\t' -v s="$SMALL" -v b="$BIG" '$3 != "failed" && $3 > 0 {
	c = $5 * 1e6 / $3; if ($1 == s) { sc += c; so += $6; sn++ } else if ($1 == b) { bc += c; bo += $6; bn++ } }
	END { if (sn && bn) printf "\n%d vs %d connections (means of the rounds): cpu per op %.2fx, own %.2fx (target <= 1.2x)\n",
		b, s, (bc / bn) / (sc / sn), (bo / bn) / (so / sn) }' "$OUT/rows.tsv" | tee -a "$REPORT"
say "report: $REPORT"
