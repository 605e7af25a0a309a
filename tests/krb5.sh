#!/usr/bin/env bash
# Kerberos (RPCSEC_GSS, RFC 2203) through the native engine, against a private MIT KDC
# (tests/kdc.sh) and an nfs-ganesha whose exports take Kerberos only (GANESHA_KRB5):
# /export takes krb5, krb5i and krb5p, /krb5p only krb5p.
#   - each flavour over NFSv3 and NFSv4.1: 4 KiB random reads and writes with --verify,
#     and 1 MiB writes read back with --verify; no errors; the report says the flavour;
#   - on the wire (tshark on lo): every NFS call of a run carries RPCSEC_GSS with the
#     run's service, one context made per connection, each connection's sequence
#     numbers rising call after call (each call leaves as the newest, so never outside
#     the server's window), every reply verifier checked by nfsload (no errors);
#     bytes of the file's data (read back from the export's directory) in the clear
#     under krb5i, nowhere under krb5p; tshark decodes the WRITEs of krb5i, none of krb5p;
#   - --wire-time under each flavour: wire time measured, at most the latency;
#   - a reply turned into RPCSEC_GSS_CTXPROBLEM (helper_proxy): the connection is made
#     again with a new context and the run goes on;
#   - refusals with one line and nothing written: AUTH_SYS and krb5i on the krb5p-only
#     export (v3: AUTH_TOOWEAK with the flavours MOUNT lists; v4.1: WRONGSEC), no
#     credentials, a server principal the KDC does not know, a missing --keytab,
#     --keytab without Kerberos, sec=krb5 with --engine libnfs;
#   - --keytab FILE --principal NAME where krb5.conf names no client keytab;
#   - last, the KDC's clock an hour ahead of the server's (libfaketime): the server
#     refuses the context, one line says to look at the clocks, nothing written.
# Needs NFSLOAD, jq, python3, tshark, krb5-kdc, krb5-admin-server, krb5-user, libfaketime.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

for cmd in tshark krb5kdc kadmin.local kinit; do
	if ! command -v "$cmd" >/dev/null; then
		t_fail "$cmd" "not installed (scripts/deps.sh test installs it)"
		t_summary
		exit 1
	fi
done
. "$(dirname "$0")/capture.sh"
# The KDC stops before t_cleanup removes $TMP, where its pid file is (the other way round,
# every run of this suite left a krb5kdc running).
trap '[[ -n $TSHARK_PID ]] && kill -INT "$TSHARK_PID" 2>/dev/null; "$T_LIB_DIR/kdc.sh" stop "$TMP/kdc" >/dev/null 2>&1; t_cleanup' EXIT

if ! out=$("$T_LIB_DIR/kdc.sh" start "$TMP/kdc" 2>&1); then
	t_fail "KDC start" "$out"
	t_summary
	exit 1
fi
export KRB5_CONFIG=$TMP/kdc/krb5/krb5.conf
CLIENT_KEYTAB=$(sed -n 's/^CLIENT_KEYTAB=//p' "$TMP/kdc/krb5/env")
CLIENT_PRINCIPAL=$(sed -n 's/^CLIENT_PRINCIPAL=//p' "$TMP/kdc/krb5/env")
GANESHA_KRB5=$TMP/kdc/krb5 t_start_server || exit 1
URL41=${URL4/version=4/version=4.1}
URL41P=${URL4P/version=4/version=4.1}
P_EXPORT=${EXPORT_DIR%/export}/export-p

# nothing_in DIR: the directory holds nothing but what the test put there (nothing).
nothing_in() { find "$1" -mindepth 1 | head -3 | tr '\n' ' '; }

# --- each flavour, each version: data verified ------------------------------------------
for v in 3 4.1; do
	url=$URL3
	[[ $v == 4.1 ]] && url=$URL41
	for sec in krb5 krb5i krb5p; do
		name="v$v $sec 4k randrw"
		# 8 MiB in all (about 1,000 reads and 1,000 writes), whatever the flavour's pace.
		nl -c 4 -q 16 --rw randrw --bs 4k --size 4m --io-size 8m --verify --dir "r$sec$v" \
			--output-format json "$url&sec=$sec"
		check_eq "$name: exit 0" 0 "$RC"
		check_eq "$name: the report says the flavour" "$sec" "$(jqv .settings.sec)"
		check_ge "$name: reads" 100 "$(jqv '.ops.read.ops')"
		check_ge "$name: writes" 100 "$(jqv '.ops.write.ops')"
		check_eq "$name: no errors" 0 "$(jqv '.total.errors')"
		check_eq "$name: every request in flight at the stop answered" 0 \
			"$(jqv '.total.unanswered_at_stop')"
		check_eq "$name: verify: no bad block" 0 "$(jqv '.verify.mismatches')"
		check_eq "$name: every connection up" 0 "$(jqv '[.connections[] | select(.ops == 0)] | length')"

		name="v$v $sec 1m write, read back"
		nl -c 2 -q 2 --rw write --bs 1m --size 8m --io-size 8m --verify --dir "m$sec$v" \
			--output-format json --sec "$sec" "$url"
		check_eq "$name: exit 0" 0 "$RC"
		check_eq "$name: 8 MiB written as 8 writes" 8 "$(jqv '.ops.write.ops')"
		check_eq "$name: no errors" 0 "$(jqv '.total.errors')"
		check_eq "$name: read back and checked: no bad block" 0 \
			"$(jqv '.verify.mismatches')"
		check_ge "$name: read back and checked: blocks" 8 "$(jqv '.verify.blocks_checked')"
	done
done
# The text report's first line names the flavour.
nl -c 1 --rw read --bs 4k --size 1m --runtime 1s --dir text --sec krb5i "$URL3"
check_match "text report: first line names NFSv3 krb5i" "NFSv3 krb5i, read" "$(head -1 "$OUT")"

# --- on the wire ---------------------------------------------------------------------
tsh() { capture_read -d "tcp.port==$NFS_PORT,rpc" "$@"; }
# The NFS calls, one line each in capture order: "stream flavor gss-procedure service seqnum
# procedure"; then "decoded N": the WRITE calls whose arguments tshark could read.
calls() {
	tsh -Y "rpc.msgtyp == 0 && rpc.program == 100003" -T json --no-duplicate-keys |
		python3 -c '
import json, sys
def aslist(x):
    return x if isinstance(x, list) else [x]
decoded = 0
for f in json.load(sys.stdin):
    l = f["_source"]["layers"]
    for r in aslist(l.get("rpc", [])):
        if r.get("rpc.msgtyp") != "0" or r.get("rpc.program") != "100003":
            continue
        c = r.get("Credentials", {})
        print(l["tcp"]["tcp.stream"], c.get("rpc.auth.flavor", "-"), c.get("rpc.authgss.procedure", "-"),
              c.get("rpc.authgss.service", "-"), c.get("rpc.authgss.seqnum", "-"), r.get("rpc.procedure"))
    def count(v):
        if isinstance(v, dict):
            return sum((len(aslist(x)) if k == "nfs.count3" else 0) + count(x) for k, x in v.items())
        return sum(count(x) for x in v) if isinstance(v, list) else 0
    decoded += count(l.get("nfs", []))
print("decoded", decoded)
'
}
for sec in krb5i krb5p; do
	svc=2
	[[ $sec == krb5p ]] && svc=3
	name="wire $sec"
	capture_start "tcp port $NFS_PORT" || continue
	nl -c 3 -q 8 --rw write --bs 4k --size 256k --io-size 256k --dir "w$sec" --keep \
		--output-format json "$URL3&sec=$sec"
	capture_stop || continue
	check_eq "$name: exit 0" 0 "$RC"
	check_eq "$name: no errors (every reply's verifier and body checked)" 0 "$(jqv '.total.errors')"
	calls >"$TMP/calls"
	grep -v '^decoded' "$TMP/calls" >"$TMP/calls.only"
	ops=$(jqv '.ops.write.ops')
	# ... with the layout's and the control connection's one (the work directory's marker).
	check_eq "$name: the WRITE calls on the wire are the writes reported, layout's, marker's" \
		"$((ops + $(jqv '.layout.stats.ops') + 1))" "$(awk '$3 == 0 && $6 == 7' "$TMP/calls.only" | wc -l)"
	check_eq "$name: every NFS call is RPCSEC_GSS" 0 "$(awk '$2 != 6' "$TMP/calls.only" | wc -l)"
	check_eq "$name: every data call has service $svc" 0 \
		"$(awk -v s=$svc '$3 == 0 && $4 != s' "$TMP/calls.only" | wc -l)"
	# One context per connection: the 3 and the control connection, each made once.
	check_eq "$name: one context made per connection (INIT calls)" \
		"$(cut -d' ' -f1 "$TMP/calls.only" | sort -u | wc -l)" "$(awk '$3 == 1' "$TMP/calls.only" | wc -l)"
	check_eq "$name: each connection's sequence numbers rise call after call" 0 \
		"$(awk '$3 == 0 { if (($1 in last) && $5 <= last[$1]) bad++; last[$1] = $5 } END { print bad + 0 }' "$TMP/calls.only")"
	decoded=$(sed -n 's/^decoded //p' "$TMP/calls")
	# Known bytes: 32-byte pieces of what the server stored (file 0's data), searched in the
	# capture's raw bytes (a piece may straddle two segments: 8 pieces, far apart).
	f=$EXPORT_DIR/w$sec/file.000000
	found=$(python3 -c '
import sys
data, cap = open(sys.argv[1], "rb").read(), open(sys.argv[2], "rb").read()
pieces = [data[k * 30011 + 100:k * 30011 + 132] for k in range(8)]
print(sum(1 for p in pieces if len(p) == 32 and p in cap))' "$f" "$CAP" 2>/dev/null || echo err)
	if [[ $sec == krb5i ]]; then
		check_ge "$name: the data's bytes in the clear (integrity only)" 6 "$found"
		check_eq "$name: tshark reads every WRITE's arguments" \
			"$((ops + $(jqv '.layout.stats.ops') + 1))" "$decoded"
	else
		check_eq "$name: the data's bytes nowhere on the wire (privacy)" 0 "$found"
		check_eq "$name: tshark reads no WRITE's arguments" 0 "$decoded"
		# The pieces searched for were there to find.
		check_eq "$name: the file on the server holds the 256 KiB written" 262144 \
			"$(stat -c %s "$f" 2>/dev/null)"
	fi
	capture_explain
done

# --- wire time under each flavour ---------------------------------------------------------
for sec in krb5 krb5i krb5p; do
	name="--wire-time $sec"
	nl -c 2 -q 4 --rw randread --bs 4k --size 4m --runtime 1s --dir "t$sec" \
		--wire-time --output-format json "$URL3&sec=$sec"
	check_eq "$name: exit 0" 0 "$RC"
	check_eq "$name: nearly every read's wire time measured" true \
		"$(jqv '.ops.read.ops > 100 and .ops.read.wire_count >= 0.9 * .ops.read.ops')"
	check_eq "$name: wire p50 above 0, at most the latency's" true \
		"$(jqv '.ops.read.wire_lat_ns.p50 > 0 and .ops.read.wire_lat_ns.p50 <= .ops.read.lat_ns.p50')"
done

# --- a context the server no longer has (CTXPROBLEM), mid-run --------------------------------
# helper_proxy turns the worker connection's 50th reply into MSG_DENIED AUTH_ERROR
# RPCSEC_GSS_CTXPROBLEM (connection 1 is the control connection): the connection fails, is
# made again with a new context, and the run goes on; only the requests in flight are lost.
# "Went on" is judged by count, not rate: more operations done after the fault than the at
# most 50 before it, and one done after the outage (its stall ends).
if proxy_start 0 --fault 2:ctxproblem#50; then
	name="CTXPROBLEM mid-run"
	nl -c 1 -q 4 --rw randread --bs 4k --size 1m --runtime 2s --dir ctx --output-format json \
		"$PROXY_URL&sec=krb5i"
	check_eq "$name: exit 0 (the run goes on)" 0 "$RC"
	check_match "$name: the proxy refused one reply" "ctxproblem at .*RPCSEC_GSS_CTXPROBLEM" \
		"$(cat "$TMP/proxy.err")"
	check_eq "$name: the connection made again once, recovered" "1 true" \
		"$(jqv '[.connections[0].reconnects, .connections[0].outages[0].recovered] | join(" ")')"
	check_le "$name: only requests in flight failed" 4 "$(jqv '.total.errors')"
	check_ge "$name: I/O went on after it (more done after it than before)" 101 "$(jqv '.total.ops')"
	check_eq "$name: an operation done after the outage" true \
		"$(jqv '.connections[0].outages[0].stall_ns > 0')"
	kill "$PROXY_PID" 2>/dev/null
fi

# --- refusals: one line, nothing written -------------------------------------------------
refused() { # NAME EXPECTED-RC-REGEX MESSAGE-REGEX ARGS...
	local name=$1 rcs=$2 msg=$3
	shift 3
	nl -c 1 --rw write --bs 4k --size 1m --runtime 1s --dir refused "$@"
	check_match "$name: exit $rcs" "^($rcs)\$" "$RC"
	check_eq "$name: one line" 1 "$(wc -l <"$ERR")"
	check_match "$name: says why" "$msg" "$(cat "$ERR")"
	check_eq "$name: nothing written" "" "$(nothing_in "$P_EXPORT")$(ls "$EXPORT_DIR" | grep -c '^refused$' | grep -v '^0$')"
}
refused "AUTH_SYS on a krb5p export, v3" 1 "refuses sec=sys \(AUTH_TOOWEAK\): it takes krb5p" "$URL3P"
refused "krb5i on a krb5p export, v3" 1 "refuses sec=krb5i \(AUTH_TOOWEAK\): it takes krb5p" "$URL3P&sec=krb5i"
refused "AUTH_SYS on a krb5p export, v4.1" 1 "WRONGSEC: the export does not take sec=sys" "$URL41P"
sed '/default_client_keytab_name/d' "$KRB5_CONFIG" >"$TMP/nokeys.conf"
KRB5_CONFIG=$TMP/nokeys.conf refused "no credentials" "1|2" "no Kerberos credentials.*kinit first, or give --keytab" "$URL3&sec=krb5"
refused "unknown server principal" "1|2" "no Kerberos ticket for the server nfs@127.0.0.2 .*not found in Kerberos database" \
	"${URL3/127.0.0.1/127.0.0.2}&sec=krb5"
refused "missing --keytab" "1|2" "^nfsload: .*--keytab $TMP/none: No such file" --keytab "$TMP/none" "$URL3&sec=krb5"
refused "--keytab without Kerberos" 2 "--keytab: only with Kerberos" --keytab "$CLIENT_KEYTAB" "$URL3"
refused "--sec with the URL's other sec=" 2 "--sec krb5p: the URL says sec=krb5" --sec krb5p "$URL3&sec=krb5"
refused "libnfs, sec=krb5" 2 "sec=krb5: Debian's libnfs has no Kerberos \(use --engine native" --engine libnfs "$URL3&sec=krb5"
refused "libnfs, --sec" 2 "--sec: Kerberos is the native engine's" --engine libnfs --sec krb5 "$URL3"
refused "bad sec= value" 2 "URL: sec=krb6 is not a flavour \(sys, krb5, krb5i or krb5p\)" "$URL3&sec=krb6"

# --- --keytab and --principal where krb5.conf names no client keytab -----------------------
KRB5_CONFIG=$TMP/nokeys.conf nl -c 2 --rw randrw --bs 4k --size 1m --runtime 1s --verify --dir kt \
	--keytab "$CLIENT_KEYTAB" --principal "$CLIENT_PRINCIPAL" --output-format json "$URL41&sec=krb5p"
check_eq "--keytab --principal: exit 0" 0 "$RC"
check_eq "--keytab --principal: no errors" 0 "$(jqv '.total.errors')"
check_ge "--keytab --principal: I/O done" 10 "$(jqv '.total.ops')"

# --- clocks apart: the KDC an hour ahead of the server (libfaketime), last -------------------
# The client follows the KDC's clock (krb5's kdc_timesync), so its tickets and authenticators
# are an hour ahead of the server's clock, which refuses the context: one line that says to
# look at the clocks, and nothing written.
FAKETIME_LIB=/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1
kdc_pid=$(cat "$TMP/kdc/krb5/pid")
kill "$kdc_pid" 2>/dev/null
while kill -0 "$kdc_pid" 2>/dev/null; do sleep 0.1; done
KRB5_KDC_PROFILE=$TMP/kdc/krb5/kdc.conf LD_PRELOAD=$FAKETIME_LIB FAKETIME=+1h \
	setsid krb5kdc -n -r NFSLOAD.TEST </dev/null >>"$TMP/kdc/krb5/krb5kdc.out" 2>&1 &
echo $! >"$TMP/kdc/krb5/pid"
for ((i = 0; i < 100; i++)); do
	KRB5CCNAME=MEMORY:probe kinit -k -t "$CLIENT_KEYTAB" "$CLIENT_PRINCIPAL" 2>/dev/null && break
	sleep 0.1
done
check_eq "skewed KDC: it answers" 0 "$(KRB5CCNAME=MEMORY:probe kinit -k -t "$CLIENT_KEYTAB" "$CLIENT_PRINCIPAL" >/dev/null 2>&1; echo $?)"
refused "KDC an hour ahead of the server" 1 "refused the context .*clocks within 5 minutes" "$URL3&sec=krb5"

t_summary
