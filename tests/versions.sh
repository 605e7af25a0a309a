#!/usr/bin/env bash
# The NFSv4 minor version the native engine speaks, judged on the wire by tshark (a
# capture on the loopback interface, filtered to the private nfs-ganesha's port) and by
# the report:
#   - version=4.2 and version=4 (ganesha.sh grants 4.2) put minor version 2 in every
#     COMPOUND, the report says 4.2; version=4.1 still speaks 1;
#   - over 4.2: one session across threads (--connections-per-session), --wire-time,
#     and krb5i when a KDC can be made here (tests/kdc.sh);
#   - a server that grants 0 and 1 only (Minor_Versions = 0, 1): version=4 asks for 2
#     in EXCHANGE_ID, then speaks 1, as Linux does; version=4.2 ends with one line
#     naming NFS4ERR_MINOR_VERS_MISMATCH (exit 1);
#   - the refusals before anything is written (exit 2): version=4.0 on the native engine
#     names --engine libnfs, version=4.2 on libnfs names the native engine.
# Needs NFSLOAD, HELPERS, jq, tshark (capture needs root, as the server does).
set -uo pipefail
. "$(dirname "$0")/lib.sh"

t_start_server || exit 1
. "$(dirname "$0")/capture.sh"
# The KDC (krb5i) stops before t_cleanup removes $TMP, where its pid file is.
trap '[[ -n $TSHARK_PID ]] && kill -INT "$TSHARK_PID" 2>/dev/null; "$T_LIB_DIR/kdc.sh" stop "$TMP/kdc" >/dev/null 2>&1; t_cleanup' EXIT

url_v() { echo "${URL4/version=4/version=$1}"; }
# minors: the minor versions of the NFSv4 COMPOUND calls in the capture, "N:COUNT ...".
minors() {
	capture_read -d "tcp.port==$NFS_PORT,rpc" \
		-Y "rpc.program == 100003 && rpc.msgtyp == 0 && nfs.procedure_v4 == 1" \
		-T fields -E occurrence=a -E separator=, -e nfs.minorversion |
		tr ',' '\n' | grep . | sort -n | uniq -c | awk '{ printf "%s%s:%s", s, $2, $1; s = " " }'
}
# minor_only N: "N" when every COMPOUND in the capture carries minor version N (and
# there was one), else what they carried.
minor_only() {
	local m
	m=$(minors)
	if [[ $m =~ ^$1:[0-9]+$ ]]; then echo "$1"; else echo "${m:-no COMPOUND}"; fi
}
# capture_run ARGS...: nl ARGS... inside a capture of the NFS port.
capture_run() {
	capture_start "tcp port $NFS_PORT" || return 1
	nl "$@"
	capture_stop || return 1
}

W=(--size 1m --nrfiles 2 --runtime 1s --keep)

# version=4.2 and version=4 speak 4.2; version=4.1 speaks 4.1.
for v in 4.2 4 4.1; do
	want=4.2
	[[ $v == 4.1 ]] && want=4.1
	name="version=$v"
	capture_run --dir "v$v" -t 2 -c 2 -q 4 --rw randrw "${W[@]}" --output-format json \
		"$(url_v "$v")" || continue
	check_eq "$name: exit 0" 0 "$RC"
	check_eq "$name: no errors" 0 "$(jqv .total.errors)"
	check_ge "$name: I/O done" 1 "$(jqv .total.ops)"
	check_eq "$name: the report says $want" "$want" "$(jqv .settings.nfs_version)"
	check_eq "$name: every COMPOUND on the wire carries minor version ${want#4.}" \
		"${want#4.}" "$(minor_only "${want#4.}")"
	capture_explain
done

# The text report's header says what was spoken.
nl --dir v4.2 -c 1 --size 1m --nrfiles 2 --runtime 1s --keep "$(url_v 4)"
check_eq "version=4 text: exit 0" 0 "$RC"
check_match "version=4 text: the header says NFSv4.2" \
	'^nfsload [0-9.]+, nfs://[^ ]*, NFSv4\.2, randread' "$(head -1 "$OUT")"

# One session across threads over 4.2 (trunking): 8 connections, 2 threads.
name="4.2 session across threads"
if capture_run --dir v4.2 -t 2 -c 8 -q 4 --connections-per-session 8 --rw randrw "${W[@]}" \
	--output-format json "$(url_v 4.2)"; then
	check_eq "$name: exit 0" 0 "$RC"
	check_eq "$name: no errors" 0 "$(jqv .total.errors)"
	check_eq "$name: the report says 4.2" 4.2 "$(jqv .settings.nfs_version)"
	check_match "$name: one session of 8 connections" "1 session of 8 connections" \
		"$(jqv .limits_note)"
	check_eq "$name: both threads did I/O" 2 \
		"$(jqv '[.connections[] | select(.ops > 0) | .thread] | unique | length')"
	check_eq "$name: every COMPOUND carries minor version 2" 2 "$(minor_only 2)"
	capture_explain
fi

# --wire-time over 4.2: replies timed on the wire.
name="4.2 --wire-time"
nl --dir v4.2 -c 2 -q 4 "${W[@]}" --wire-time --output-format json "$(url_v 4.2)"
check_eq "$name: exit 0" 0 "$RC"
check_eq "$name: the report says 4.2" 4.2 "$(jqv .settings.nfs_version)"
check_eq "$name: reads have a wire time" true \
	"$(jqv '.ops.read.ops > 0 and .ops.read.wire_count > 0 and .ops.read.wire_lat_ns.p50 > 0')"

# The refusals, before anything is written (no work directory made).
nl --dir refused40 "${W[@]}" "$(url_v 4.0)"
check_eq "version=4.0 on the native engine: exit 2" 2 "$RC"
check_match "version=4.0 on the native engine: names --engine libnfs" \
	'^nfsload: URL: version=4\.0: .*--engine libnfs' "$(cat "$ERR")"
check_eq "version=4.0 on the native engine: one line" 1 "$(wc -l <"$ERR")"
check_eq "version=4.0 on the native engine: nothing written" absent \
	"$([[ -e $EXPORT_DIR/refused40 ]] && echo present || echo absent)"
nl --engine libnfs --dir refused42 "${W[@]}" "$(url_v 4.2)"
check_eq "version=4.2 on libnfs: exit 2" 2 "$RC"
check_match "version=4.2 on libnfs: names the native engine" \
	'^nfsload: URL: version=4\.2: .*--engine native' "$(cat "$ERR")"
check_eq "version=4.2 on libnfs: one line" 1 "$(wc -l <"$ERR")"
check_eq "version=4.2 on libnfs: nothing written" absent \
	"$([[ -e $EXPORT_DIR/refused42 ]] && echo present || echo absent)"

# A server without 4.2: version=4 falls back to 4.1 (EXCHANGE_ID asked 2 first),
# version=4.2 says why it cannot.
if GANESHA_MINOR_VERSIONS="0, 1" t_start_server old; then
	name="version=4 on a 4.1 server"
	if capture_run --dir old -t 2 -c 4 -q 2 --rw randrw "${W[@]}" --output-format json \
		"$(url_v 4)"; then
		check_eq "$name: exit 0" 0 "$RC"
		check_eq "$name: no errors" 0 "$(jqv .total.errors)"
		check_eq "$name: the report says 4.1" 4.1 "$(jqv .settings.nfs_version)"
		check_ge "$name: EXCHANGE_ID asked for minor version 2 first" 1 \
			"$(capture_read -d "tcp.port==$NFS_PORT,rpc" -Y \
			'rpc.msgtyp == 0 && nfs.minorversion == 2 && nfs.opcode == 42' | wc -l)"
		check_eq "$name: only EXCHANGE_ID went with minor version 2" 0 \
			"$(capture_read -d "tcp.port==$NFS_PORT,rpc" -Y \
			'rpc.msgtyp == 0 && nfs.minorversion == 2 && !(nfs.opcode == 42)' | wc -l)"
		check_match "$name: the rest with minor version 1" '(^| )1:[0-9]+' "$(minors)"
		capture_explain
	fi
	nl --dir old42 "${W[@]}" "$(url_v 4.2)"
	check_eq "version=4.2 on a 4.1 server: exit 1" 1 "$RC"
	check_match "version=4.2 on a 4.1 server: says the server refused 4.2" \
		'NFSv4\.2 .*NFS4ERR_MINOR_VERS_MISMATCH' "$(cat "$ERR")"
fi

# krb5i over 4.2: a private KDC (tests/kdc.sh) and a Kerberos-only ganesha, as krb5.sh's.
if ! command -v krb5kdc >/dev/null || ! command -v kadmin.local >/dev/null; then
	t_skip "krb5i over 4.2" "krb5-kdc and krb5-admin-server not installed"
elif ! out=$("$T_LIB_DIR/kdc.sh" start "$TMP/kdc" 2>&1); then
	t_fail "krb5i over 4.2: KDC start" "$out"
else
	export KRB5_CONFIG=$TMP/kdc/krb5/krb5.conf
	if GANESHA_KRB5=$TMP/kdc/krb5 t_start_server krb; then
		name="krb5i over 4.2"
		if capture_run --dir krb -c 2 -q 8 --rw randrw --bs 4k --size 1m --io-size 2m --verify \
			--output-format json "$(url_v 4.2)&sec=krb5i"; then
			check_eq "$name: exit 0" 0 "$RC"
			check_eq "$name: no errors" 0 "$(jqv .total.errors)"
			check_eq "$name: the report says krb5i and 4.2" "krb5i 4.2" \
				"$(jqv '"\(.settings.sec) \(.settings.nfs_version)"')"
			check_eq "$name: every COMPOUND carries minor version 2" 2 "$(minor_only 2)"
			check_eq "$name: every NFS call carries RPCSEC_GSS" 0 \
				"$(capture_read -d "tcp.port==$NFS_PORT,rpc" -Y \
				'rpc.msgtyp == 0 && rpc.program == 100003 && rpc.auth.flavor != 6' | wc -l)"
			capture_explain
		fi
	fi
	"$T_LIB_DIR/kdc.sh" stop "$TMP/kdc" >/dev/null 2>&1
fi

t_summary
