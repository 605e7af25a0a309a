#!/usr/bin/env bash
# A private MIT Kerberos realm (NFSLOAD.TEST) on 127.0.0.1 for tests: nothing in /etc is
# read or written (KRB5_CONFIG and KRB5_KDC_PROFILE point into STATEDIR/krb5).
#
#   tests/kdc.sh start STATEDIR   new realm in STATEDIR/krb5, krb5kdc on a free port
#   tests/kdc.sh stop  STATEDIR   SIGTERM, then SIGKILL after 5 s (idempotent)
#
# start makes STATEDIR/krb5 afresh: krb5.conf, kdc.conf, the database, the server keytab
# nfs.keytab (nfs/127.0.0.1, nfs/localhost and nfs/$(hostname), random keys) and the client
# keytab client.keytab (nfsload@NFSLOAD.TEST, random key), then runs krb5kdc in the
# foreground (-n) on one free port, TCP and UDP, and waits until a kinit from the client
# keytab succeeds. On success STATEDIR/krb5/env holds (and stdout shows) KRB5_CONFIG,
# KRB5_KTNAME (the server keytab), CLIENT_KEYTAB, CLIENT_PRINCIPAL, REALM, KDC_PORT and
# KDC_PID as plain KEY=VALUE lines.
# A client needs only KRB5_CONFIG: krb5.conf names the client keytab as
# default_client_keytab_name, so GSS-API gets the client's tickets without a kinit, into
# a per-process MEMORY ccache (default_ccache_name; KRB5CCNAME overrides it). Use
# 127.0.0.1 as the server's host name (nfs@127.0.0.1): localhost may resolve to ::1.
# tests/ganesha.sh serves Kerberos with GANESHA_KRB5=STATEDIR/krb5.
# Needs krb5-kdc, krb5-admin-server (kadmin.local), krb5-user (kinit), python3.
set -euo pipefail

REALM=NFSLOAD.TEST
CLIENT_PRINCIPAL=nfsload@$REALM

usage() {
	echo "usage: $0 start|stop STATEDIR" >&2
	exit 2
}

die() {
	echo "kdc.sh: $*" >&2
	exit 1
}

# Is PID a live (non-zombie) krb5kdc? (Just after the fork it is still bash or setsid;
# a stale pid may belong to anyone.)
alive() {
	local pid=$1 state
	[[ -n $pid && -r /proc/$pid/status ]] || return 1
	if [[ ${2:-} == kdc ]]; then
		[[ $(cat "/proc/$pid/comm" 2>/dev/null) == krb5kdc ]] || return 1
	fi
	state=$(awk '/^State:/ { print $2 }' "/proc/$pid/status" 2>/dev/null) || return 1
	[[ -n $state && $state != Z ]]
}

# Print a port in 20000-60000 that 127.0.0.1 can bind right now over both TCP and UDP.
free_port() {
	python3 - <<'EOF'
import random, socket
while True:
    port = random.randint(20000, 60000)
    socks = []
    try:
        for kind in (socket.SOCK_STREAM, socket.SOCK_DGRAM):
            s = socket.socket(socket.AF_INET, kind)
            socks.append(s)
            s.bind(("127.0.0.1", port))
        break
    except OSError:
        pass
    finally:
        for s in socks:
            s.close()
print(port)
EOF
}

write_conf() {
	local port=$1
	cat >"$KDIR/krb5.conf" <<EOF
[libdefaults]
	default_realm = $REALM
	dns_lookup_kdc = false
	dns_lookup_realm = false
	rdns = false
	dns_canonicalize_hostname = false
	ignore_acceptor_hostname = true
	udp_preference_limit = 1
	default_keytab_name = FILE:$KDIR/nfs.keytab
	default_client_keytab_name = FILE:$KDIR/client.keytab
	default_ccache_name = MEMORY:nfsload
[realms]
	$REALM = {
		kdc = 127.0.0.1:$port
	}
[domain_realm]
	127.0.0.1 = $REALM
	localhost = $REALM
	$(hostname) = $REALM
EOF
	cat >"$KDIR/kdc.conf" <<EOF
[kdcdefaults]
	kdc_listen = 127.0.0.1:$port
	kdc_tcp_listen = 127.0.0.1:$port
[realms]
	$REALM = {
		database_name = $KDIR/principal
		key_stash_file = $KDIR/stash
		acl_file = $KDIR/kadm5.acl
		kdc_listen = 127.0.0.1:$port
		kdc_tcp_listen = 127.0.0.1:$port
		max_life = 1d
		max_renewable_life = 7d
	}
[logging]
	kdc = FILE:$KDIR/kdc.log
	default = FILE:$KDIR/kdc.log
EOF
	: >"$KDIR/kadm5.acl"
}

# Make the database and the principals, with their keys in the two keytabs.
make_realm() {
	local p
	kdb5_util create -r "$REALM" -s -P "$(head -c 24 /dev/urandom | base64)" \
		>"$KDIR/kdb5_util.log" 2>&1 || die "kdb5_util create failed: $(tail -n 3 "$KDIR/kdb5_util.log")"
	{
		for p in nfs/127.0.0.1 nfs/localhost "nfs/$(hostname)"; do
			echo "addprinc -randkey $p@$REALM"
			echo "ktadd -k $KDIR/nfs.keytab $p@$REALM"
		done
		echo "addprinc -randkey $CLIENT_PRINCIPAL"
		echo "ktadd -k $KDIR/client.keytab $CLIENT_PRINCIPAL"
	} | kadmin.local -r "$REALM" >"$KDIR/kadmin.log" 2>&1 ||
		die "kadmin.local failed: $(tail -n 3 "$KDIR/kadmin.log")"
	[[ -s $KDIR/nfs.keytab && -s $KDIR/client.keytab ]] ||
		die "no keytabs made: $(tail -n 3 "$KDIR/kadmin.log")"
}

# Does the KDC hand out tickets? (A throwaway ccache: nothing is left behind.)
answers() {
	KRB5CCNAME=MEMORY:probe timeout 3 kinit -k -t "$KDIR/client.keytab" "$CLIENT_PRINCIPAL" \
		>/dev/null 2>&1
}

# One attempt on a free port: 0 = up, 1 = failed, 3 = failed to bind (try another port).
try_start() {
	local port=$1 pid deadline=$((SECONDS + 10))
	write_conf "$port"
	echo "=== start $(date '+%F %T') port $port" >>"$KDIR/krb5kdc.out"
	# setsid: a test that kills its own process group must not take the KDC along.
	setsid krb5kdc -n -r "$REALM" </dev/null >>"$KDIR/krb5kdc.out" 2>&1 &
	pid=$!
	disown "$pid"
	echo "$pid" >"$KDIR/pid"
	while ((SECONDS < deadline)); do
		if ! alive "$pid"; then
			grep -qi 'address already in use' "$KDIR/krb5kdc.out" "$KDIR/kdc.log" 2>/dev/null &&
				return 3
			return 1
		fi
		if answers; then
			KDC_PID=$pid
			return 0
		fi
		sleep 0.1
	done
	kill -KILL "$pid" 2>/dev/null || true
	return 1
}

start() {
	local port attempt rc=1 cmd
	for cmd in krb5kdc kdb5_util kadmin.local kinit python3; do
		command -v "$cmd" >/dev/null || die "$cmd not found (run scripts/deps.sh test)"
	done
	if [[ -r $KDIR/pid ]] && alive "$(cat "$KDIR/pid")" kdc; then
		die "a KDC already runs for $KDIR (pid $(cat "$KDIR/pid"))"
	fi
	rm -rf "$KDIR"
	mkdir -p "$KDIR"
	chmod 700 "$KDIR"
	export KRB5_CONFIG=$KDIR/krb5.conf KRB5_KDC_PROFILE=$KDIR/kdc.conf
	# The database needs a kdc.conf; its port is chosen again per attempt below.
	write_conf "$(free_port)"
	make_realm
	for ((attempt = 1; attempt <= 3; attempt++)); do
		port=$(free_port)
		rc=0
		try_start "$port" || rc=$?
		((rc == 3)) || break
	done
	if ((rc != 0)); then
		echo "kdc.sh: krb5kdc did not come up on 127.0.0.1:$port; log tail:" >&2
		tail -n 15 "$KDIR/kdc.log" "$KDIR/krb5kdc.out" >&2 2>/dev/null || true
		exit 1
	fi
	cat >"$KDIR/env" <<EOF
KRB5_CONFIG=$KDIR/krb5.conf
KRB5_KTNAME=$KDIR/nfs.keytab
CLIENT_KEYTAB=$KDIR/client.keytab
CLIENT_PRINCIPAL=$CLIENT_PRINCIPAL
REALM=$REALM
KDC_PORT=$port
KDC_PID=$KDC_PID
EOF
	cat "$KDIR/env"
}

stop() {
	local pid i
	pid=$(cat "$KDIR/pid" 2>/dev/null) || return 0
	if alive "$pid" kdc; then
		kill -TERM "$pid" 2>/dev/null || true
		for ((i = 0; i < 50; i++)); do
			alive "$pid" || break
			sleep 0.1
		done
		if alive "$pid"; then
			kill -KILL "$pid" 2>/dev/null || true
		fi
	fi
	rm -f "$KDIR/pid"
}

(($# == 2)) || usage
if [[ $1 == stop && ! -d $2 ]]; then
	exit 0
fi
mkdir -p "$2"
KDIR=$(cd "$2" && pwd -P)/krb5

case $1 in
start) start ;;
stop) stop ;;
*) usage ;;
esac
