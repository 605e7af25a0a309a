#!/usr/bin/env bash
# NFSv4.1 against NFSv4.2 reads of the native engine on one private nfs-ganesha (loopback),
# side by side in one run: what a 4.2 read (READ, and READ_PLUS of data) costs the client.
#
#   bench/v42.sh [NFSLOAD_BINARY]        (default build/nfsload)
#
# Tools, taking turns (the order rotates every round, so drift in the shared machine's load
# falls on all of them):
#   v41       version=4.1, READ
#   v42       version=4.2, READ
#   v42-plus  version=4.2, --read-plus (every read a READ_PLUS; the file is all data)
# Workloads: (a) 4 KiB random read, 1 connection, iodepth 16;
#            (b) 1 MiB sequential read, 1 connection, iodepth 4 (per MiB as well).
# The figure: client CPU (user+sys of the nfsload process) per request sent (done or
# failed: cpu.user_s + cpu.sys_s over total.ops + total.errors; the JSON's cpu.us_per_op
# where none failed); the server shares the two cores, so ops/s says little of the client.
# Target (issue 30): v42 and v42-plus within noise of v41 (ratio ~1.0). A server that
# answers READ_PLUS short (nfs-ganesha 4.3: one empty data segment) makes every v42-plus
# request an error: its figure is then the cost of sending READ_PLUS and reading a short
# reply, not of moving data, and the table says how many failed.
#
# Environment: V42_ROUNDS=5, V42_SECONDS=5, V42_OUT=DIR (default build/bench/v42-DATE).
# Needs root (the server), nfs-ganesha, rpcbind, jq.
set -uo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=$(realpath "${1:-$ROOT/build/nfsload}")
ROUNDS=${V42_ROUNDS:-5}
SECS=${V42_SECONDS:-5}
OUT=${V42_OUT:-$ROOT/build/bench/v42-$(date +%Y%m%d-%H%M%S)}

die() { echo "v42: $*" >&2; exit 1; }
[[ -x $BIN ]] || die "$BIN is not executable"
command -v jq >/dev/null || die "jq not found"
[[ $(id -u) == 0 ]] || die "must run as root (the nfs-ganesha server needs it)"
mkdir -p "$OUT" || die "cannot create $OUT"
REPORT=$OUT/report.txt
: >"$REPORT"
say() { echo "$*" | tee -a "$REPORT"; }

STATE=$(mktemp -d /tmp/nfsload-v42.XXXXXX)
cleanup() {
	"$ROOT/tests/ganesha.sh" stop "$STATE" >/dev/null 2>&1
	"$ROOT/tests/ganesha.sh" stop-rpcbind "$STATE" >/dev/null 2>&1
	rm -rf "$STATE"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

"$ROOT/tests/ganesha.sh" start "$STATE" >/dev/null || die "nfs-ganesha did not start"
URL4=$(sed -n 's/^URL4=//p' "$STATE/env")
U41=${URL4/version=4/version=4.1}
U42=${URL4/version=4/version=4.2}

say "# nfsload NFSv4.1 vs NFSv4.2 reads, $(date -u '+%F %T UTC')"
say "machine: $(nproc) CPUs, $(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1), kernel $(uname -r)"
say "binary: $BIN ($("$BIN" --version | head -1)), commit $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null)"
say "rounds: $ROUNDS x ${SECS} s per workload and tool, order rotating"
say ""

"$BIN" --quiet --dir v42 --rw write --bs 1m --size 256m --nrfiles 1 -c 1 -q 4 --keep "$U41" \
	>/dev/null || die "layout failed"

tools=("v41:$U41:" "v42:$U42:" "v42-plus:$U42:--read-plus")
workloads=("a:--rw randread --bs 4k -q 16" "b:--rw read --bs 1m -q 4")

run() {
	local tool=${1%%:*} rest=${1#*:} w=${2%%:*} wargs=${2#*:} round=$3 url extra json
	url=${rest%:*}
	extra=${rest##*:}
	json=$OUT/$w-$tool-$round.json
	# shellcheck disable=SC2086
	timeout -k 5 $((SECS + 60)) "$BIN" --quiet --dir v42 --size 256m --nrfiles 1 -c 1 -t 1 \
		--skip-layout --keep --runtime "${SECS}s" --on-error continue $wargs $extra \
		--output-format json --output "$json" "$url" >/dev/null 2>&1
	jq -r --arg t "$tool" --arg w "$w" --arg r "$round" \
		'[$w, $t, $r, (.cpu.user_s + .cpu.sys_s) * 1e6 /
		  ([.total.ops + .total.errors, 1] | max), .total.iops, .total.errors] | @tsv' \
		"$json" >>"$OUT/rows.tsv"
}

: >"$OUT/rows.tsv"
for ((round = 1; round <= ROUNDS; round++)); do
	for w in "${workloads[@]}"; do
		for ((k = 0; k < ${#tools[@]}; k++)); do
			run "${tools[(k + round) % ${#tools[@]}]}" "$w" "$round"
		done
	done
done

python3 - "$OUT/rows.tsv" <<'PY' | tee -a "$REPORT"
import statistics, sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1]) if l.strip()]
print("workload  tool      median us/request  ratio to v41  min..max          median IOPS  failed")
for w in ("a", "b"):
    base = statistics.median(float(r[3]) for r in rows if r[0] == w and r[1] == "v41")
    for t in ("v41", "v42", "v42-plus"):
        u = [float(r[3]) for r in rows if r[0] == w and r[1] == t]
        i = [float(r[4]) for r in rows if r[0] == w and r[1] == t]
        f = sum(int(float(r[5])) for r in rows if r[0] == w and r[1] == t)
        if not u:
            continue
        m = statistics.median(u)
        print(f"{w:<8}  {t:<8}  {m:17.2f}  {m / base:12.3f}  {min(u):6.2f}..{max(u):<7.2f}  "
              f"{statistics.median(i):11.0f}  {f}")
PY
say ""
say "raw JSON and rows.tsv in $OUT"
