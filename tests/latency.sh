#!/usr/bin/env bash
# Latency tests: nfsload NFSv3 through tests/helper_proxy.c, a TCP proxy that holds
# the server's replies a known time. MOUNT goes to ganesha directly, NFS through the
# proxy. Needs NFSLOAD (the binary) and HELPERS (build/tests, with helper_proxy).
set -uo pipefail
. "$(dirname "$0")/lib.sh"
# On libnfs: the accept order at the proxy below is its own (the control connection
# first, every data connection mounting). The native engine's timing: tests/wiretime.sh.
NL_ENGINE=libnfs

ms() { awk -v ns="$1" 'BEGIN { printf "%.3f", ns / 1e6 }'; }

# proxy_stop NAME: SIGTERM; it must exit 0 having said nothing but its port.
proxy_stop() {
	local rc=0
	[[ -n $PROXY_PID ]] || return 0
	# The proxy itself, not the timeout around it: timeout's own signal
	# forwarding to its process group was seen to end in a KILL under load.
	pkill -TERM -P "$PROXY_PID" 2>/dev/null || kill -TERM "$PROXY_PID" 2>/dev/null
	wait "$PROXY_PID" || rc=$?
	PROXY_PID=
	check_eq "$1: proxy exits 0 on SIGTERM" 0 "$rc"
	check_eq "$1: proxy printed only its port" "port $PROXY_PORT" "$(cat "$TMP/proxy.out" "$TMP/proxy.err")"
}

trap '[[ -n $PROXY_PID ]] && kill -TERM "$PROXY_PID" 2>/dev/null; t_cleanup' EXIT

RUN=(--dir lat -c 4 -q 1 --rw randread --bs 4k --size 8m --runtime 2s --keep --output-format json)

t_start_server || exit 1
echo "# nfsload: $("$NFSLOAD" --version)"

# Lay out the file directly against ganesha, so the runs through the proxy only read.
nl --dir lat -c 4 --rw randread --size 8m --runtime 1s --keep --output-format json "$URL3"
check_eq "layout: exit 0" 0 "$RC"
check_eq "layout: ran" true "$(jqv .layout.ran)"

# proxied NAME DELAY_MS [STALL_CONN STALL_MS]: one run through a fresh proxy.
proxied() {
	local name=$1
	shift
	proxy_start "$@" || return 1
	nl "${RUN[@]}" "$PROXY_URL"
	proxy_stop "$name"
	check_eq "$name: exit 0" 0 "$RC"
	check_eq "$name: no errors" 0 "$(jqv .total.errors)"
	check_eq "$name: layout skipped" false "$(jqv .layout.ran)"
	check_ge "$name: reads completed" 100 "$(jqv .ops.read.count)"
}

# a) Replies held 20 ms: the median read latency grows by 20 ms, within 5 %, on both
# engines (the native engine's own timing under the same proxy is judged by the same
# bounds as libnfs's: the delay is a lower bound, and what it adds on top is the same).
# Each setting runs twice, alternating; the lower p50 of the two counts (load on the
# machine only ever adds latency). The tail is not compared: it is noisy here.
# proxied's accept-order note (b) is libnfs's; a delay on every connection needs none.
for engine in libnfs native; do
	p50_0=
	p50_20=
	for round in 1 2; do
		for delay in 0 20; do
			NL_ENGINE=$engine proxied "$engine: delay $delay ms (round $round)" "$delay" || continue
			p=$(jqv .ops.read.lat_ns.p50)
			[[ $p =~ ^[0-9]+$ ]] || continue
			echo "# $engine: delay $delay ms, round $round: p50 $(ms "$p") ms, p99 $(ms "$(jqv .ops.read.lat_ns.p99)") ms"
			if [[ $delay == 0 ]]; then
				[[ -z $p50_0 ]] || ((p < p50_0)) && p50_0=$p
			else
				[[ -z $p50_20 ]] || ((p < p50_20)) && p50_20=$p
			fi
		done
	done
	echo "# $engine: p50 without delay: $(ms "${p50_0:-0}") ms; with 20 ms: $(ms "${p50_20:-0}") ms;" \
		"increase $(ms $((${p50_20:-0} - ${p50_0:-0}))) ms"
	check_ge "$engine: delay 20 ms: p50 increase >= 19 ms" 19000000 $((${p50_20:-0} - ${p50_0:-0}))
	check_le "$engine: delay 20 ms: p50 increase <= 21 ms" 21000000 $((${p50_20:-0} - ${p50_0:-0}))
done

# b) One connection's replies held 50 ms: nfsload must show exactly that one.
# Accept order at the proxy: nfsload first mounts its control connection (a
# synchronous nfs_mount in ctl_open, kept open, idle during the run): accept 1.
# Then all data connections mount in parallel (MOUNT straight to ganesha, then a
# connection to the NFS port, through the proxy): accepts 2..5 with -c 4, in an
# order not tied to their ids (seen: 2nd accept -> id 3, 3rd -> id 2, 5th -> id 1).
# There is no 6th. So k=2 always stalls exactly one data connection, some id.
proxied "stall conn 2 by 50 ms" 0 2 50
check_eq "stall: exactly one connection with p99 >= 50 ms" 1 \
	"$(jqv '[.connections[] | select(.lat_ns.p99 >= 50000000)] | length')"
check_eq "stall: the others have p99 < 25 ms" 3 \
	"$(jqv '[.connections[] | select(.lat_ns.p99 < 25000000)] | length')"
echo "# stall: p99 per connection (ms): $(jqv '[.connections[] | "\(.id)=\(.lat_ns.p99 / 1e6)"] | join(" ")')"
check_eq "stall: every connection reports 'outlier'" true "$(jqv '[.connections[] | has("outlier")] | all')"
check_eq "stall: the stalled connection, and only it, is the outlier" \
	"$(jqv '[.connections[] | select(.lat_ns.p99 >= 50000000) | .id] | tostring')" \
	"$(jqv '[.connections[] | select(.outlier == true) | .id] | tostring')"

# c) One connection whose replies stop coming 1.5 s after it connected (set-up
# done, the run going): stuck, the others fine. Its requests would time out only
# after --timeout (5 s), past the run.
proxy_start 0 2 60000 1500 || true
nl --dir lat -c 4 -q 1 --rw randread --size 8m --runtime 4s --interval 500ms --skip-layout \
	--keep --output-format json "$PROXY_URL"
proxy_stop "stuck conn 2"
check_eq "stuck: exactly one connection flagged" 1 "$(jqv '.outliers.stuck | length')"
check_eq "stuck: it is the one whose completions stopped over a second before the end" \
	"$(jqv '.duration_ns as $d | [.connections[] | select(.last_done_ns < $d - 1000000000) | .id] | tostring')" \
	"$(jqv '.outliers.stuck | tostring')"
check_eq "stuck: the others completed operations to the end" 3 \
	"$(jqv '.duration_ns as $d | [.connections[] | select(.last_done_ns > $d - 500000000)] | length')"
# The text report of the same scene (a run of its own: a run writes one format): its
# connection table marks one row stuck, and the closing line names that connection.
proxy_start 0 2 60000 1500 || true
nl --dir lat -c 4 -q 1 --rw randread --size 8m --runtime 4s --interval 500ms --skip-layout \
	--keep "$PROXY_URL"
proxy_stop "stuck conn 2, text"
check_eq "stuck, text: exit 0" 0 "$RC"
stuck_row=$(awk '$1 ~ /^[0-9]+$/ && / stuck( |$)/ { print $1 }' "$OUT")
check_match "stuck, text: one row of the connection table marked stuck" '^[0-9]+$' "$stuck_row"
check_match "stuck, text: the stuck line names that connection alone" \
	"(^|"$'\n'")stuck connections \(nothing completed in the last 2 intervals\): ${stuck_row:-none}"'($|'$'\n'')' \
	"$(cat "$OUT")"

t_summary
