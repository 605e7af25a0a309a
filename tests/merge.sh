#!/usr/bin/env bash
# nfsload --merge: JSON reports of separate runs against the private nfs-ganesha merged
# into one result. Counts add; the percentiles are those of the buckets added by hand
# (jq, below, with hist.c's nearest-rank and midpoint rule); a merged report merges again
# to the same result as merging every run at once; a run through a 40 ms delay proxy is
# the one flagged slow; wire time (--wire-time) merges the same way, totals and series;
# bad input is one line and exit 2. Judged outside nfsload too: the merged operations
# and bytes against the READ and WRITE calls tshark sees in the runs' measured windows.
# Needs NFSLOAD, HELPERS (helper_proxy), jq, tshark.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

t_start_server || exit 1
. "$(dirname "$0")/capture.sh"
trap '[[ -n $PROXY_PID ]] && kill -TERM "$PROXY_PID" 2>/dev/null
      [[ -n $TSHARK_PID ]] && kill -INT "$TSHARK_PID" 2>/dev/null; t_cleanup' EXIT

# run N URL ARGS...: one run's JSON report into $TMP/rN.json.
run() {
	local n=$1 url=$2
	shift 2
	nl --dir "m$n" -c 2 -q 4 --rw randrw --bs 4k --size 2m --nrfiles 2 --runtime 2s \
		--series-buckets --output-format json --output "$TMP/r$n.json" "$@" "$url"
	check_eq "run $n: exit 0" 0 "$RC"
}
nl --dir m4 -c 1 -q 2 --rw randrw --bs 4k --size 1m --nrfiles 1 --runtime 1s \
	--output-format json --output "$TMP/r4.json" "$URL3"
check_eq "run 4 (no --series-buckets): exit 0" 0 "$RC"
# Runs 1 to 3 are captured (ganesha's port: run 3's calls as the proxy passes them on),
# for a judge of the merged totals outside nfsload (below).
capture_start "tcp port $NFS_PORT"
run 1 "$URL3" --engine libnfs
run 2 "$URL3" --engine native
proxy_start 40 || exit 1	# 40 ms: far past 3x any direct p99, even on a loaded host
run 3 "$PROXY_URL" --engine native
kill -TERM "$PROXY_PID" 2>/dev/null
wait "$PROXY_PID" 2>/dev/null
PROXY_PID=
capture_stop
# merge OUT FILES...: nfsload --merge into $TMP/OUT (JSON).
merge() {
	local out=$1
	shift
	RC=0
	"$NFSLOAD" --merge "$@" --output-format json --output "$TMP/$out" >"$OUT" 2>"$ERR" || RC=$?
}
sum() { jq -s "[.[] | $1] | add" "${@:2}"; }

R=("$TMP/r1.json" "$TMP/r2.json" "$TMP/r3.json")
merge all.json "${R[@]}"
check_eq "merge of 3: exit 0" 0 "$RC"
M=$TMP/all.json
for op in read write; do
	check_eq "$op: ops add" "$(sum ".ops.$op.ops" "${R[@]}")" "$(jq ".ops.$op.ops" "$M")"
	check_eq "$op: bytes add" "$(sum ".ops.$op.bytes" "${R[@]}")" "$(jq ".ops.$op.bytes" "$M")"
	check_eq "$op: errors add" "$(sum ".ops.$op.errors" "${R[@]}")" "$(jq ".ops.$op.errors" "$M")"
	for p in 50:p50 90:p90 99:p99 99.9:p99.9; do
		check_eq "$op: ${p#*:} from the buckets added by hand" "$(t_merged_pct "$op" "${p%%:*}" "${R[@]}")" \
			"$(jq ".ops.$op.lat_ns[\"${p#*:}\"]" "$M")"
	done
	check_eq "$op: min of the mins" "$(jq -s "[.[].ops.$op.lat_ns.min] | min" "${R[@]}")" \
		"$(jq ".ops.$op.lat_ns.min" "$M")"
	check_eq "$op: max of the maxes" "$(jq -s "[.[].ops.$op.lat_ns.max] | max" "${R[@]}")" \
		"$(jq ".ops.$op.lat_ns.max" "$M")"
	check_eq "$op: the mean pooled from each run's (to 1 ns)" 1 \
		"$(jq -s --arg op "$op" '([.[:3][] | .ops[$op] | .lat_ns.mean * .ops] | add) /
			([.[:3][] | .ops[$op].ops] | add) - .[3].ops[$op].lat_ns.mean |
			if fabs < 1 then 1 else . end' "${R[@]}" "$M")"
done
check_eq "total: ops add" "$(sum .total.ops "${R[@]}")" "$(jq .total.ops "$M")"
# The merged totals against the wire: every operation a run counted was sent inside its
# measured window; besides those, only the requests still in flight when a run stopped
# (not counted: at most connections x iodepth = 8 a run, 24 in all, of 4 KiB each).
read -r _ wr_n wr_b _ ww_n ww_b <<<"$(capture_wire_io "$TMP/r1.json" "$TMP/r2.json" "$TMP/r3.json")"
echo "# merged vs the wire: read $(jq .ops.read.ops "$M") of $wr_n, write $(jq .ops.write.ops "$M") of $ww_n," \
	"bytes $(jq '.ops.read.bytes + .ops.write.bytes' "$M") of $((wr_b + ww_b))"
for op in read:$wr_n:$wr_b write:$ww_n:$ww_b; do
	IFS=: read -r o wn wb <<<"$op"
	check_ge "the wire: $o calls in the windows ($wn) >= the merged $o operations" "$(jq ".ops.$o.ops + .ops.$o.errors" "$M")" "$wn"
	check_ge "the wire: $o bytes asked in the windows ($wb) >= the merged $o bytes" "$(jq ".ops.$o.bytes" "$M")" "$wb"
done
check_le "the wire: calls in the windows beyond the merged operations, at most the 24 in flight at the stops" 24 \
	"$((wr_n + ww_n - $(jq '[.ops.read, .ops.write | .ops + .errors] | add' "$M")))"
check_le "the wire: bytes in the windows beyond the merged bytes, at most 24 x 4 KiB" $((24 * 4096)) \
	"$((wr_b + ww_b - $(jq '.ops.read.bytes + .ops.write.bytes' "$M")))"
check_eq "one row per input, in order" "r1.json r2.json r3.json" \
	"$(jq -r '[.inputs[].file | split("/") | last] | join(" ")' "$M")"
check_eq "each row names the host" "$(hostname) $(hostname) $(hostname)" \
	"$(jq -r '[.inputs[].host] | join(" ")' "$M")"
check_eq "the run through the 40 ms proxy, and it alone, is slow" "false false true" \
	"$(jq -r '[.inputs[].slow] | join(" ")' "$M")"
check_eq "the rows' ops are the runs' totals" "$(jq -s -c '[.[].total.ops]' "${R[@]}")" \
	"$(jq -c '[.inputs[].ops]' "$M")"

# The interval series (--series-buckets): rows of the same interval and op add; the
# merged p99 of an interval is that of its rows' buckets added by hand.
check_eq "series: merged" true "$(jq .series_merged "$M")"
check_eq "series: ops per interval and op are the inputs' sums" \
	"$(jq -s -c '[.[].series[] | {i: ((.start_ns / 1000000000) | round), op, ops}] |
		group_by([.i, .op]) | map([.[0].i, .[0].op, (map(.ops) | add)])' "${R[@]}")" \
	"$(jq -c '[.series[] | [(.start_ns / 1000000000 | round), .op, .ops]]' "$M")"
for i in 0 1; do
	for r in "${R[@]}"; do
		jq "{ops: {read: (.series | map(select(.op == \"read\" and
			((.start_ns / 1000000000) | round) == $i)) | .[0] | {buckets, lat_ns})}}" \
			"$r" >"$r.i$i"
	done
	check_eq "series: interval $i read p99 from the rows' buckets added by hand" \
		"$(t_merged_pct read 99 "${R[0]}.i$i" "${R[1]}.i$i" "${R[2]}.i$i")" \
		"$(jq "[.series[] | select(.op == \"read\" and ((.start_ns / 1000000000) | round) == $i)][0].lat_ns.p99" "$M")"
done
check_match "series: the text says what the intervals did" \
	"^intervals: [0-9]+ of 1.00 s, every input's added" "$("$NFSLOAD" --merge "${R[@]}" | grep '^intervals')"

# The merged series as CSV and as an HdrHistogram log (read back by tests/hdrlog_decode.py,
# a decoder written from the format): the same rows, the same operations per interval.
RC=0
"$NFSLOAD" --merge "${R[@]}" --output-format csv --hdr-log "$TMP/merged.hlog" >"$TMP/merged.csv" \
	2>"$ERR" || RC=$?
check_eq "csv and hdr-log: exit 0" 0 "$RC"
check_eq "csv: a row per merged series row, the same ops" \
	"$(jq -r '.series[] | "\(.op) \(.ops)"' "$M")" \
	"$(tail -n +2 "$TMP/merged.csv" | awk -F, '{ print $3, $4 }')"
check_eq "hdr-log: a line per merged series row, the same counts" \
	"$(jq -r '.series[] | "\(.op) \(.ops)"' "$M")" \
	"$(python3 "$(dirname "$0")/hdrlog_decode.py" "$TMP/merged.hlog" | jq -r '"\(.tag) \(.count)"')"
RC=0
"$NFSLOAD" --merge "$TMP/r1.json" "$TMP/r4.json" --output-format csv >"$OUT" 2>"$ERR" || RC=$?
check_eq "csv without every input's buckets: exit 2" 2 "$RC"
check_match "csv without every input's buckets: says why" "--series-buckets" "$(cat "$ERR")"

# Merging a merge: (r1 + r2) + r3 is r1 + r2 + r3, bucket for bucket.
merge two.json "$TMP/r1.json" "$TMP/r2.json"
check_eq "merge of 2: exit 0" 0 "$RC"
merge again.json "$TMP/two.json" "$TMP/r3.json"
check_eq "merge of a merge: exit 0" 0 "$RC"
check_eq "merge of a merge: the same buckets as all at once" \
	"$(jq -c '[.ops[] | .buckets]' "$M")" "$(jq -c '[.ops[] | .buckets]' "$TMP/again.json")"
# (The mean and stdev go through each report's 3 decimals: equal to 0.01 ns, not exactly.)
check_eq "merge of a merge: the same percentiles, min and max" \
	"$(jq -c '[.ops[] | .lat_ns | del(.mean, .stdev)]' "$M")" \
	"$(jq -c '[.ops[] | .lat_ns | del(.mean, .stdev)]' "$TMP/again.json")"
check_eq "merge of a merge: the same mean to 0.01 ns" true \
	"$(jq -s '[.[0].ops[].lat_ns.mean] as $a | [.[1].ops[].lat_ns.mean] as $b |
		[range($a | length) as $i | ($a[$i] - $b[$i]) | fabs < 0.01] | all' "$M" "$TMP/again.json")"
check_eq "merge of a merge: the same series" "$(jq -c '[.series[] | .ops, .lat_ns]' "$M")" \
	"$(jq -c '[.series[] | .ops, .lat_ns]' "$TMP/again.json")"

# A run without --series-buckets (made above): its totals merge, its series cannot.
merge mixed.json "$TMP/r1.json" "$TMP/r4.json"
check_eq "without --series-buckets: exit 0" 0 "$RC"
check_eq "without --series-buckets: no merged series" "false 0" \
	"$(jq -r '"\(.series_merged) \(.series | length)"' "$TMP/mixed.json")"
check_match "without --series-buckets: the text says so" "interval series: not merged" \
	"$("$NFSLOAD" --merge "$TMP/r1.json" "$TMP/r4.json")"

# Wire time (--wire-time, native engine): the wire and client histograms add like the
# latency's, totals and series; rows of runs without it carry no wire keys.
run 5 "$URL3" --engine native --wire-time
run 6 "$URL3" --engine native --wire-time
W=("$TMP/r5.json" "$TMP/r6.json")
merge wire.json "${W[@]}"
check_eq "wire: merge exit 0" 0 "$RC"
MW=$TMP/wire.json
check_eq "wire: both runs measured wire time" true \
	"$(jq -s '[.[].ops.read.wire_count > 0, .[].ops.write.wire_count > 0] | all' "${W[@]}")"
# wire_hist FILE KIND: FILE's ops with KIND's (wire, client) buckets and figures as theirs.
wire_hist() {
	jq "{ops: (.ops | map_values({buckets: .$2_buckets, lat_ns: .$2_lat_ns}))}" "$1" >"$1.$2"
}
for r in "${W[@]}"; do
	wire_hist "$r" wire
	wire_hist "$r" client
done
for op in read write; do
	check_eq "wire $op: wire_count adds" "$(sum ".ops.$op.wire_count" "${W[@]}")" \
		"$(jq ".ops.$op.wire_count" "$MW")"
	check_eq "wire $op: wire_missed adds" "$(sum ".ops.$op.wire_missed" "${W[@]}")" \
		"$(jq ".ops.$op.wire_missed" "$MW")"
	check_eq "wire $op: p50 between the inputs' p50s" true \
		"$(jq -s --arg op "$op" '[.[:2][].ops[$op].wire_lat_ns.p50] as $p |
			.[2].ops[$op].wire_lat_ns.p50 | . >= ($p | min) and . <= ($p | max)' "${W[@]}" "$MW")"
	for kind in wire client; do
		for p in 50:p50 99:p99 99.9:p99.9; do
			check_eq "wire $op: $kind ${p#*:} from the buckets added by hand" \
				"$(t_merged_pct "$op" "${p%%:*}" "${W[0]}.$kind" "${W[1]}.$kind")" \
				"$(jq ".ops.$op.${kind}_lat_ns[\"${p#*:}\"]" "$MW")"
		done
	done
done
check_eq "wire series: every row carries wire p50 and p99" true \
	"$(jq '[.series[] | has("wire_p50_ns") and has("wire_p99_ns")] | all' "$MW")"
for r in "${W[@]}"; do
	jq "{ops: {read: (.series | map(select(.op == \"read\" and
		((.start_ns / 1000000000) | round) == 0)) | .[0] |
		{buckets: .wire_buckets, lat_ns: {min: .wire_min_ns, max: .wire_max_ns}})}}" "$r" >"$r.w0"
done
check_eq "wire series: interval 0 read wire p99 from the rows' wire buckets added by hand" \
	"$(t_merged_pct read 99 "${W[0]}.w0" "${W[1]}.w0")" \
	"$(jq '[.series[] | select(.op == "read" and ((.start_ns / 1000000000) | round) == 0)][0].wire_p99_ns' "$MW")"
check_eq "without --wire-time: no wire keys in a run's or a merge's rows" false \
	"$(jq -s '[.[].series[] | has("wire_p50_ns")] | any' "$TMP/r1.json" "$M")"
RC=0
"$NFSLOAD" --merge "${W[@]}" --output-format csv --hdr-log "$TMP/wire.hlog" >"$TMP/wire.csv" \
	2>"$ERR" || RC=$?
check_eq "wire csv and hdr-log: exit 0" 0 "$RC"
check_eq "wire csv: the merged rows' wire p50 and p99 in the last two columns" \
	"$(jq -r '.series[] | "\(.op) \(.wire_p50_ns) \(.wire_p99_ns)"' "$MW")" \
	"$(tail -n +2 "$TMP/wire.csv" | awk -F, '{ print $3, $12, $13 }')"
check_eq "wire hdr-log: an <op>-wire line after each row with wire time, its count" \
	"$(jq -r '.series[] | "\(.op) \(.ops)", (select(.wire_buckets | length > 0) |
		"\(.op)-wire \([.wire_buckets[][2]] | add)")' "$MW")" \
	"$(python3 "$(dirname "$0")/hdrlog_decode.py" "$TMP/wire.hlog" | jq -r '"\(.tag) \(.count)"')"
merge wire5.json "${W[0]}"
merge wire56.json "$TMP/wire5.json" "${W[1]}"
check_eq "wire: a merge of a merge, the same wire and client buckets" \
	"$(jq -c '[.ops[] | .wire_buckets, .client_buckets]' "$MW")" \
	"$(jq -c '[.ops[] | .wire_buckets, .client_buckets]' "$TMP/wire56.json")"
check_eq "wire text: wire and client rows under the reads, their counts" \
	"wire $(jq .ops.read.wire_count "$MW") client $(jq .ops.read.wire_count "$MW")" \
	"$("$NFSLOAD" --merge "${W[@]}" | grep -A2 '^read ' | awk 'NR > 1 { printf "%s%s %s",
		(NR > 2 ? " " : ""), $1, $2 }')"

# The text report: the operations, then a row per input with the slow one said.
RC=0
"$NFSLOAD" --merge "${R[@]}" >"$OUT" 2>"$ERR" || RC=$?
check_eq "text: exit 0" 0 "$RC"
check_match "text: says what it merged" "3 result files merged" "$(head -1 "$OUT")"
check_match "text: the slow input flagged" "r3\.json .* slow: p99 over 3x" "$(cat "$OUT")"
check_match "text: a total row" "^total +$(jq .total.ops "$M") " "$(grep '^total' "$OUT")"

# Bad input: one line naming the file or the option, exit 2.
echo "not json" >"$TMP/bad.json"
echo '{"hello": 1}' >"$TMP/other.json"
for args in "$TMP/bad.json" "$TMP/other.json" "$TMP/missing.json" "" "--frobnicate $TMP/r1.json" \
	"--output-format html $TMP/r1.json"; do
	RC=0
	# shellcheck disable=SC2086
	"$NFSLOAD" --merge $args >"$OUT" 2>"$ERR" || RC=$?
	check_eq "bad input '${args##*/}': exit 2" 2 "$RC"
	check_eq "bad input '${args##*/}': one line on stderr" 1 "$(wc -l <"$ERR")"
	check_match "bad input '${args##*/}': says --merge or the option" "nfsload: (--merge|--output-format)" \
		"$(cat "$ERR")"
done

t_summary
