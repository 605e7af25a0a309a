#!/usr/bin/env bash
# What --trace-summary and --replay cost the client: (a) how fast a capture is decoded,
# (b) the client's CPU per replayed operation beside a plain closed-loop run of the same
# mix. A private nfs-ganesha on 127.0.0.1 (tests/ganesha.sh), NFSv3, the native engine.
#
#   bench/replay.sh [NFSLOAD_BINARY]   (default build/nfsload; copied into the output
#                                       directory first, so a rebuild meanwhile is harmless)
#
# The capture: tshark on lo, capture filter on the server's NFS and MOUNT ports (plus the
# UDP marks below), while
#   nfsload --engine native -c 4 -q 16 --rw randrw --bs 4k --runtime BENCH_SECONDS URL3
# runs (its file laid out beforehand, outside the capture: the capture is the 4 KiB mix
# only, with the run's MOUNT, LOOKUPs and set-up). Each end of the capture is proved by a mark, as in
# tests/capture.sh: a UDP datagram to 127.0.0.1 port 7 carrying a token, waited for in the
# file (dumpcap attaches its filter a while after "Capturing on" on a loaded machine; a
# 2 s pause lost the start of the run in a trial). A capture that dropped packets is
# refused. The gzip'd copy is gzip -1 of the same file.
#
# (a) decode: `nfsload --trace-summary CAP --output-format json` under GNU time, plain and
#     gzip'd capture in turn, BENCH_ROUNDS rounds: calls decoded (the sum of .ops[].calls)
#     per wall second and per CPU second (user+sys of the whole process), medians.
# (b) replay vs plain, BENCH_ROUNDS rounds, the two taking turns (order swapped every
#     round), each in its own work directory (--dir):
#       replay: nfsload --replay CAP --replay-speed max --dir br-replay --output-format json URL3
#       plain:  nfsload --rw randrw --bs 4k -c 4 -q 16 --runtime BENCH_SECONDS
#               --dir br-plain --skip-layout --keep --output-format json URL3
#     (plain's files are laid out once beforehand, unmeasured). The client figure is
#     nfsload's own CPU per operation for the I/O phase (JSON .cpu.us_per_op: getrusage,
#     user+sys); beside it the whole process under GNU time / ops (for the replay that
#     includes decoding the capture and making its names; for plain, mounting and opening).
#     Medians and the ratio replay/plain (of the medians, and round by round).
#
# Environment:
#   BENCH_ROUNDS=3        rounds of (a) and of (b)
#   BENCH_SECONDS=5       run time of the captured run and of each plain run
#   BENCH_OUT=DIR         raw outputs and report.txt (default build/bench/replay-DATE)
#   BENCH_KEEP=1          keep the server's state directory and the captures
# Needs root (server, capture), nfs-ganesha (+ -vfs), rpcbind, tshark, jq, gzip,
# GNU time (/usr/bin/time).
set -uo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
NFSLOAD_SRC=${1:-$ROOT/build/nfsload}
SECS=${BENCH_SECONDS:-5}
ROUNDS=${BENCH_ROUNDS:-3}
OUT=${BENCH_OUT:-$ROOT/build/bench/replay-$(date +%Y%m%d-%H%M%S)}
REPORT=$OUT/report.txt

die() { echo "bench: $*" >&2; exit 1; }
say() { echo "$*" | tee -a "$REPORT"; }

for cmd in jq tshark gzip ganesha.nfsd; do
	command -v "$cmd" >/dev/null || die "$cmd not installed (scripts/deps.sh test)"
done
[[ -x /usr/bin/time ]] || die "no /usr/bin/time (apt-get install time)"
[[ $(id -u) == 0 ]] || die "must run as root (the server and the capture need it)"
[[ -x $NFSLOAD_SRC ]] || die "$NFSLOAD_SRC: not built (make, or pass the binary)"
"$NFSLOAD_SRC" --help 2>&1 | grep -q -- '--replay' || die "$NFSLOAD_SRC has no --replay"

mkdir -p "$OUT" || die "cannot create $OUT"
: >"$REPORT"
NFSLOAD=$OUT/nfsload
cp "$NFSLOAD_SRC" "$NFSLOAD" || die "cannot copy $NFSLOAD_SRC"
STATE=$(mktemp -d /tmp/nfsload-replay-bench.XXXXXX)
SRV=$STATE/srv
CAP=$STATE/cap.pcap
TSHARK_PID=
cleanup() {
	[[ -n $TSHARK_PID ]] && kill -INT "$TSHARK_PID" 2>/dev/null && wait "$TSHARK_PID" 2>/dev/null
	"$ROOT/tests/ganesha.sh" stop "$SRV" >/dev/null 2>&1
	"$ROOT/tests/ganesha.sh" stop-rpcbind "$SRV" >/dev/null 2>&1
	if [[ ${BENCH_KEEP:-} == 1 ]]; then
		echo "bench: state and captures kept in $STATE" >&2
	else
		rm -rf "$STATE"
	fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

"$ROOT/tests/ganesha.sh" start "$SRV" >"$OUT/ganesha.log" 2>&1 ||
	{ tail -n 20 "$OUT/ganesha.log" >&2; die "nfs-ganesha did not start"; }
# The env file's URLs hold '&': read it line by line, never source it.
while IFS='=' read -r k v; do
	case $k in NFS_PORT | MNT_PORT | URL3 | GANESHA_PID | EXPORT_DIR) printf -v "$k" '%s' "$v" ;; esac
done <"$SRV/env"
[[ -n ${URL3:-} && -n ${NFS_PORT:-} && -n ${MNT_PORT:-} ]] || die "tests/ganesha.sh wrote no usable $SRV/env"

{
	echo "# --trace-summary and --replay: decode speed, client CPU per replayed op, $(date -u '+%F %T UTC')"
	echo "machine: $(nproc) CPUs, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)," \
		"kernel $(uname -r), $(sed -n 's/^PRETTY_NAME="\(.*\)"/\1/p' /etc/os-release)," \
		"$(awk '/MemTotal/ { printf "%.1f GiB RAM", $2 / 1048576 }' /proc/meminfo)"
	echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
	echo "server: nfs-ganesha $(dpkg-query -W -f '${Version}' nfs-ganesha 2>/dev/null)," \
		"FSAL_VFS on $(df -T "$STATE" | awk 'NR == 2 { print $2 }'), $URL3"
	echo "tshark: $(tshark --version 2>/dev/null | head -1)"
	echo "nfsload: $NFSLOAD_SRC ($("$NFSLOAD" --version 2>/dev/null | head -1));" \
		"source $(git -C "$ROOT" describe --always --dirty 2>/dev/null)"
	echo "rounds: $ROUNDS; run time ${SECS}s; raw outputs: $OUT"
	echo
} | tee -a "$REPORT"

# --- the capture -----------------------------------------------------------------------
MARKS=0
mark() { # mark WHAT: one UDP mark to 127.0.0.1:7; its token in TOKEN
	TOKEN="nfsload-replay-bench-$1-$$-$((++MARKS))-${EPOCHREALTIME/./}"
	printf '%s' "$TOKEN" >"/dev/udp/127.0.0.1/7"
}
has() { [[ -f $CAP ]] && grep -aqF "$1" "$CAP"; }

say "## capture"
say "\$ $(printf '%q ' "$NFSLOAD" --engine native -c 4 -q 16 --rw randrw --bs 4k --runtime 1s \
	--dir br-capture --keep --quiet "$URL3")   # layout, before the capture"
timeout -k 5 300 "$NFSLOAD" --engine native -c 4 -q 16 --rw randrw --bs 4k --runtime 1s \
	--dir br-capture --keep --quiet --output-format json --output "$OUT/capture-layout.json" "$URL3" \
	>/dev/null 2>"$OUT/capture-layout.err" || die "layout failed: $(tail -n 1 "$OUT/capture-layout.err")"
FILTER="tcp port $NFS_PORT or tcp port $MNT_PORT or (udp dst port 7 and dst host 127.0.0.1)"
say "\$ tshark -q -B 64 -i lo -f '$FILTER' -w CAP"
timeout -k 10 300 tshark -q -B 64 -i lo -f "$FILTER" -w "$CAP" 2>"$OUT/tshark.err" &
TSHARK_PID=$!
started=0
for ((i = 0; i < 600; i++)); do
	if grep -q "Capturing on" "$OUT/tshark.err"; then
		mark start
		has "nfsload-replay-bench-start-$$-" && { started=1; break; }
	fi
	kill -0 "$TSHARK_PID" 2>/dev/null || break
	sleep 0.1
done
((started)) || die "tshark did not start: $(cat "$OUT/tshark.err")"
CAPCMD=("$NFSLOAD" --engine native -c 4 -q 16 --rw randrw --bs 4k --runtime "${SECS}s"
	--dir br-capture --skip-layout --keep --quiet --output-format json --output "$OUT/capture-run.json" "$URL3")
say "\$ $(printf '%q ' "${CAPCMD[@]}")"
timeout -k 5 $((SECS + 120)) "${CAPCMD[@]}" >"$OUT/capture-run.out" 2>"$OUT/capture-run.err" ||
	die "the captured run failed: $(tail -n 1 "$OUT/capture-run.err")"
mark end
for ((i = 0; i < 600; i++)); do
	has "$TOKEN" && break
	sleep 0.1
done
kill -INT "$TSHARK_PID" 2>/dev/null
wait "$TSHARK_PID" 2>/dev/null
TSHARK_PID=
has "$TOKEN" || die "the capture's end mark never reached the file: $(cat "$OUT/tshark.err")"
grep -qi dropped "$OUT/tshark.err" && die "the capture dropped packets: $(grep -i dropped "$OUT/tshark.err")"
say "captured run: $(jq -r '"\(.total.count) ops (\(.total.errors) errors) in \(.duration_ns / 1e9 | . * 100 | round / 100) s"' \
	"$OUT/capture-run.json"); $(grep -o '[0-9]* packets captured' "$OUT/tshark.err")"
GZ=$CAP.gz
gzip -1 -c "$CAP" >"$GZ" || die "gzip failed"
say "capture: $(stat -c %s "$CAP") bytes, gzip'd (gzip -1) $(stat -c %s "$GZ") bytes"

# --- (a) decode speed ------------------------------------------------------------------
# decode.tsv: 1 kind, 2 round, 3 calls, 4 wall s, 5 user s, 6 sys s, 7 max RSS KiB
say ""
say "## (a) decode: $NFSLOAD --trace-summary CAP --output-format json"
: >"$OUT/decode.tsv"
for ((r = 1; r <= ROUNDS; r++)); do
	for kind in plain gzip; do
		f=$CAP
		[[ $kind == gzip ]] && f=$GZ
		B=$OUT/decode-$kind-r$r
		/usr/bin/time -f '%e %U %S %M' -o "$B.time" timeout -k 5 300 \
			"$NFSLOAD" --trace-summary "$f" --output-format json >"$B.json" 2>"$B.err" ||
			die "--trace-summary $kind failed: $(tail -n 1 "$B.err")"
		calls=$(jq '[.ops[].calls] | add' "$B.json")
		printf '%s\t%s\t%s\t%s\n' "$kind" "$r" "$calls" "$(tail -n 1 "$B.time" | tr ' ' '\t')" \
			>>"$OUT/decode.tsv"
	done
done
jq -c '{packets, connections, versions, left_out}' "$OUT/decode-plain-r1.json" | sed 's/^/summary: /' | tee -a "$REPORT"
[[ $(jq -c .ops "$OUT/decode-plain-r1.json") == $(jq -c .ops "$OUT/decode-gzip-r1.json") ]] ||
	say "NOTE: the plain and the gzip'd capture decode differently"

# --- (b) replay vs plain ---------------------------------------------------------------
say ""
say "## (b) replay vs plain"
PLAIN=(--rw randrw --bs 4k -c 4 -q 16 --dir br-plain)
say "\$ $(printf '%q ' "$NFSLOAD" "${PLAIN[@]}" --runtime 1s --keep --quiet "$URL3")   # layout, unmeasured"
timeout -k 5 300 "$NFSLOAD" "${PLAIN[@]}" --runtime 1s --keep --quiet --output-format json \
	--output "$OUT/layout.json" "$URL3" >/dev/null 2>"$OUT/layout.err" ||
	die "layout failed: $(tail -n 1 "$OUT/layout.err")"

# runs.tsv: 1 kind, 2 round, 3 ops, 4 errors, 5 seconds (I/O phase), 6 us/op (own),
# 7 process cpu s (GNU time), 8 process wall s, 9 load (1 min) at start, 10 late, 11 threads,
# 12 connections
: >"$OUT/runs.tsv"
run() { # run KIND ROUND
	local kind=$1 r=$2 B=$OUT/$1-r$2 load cmd
	if [[ $kind == replay ]]; then
		cmd=("$NFSLOAD" --replay "$CAP" --replay-speed max --dir br-replay --quiet
			--output-format json --output "$B.json" "$URL3")
	else
		cmd=("$NFSLOAD" "${PLAIN[@]}" --runtime "${SECS}s" --skip-layout --keep --quiet
			--output-format json --output "$B.json" "$URL3")
	fi
	say "\$ $(printf '%q ' "${cmd[@]}")"
	load=$(cut -d' ' -f1 /proc/loadavg)
	/usr/bin/time -f '%e %U %S %M' -o "$B.time" timeout -k 5 $((SECS + 120)) "${cmd[@]}" \
		>"$B.out" 2>"$B.err" || { say "$kind round $r failed: $(tail -n 1 "$B.err")"; return; }
	read -ra t < <(tail -n 1 "$B.time")
	jq -r --arg k "$kind" --arg r "$r" --arg cpu "$(awk -v u="${t[1]}" -v s="${t[2]}" 'BEGIN { print u + s }')" \
		--arg wall "${t[0]}" --arg load "$load" \
		'[$k, $r, .total.count, .total.errors, .duration_ns / 1e9, .cpu.us_per_op, $cpu, $wall,
		  $load, (.replay.late // "-"), .settings.threads, .settings.connections] | @tsv' \
		"$B.json" >>"$OUT/runs.tsv"
	sleep 1 # let the server settle
}
for ((r = 1; r <= ROUNDS; r++)); do
	if ((r % 2)); then run replay "$r"; run plain "$r"; else run plain "$r"; run replay "$r"; fi
done
jq -c '.replay | {trace: .trace.calls, replayed, skipped, names, made_before, late, not_issued, new_errors}' \
	"$OUT/replay-r1.json" 2>/dev/null | sed 's/^/replay r1: /' | tee -a "$REPORT"

# --- the tables ------------------------------------------------------------------------
{
	echo
	echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
	echo
	echo "### (a) decode, median of $ROUNDS rounds (whole process under GNU time)"
	awk -F'\t' '
	function median(k, x,   n, i, j, t, v) {
		n = cnt[k, x]
		for (i = 1; i <= n; i++) v[i] = val[k, x, i]
		for (i = 2; i <= n; i++) for (j = i; j > 1 && v[j - 1] > v[j]; j--) {
			t = v[j]; v[j] = v[j - 1]; v[j - 1] = t }
		return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
	}
	function add(k, x, y) { val[k, x, ++cnt[k, x]] = y }
	{
		if (!($1 in seen)) { seen[$1] = 1; order[++nk] = $1 }
		calls[$1] = $3; cpu = $5 + $6
		add($1, "wall", $4); add($1, "cpu", cpu); add($1, "rss", $7 / 1024)
		add($1, "cw", $4 > 0 ? $3 / $4 : 0); add($1, "cc", cpu > 0 ? $3 / cpu : 0)
	}
	END {
		print "| capture | calls | wall s | cpu s | calls/s (wall) | calls/s (cpu) | max RSS MiB |"
		print "|---|---|---|---|---|---|---|"
		for (i = 1; i <= nk; i++) {
			k = order[i]
			printf "| %s | %d | %.2f | %.2f | %.0f | %.0f | %.1f |\n", k, calls[k], median(k, "wall"),
				median(k, "cpu"), median(k, "cw"), median(k, "cc"), median(k, "rss")
		}
		print "(calls/s: median of the rounds'"'"' calls / seconds; cpu = user + sys; with 0.01 s"
		print "resolution on runs this short, read the cpu figure to two digits.)"
	}' "$OUT/decode.tsv"
	echo
	echo "### (b) client CPU per operation, median of $ROUNDS rounds"
	awk -F'\t' '
	function median(k, x,   n, i, j, t, v) {
		n = cnt[k, x]
		if (!n) return 0
		for (i = 1; i <= n; i++) v[i] = val[k, x, i]
		for (i = 2; i <= n; i++) for (j = i; j > 1 && v[j - 1] > v[j]; j--) {
			t = v[j]; v[j] = v[j - 1]; v[j - 1] = t }
		return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
	}
	function add(k, x, y) { val[k, x, ++cnt[k, x]] = y }
	{
		k = $1; r = $2
		if ($3 > 0) {
			add(k, "ops", $3); add(k, "iops", $5 > 0 ? $3 / $5 : 0); add(k, "us", $6)
			add(k, "proc", $7 * 1e6 / $3); add(k, "err", $4)
			us[k, r] = $6; proc[k, r] = $7 * 1e6 / $3
			if (r > maxr) maxr = r
			desc[k] = sprintf("%s threads, %s connections", $11, $12)
			if (k == "replay") late = late (late == "" ? "" : " ") $10
			lo[k] = (lo[k] == "" || $6 < lo[k]) ? $6 : lo[k]; hi[k] = $6 > hi[k] ? $6 : hi[k]
		}
	}
	END {
		print "| run | ops | ops/s | errors | cpu us/op (I/O phase) | us/op range | proc us/op (whole process) | client |"
		print "|---|---|---|---|---|---|---|---|"
		for (i = 1; i <= 2; i++) {
			k = i == 1 ? "plain" : "replay"
			printf "| %s | %.0f | %.0f | %.0f | %.2f | %.2f..%.2f | %.2f | %s |\n", k, median(k, "ops"),
				median(k, "iops"), median(k, "err"), median(k, "us"), lo[k], hi[k], median(k, "proc"), desc[k]
		}
		pu = median("plain", "us"); pp = median("plain", "proc")
		printf "\nreplay/plain, cpu us/op: %.2fx (medians); round by round:", (pu > 0 ? median("replay", "us") / pu : 0)
		for (r = 1; r <= maxr; r++)
			printf " %s", (us["plain", r] > 0 && us["replay", r] != "" ? sprintf("%.2fx", us["replay", r] / us["plain", r]) : "-")
		printf "\nreplay/plain, proc us/op: %.2fx (medians); round by round:", (pp > 0 ? median("replay", "proc") / pp : 0)
		for (r = 1; r <= maxr; r++)
			printf " %s", (proc["plain", r] > 0 && proc["replay", r] != "" ? sprintf("%.2fx", proc["replay", r] / proc["plain", r]) : "-")
		printf "\nreplay late operations per round: %s\n", late
	}' "$OUT/runs.tsv"
} | tee -a "$REPORT"
echo
echo "report: $REPORT"
