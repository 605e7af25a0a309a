#!/usr/bin/env bash
# Load-curve tests: --load-curve and --latency-target through tests/helper_proxy.c,
# which holds every reply DELAY ms. With C connections of iodepth Q each, no more than
# C*Q requests are ever in flight and none completes in under DELAY, so the run cannot
# complete more than C*Q/DELAY operations per second: that ceiling, not this machine's
# speed, is what the checks derive from (points far below it and far above it).
# Needs NFSLOAD (the binary) and HELPERS (build/tests, with helper_proxy).
set -uo pipefail
. "$(dirname "$0")/lib.sh"

proxy_stop() {
	[[ -n $PROXY_PID ]] || return 0
	pkill -TERM -P "$PROXY_PID" 2>/dev/null || kill -TERM "$PROXY_PID" 2>/dev/null
	wait "$PROXY_PID" 2>/dev/null
	PROXY_PID=
}
trap '[[ -n $PROXY_PID ]] && kill -TERM "$PROXY_PID" 2>/dev/null; t_cleanup' EXIT

DELAY_MS=20
C=2
Q=4
CEILING=$((C * Q * 1000 / DELAY_MS))	# 400 ops/s
LOW=100				# a quarter of the ceiling: kept, well within the target
HIGH=$((CEILING * 3 / 2))	# 600: at most 2/3 of it can be achieved, under 90%
# The target is on the median, at 3x DELAY: a point of a second holds only a few hundred
# operations, and one stall of a loaded machine (a sanitizer build, other runs) would
# be the p99 of LOW; the median of LOW is DELAY plus the server's own time.
TARGET_PCT=p50
TARGET_MS=$((DELAY_MS * 3))
FILES=(--dir curve -c $C -q $Q -t 1 --rw randread --bs 4k --size 8m --keep)

t_start_server || exit 1
echo "# nfsload: $("$NFSLOAD" --version)"

# Lay the file out directly against ganesha: the curve's points only read.
nl "${FILES[@]}" --runtime 1s --output-format json "$URL3"
check_eq "layout: exit 0" 0 "$RC"

# a) Two steps, LOW and HIGH, then bisection towards the target: at least 3 points, on
# one set of connections and the files as laid out.
proxy_start "$DELAY_MS" || exit 1
html=$TMP/curve.html
nl "${FILES[@]}" --runtime 1s --ramp-time 250ms --load-curve "$LOW:$((HIGH - LOW))" \
	--latency-target "$TARGET_PCT=${TARGET_MS}ms" --output-format json --report "$html" "$PROXY_URL"
proxy_stop
check_eq "curve: exit 0" 0 "$RC"
check "curve: JSON" json_ok "$OUT"
echo "# points (offered achieved p50_ms p99_ms verdict): $(jqv '[.load_curve.points[] |
	"\(.offered) \(.achieved | floor) \(.p50_ns / 1e6 | floor) \(.p99_ns / 1e6 | floor) \(.verdict)"] | join(", ")')"
check_ge "curve: at least 3 points" 3 "$(jqv '.load_curve.points | length')"
check_eq "curve: the layout did not run again" false "$(jqv .layout.ran)"
check_eq "curve: target $TARGET_PCT ${TARGET_MS} ms" "$TARGET_PCT $((TARGET_MS * 1000000))" \
	"$(jqv '.load_curve.target | "\(.name) \(.ns)"')"
check_eq "curve: the steps were $LOW then $HIGH" "$LOW $HIGH" \
	"$(jqv '[.load_curve.points[] | select(.refined | not) | .offered] | map(tostring) | join(" ")')"
# LOW, a quarter of the ceiling: achieved within 10% of offered, and met.
check_ge "curve: $LOW achieved >= 90%" $((LOW * 9 / 10)) \
	"$(jqv ".load_curve.points[] | select(.offered == $LOW) | .achieved")"
check_le "curve: $LOW achieved <= 110%" $((LOW * 11 / 10)) \
	"$(jqv ".load_curve.points[] | select(.offered == $LOW) | .achieved")"
check_eq "curve: $LOW met" true "$(jqv ".load_curve.points[] | select(.offered == $LOW) | .met")"
check_eq "curve: $LOW without errors" 0 "$(jqv ".load_curve.points[] | select(.offered == $LOW) | .errors")"
# HIGH cannot be kept: at most the ceiling (plus the requests that drain at the stop).
check_le "curve: $HIGH achieved <= the ceiling $CEILING (+5%)" $((CEILING * 105 / 100)) \
	"$(jqv ".load_curve.points[] | select(.offered == $HIGH) | .achieved")"
check_eq "curve: $HIGH not met (past the knee)" false \
	"$(jqv ".load_curve.points[] | select(.offered == $HIGH) | .met")"
# Every point the bisection tried lies between the two steps.
check_eq "curve: refined points between $LOW and $HIGH" true \
	"$(jqv "[.load_curve.points[] | select(.refined) | .offered > $LOW and .offered < $HIGH] | all")"
# The best: met, within the target, at least LOW, and no more than the ceiling allows
# (met means achieved >= 90% of offered, and achieved stays under the ceiling).
check_eq "curve: a best rate" true "$(jqv '.load_curve.best != null')"
check_eq "curve: best met" true "$(jqv .load_curve.best.met)"
check_le "curve: best $TARGET_PCT within the target" $((TARGET_MS * 1000000)) "$(jqv .load_curve.best.target_ns)"
check_ge "curve: best >= $LOW" $LOW "$(jqv .load_curve.best.offered)"
check_le "curve: best <= ceiling / 0.9 (+5%)" $((CEILING * 105 / 90)) "$(jqv .load_curve.best.offered)"
check_eq "curve: best is the highest met" "$(jqv '[.load_curve.points[] | select(.met) | .offered] | max')" \
	"$(jqv .load_curve.best.offered)"
check_eq "curve: the report's open-loop rate is the best's" "$(jqv .load_curve.best.offered)" \
	"$(jqv .open_loop.rate)"
# The histogram's buckets are within 1%: the median is at least 98% of the delay.
check_ge "curve: every point's median took the delay" $((DELAY_MS * 980000)) \
	"$(jqv '[.load_curve.points[] | select(.ops > 0) | .p50_ns] | min')"
check_match "curve: HTML has the load-curve section" 'id="load-curve"' "$(cat "$html" 2>/dev/null)"
check_match "curve: HTML plots latency against achieved IOPS" 'achieved IOPS' "$(cat "$html" 2>/dev/null)"

# b) Rates in bytes per second, to END, with a text report: 400k/s of 4 KiB is 100 ops/s.
nl "${FILES[@]}" --runtime 1s --load-curve 400k/s:400k/s:800k/s "$URL3"
check_eq "bytes/s: exit 0" 0 "$RC"
check_match "bytes/s: the settings say 100:100:200" 'load curve \(ops/s\) 100:100:200' "$(cat "$OUT")"
check_match "bytes/s: the table has the 100 ops/s row" '^ +100 +[0-9]+ ' "$(grep -E '^ +100 ' "$OUT")"
check_match "bytes/s: a best line" '^best: ' "$(grep '^best: ' "$OUT")"

# c) Bad input: exit 2, one line naming the option, nothing made on the server.
bad() {
	local name=$1 want=$2
	shift 2
	nl --dir curvebad -c 1 --size 1m "$@" "$URL3"
	check_eq "bad $name: exit 2" 2 "$RC"
	check_eq "bad $name: one line" 1 "$(wc -l <"$ERR")"
	check_match "bad $name: names $want" "^nfsload: $want" "$(cat "$ERR")"
	check "bad $name: nothing written" test ! -e "$EXPORT_DIR/curvebad"
}
bad "no step" "--load-curve: '100' is not START:STEP" --runtime 1s --load-curve 100
bad "zero step" "--load-curve: '100:0' has a field" --runtime 1s --load-curve 100:0
bad "END below START" "--load-curve: '300:100:200' has END below START" --runtime 1s --load-curve 300:100:200
bad "no runtime" "--load-curve: needs --runtime" --load-curve 100:100
bad "with --rate" "--load-curve: .*not with --rate" --runtime 1s --load-curve 100:100 --rate 50
bad "with --mix" "--load-curve: .*not with --mix" --runtime 1s --load-curve 100:100 --mix getattr=1
bad "target alone" "--latency-target: only with --load-curve" --runtime 1s --latency-target p99=2ms
bad "target p100" "--latency-target: 'p100=2ms'" --runtime 1s --load-curve 100:100 --latency-target p100=2ms
bad "target unit" "--latency-target: 'p99=2q'" --runtime 1s --load-curve 100:100 --latency-target p99=2q

t_summary
