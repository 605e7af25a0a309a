#!/usr/bin/env bash
# What NFS state costs the client (issue 31, Performance): the native engine over NFSv4.1
# against one private nfs-ganesha (loopback), side by side in one run.
#
#   bench/state.sh [NFSLOAD_BINARY]        (default build/nfsload)
#
# Part 1, client CPU per operation, tools taking turns (the order rotates every round, so
# drift in the shared machine's load falls on all of them); 4 connections on 1 thread,
# iodepth 4, each connection on data files of its own:
#   getattr  --mix getattr=1                   a stat of a name (LOOKUP and GETATTR)
#   lock     --mix lock=1,unlock=1             LOCK and LOCKU of 4 KiB ranges no other
#                                              connection locks (--lock-contention 0)
#   open     --open-files 64 --mix open=1,close=1   OPEN and CLOSE of held files
# The figure: client CPU (user+sys of the nfsload process) per request sent (answered,
# failed or denied: cpu.user_s + cpu.sys_s over ops + errors + denied); a lock/unlock or
# open/close pair is two requests, so its cost is twice its tool's figure. The server
# shares the two cores, so ops/s says little of the client.
#
# Part 2, memory: the resident set (VmRSS, sampled every 0.5 s; the last sample, after the
# measured phase, when the connections' latency histograms are freed: while it runs, their
# pages come in as latencies reach new buckets, some MiB with 1,000 connections, more than
# what is measured here) of one process with 1,000 connections, the median of 3 runs of
# each, in turns:
#   base     --mix getattr=1 on a one-file tree
#   opens    the same with --open-files 10: 10,000 held opens
#   lockt    --mix lockt=1 on one 64 KiB data file per connection (no lock held)
#   locks    --mix lock=1 on the same files: each connection takes locks until its lock
#            table is full (64), then unlocks one for each lock; held at the end: lock -
#            unlock ops (all granted: no range is another connection's)
# per held open: (opens - base) / 10,000; per held lock: (locks - lockt) / locks held.
#
# Environment: STATE_ROUNDS=5, STATE_SECONDS=5 (part 1), STATE_CONNS=1000,
# STATE_MEM_ROUNDS=3, STATE_MEM_SECONDS=10 (part 2),
# STATE_OUT=DIR (default build/bench/state-DATE), STATE_ENGINE=native (null: no server, to
# try the script; its figures are nfsload's bookkeeping alone).
# Needs root (the server), nfs-ganesha, rpcbind, jq, python3.
set -uo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=$(realpath "${1:-$ROOT/build/nfsload}")
ROUNDS=${STATE_ROUNDS:-5}
SECS=${STATE_SECONDS:-5}
CONNS=${STATE_CONNS:-1000}
MROUNDS=${STATE_MEM_ROUNDS:-3}
MSECS=${STATE_MEM_SECONDS:-10}
ENGINE=${STATE_ENGINE:-native}
OUT=${STATE_OUT:-$ROOT/build/bench/state-$(date +%Y%m%d-%H%M%S)}

die() { echo "state: $*" >&2; exit 1; }
[[ -x $BIN ]] || die "$BIN is not executable"
command -v jq >/dev/null || die "jq not found"
command -v python3 >/dev/null || die "python3 not found"
[[ $ENGINE == null || $(id -u) == 0 ]] || die "must run as root (the nfs-ganesha server needs it)"
mkdir -p "$OUT" || die "cannot create $OUT"
REPORT=$OUT/report.txt
: >"$REPORT"
say() { echo "$*" | tee -a "$REPORT"; }
# 1,000 connections: a socket each, and the server's side on this host too.
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)"

STATE=$(mktemp -d /tmp/nfsload-state.XXXXXX)
cleanup() {
	if [[ $ENGINE != null ]]; then
		"$ROOT/tests/ganesha.sh" stop "$STATE" >/dev/null 2>&1
		"$ROOT/tests/ganesha.sh" stop-rpcbind "$STATE" >/dev/null 2>&1
	fi
	rm -rf "$STATE"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

URL=
if [[ $ENGINE != null ]]; then
	"$ROOT/tests/ganesha.sh" start "$STATE" >/dev/null || die "nfs-ganesha did not start"
	URL4=$(sed -n 's/^URL4=//p' "$STATE/env")
	URL=${URL4/version=4/version=4.1}
fi

say "# nfsload: what NFS state costs the client, $(date -u '+%F %T UTC')"
say "machine: $(nproc) CPUs, $(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1), kernel $(uname -r)"
say "binary: $BIN ($("$BIN" --version | head -1)), commit $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null)"
say "engine: $ENGINE${URL:+, $URL (nfs-ganesha $(ganesha.nfsd -v 2>/dev/null | sed -n 's/.*Release = V\{0,1\}\([^ ]*\).*/\1/p' | head -1))}"
say "part 1: $ROUNDS rounds x ${SECS} s per tool, order rotating; part 2: $MROUNDS rounds of $CONNS connections x ${MSECS} s"
say ""

# nl ARGS...: one nfsload run on the bench's engine and URL (quiet, JSON to stdout).
nl() {
	# shellcheck disable=SC2086
	timeout -k 5 $((SECS + 300)) "$BIN" --quiet --engine "$ENGINE" --on-error continue \
		--output-format json "$@" ${URL:+"$URL"}
}

# ---- part 1: CPU per request ----
COMMON=(-c 4 -t 1 -q 4 --size 1m --nrfiles 4 --dirs 1 --files-per-dir 16 --runtime "${SECS}s")
tools=("getattr:--mix getattr=1"
       "lock:--mix lock=1,unlock=1 --lock-contention 0"
       "open:--open-files 64 --mix open=1,close=1")

run() {
	local tool=${1%%:*} args=${1#*:} round=$2 json
	json=$OUT/cpu-$tool-$round.json
	# shellcheck disable=SC2086
	nl --dir "state-$tool" "${COMMON[@]}" $args >"$json" 2>"$OUT/cpu-$tool-$round.err"
	jq -r --arg t "$tool" --arg r "$round" \
		'([.ops[] | .denied // 0] | add) as $d
		 | [$t, $r, (.cpu.user_s + .cpu.sys_s) * 1e6 / ([.total.ops + .total.errors + $d, 1] | max),
		    .total.ops + $d, .total.errors, $d] | @tsv' "$json" >>"$OUT/cpu.tsv" ||
		say "$tool, round $round: no report (see $OUT/cpu-$tool-$round.err)"
}

: >"$OUT/cpu.tsv"
for ((round = 1; round <= ROUNDS; round++)); do
	for ((k = 0; k < ${#tools[@]}; k++)); do
		run "${tools[(k + round) % ${#tools[@]}]}" "$round"
	done
done

WHAT=NFSv4.1
[[ -n $URL ]] || WHAT="no server"
say "part 1: client CPU per request, 4 connections, iodepth 4, $WHAT"
python3 - "$OUT/cpu.tsv" "$SECS" <<'PY' | tee -a "$REPORT"
import statistics, sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1]) if l.strip()]
def col(t, i):
    return [float(r[i]) for r in rows if r[0] == t]
if not col("getattr", 2):
    sys.exit("no getattr figures")
base = statistics.median(col("getattr", 2))
print("tool     median us/request  ratio to getattr  min..max          per pair (2 requests)"
      "  requests/s  failed  denied")
for t in ("getattr", "lock", "open"):
    u = col(t, 2)
    if not u:
        continue
    m = statistics.median(u)
    pair = f"{2 * m:8.2f} us ({2 * m / base:.2f}x)" if t != "getattr" else "-"
    print(f"{t:<7}  {m:17.2f}  {m / base:16.2f}  {min(u):6.2f}..{max(u):<7.2f}  {pair:<21}  "
          f"{statistics.median(col(t, 3)) / float(sys.argv[2]):10.0f}"
          f"  {int(sum(col(t, 4)))}  {int(sum(col(t, 5)))}")
PY
say ""

# ---- part 2: memory ----
# rss NAME ARGS...: runs nfsload (its own process: $! is nfsload), samples its VmRSS every
# 0.5 s; prints the last sample in KiB (all of them go to rss-NAME.samples). The JSON goes
# to rss-NAME.json.
rss() {
	local name=$1 pid last=0 kb
	shift
	"$BIN" --quiet --engine "$ENGINE" --on-error continue --output-format json "$@" \
		${URL:+"$URL"} >"$OUT/rss-$name.json" 2>"$OUT/rss-$name.err" &
	pid=$!
	while kill -0 "$pid" 2>/dev/null; do
		kb=$(awk '/^VmRSS:/ { print $2 }' "/proc/$pid/status" 2>/dev/null)
		if [[ -n $kb ]]; then
			last=$kb
			echo "$kb" >>"$OUT/rss-$name.samples"
		fi
		sleep 0.5
	done
	wait "$pid"
	echo "$last"
}

MEM=(-c "$CONNS" -q 1 --runtime "${MSECS}s")
: >"$OUT/rss.tsv"
for ((round = 1; round <= MROUNDS; round++)); do
	base=$(rss base-$round "${MEM[@]}" --dir state-mem --dirs 1 --files-per-dir 1 --mix getattr=1)
	opens=$(rss opens-$round "${MEM[@]}" --dir state-mem --dirs 1 --files-per-dir 1 \
		--mix getattr=1 --open-files 10)
	lockt=$(rss lockt-$round "${MEM[@]}" --dir state-lock --size 64k --nrfiles "$CONNS" \
		--mix lockt=1)
	locks=$(rss locks-$round "${MEM[@]}" --dir state-lock --size 64k --nrfiles "$CONNS" \
		--mix lock=1)
	held_opens=$(jq -r '.state.held_opens // 0' "$OUT/rss-opens-$round.json" 2>/dev/null)
	held_locks=$(jq -r '(.ops.lock.ops // 0) - (.ops.unlock.ops // 0)' \
		"$OUT/rss-locks-$round.json" 2>/dev/null)
	echo -e "$base\t$opens\t$lockt\t$locks\t${held_opens:-0}\t${held_locks:-0}" >>"$OUT/rss.tsv"
done
say "part 2: resident set of one process, $CONNS connections, $WHAT, median of $MROUNDS"
python3 - "$OUT/rss.tsv" "$CONNS" <<'PY' | tee -a "$REPORT"
import statistics, sys
rows = [[int(x or 0) for x in l.split("\t")] for l in open(sys.argv[1]) if l.strip()]
conns = int(sys.argv[2])
med = lambda i: statistics.median(r[i] for r in rows)
rng = lambda i: f"{min(r[i] for r in rows) / 1024:.1f}..{max(r[i] for r in rows) / 1024:.1f}"
base, opens, lockt, locks, hopens, hlocks = (med(i) for i in range(6))
print(f"base   --mix getattr=1                  {base / 1024:8.1f} MiB ({rng(0)})")
print(f"opens  the same, --open-files 10        {opens / 1024:8.1f} MiB ({rng(1)}), "
      f"{conns * 10} held opens asked, the report's held_opens {hopens:.0f}")
if hopens > 0:
    print(f"       per held open: {(opens - base) * 1024 / hopens:.0f} bytes")
print(f"lockt  --mix lockt=1 (no lock held)     {lockt / 1024:8.1f} MiB ({rng(2)})")
print(f"locks  --mix lock=1                     {locks / 1024:8.1f} MiB ({rng(3)}), "
      f"{hlocks:.0f} locks held at the end")
if hlocks > 0:
    print(f"       per held lock: {(locks - lockt) * 1024 / hlocks:.0f} bytes")
PY
for f in "$OUT"/rss-*.json; do
	jq -e '.total.ops > 0' "$f" >/dev/null 2>&1 ||
		say "warning: $(basename "$f" .json) did nothing (see ${f%.json}.err)"
done
say ""
say "raw JSON, cpu.tsv and stderr in $OUT"
