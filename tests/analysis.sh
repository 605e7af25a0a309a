#!/usr/bin/env bash
# Latency-analysis tests against a real nfs-ganesha: the interval series (JSON,
# CSV, HdrHistogram log), open-loop --rate with coordinated-omission correction,
# the steady-state verdict, errors by kind and the HTML report in Chromium.
# Needs NFSLOAD (the binary) and HELPERS (build/tests).
set -uo pipefail
. "$(dirname "$0")/lib.sh"

HERE=$(cd "$(dirname "$0")" && pwd)

t_start_server || exit 1
nl --dir a -c 4 -q 4 --size 16m --nrfiles 2 --io-size 4k --keep "$URL3"	# lay out once

# The series: 500 ms intervals over 3 s, exact against the totals and the HdrHistogram log.
nl --dir a -t 2 -c 4 -q 4 --rw randrw --size 16m --nrfiles 2 --runtime 3s --interval 500ms \
	--keep --hdr-log "$TMP/h.log" --output-format json "$URL3"
check_eq "series: exit 0" 0 "$RC"
n=$(jqv '[.series[] | select(.op == "read")] | length')
check_ge "series: 6 read intervals or 7 (a last partial one)" 6 "$n"
check_le "series: no more than 7 read intervals" 7 "$n"
check_eq "series: rows for reads and writes alike" "$n" "$(jqv '[.series[] | select(.op == "write")] | length')"
check_eq "series: operations add up to the totals exactly" "$(jqv .total.count)" "$(jqv '[.series[].ops] | add')"
check_eq "series: starts at the measured window" 0 "$(jqv '.series[0].start_ns')"
check_eq "series: intervals follow each other" true \
	"$(jqv '[.series[] | select(.op == "read")] | [range(1; length) as $i | .[$i].start_ns == .[$i - 1].start_ns + .[$i - 1].len_ns] | all')"
check_eq "series: percentiles monotone in every interval" true \
	"$(jqv '[.series[] | select(.ops > 0) | .lat_ns | .p50 <= .p99 and .p99 <= .["p99.9"] and .["p99.9"] <= .max] | all')"
check_eq "steady state: a verdict over 6 intervals" true "$(jqv '.steady_state.valid and (.steady_state.verdict | length > 0)')"
python3 "$HERE/hdrlog_decode.py" "$TMP/h.log" >"$TMP/h.json" 2>"$TMP/h.err"
check_eq "hdr-log: decodes" 0 $?
check_eq "hdr-log: one line per interval and op type" "$(jqv '.series | length')" "$(wc -l <"$TMP/h.json")"
check_eq "hdr-log: counts equal the series' operations" "$(jqv '[.series[].ops] | add')" \
	"$(jq -s '[.[].count] | add' "$TMP/h.json")"
check_eq "hdr-log: read counts per interval equal the series'" "$(jqv '[.series[] | select(.op == "read") | .ops]')" \
	"$(jq -s '[.[] | select(.tag == "read") | .count]' "$TMP/h.json")"
# The series' percentiles against the decoder's, interval by interval: HdrHistogram's
# percentile math (tests/hdrlog_decode.py, written from the format) over the log's counts
# names the bucket the value lies in, [pNN_lowest, pNN]; the series' p50 and p99 must lie
# in that bucket (a percentile one bucket off lies outside it). Prints the intervals that
# do not.
for op in read write; do
	check_eq "hdr-log: $op p50 and p99 of every interval in the decoder's bucket" "" \
		"$(jq -n -r --arg op "$op" --slurpfile s "$OUT" --slurpfile h "$TMP/h.json" '
			[$s[0].series[] | select(.op == $op) | .lat_ns] as $a
			| [$h[] | select(.tag == $op)] as $b
			| range(0; [$a, $b] | map(length) | max) as $i
			| ["p50", "p99"][] as $p
			| select(($a[$i][$p] // -1) < ($b[$i][$p + "_lowest"] // 0) or ($a[$i][$p] // -1) > ($b[$i][$p] // -1))
			| "interval \($i) \($p): series \($a[$i][$p]), decoder [\($b[$i][$p + "_lowest"]), \($b[$i][$p])]"')"
done
check_match "hdr-log: version 1.3 header" "^#\[Histogram log format version 1\.3\]" "$(head -1 "$TMP/h.log")"

# A ramp is not in the series: rows start where measuring starts.
nl --dir a -c 2 -q 2 --size 16m --nrfiles 2 --runtime 2s --ramp-time 1s --keep --output-format json "$URL3"
check_eq "ramp: first interval at the measured window" 0 "$(jqv '.series[0].start_ns')"
check_le "ramp: series covers the measured 2 s only" 2100000000 "$(jqv '[.series[] | .start_ns + .len_ns] | max')"
check_eq "ramp: series holds exactly the measured operations" "$(jqv .total.count)" "$(jqv '[.series[].ops] | add')"

# CSV: a header, then one row per interval.
nl --dir a -c 2 -q 2 --rw randread --size 16m --nrfiles 2 --runtime 2s --interval 500ms --keep --output-format csv "$URL3"
check_eq "csv: header" "start_s,length_s,op,ops,iops,mib_s,errors,p50_ns,p99_ns,p99.9_ns,max_ns" "$(head -1 "$OUT")"
check_ge "csv: 4 rows or more" 4 $(($(wc -l <"$OUT") - 1))
check_eq "csv: 11 fields in every row" 11 "$(awk -F, '{ print NF }' "$OUT" | sort -u)"
check_eq "csv: only read rows for randread" read "$(tail -n +2 "$OUT" | cut -d, -f3 | sort -u)"

# Open loop at a rate the server sustains: achieved ~ requested, both histograms whole.
# The pacing on the wire and the corrected and uncorrected latencies against the
# schedule and the replies on the wire: tests/judges.sh (corrected >= uncorrected, once
# checked here, holds by construction: an operation never goes out before its start).
for arrival in uniform poisson; do
	nl --dir a -t 2 -c 4 -q 4 --rw randread --size 16m --nrfiles 2 --runtime 4s --rate 400 \
		--arrival $arrival --keep --output-format json "$URL3"
	check_eq "rate $arrival: exit 0" 0 "$RC"
	check_eq "rate $arrival: achieved within 10% of 400/s" true \
		"$(jqv '.open_loop.achieved_rate | . > 360 and . < 440')"
	check_eq "rate $arrival: kept up" true "$(jqv .open_loop.kept_up)"
	check_eq "rate $arrival: both histograms count every operation" \
		"$(jqv '.ops.read.count | "\(.) \(.)"')" \
		"$(jqv '.ops.read | "\([.buckets[][2]] | add) \([.buckets_uncorrected[]?[2]] | add)"')"
done
# More than one connection at iodepth 1 can do: the report says the server fell behind.
nl --dir a -c 1 -q 1 --rw randread --size 16m --nrfiles 2 --runtime 2s --rate 1000000 --keep "$URL3"
check_eq "overload: exit 0" 0 "$RC"
check_match "overload: says the rate was not kept" "did not keep up with the requested rate" "$(cat "$OUT")"
nl --dir a -c 1 -q 1 --rw randread --size 16m --nrfiles 2 --runtime 2s --rate 1000000 --keep --output-format json "$URL3"
check_eq "overload: kept_up false" false "$(jqv .open_loop.kept_up)"
check_ge "overload: a backlog at the end" 1 "$(jqv .open_loop.backlog_ops)"
check_eq "overload: corrected p99 far above the uncorrected one" true \
	"$(jqv '.ops.read | .lat_ns.p99 > 10 * .lat_ns_uncorrected.p99')"
nl --arrival poisson "$URL3"
check_eq "--arrival without --rate: exit 2" 2 "$RC"
nl --interval 10ms "$URL3"
check_eq "--interval too short: exit 2" 2 "$RC"

# Errors by kind: reads past the end of never laid out files.
nl --dir eof -c 2 -q 2 --rw randread --size 1m --runtime 1s --skip-layout --output-format json "$URL3"
check_ge "errors by kind: short transfers named" 1 \
	"$(jqv '[.connections[].errors_by_kind["short transfer"] // 0] | add')"

# The HTML report renders in headless Chromium.
nl --dir a -t 2 -c 8 -q 4 --rw randrw --size 16m --nrfiles 2 --runtime 3s --interval 500ms --keep \
	--report "$TMP/r.html" "$URL3"
check_eq "html: exit 0" 0 "$RC"
check "html: no script, no external reference" bash -c "! grep -qiE '<script|src=\"http|href=\"http' '$TMP/r.html'"
check_ge "html: at least 4 charts" 4 "$(grep -o '<svg' "$TMP/r.html" | wc -l)"
check "html: renders in Chromium, not blank" "$HERE/check_html.sh" "$TMP/r.html" "$TMP/r.png"

t_summary
