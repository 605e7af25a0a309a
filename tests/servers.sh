#!/usr/bin/env bash
# Several server addresses in one run: two private nfs-ganesha servers on loopback
# exporting one directory (one namespace through two nodes, --shared-namespace), and a
# third with its own (a namespace each: files laid out and removed on each).
#   - 8 connections, 4 each, both carry I/O; per-server counts add up to the totals and
#     per-server histograms (JSON buckets) add up to the run's exactly; both engines;
#   - weights (#weight=3: 6 + 2) and --servers FILE;
#   - --merge of two such runs: per-server entries added by URL, histograms exactly;
#   - one server behind a proxy holding replies 5 ms: it, and only it, is the outlier;
#   - one server killed and restarted mid-run: its connections have outages, the other
#     server's none, the run ends on its own with exit 0;
#   - NFSv4.1 sessions of 2 connections stay on one server;
#   - a namespace each: the work directory made, laid out and removed on each server
#     (also by a job, --sweep, after its last run),
#     each server's connections covering every file; --mix trees on each; both engines;
#   - bad input: exit 2 and one line naming the URL or option, nothing written.
# Needs NFSLOAD, HELPERS, jq, python3.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

t_start_server a || exit 1
A3=$URL3 A4=$URL4 A_EXPORT=$EXPORT_DIR
GANESHA_EXPORT=$A_EXPORT t_start_server b || exit 1
B3=$URL3 B4=$URL4
check_eq "server b exports server a's directory" "$A_EXPORT" "$EXPORT_DIR"

# buckets_equal FILE: the servers' buckets added up == the read buckets of the run.
buckets_equal() {
	python3 - "$1" <<'EOF'
import json, sys
from collections import Counter
r = json.load(open(sys.argv[1]))
tot = Counter({(b[0], b[1]): b[2] for b in r["ops"]["read"]["buckets"]})
srv = Counter()
for s in r["servers"]:
    for b in s["stats"]["buckets"]:
        srv[(b[0], b[1])] += b[2]
print("equal" if tot == srv and sum(tot.values()) > 0 else "differ %d vs %d" % (sum(tot.values()), sum(srv.values())))
EOF
}

# --- two servers, 8 connections --------------------------------------------------------
for engine in native libnfs; do
	name="2 servers $engine"
	# Ends by amount (2,048 reads, 256 a connection): the checks judge counts and sums.
	nl --engine "$engine" -c 8 -q 4 --rw randread --bs 4k --size 4m --dir srv \
		--io-size 8m --keep --shared-namespace --output-format json "$A3" "$B3"
	check_eq "$name: exit 0" 0 "$RC"
	check_eq "$name: 2 servers, 4 connections each" "2 4 4" \
		"$(jq -r '[(.servers | length), .servers[0].connections, .servers[1].connections] | join(" ")' "$OUT")"
	check_eq "$name: the servers' URLs as given" "$A3 $B3" \
		"$(jq -r '[.servers[].url] | join(" ")' "$OUT")"
	check_ge "$name: server 0 did I/O" 1 "$(jqv '.servers[0].stats.ops')"
	check_ge "$name: server 1 did I/O" 1 "$(jqv '.servers[1].stats.ops')"
	for f in ops bytes errors; do
		check_eq "$name: servers' $f add up to the total's" "$(jqv ".total.$f")" \
			"$(jq "[.servers[].stats.$f] | add" "$OUT")"
	done
	check_eq "$name: servers' histograms add up to the run's exactly" equal "$(buckets_equal "$OUT")"
	# Two like servers on a shared two-core host can still differ 3x at p99 (one ganesha
	# descheduled), so the flags are checked against the rule applied to the p99s reported:
	# a server is an outlier when its p99 is over 3x the other's.
	check_eq "$name: outliers as the rule says from the p99s reported" \
		"$(jq -r '[.servers[].stats.lat_ns.p99] as $p | [range(2) | $p[.] > 3 * $p[1 - .]] | join(" ")' "$OUT")" \
		"$(jq -r '[.servers[].outlier] | join(" ")' "$OUT")"
	check_eq "$name: one namespace, one set of files (laid out once)" "file.000000" \
		"$(ls "$A_EXPORT/srv" | grep -v '^\.' | tr '\n' ' ' | sed 's/ $//')"
	# Every connection did I/O, so both servers were really reached.
	check_eq "$name: every connection did I/O" 0 "$(jq '[.connections[] | select(.ops == 0)] | length' "$OUT")"
	cp "$OUT" "$TMP/two-$engine.json"
done

# --merge of the two runs: a server's entries add up by URL, its histogram exactly.
"$NFSLOAD" --merge --output-format json "$TMP/two-native.json" "$TMP/two-libnfs.json" \
	>"$TMP/merged.json" 2>"$TMP/merged.err"
check_eq "--merge: exit 0" 0 "$?"
check_eq "--merge: each server's connections and ops added by URL" \
	"$(jq -s -r '[.[0].servers, .[1].servers] | transpose | map([.[0].url, (.[0].connections + .[1].connections), (.[0].stats.ops + .[1].stats.ops)] | join(" ")) | join(" ")' \
		"$TMP/two-native.json" "$TMP/two-libnfs.json")" \
	"$(jq -r '.servers | map([.url, .connections, .stats.ops] | join(" ")) | join(" ")' "$TMP/merged.json")"
check_eq "--merge: the servers' histograms add up to the merged run's exactly" equal \
	"$(buckets_equal "$TMP/merged.json")"
check_eq "--merge: one namespace, as the runs said" true "$(jq '.settings.shared_namespace' "$TMP/merged.json")"
"$NFSLOAD" --merge "$TMP/two-native.json" "$TMP/two-libnfs.json" >"$TMP/merged.txt" 2>&1
check_eq "--merge text: a row per server" 2 "$(grep -c '^  [01] .*nfs://127.0.0.1' "$TMP/merged.txt")"

nl --engine native -c 8 -q 1 --rw randread --bs 4k --size 4m --dir srv --runtime 1s --keep \
	--shared-namespace "$A3" "$B3"
check_eq "text: exit 0" 0 "$RC"
check_match "text: the header's share line" "servers: 2, one namespace; connections 4\+4 \(weights 1:1\)" \
	"$(cat "$OUT")"
check_match "text: the per-server table" $'\n  1 +4 +[0-9]+ ' "$(cat "$OUT")"
nl --engine native -c 4 -q 1 --rw randread --bs 4k --size 4m --dir srv --runtime 1s --keep \
	--shared-namespace --report "$TMP/servers.html" "$A3" "$B3"
check_eq "html: exit 0" 0 "$RC"
check_eq "html: a per-server section with a bar and a row per server" "1 2" \
	"$(grep -c '<h2>Per-server latency</h2>' "$TMP/servers.html") $(grep -o '<tr><td>[01]</td><td>2</td>' "$TMP/servers.html" | wc -l)"
check_eq "html: both URLs, escaped" 2 "$(grep -o "nfsport=[0-9]*&amp;mountport" "$TMP/servers.html" | sort -u | wc -l)"

# --- --series-by server: interval rows per server that add up to the op rows ---------------
nl --engine native -c 4 -q 2 --rw randread --bs 4k --size 4m --dir srv --runtime 2s --keep \
	--interval 500ms --series-by server --hdr-log "$TMP/srv.hlog" --shared-namespace \
	--output-format json "$A3" "$B3"
check_eq "--series-by server: exit 0" 0 "$RC"
check_eq "--series-by server: two rows per interval, their ops add up to the op rows'" "yes" \
	"$(jq -r '(.series | group_by(.start_ns) | map([.[].ops] | add)) as $ops |
		(.series_by_server | group_by(.start_ns) | map({n: length, ops: ([.[].ops] | add)})) as $s |
		if ($ops | length) >= 3 and ($s | map(.n == 2) | all) and ($s | map(.ops)) == $ops
		then "yes" else "no: \($ops) \($s)" end' "$OUT")"
check_eq "--series-by server: HdrHistogram tags server0 and server1" "read server0 server1" \
	"$(sed -n 's/^Tag=\([^,]*\),.*/\1/p' "$TMP/srv.hlog" | sort -u | tr '\n' ' ' | sed 's/ $//')"
nl --engine native -c 4 -q 2 --rw randread --bs 4k --size 4m --dir srv --runtime 1s --keep \
	--interval 500ms --series-by server --shared-namespace --output-format csv "$A3" "$B3"
check_eq "--series-by server: CSV rows read, server0, server1" "read server0 server1" \
	"$(awk -F, 'NR > 1 { print $3 }' "$OUT" | sort -u | tr '\n' ' ' | sed 's/ $//')"

# --- weights and --servers FILE --------------------------------------------------------
nl --engine native -c 8 -q 1 --rw randread --bs 4k --size 4m --dir srv --runtime 1s --keep \
	--shared-namespace --output-format json "$A3#weight=3" "$B3"
check_eq "#weight=3: 6 + 2 connections" "6 2 3 1" \
	"$(jq -r '[.servers[0].connections, .servers[1].connections, .servers[0].weight, .servers[1].weight] | join(" ")' "$OUT")"
printf '# two nodes\n%s\n\n  %s#weight=1  \n' "$A3" "$B3" >"$TMP/servers"
nl --engine native -c 4 -q 1 --rw randread --bs 4k --size 4m --dir srv --runtime 1s --keep \
	--shared-namespace --servers "$TMP/servers" --output-format json
check_eq "--servers FILE: exit 0" 0 "$RC"
check_eq "--servers FILE: both servers, 2 connections each" "$A3 $B3 2 2" \
	"$(jq -r '[.servers[].url, .servers[].connections] | join(" ")' "$OUT")"

# --- NFSv4.1: a session's connections on one server ------------------------------------
nl --engine native -c 8 --connections-per-session 2 -q 2 --rw randread --bs 4k --size 4m \
	--dir srv4 --runtime 1s --keep --shared-namespace --output-format json \
	"${A4/version=4/version=4.1}" "${B4/version=4/version=4.1}"
check_eq "v4.1 sessions of 2: exit 0" 0 "$RC"
check_eq "v4.1 sessions of 2: 4 + 4 connections, no errors" "4 4 0" \
	"$(jq -r '[.servers[0].connections, .servers[1].connections, .total.errors] | join(" ")' "$OUT")"

# --- one server slow: it, and only it, is flagged -------------------------------------
if proxy_start 5; then
	nl --engine native -c 4 -q 1 --rw randread --bs 4k --size 4m --dir srv --runtime 2s --keep \
		--shared-namespace --output-format json "$A3" "$PROXY_URL"
	check_eq "slow server: exit 0" 0 "$RC"
	check_eq "slow server: only the one behind the proxy is an outlier" "false true" \
		"$(jq -r '[.servers[].outlier] | join(" ")' "$OUT")"
	check_ge "slow server: its p50 >= 5 ms" 5000000 "$(jqv '.servers[1].stats.lat_ns.p50')"
	check_eq "slow server: still the outlier in a --merge of the run with itself" "false true" \
		"$("$NFSLOAD" --merge --output-format json "$OUT" "$OUT" | jq -r '[.servers[].outlier] | join(" ")')"
	kill "$PROXY_PID" 2>/dev/null
	wait "$PROXY_PID" 2>/dev/null
fi

# --- one server killed and restarted mid-run -------------------------------------------
"$NFSLOAD" --quiet --engine native -c 4 -q 2 --rw randread --bs 4k --size 4m --dir srv \
	--runtime 8s --timeout 2 --keep --shared-namespace --output-format json "$A3" "$B3" \
	>"$TMP/kill.json" 2>"$TMP/kill.err" &
RUN_PID=$!
sleep 2
t_restart_server b >/dev/null
wait "$RUN_PID"
check_eq "server killed: the run ends on its own, exit 0" 0 "$?"
check_eq "server killed: outages on server 1's connections only" "0 yes" \
	"$(jq -r '[.servers[0].outages, (if .servers[1].outages > 0 then "yes" else "no" end)] | join(" ")' "$TMP/kill.json")"
check_ge "server killed: server 0 kept doing I/O" 1 "$(jq '.servers[0].stats.ops' "$TMP/kill.json")"

# --- servers with a namespace each ------------------------------------------------------
t_start_server c || exit 1
C3=$URL3 C_EXPORT=$EXPORT_DIR
# sizes DIR: the sizes of the files of DIR in both exports, "A: ... | C: ...".
sizes() {
	echo "A: $(stat -c %s "$A_EXPORT/$1"/file.* 2>/dev/null | tr '\n' ' ')| C: $(stat -c %s \
		"$C_EXPORT/$1"/file.* 2>/dev/null | tr '\n' ' ')"
}
for engine in native libnfs; do
	name="a namespace each, $engine"
	nl --engine "$engine" -c 4 -q 2 --rw randread --bs 4k --size 1m --nrfiles 2 --dir "own-$engine" \
		--runtime 1s --keep --output-format json "$A3" "$C3"
	check_eq "$name: exit 0" 0 "$RC"
	check_eq "$name: both servers laid out both files" \
		"A: 1048576 1048576 | C: 1048576 1048576 " "$(sizes "own-$engine")"
	check_eq "$name: layout wrote 2 files on each" 4194304 "$(jqv .layout.stats.bytes)"
	check_eq "$name: 2 + 2 connections, both did I/O, no errors" "2 2 yes yes 0" \
		"$(jq -r '[.servers[0].connections, .servers[1].connections,
			(if .servers[0].stats.ops > 0 then "yes" else "no" end),
			(if .servers[1].stats.ops > 0 then "yes" else "no" end), .total.errors] | join(" ")' "$OUT")"
done
nl --engine native -c 4 -q 2 --rw randrw --bs 4k --size 1m --nrfiles 2 --dir own-gone \
	--runtime 1s "$A3" "$C3"
check_eq "a namespace each, no --keep: exit 0" 0 "$RC"
check_eq "a namespace each, no --keep: removed from both" "no no" \
	"$([[ -e $A_EXPORT/own-gone ]] && echo yes || echo no) $([[ -e $C_EXPORT/own-gone ]] && echo yes || echo no)"
nl --engine native -c 4 -q 2 --rw randrw --bs 4k --size 1m --nrfiles 2 --dir own-verify --verify \
	--runtime 2s --keep --output-format json "$A3" "$C3"
check_eq "a namespace each, --verify: exit 0, every block checked good" "0 0 yes" \
	"$RC $(jqv .verify.mismatches) $(jq -r 'if .verify.blocks_checked > 0 then "yes" else "no" end' "$OUT")"
nl --engine native -c 2 -q 2 --dir own-verify --verify-only --bs 4k --size 1m --nrfiles 2 \
	--output-format json "$A3" "$C3"
check_eq "a namespace each, --verify-only afterwards: both servers' files clean" "0 0 yes" \
	"$RC $(jqv .verify.mismatches) $(jq -r 'if .verify.blocks_checked == 1024 then "yes" else "no: \(.verify.blocks_checked)" end' "$OUT")"
nl --engine native -c 4 --mix getattr=2,create=1,remove=1 --dirs 2 --files-per-dir 4 --dir own-mix \
	--runtime 1s --output-format json "$A3" "$C3"
check_eq "a namespace each, --mix: exit 0, no errors" "0 0" "$RC $(jqv .total.errors)"
check_eq "a namespace each, --mix: trees removed from both" "no no" \
	"$([[ -e $A_EXPORT/own-mix ]] && echo yes || echo no) $([[ -e $C_EXPORT/own-mix ]] && echo yes || echo no)"

# --- bad input --------------------------------------------------------------------------
bad() {
	local name=$1 want=$2
	shift 2
	nl --engine native -c 4 --runtime 1s --dir srv-bad "$@"
	check_eq "$name: exit 2" 2 "$RC"
	check_match "$name: one line naming it" "$want" "$(cat "$ERR")"
	check_eq "$name: one line" 1 "$(wc -l <"$ERR")"
}
bad "another export path" "^nfsload: URL: 'nfs://127.0.0.1/other.*same export path" \
	--shared-namespace "$A3" "${B3/export/other}"
bad "another version" "^nfsload: URL: .*same export path and version" --shared-namespace "$A3" "$B4"
bad "a bad weight" "^nfsload: URL: .*weight=N \(1 to 100\)" --shared-namespace "$A3" "$B3#weight=0"
bad "something else after #" "^nfsload: URL: .*#weight=N" --shared-namespace "$A3" "$B3#w=2"
bad "--servers: no such file" "^nfsload: --servers: cannot open" --shared-namespace \
	--servers "$TMP/none"
bad "fewer connections than servers" "^nfsload: --connections: 1 for 2 servers" -c 1 \
	--shared-namespace "$A3" "$B3"
bad "--shared-namespace with one URL" "^nfsload: --shared-namespace: for several servers" \
	--shared-namespace "$A3"
bad "--series-by server with one URL" "^nfsload: --series-by server: for several servers" \
	--series-by server "$A3"
bad "--series-by something else" "^nfsload: --series-by: 'server' is what it takes" \
	--series-by op "$A3" "$B3"
check_eq "bad input: nothing written" "" "$(ls "$A_EXPORT" "$C_EXPORT" | grep srv-bad)"

# --- a job (--sweep) over servers of a namespace each: every run laid out and read on
# both, and what the runs made removed from both after the last one (or kept).
for keep in no yes; do
	name="--sweep, a namespace each, keep $keep"
	nl --engine native -c 4 --rw randrw --size 1m --nrfiles 2 --runtime 1s \
		--dir own-sweep --sweep iodepth=1,2 --output-format json \
		$([[ $keep == yes ]] && echo --keep) "$A3" "$C3"
	check_eq "$name: exit 0" 0 "$RC"
	check_eq "$name: two runs, both did I/O on both servers" "1 2 true" \
		"$(jqv '[.summary[].sweep_value] + [([.summary[] | .read_iops > 0 and .write_iops > 0] | all)] | join(" ")')"
	if [[ $keep == no ]]; then
		check_eq "$name: removed from both" "no no" \
			"$([[ -e $A_EXPORT/own-sweep ]] && echo yes || echo no) $([[ -e $C_EXPORT/own-sweep ]] && echo yes || echo no)"
	else
		check_eq "$name: both files kept on both" "file.000000 file.000001 file.000000 file.000001" \
			"$(ls "$A_EXPORT/own-sweep" "$C_EXPORT/own-sweep" | grep '^file' | tr '\n' ' ' | sed 's/ $//')"
	fi
done

t_summary
