#!/usr/bin/env bash
# --op-log and --analyze against the private nfs-ganesha: the log holds a row for every
# operation the report counts (a ramp's left out), --analyze rebuilds the run's figures
# from it (counts exact, p50/p99 within 1% of the run's and to the ns as awk makes them
# from the rows: nearest rank, then the histogram bucket's midpoint), .zst logs read with zstd -dc and by
# --analyze, --from/--to/--conn/--op cut as awk does over the rows, two logs add up,
# and bad values are one line and exit 2 with nothing written to the server.
# Needs NFSLOAD, jq, zstd, awk.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

t_start_server || exit 1

# analyze OUT ARGS...: nfsload --analyze ARGS as JSON into $TMP/OUT.
analyze() {
	local out=$1
	shift
	RC=0
	t_run_bounded 60 "$NFSLOAD" --analyze "$@" --output-format json --output "$TMP/$out" \
		>"$OUT" 2>"$ERR" || RC=$?
}
# within1pct A B: A and B differ by at most 1% of B.
within1pct() { awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(b > 0 && d <= b / 100) }'; }
# csv_pct FILE OP P: the P-th percentile of the latencies of OP's rows that succeeded in
# a plain log as a histogram of the run would report it, computed from the rows by awk:
# the nearest rank (the ceil(P% of n)-th smallest) V, then V's bucket (include/hist.h,
# sub_bits HIST_PRECISE_BITS = 8: values below 256 ns each their own; above, each power
# of two [2^m, 2^(m+1)) split into 128 equal buckets 2^(m-7) wide), reported as its
# midpoint lo + (hi - lo) / 2 kept within the rows' min and max. Prints "REPORTED V".
csv_pct() {
	awk -F, -v op="$2" 'NR > 1 && $5 == op && $10 == "ok" { print $8 }' "$1" | sort -n |
		awk -v p="$3" '{ v[NR] = $1 } END {
			r = p * NR / 100; k = int(r); if (k < r) k++; if (k < 1) k = 1
			x = v[k]; w = 1
			while (x >= 256) { x = int(x / 2); w *= 2 }
			lo = x * w; hi = lo + w - 1; mid = lo + int((hi - lo) / 2)
			if (mid < v[1]) mid = v[1]
			if (mid > v[NR]) mid = v[NR]
			printf "%d %d\n", mid, v[k]
		}'
}
# rows FILE AWK-CONDITION: rows of a plain log (header left out) that match.
rows() { awk -F, -v OFS=, "NR > 1 && ($2)" "$1" | wc -l; }

# A: the native engine, a ramp (its operations are not counted, nor logged), reads and
# writes on two threads, wire time where the kernel gives it.
A=$TMP/a.csv
nl --engine native -t 2 -c 4 -q 16 --rw randrw --bs 4k --size 4m --nrfiles 2 \
	--ramp-time 1s --runtime 3s --wire-time --op-log "$A" --output-format json \
	--output "$TMP/a.json" "$URL3"
check_eq "A: exit 0" 0 "$RC"
J=$TMP/a.json
check_eq "A: the header line" "start_ns,thread,conn,file,op,offset,len,lat_ns,wire_ns,status" \
	"$(head -1 "$A")"
check_eq "A: rows = the report's operations and errors" \
	"$(jq '.total.ops + .total.errors' "$J")" "$(rows "$A" 1)"
check_eq "A: rows that succeeded = the report's operations" "$(jq .total.ops "$J")" \
	"$(rows "$A" '$10 == "ok"')"
for op in read write; do
	check_eq "A: $op rows = the report's $op operations" "$(jq ".ops.$op.ops" "$J")" \
		"$(rows "$A" "\$5 == \"$op\" && \$10 == \"ok\"")"
done
# start_ns counts from the window's start, unsigned and not clamped: a row from the ramp
# would wrap to 2^64 less its distance, beyond the window's end.
check_eq "A: every row started inside the measured window (the ramp is not logged)" 0 \
	"$(awk -F, -v d="$(jq .duration_ns "$J")" 'NR > 1 && !($1 ~ /^[0-9]+$/ && $1 + 0 < d + 0)' "$A" | wc -l)"
check_eq "A: both threads and all 4 connections wrote rows" "2 4" \
	"$(awk -F, 'NR > 1 { t[$2]; c[$3] } END { print length(t), length(c) }' "$A")"

analyze an-a.json "$A"
check_eq "analyze A: exit 0" 0 "$RC"
for op in read write; do
	check_eq "analyze A: $op operations as the run's" "$(jq ".ops.$op.ops" "$J")" \
		"$(jq ".ops.$op.ops" "$TMP/an-a.json")"
	check_eq "analyze A: $op bytes as the run's" "$(jq ".ops.$op.bytes" "$J")" \
		"$(jq ".ops.$op.bytes" "$TMP/an-a.json")"
	for p in p50 p99; do
		run=$(jq ".ops.$op.lat_ns.$p" "$J")
		got=$(jq ".ops.$op.lat_ns.$p" "$TMP/an-a.json")
		if within1pct "$got" "$run"; then
			t_pass "analyze A: $op $p within 1% of the run's ($got vs $run)"
		else
			t_fail "analyze A: $op $p within 1% of the run's" "analyze $got, run $run"
		fi
		# Judged outside nfsload's histogram code too: from the log's own rows by awk,
		# to the nanosecond (one bucket off is a bucket's width away).
		csv=$(csv_pct "$A" "$op" "${p#p}")
		check_eq "analyze A: $op $p as awk makes it from the CSV rows (nearest rank ${csv#* } ns, its bucket's midpoint)" \
			"${csv% *}" "$got"
	done
	check_eq "analyze A: $op wire time counted as the run's" "$(jq ".ops.$op.wire_count // 0" "$J")" \
		"$(jq ".ops.$op.wire_count // 0" "$TMP/an-a.json")"
done
check_eq "analyze A: a row per connection, with the run's counts" \
	"$(jq -c '[.connections[] | [.id, .ops]]' "$J")" \
	"$(jq -c '[.connections[] | [.id, .ops]]' "$TMP/an-a.json")"
check_eq "analyze A: its measured time is the run's (to 2%)" 1 \
	"$(jq -n --slurpfile a "$J" --slurpfile b "$TMP/an-a.json" \
		'(($a[0].duration_ns - $b[0].duration_ns) | fabs) / $a[0].duration_ns < 0.02 | if . then 1 else 0 end')"
check_eq "analyze A: series ops add up to the total" "$(jq .total.ops "$J")" \
	"$(jq '[.series[].ops] | add' "$TMP/an-a.json")"
t_run_bounded 60 "$NFSLOAD" --analyze "$A" >"$OUT" 2>"$ERR"
check_match "analyze A as text: the report's operation table" \
	"rebuilt from op log .*a\.csv.*read +$(jq .ops.read.ops "$J") " "$(cat "$OUT")"
t_run_bounded 60 "$NFSLOAD" --analyze "$A" --output-format html --output "$TMP/a.html" >"$OUT" 2>"$ERR"
check_match "analyze A as HTML: the report's page" "<h1>nfsload report</h1>" "$(cat "$TMP/a.html")"

# The cuts, against awk over the same rows.
analyze cut.json "$A" --from 1 --to 2
check_eq "--from 1 --to 2: the rows started in [1 s, 2 s)" \
	"$(rows "$A" '$1 >= 1000000000 && $1 < 2000000000 && $10 == "ok"')" "$(jq .total.ops "$TMP/cut.json")"
check_eq "--from 1 --to 2: measured 1 s" 1000000000 "$(jq .duration_ns "$TMP/cut.json")"
analyze cut.json "$A" --conn 1
check_eq "--conn 1: the run's connection 1" "$(jq '.connections[] | select(.id == 1) | .ops' "$J")" \
	"$(jq .total.ops "$TMP/cut.json")"
check_eq "--conn 1: one connection" "1" "$(jq '.connections | length' "$TMP/cut.json")"
analyze cut.json "$A" --op write --from 500ms
check_eq "--op write --from 500ms: writes started from 0.5 s" \
	"$(rows "$A" '$5 == "write" && $1 >= 500000000 && $10 == "ok"')" "$(jq .total.ops "$TMP/cut.json")"
check_eq "--op write: no reads" 0 "$(jq '.ops.read.ops' "$TMP/cut.json")"

# B: libnfs, a .zst log.
B=$TMP/b.csv.zst
nl --engine libnfs -t 1 -c 2 -q 8 --rw randread --bs 4k --size 4m --nrfiles 2 --runtime 2s \
	--op-log "$B" --output-format json --output "$TMP/b.json" "$URL3"
check_eq "B: exit 0" 0 "$RC"
check_eq "B: zstd -dc reads it: rows = the report's operations" "$(jq '.total.ops + .total.errors' "$TMP/b.json")" \
	"$(zstd -dc "$B" | awk 'NR > 1' | wc -l)"
analyze an-b.json "$B"
check_eq "analyze B (.zst): exit 0" 0 "$RC"
check_eq "analyze B: reads as the run's" "$(jq .ops.read.ops "$TMP/b.json")" "$(jq .ops.read.ops "$TMP/an-b.json")"

# Two logs (two hosts, ranks) add up.
analyze an-ab.json "$A" "$B"
check_eq "A and B: exit 0" 0 "$RC"
check_eq "A and B: operations add" "$(jq -s '[.[].total.ops] | add' "$J" "$TMP/b.json")" \
	"$(jq .total.ops "$TMP/an-ab.json")"
check_eq "A and B: a row per connection of each" 6 "$(jq '.connections | length' "$TMP/an-ab.json")"
check_eq "A and B: threads of both" 3 "$(jq '.threads | length' "$TMP/an-ab.json")"

# A job's runs each write their own log, numbered as --report's are.
nl --engine null -t 1 --sweep iodepth=1,2 --runtime 1s --op-log "$TMP/j.csv.zst"
check_eq "a sweep with --op-log: exit 0" 0 "$RC"
for k in 1 2; do
	check_ge "a sweep: run $k's log, j-$k.csv.zst, holds rows" 1000 \
		"$(zstd -dc "$TMP/j-$k.csv.zst" 2>/dev/null | awk 'NR > 1' | wc -l)"
done

# Bad values: one line naming the option, exit 2, nothing on the server or in --output.
nl --dir oplog.bad --runtime 1s --op-log "$TMP/no/such/dir/x.csv" "$URL3"
check_eq "--op-log in a missing directory: exit 2" 2 "$RC"
check_match "--op-log in a missing directory: one line naming it" \
	"^nfsload: --op-log: cannot write '.*x\.csv': No such file or directory$" "$(cat "$ERR")"
check "--op-log in a missing directory: nothing written to the server" test ! -e "$EXPORT_DIR/oplog.bad"
nl --dir oplog.bad --runtime 1s --op-log "" "$URL3"
check_eq "--op-log '': exit 2" 2 "$RC"
check_match "--op-log '': names it" "^nfsload: --op-log: needs a file name" "$(cat "$ERR")"
check "--op-log '': nothing written to the server" test ! -e "$EXPORT_DIR/oplog.bad"
nl --dir oplog.bad --load-curve 1000:1000 --runtime 1s --op-log "$TMP/c.csv" "$URL3"
check_eq "--op-log with --load-curve: exit 2" 2 "$RC"
check_match "--op-log with --load-curve: names both" "^nfsload: --op-log: not with --load-curve" "$(cat "$ERR")"
check "--op-log with --load-curve: nothing written to the server" test ! -e "$EXPORT_DIR/oplog.bad"
printf 'start_ns,thread,conn,file,op,offset,len,lat_ns,wire_ns,status\n1,0,0,0,read,0,4096,zz,,ok\n' >"$TMP/bad.csv"
echo "not zstd" >"$TMP/bad.csv.zst"
for args in "--from x:--from" "--to 1 --from 2:--to" "--conn -1:--conn" "--op frob:--op" \
	"--output-format csv:--output-format" "--bogus:--bogus" "$TMP/none.csv:none.csv" \
	"$TMP/bad.csv:line 2" "$TMP/bad.csv.zst:bad.csv.zst" ":no op log"; do
	rm -f "$TMP/bad.json"
	# shellcheck disable=SC2086
	analyze bad.json ${args%%:*} $([[ ${args%%:*} == -* ]] && echo "$A")
	check_eq "--analyze ${args%%:*}: exit 2" 2 "$RC"
	check_match "--analyze ${args%%:*}: one line naming it" "^nfsload: [^
]*${args#*:}[^
]*$" "$(cat "$ERR")"
	check "--analyze ${args%%:*}: no --output written" test ! -e "$TMP/bad.json"
done

t_summary
