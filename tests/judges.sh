#!/usr/bin/env bash
# Judges outside nfsload for what it cannot count for itself: the access skew
# (--random-distribution), the block-size mixes (--bssplit), the open loop's pacing
# (--rate) and its coordinated-omission correction, all from what tshark sees on the
# loopback (tests/capture.sh), over NFSv3 and NFSv4.1, on the native engine.
#   - skew: the offsets of the READ calls (nfs.offset3, nfs.offset4), as blocks,
#     against the share Zipf's law gives the hottest tenth (tests/judges.py zipf);
#   - size mixes: the lengths of the READ and WRITE calls (nfs.count3, nfs.count4,
#     nfs.write.data_length): only the sizes asked for, each aligned to itself, in the
#     shares asked for, as many operations as the bytes allow (tests/judges.py);
#   - open loop: the calls' send times follow the rate; behind a proxy that, half a
#     second in, starts holding every reply a known time longer than the schedule's gap
#     (tests/helper_proxy.c), the latencies from the intended starts, computed here from
#     the schedule and the replies' times on the wire, are nfsload's corrected ones, and
#     the send-to-reply times its uncorrected ones.
# Needs NFSLOAD, HELPERS, jq, tshark, python3 (capture needs root, as the server does).
set -uo pipefail
. "$(dirname "$0")/lib.sh"

HERE=$(cd "$(dirname "$0")" && pwd)
t_start_server || exit 1
URL41=${URL4/version=4/version=4.1}
. "$HERE/capture.sh"
trap '[[ -n $TSHARK_PID ]] && kill -INT "$TSHARK_PID" 2>/dev/null
	[[ -n $PROXY_PID ]] && kill -TERM "$PROXY_PID" 2>/dev/null; t_cleanup' EXIT

# tsh PORT ARGS...: tshark reading the capture, RPC decoded on PORT.
tsh() {
	local port=$1
	shift
	capture_read -d "tcp.port==$port,rpc" "$@"
}
# calls VERSION OP: "offset length" of every READ (OP read) or WRITE call in the
# capture, one line each, in capture order. NFSv3: the READ/WRITE procedure's offset3
# and count3; NFSv4.1: the READ (25) operation's offset4 and count4, the WRITE (38)
# operation's offset4 and data length. A frame may carry several records: every
# occurrence is taken, in order; the calls are the only records that carry these
# fields in these runs (no COMMIT, no other I/O), which the count checks confirm.
calls() {
	local filter off len
	if [[ $1 == 3 ]]; then
		filter="rpc.msgtyp == 0 && nfs.procedure_v3 == $([[ $2 == read ]] && echo 6 || echo 7)"
		off=nfs.offset3 len=nfs.count3
	else
		filter="rpc.msgtyp == 0 && nfs.opcode == $([[ $2 == read ]] && echo 25 || echo 38)"
		off=nfs.offset4 len=$([[ $2 == read ]] && echo nfs.count4 || echo nfs.write.data_length)
	fi
	tsh "$NFS_PORT" -Y "$filter" -T fields -E occurrence=a -E aggregator=, -e "$off" -e "$len" |
		awk -F'\t' '{ n = split($1, o, ","); split($2, l, ",")
			for (i = 1; i <= n; i++) print o[i], l[i] }'
}

# Files laid out beforehand, outside the captures: 64 MiB for the skew (16384 blocks of
# 4 KiB), 8 MiB for the size mixes.
nl --dir jskew -c 2 -q 4 --rw write --bs 1m --size 64m --keep "$URL3"
check_eq "layout skew: exit 0" 0 "$RC"
nl --dir jmix -c 1 -q 4 --rw write --bs 1m --size 8m --keep "$URL3"
check_eq "layout mix: exit 0" 0 "$RC"

# mix_shape NAME CALL FILE BYTES WHAT: the calls in FILE (an "offset length" line each) of
# 4 KiB and 64 KiB only, but the last (the budget cuts it short), each aligned to its
# size, BYTES in all ("NAME: the bytes WHAT").
mix_shape() {
	check_le "$1: only 4 KiB and 64 KiB ${2}s on the wire, but the last" 1 \
		"$(awk '$2 != 4096 && $2 != 65536' "$3" | wc -l)"
	check_eq "$1: each $2 aligned to its size" "" \
		"$(awk '$1 % ($2 == 65536 ? 65536 : 4096)' "$3" | head -3)"
	check_eq "$1: the bytes $5" "$4" "$(awk '{ s += $2 } END { print s }' "$3")"
}

# --- Skew and size mixes, NFSv3 and NFSv4.1 ------------------------------------------
# zipf:1.2 over NFSv3, zipf:1.0 over NFSv4.1: the two thetas the issue found alike
# to the old check (>= 75%), each judged against its own law.
for vt in 3:1.2 4.1:1.0; do
	v=${vt%:*} theta=${vt#*:}
	url=$URL3
	[[ $v == 4.1 ]] && url=$URL41
	name="v$v zipf:$theta"
	# As many reads as the file has blocks (16384), whatever the pace: calls only
	# (the replies' 64 MiB are not needed), so a capture of the calls' direction.
	if capture_start "tcp dst port $NFS_PORT"; then
		nl --dir jskew -c 2 -q 4 --random-distribution "zipf:$theta" --rw randread --bs 4k \
			--size 64m --io-size 64m --skip-layout --keep --output-format json "$url"
		capture_stop
		check_eq "$name: exit 0, no errors" "0 0" "$RC $(jqv .total.errors)"
		calls "$v" read >"$TMP/skew-$v"
		check_eq "$name: READ calls on the wire == reads reported" "$(jqv .ops.read.count)" \
			"$(wc -l <"$TMP/skew-$v")"
		check_eq "$name: every READ on the wire is a 4 KiB block" "" \
			"$(awk '$1 % 4096 || $2 != 4096' "$TMP/skew-$v" | sort -u | head -3)"
		read -r p emp split lo hi n < <(awk '{ print $1 / 4096 }' "$TMP/skew-$v" |
			python3 "$HERE/judges.py" zipf 16384 "$theta")
		echo "# $name: law $p% for the hottest tenth; on the wire $emp% (the tenth most" \
			"read), $split% (a tenth chosen by the other half), $n reads; bounds $lo, $hi"
		check_ge "$name: the hottest tenth on the wire holds >= $lo% (law: $p%)" "$lo" "$emp"
		check_le "$name: a tenth chosen by the even calls holds <= $hi% of the odd (law: $p%)" \
			"$hi" "$split"
		capture_explain
	fi

	# Reads: ~1,200 (40 MiB at 34 KiB on average) over the 8 MiB file.
	name="v$v bssplit reads"
	if capture_start "tcp dst port $NFS_PORT"; then
		nl --dir jmix -c 1 -q 4 --bssplit 4k/50:64k/50 --rw randread --size 8m --io-size 40m \
			--skip-layout --keep --output-format json "$url"
		capture_stop
		check_eq "$name: exit 0, no errors" "0 0" "$RC $(jqv .total.errors)"
		calls "$v" read >"$TMP/mixr-$v"
		n=$(wc -l <"$TMP/mixr-$v")
		check_eq "$name: READ calls on the wire == reads reported" "$(jqv .ops.read.count)" "$n"
		mix_shape "$name" READ "$TMP/mixr-$v" $((40 << 20)) "asked for == 40 MiB"
		read -r lo hi < <(python3 "$HERE/judges.py" split "$n" 50)
		pct=$(awk '$2 == 4096 { k++ } END { printf "%.2f", 100 * k / NR }' "$TMP/mixr-$v")
		echo "# $name: $pct% of $n READs of 4 KiB on the wire (4 sigma: $lo-$hi)"
		check_ge "$name: 4 KiB READs on the wire >= $lo% (50% of $n, 4 sigma)" "$lo" "$pct"
		check_le "$name: 4 KiB READs on the wire <= $hi% (50% of $n, 4 sigma)" "$hi" "$pct"
		capture_explain
	fi

	# Writes: one pass over the 8 MiB file.
	name="v$v bssplit writes"
	if capture_start "tcp dst port $NFS_PORT"; then
		nl --dir jmix -c 1 -q 4 --bssplit 4k/50:64k/50 --rw randwrite --size 8m \
			--skip-layout --keep --output-format json "$url"
		capture_stop
		check_eq "$name: exit 0, no errors" "0 0" "$RC $(jqv .total.errors)"
		calls "$v" write >"$TMP/mixw-$v"
		n=$(wc -l <"$TMP/mixw-$v")
		check_eq "$name: WRITE calls on the wire == writes reported" "$(jqv .ops.write.count)" "$n"
		mix_shape "$name" WRITE "$TMP/mixw-$v" $((8 << 20)) "sent == 8 MiB"
		read -r lo hi mean < <(python3 "$HERE/judges.py" count 8m 4k/50:64k/50)
		echo "# $name: $n WRITEs on the wire (law: $mean on average, $lo-$hi but 1e-5 each side)"
		check_ge "$name: WRITE calls on the wire >= $lo (8 MiB in 4k/50:64k/50)" "$lo" "$n"
		check_le "$name: WRITE calls on the wire <= $hi (8 MiB in 4k/50:64k/50)" "$hi" "$n"
		capture_explain
	fi
done

# --- Open loop: pacing ---------------------------------------------------------------
# calltimes PORT: "time xid msgtyp" of every NFSv3 READ record (calls, and the replies
# tshark matched to them), one line each, in capture order; time in seconds.
calltimes() {
	tsh "$1" -Y "rpc.program == 100003 && rpc.procedure == 6" -T fields -E occurrence=a \
		-E aggregator=, -e frame.time_epoch -e rpc.xid -e rpc.msgtyp -e rpc.procedure |
		awk -F'\t' '{ n = split($2, x, ","); split($3, m, ","); split($4, q, ",")
			for (i = 1; i <= n; i++) if (q[i] == 6) print $1, x[i], m[i] }'
}

# One thread, 4 connections, 400/s in all: the schedule (src/workload/schedule.c) gives
# connection k its calls at t0 + k/400 + i * 4/400, so the run's calls are due at
# t0 + j/400 (j = 0, 1, ...), 2.5 ms apart, whatever the server does as long as it
# keeps up (it does here: 4 x 4 slots for 400 short reads a second). A call never goes
# out before it is due, but may go late (a thread waiting for a CPU): judged from the
# calls' send times s_j in time order, with t0 = min(s_j - j/400) (the least-late call):
#   - the median call's lateness s_j - (t0 + j/400) is under half a gap (1.25 ms): a
#     rate 1% off drifts 20 ms over the run, the median call 10 ms from its start;
#     a stall delays the calls due during it only, not half of them;
#   - the median gap between consecutive calls is 2.5 ms, within 10%: a gap is 2.5 ms
#     plus the difference of two calls' lateness, which must exceed 0.25 ms for more
#     than half of them to move the median; the mean (last - first over the calls)
#     is printed;
#   - the median count per 100 ms window from the first call is 40.
name="pacing 400/s"
if capture_start "tcp dst port $NFS_PORT"; then
	nl --dir jmix -t 1 -c 4 -q 4 --rw randread --bs 4k --size 8m --runtime 2s --rate 400 \
		--skip-layout --keep --output-format json "$URL3"
	capture_stop
	check_eq "$name: exit 0, no errors" "0 0" "$RC $(jqv .total.errors)"
	calltimes "$NFS_PORT" | awk '$3 == 0 { print $1 }' >"$TMP/pace"
	n=$(wc -l <"$TMP/pace")
	reads=$(jqv .ops.read.count)
	# What completes after the stop is not counted: at most the 16 slots in flight.
	check_ge "$name: READ calls on the wire >= reads reported" "$reads" "$n"
	check_le "$name: READ calls on the wire <= reads reported + 16 in flight at the stop" \
		$((reads + 16)) "$n"
	read -r late gap mean med wmin wmax nwin < <(sort -n "$TMP/pace" | python3 -c '
import statistics, sys
t = [float(x) for x in sys.stdin.read().split()]
n = len(t)
t0 = min(x - j / 400 for j, x in enumerate(t))
late = statistics.median(x - (t0 + j / 400) for j, x in enumerate(t))
gap = statistics.median(t[j + 1] - t[j] for j in range(n - 1))
w = [0] * int((t[-1] - t[0]) / 0.1)
for x in t:
    k = int((x - t[0]) / 0.1)
    if k < len(w):
        w[k] += 1
print("%d %d %.1f %g %d %d %d" % (1e9 * late, 1e9 * gap, 1e6 * (t[-1] - t[0]) / (n - 1),
                                  statistics.median(w), min(w), max(w), len(w)))')
	echo "# $name: $n calls on the wire; median lateness $late ns, median gap $gap ns," \
		"mean gap $mean us; per 100 ms: median $med, $wmin-$wmax over $nwin windows"
	check_le "$name: the median call on the wire within half a gap (1.25 ms) of its start" \
		1250000 "$late"
	check_ge "$name: median gap between calls on the wire >= 2.25 ms" 2250000 "$gap"
	check_le "$name: median gap between calls on the wire <= 2.75 ms" 2750000 "$gap"
	check_eq "$name: median calls per 100 ms window on the wire" 40 "$med"
	# Every call due in the measured window went out: 400/s of it, give or take each
	# connection's last one at the stop.
	due=$(jqv '.duration_ns * 400 / 1e9 | floor')
	check_ge "$name: READ calls on the wire >= 400/s x the measured window - 4" $((due - 4)) "$n"
	check_le "$name: READ calls on the wire <= 400/s x the measured window + 4" $((due + 4)) "$n"
	capture_explain
fi

# Poisson arrivals (--arrival poisson): each of the 4 connections draws exponential gaps
# of 4/400 s (src/workload/schedule.c), so the run's calls are a Poisson process of
# 400/s. Judged from the calls' send times:
#   - N calls in the measured window d: Poisson(400 d), within 4 sqrt(400 d) of it;
#   - the calls in each 50 ms window from the first call's (W full windows): Poisson(20)
#     each, so their variance over their mean (the index of dispersion) is
#     chi-square(W-1)/(W-1): 1 for Poisson, about 0 for uniform arrivals or for the
#     4 connections in step; bounds where 1e-5 of chi-square is left on each side
#     (Wilson-Hilferty, z = 4.265: 0.30-2.30 at W = 39).
# Both count calls, not their gaps: a loaded machine sends a few calls late, in bursts,
# which shortens many gaps (the median gap, printed, is ln 2 x 2.5 ms = 1.73 ms when none
# is late) but moves a call to the next window only when it crosses a window's edge.
name="pacing 400/s poisson"
if capture_start "tcp dst port $NFS_PORT"; then
	nl --dir jmix -t 1 -c 4 -q 4 --rw randread --bs 4k --size 8m --runtime 2s --rate 400 \
		--arrival poisson --skip-layout --keep --output-format json "$URL3"
	capture_stop
	check_eq "$name: exit 0, no errors" "0 0" "$RC $(jqv .total.errors)"
	calltimes "$NFS_PORT" | awk '$3 == 0 { print $1 }' >"$TMP/pace"
	n=$(wc -l <"$TMP/pace")
	read -r lo hi disp dlo dhi nwin med < <(sort -n "$TMP/pace" | python3 -c '
import math, statistics, sys
t = [float(x) for x in sys.stdin.read().split()]
e = 400 * float(sys.argv[1]) / 1e9
w = [0] * int((t[-1] - t[0]) / 0.05)
for x in t:
    k = int((x - t[0]) / 0.05)
    if k < len(w):
        w[k] += 1
k = len(w) - 1
def chi2(z):
    return k * (1 - 2 / (9 * k) + z * math.sqrt(2 / (9 * k))) ** 3 / k
g = [t[j + 1] - t[j] for j in range(len(t) - 1)]
print("%d %d %.3f %.3f %.3f %d %d" % (e - 4 * math.sqrt(e), e + 4 * math.sqrt(e),
      statistics.variance(w) / statistics.mean(w), chi2(-4.265), chi2(4.265), len(w),
      1e9 * statistics.median(g)))' "$(jqv .duration_ns)")
	echo "# $name: $n calls on the wire (Poisson bounds $lo-$hi); per 50 ms: variance/mean" \
		"$disp over $nwin windows ($dlo-$dhi); median gap $med ns"
	check_ge "$name: READ calls on the wire >= $lo (400/s over the window, 4 sigma)" "$lo" "$n"
	check_le "$name: READ calls on the wire <= $hi (400/s over the window, 4 sigma)" "$hi" "$n"
	check_ge "$name: calls per 50 ms on the wire: variance/mean >= $dlo (Poisson)" "$dlo" "$disp"
	check_le "$name: calls per 50 ms on the wire: variance/mean <= $dhi (Poisson)" "$dhi" "$disp"
	capture_explain
fi

# --- Open loop: coordinated omission ---------------------------------------------------
# One connection at iodepth 1 asked for 100 reads a second (a call due every 10 ms),
# through tests/helper_proxy.c: the data connection (its 2nd accept: the control
# connection's is the 1st) has its replies passed at once for 500 ms, then held 25 ms
# each: the server stalls every call 25 ms, longer than the schedule's gap, so call i
# goes out when reply i-1 is in, not at its intended start, and the backlog grows by
# 15 ms a call to the end of the run. From the capture: call i's send time s_i (i from 0
# in send order) and its reply's time r_i. The schedule (src/workload/schedule.c, one
# connection) puts call i at t0 + i/100; no call goes out before its start, so
# t0 <= s_i - i/100 for every i, and the calls sent on time in the first 500 ms make the
# smallest of those t0 itself, within the least-late call's lateness. The test's own
# latencies: corrected r_i - (t0 + i/100), uncorrected r_i - s_i; their nearest-rank
# p50 and p99 against nfsload's lat_ns and lat_ns_uncorrected.
# Tolerance: nfsload stamps a call before it is on the wire and its reply after it:
# each of its latencies is the wire's plus those stamps' distance from the wire (>= 0),
# so its percentiles lie at or above the wire's, less the half bucket a percentile is
# reported at (its midpoint: 1/256 of the value at HIST_PRECISE_BITS; one bucket, 1/128,
# allowed); above them by no more than one bucket and the largest such distance, which
# is at most nfsload's largest uncorrected latency less the wire's smallest (printed;
# on a loaded 2-core machine a thread waits tens of ms for a CPU now and then). Without
# the correction nfsload's corrected p50 would be its uncorrected one: 25 ms, not 400.
name="open loop, server stalled 25 ms a call"
proxy_start 0 2 25 500 &&
if capture_start "tcp port $PROXY_PORT"; then
	nl --dir jmix -t 1 -c 1 -q 1 --rw randread --bs 4k --size 8m --runtime 3s --rate 100 \
		--skip-layout --keep --output-format json "$PROXY_URL"
	capture_stop
	kill -TERM "$PROXY_PID" 2>/dev/null
	wait "$PROXY_PID" 2>/dev/null
	PROXY_PID=
	check_eq "$name: exit 0, no errors" "0 0" "$RC $(jqv .total.errors)"
	reads=$(jqv .ops.read.count)
	calltimes "$PROXY_PORT" >"$TMP/co"
	# Calls in send order with their replies; a call in flight at the stop (its reply
	# after it, not counted by nfsload) is the last one sent: left out.
	read -r n ontime c50 c99 u50 u99 umin < <(python3 -c '
import sys
reads = int(sys.argv[1])
sent, back = {}, {}
for line in open(sys.argv[2]):
    t, xid, typ = line.split()
    (sent if typ == "0" else back).setdefault(xid, float(t))
calls = sorted((t, x) for x, t in sent.items() if x in back)[:reads]
t0 = min(t - i / 100 for i, (t, x) in enumerate(calls))
ontime = sum(1 for i, (t, x) in enumerate(calls) if t - (t0 + i / 100) < 0.001)
corr = sorted(back[x] - (t0 + i / 100) for i, (t, x) in enumerate(calls))
unc = sorted(back[x] - t for t, x in calls)
def pct(v, p):
    return int(1e9 * v[max(-(-len(v) * p // 100), 1) - 1])
print(len(calls), ontime, pct(corr, 50), pct(corr, 99), pct(unc, 50), pct(unc, 99), int(1e9 * unc[0]))' \
		"$reads" "$TMP/co")
	slack=$(($(jqv .ops.read.lat_ns_uncorrected.max) - umin))
	echo "# $name: $reads reads, $ontime within 1 ms of the schedule; wire: corrected p50 $c50" \
		"p99 $c99, uncorrected p50 $u50 p99 $u99 (ns); nfsload: $(jqv '.ops.read | "corrected p50 \(.lat_ns.p50) p99 \(.lat_ns.p99), uncorrected p50 \(.lat_ns_uncorrected.p50) p99 \(.lat_ns_uncorrected.p99)"');" \
		"stamps within $slack ns of the wire"
	check_eq "$name: every read reported has its call and reply on the wire" "$reads" "$n"
	check_eq "$name: both histograms count every read" "$reads $reads" \
		"$(jqv '.ops.read | "\([.buckets[][2]] | add) \([.buckets_uncorrected[]?[2]] | add)"')"
	check_ge "$name: a call sent on its schedule (within 1 ms) before the stall, to find its start" \
		1 "$ontime"
	for f in lat_ns:p50:$c50 lat_ns:p99:$c99 lat_ns_uncorrected:p50:$u50 lat_ns_uncorrected:p99:$u99; do
		IFS=: read -r key p w <<<"$f"
		check_ge "$name: $key $p >= the wire's ($w ns) - 1 bucket" $((w - w / 128)) \
			"$(jqv ".ops.read.$key.$p")"
		check_le "$name: $key $p <= the wire's ($w ns) + 1 bucket + the stamps' distance" \
			$((w + w / 128 + slack)) "$(jqv ".ops.read.$key.$p")"
	done
	capture_explain
fi

t_summary
