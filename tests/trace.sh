#!/usr/bin/env bash
# nfsload --trace-summary judged by an independent reader: runs against a private
# nfs-ganesha are captured on loopback with tshark (nfsload's native engine, NFSv3 and
# NFSv4.1, and libnfs's nfs-ls and nfs-cat), and the calls per procedure (NFSv3, MOUNT)
# and per COMPOUND operation (NFSv4) that --trace-summary counts must be exactly the
# ones tshark's dissectors count, record by record (a frame may hold several); NFSv4.2's
# operations in a capture made by hand, READ_PLUS's data and hole bytes as tshark reads
# them. The gzip'd capture gives the same; a file that is not a capture is exit 2 and one
# line.
# Needs NFSLOAD, jq, python3, tshark (capture needs root, as the server does).
set -uo pipefail
. "$(dirname "$0")/lib.sh"

t_start_server || exit 1
URL41=${URL4/version=4/version=4.1}
. "$(dirname "$0")/capture.sh"
trap '[[ -n $TSHARK_PID ]] && kill -INT "$TSHARK_PID" 2>/dev/null; t_cleanup' EXIT

# tshark_counts: "PROGRAM VERSION PROC CALLS" lines, sorted, for the calls in $CAP
# (NFSv4: PROC is the COMPOUND's operation; a COMPOUND's calls are its operations').
tshark_counts() {
	capture_read -d "tcp.port==$NFS_PORT,rpc" -d "tcp.port==$MNT_PORT,rpc" \
		-Y 'rpc.msgtyp == 0' -T json --no-duplicate-keys | python3 -c '
import collections, json, sys
def aslist(x):
    return x if isinstance(x, list) else [x]
n = collections.Counter()
for f in json.load(sys.stdin):
    l = f["_source"]["layers"]
    # Calls only go client to server, so a frame with a call holds no reply: its
    # COMPOUND argument trees are those of its COMPOUND calls, in order.
    for r in aslist(l.get("rpc", [])):
        if r.get("rpc.msgtyp") != "0":
            continue
        prog, vers, proc = r.get("rpc.program"), r.get("rpc.programversion"), r.get("rpc.procedure")
        if prog in ("100003", "100005") and not (prog == "100003" and vers == "4" and proc == "1"):
            n[(prog, vers, proc)] += 1
    for nfs in aslist(l.get("nfs", [])):
        if isinstance(nfs, dict) and "nfs.ops.count_tree" in nfs:
            for op in aslist(nfs["nfs.ops.count_tree"].get("nfs.opcode", [])):
                n[("100003", "4", op)] += 1
for k, c in sorted(n.items()):
    print(*k, c)
'
}
# ours FILE: the same lines from --trace-summary's JSON.
ours() {
	"$NFSLOAD" --trace-summary "$1" --output-format json >"$TMP/sum.json" 2>"$TMP/sum.err" || return
	jq -r '.ops | to_entries[] | "\(.value.program) \(.value.version) \(.value.proc) \(.value.calls)"' \
		"$TMP/sum.json" | sort
}

check_capture() {
	local name=$1 theirs mine
	theirs=$(tshark_counts | sort)
	mine=$(ours "$CAP")
	check_eq "$name: tshark saw calls" 1 "$([[ -n $theirs ]] && echo 1 || echo 0)"
	check_eq "$name: calls per procedure/operation as tshark counts them" "$theirs" "$mine"
	# (an NFSv4 op after one that failed is not run: it has no reply of its own)
	check_eq "$name: every call answered" "[]" \
		"$(jq -c '[.ops | to_entries[] | select(.value.calls != .value.replies + .value.not_run)
			| .key]' \
			"$TMP/sum.json")"
	check_eq "$name: nothing left out" 0 \
		"$(jq '[.left_out[]] | add' "$TMP/sum.json" 2>/dev/null || echo err)"
	gzip -c "$CAP" >"$TMP/cap.gz"
	check_eq "$name: the gzip'd capture gives the same" "$mine" "$(ours "$TMP/cap.gz")"
	capture_explain
}

if capture_start "tcp port $NFS_PORT or tcp port $MNT_PORT"; then
	# 4 MiB in all, about 1,000 READs and WRITEs: records still share frames at QD4 (a
	# 1 s run made 14,000, which tshark's JSON output took 12 s to give)
	nl --engine native --dir trace -c 2 -q 4 --rw randrw --bs 4k --size 256k --nrfiles 2 \
		--io-size 4m "$URL3"
	capture_stop
	check_eq "v3 native randrw: exit 0" 0 "$RC"
	check_capture "v3 native randrw"
	check_eq "v3: versions 3 and MOUNT" '["3","MOUNT"]' "$(jq -c .versions "$TMP/sum.json")"
fi

if capture_start "tcp port $NFS_PORT or tcp port $MNT_PORT"; then
	nl --engine native --dir trace41 -c 2 -q 4 --rw randrw --bs 4k --size 256k --nrfiles 2 \
		--io-size 4m "$URL41"
	capture_stop
	check_eq "v4.1 native randrw: exit 0" 0 "$RC"
	check_capture "v4.1 native randrw"
	"$NFSLOAD" --trace-summary "$CAP" | sed 's/^/# /'
	check_eq "v4.1: READs decoded" 1 "$(jq '.ops["v4 READ"].calls > 0' "$TMP/sum.json" |
		sed 's/true/1/')"
fi

if capture_start "tcp port $NFS_PORT or tcp port $MNT_PORT"; then
	t_run_bounded 60 nfs-ls "$URL3" >/dev/null 2>&1
	t_run_bounded 60 nfs-cat "${URL3%%\?*}/trace/file.000000${URL3#"${URL3%%\?*}"}" \
		>/dev/null 2>&1
	capture_stop
	check_capture "libnfs nfs-ls, nfs-cat"
fi

# A 4.2 client's COMPOUNDs (made by hand, tests/data/README: READ_PLUS, SEEK, ALLOCATE,
# DEALLOCATE, IO_ADVISE, COPY, CLONE, the xattr ops): each counted as tshark's own
# dissector counts it, and READ_PLUS's bytes of data and of holes as tshark reads its reply.
CAP=$TMP/v42.pcap
cp "$(dirname "$0")/data/v42-made.pcap" "$CAP"
check_capture "v4.2 made"
check_eq "v4.2: the version, 4.2" '["4.2"]' "$(jq -c .versions "$TMP/sum.json")"
check_eq "v4.2: READ_PLUS's data and hole bytes as tshark reads its reply" \
	"$(capture_read -d tcp.port==2049,rpc -Y "tcp.srcport == 2049 && nfs.content.type" -T fields \
		-E occurrence=a -E aggregator=, -e nfs.read.data_length -e nfs.length4 |
		python3 -c '
import sys
d = h = 0
for line in sys.stdin:
    data, holes = (line.rstrip("\n").split("\t") + [""])[:2]
    d += sum(int(x) for x in data.split(",") if x)
    h += sum(int(x) for x in holes.split(",") if x)
print(d, h)')" \
	"$(jq -r '.ops["v4 READ_PLUS"] | "\(.data_bytes) \(.hole_bytes)"' "$TMP/sum.json")"
"$NFSLOAD" --trace-summary "$CAP" | sed 's/^/# /'

head -c 4096 /dev/urandom >"$TMP/random.bin"
rc=0
"$NFSLOAD" --trace-summary "$TMP/random.bin" >"$TMP/out" 2>"$TMP/err" || rc=$?
check_eq "random bytes: exit 2" 2 "$rc"
check_eq "random bytes: one line" 1 "$(wc -l <"$TMP/err")"
check_eq "random bytes: says so" 1 "$(grep -c 'not a pcap or pcapng capture' "$TMP/err")"

t_summary
