#!/usr/bin/env bash
# A private nfs-ganesha on 127.0.0.1 for tests and the demo.
#
#   tests/ganesha.sh start   STATEDIR   start on two free ports, export STATEDIR/export
#   tests/ganesha.sh stop    STATEDIR   SIGTERM, then SIGKILL after 5 s (idempotent)
#   tests/ganesha.sh restart STATEDIR   stop, then start on the same ports, data kept
#   tests/ganesha.sh stop-rpcbind STATEDIR   stop the rpcbind that a start for STATEDIR
#                                       started (none was running), if any (idempotent)
#
# On success STATEDIR/env holds (and stdout shows) NFS_PORT, MNT_PORT, EXPORT_DIR,
# GANESHA_PID, URL3 and URL4 as plain KEY=VALUE lines: the URLs contain '&', so read the
# lines (e.g. sed -n 's/^URL3=//p'), do not source the file. The URLs carry nfsport= and
# mountport=, so clients never ask rpcbind (one per machine, shared with any other
# ganesha) where to go.
# nfs-ganesha will not start without rpcbind. If none runs, start starts one that listens
# only on its local socket (no port 111, see start_rpcbind) and notes it in
# STATEDIR/rpcbind.pid; stop leaves it running (other servers may need it): whoever owns
# the STATEDIRs (scripts/demo.sh, tests/lib.sh) runs stop-rpcbind once all are stopped.
# GANESHA_FSAL=MEM uses FSAL_MEM (keeps only the first 2 MiB of each file) instead of VFS.
# GANESHA_EXPORT=DIR exports DIR instead of STATEDIR/export (two servers on one tree: one
# namespace through two nodes); kept for restarts of the same STATEDIR.
# GANESHA_MINOR_VERSIONS="0, 1" sets Minor_Versions (default "0, 1, 2": NFSv4.2 granted).
# GANESHA_GRACE=N: a grace period of N seconds at each (re)start and leases of
# GANESHA_LEASE (default N) seconds (default: Graceless, leases of ganesha's 60 s).
# Kept for restarts of the same STATEDIR only when set for them too.
# GANESHA_MAX_CONNECTIONS=N sets RPC_Max_Connections (default 4096; ganesha allows up to 10000).
# GANESHA_NLM=1 serves NFSv3 locks: Enable_NLM with NLM_Port on a third free port (NLM_PORT in
# STATEDIR/env: clients pass nlmport=), and an rpc.statd of its own (nfs-common; state in
# STATEDIR/statd, pid in STATEDIR/statd.pid, stopped with the server). ganesha grants no
# lock without NSM (NLM4_DENIED_NOLOCKS, "nsm_connect ... failed") and asks for rpc.statd
# at localhost:111 over TCP, where the rpcbind here does not listen (see start_stub111).
# rpc.statd listens on all addresses (its -n binds only its notify
# socket); only loopback traffic reaches it from here. Kept for restarts of the same STATEDIR.
# GANESHA_KRB5=KRB5DIR (the STATEDIR/krb5 of a running tests/kdc.sh) serves Kerberos
# instead: /export takes only krb5, krb5i and krb5p, and a second export, STATEDIR/export-p
# at /krb5p, only krb5p (MOUNT still answers AUTH_SYS; the NFS calls refuse it with
# AUTH_TOOWEAK). The realm's client principal maps to root (a private idmapd.conf), so it
# writes over NFSv3 and NFSv4. STATEDIR/env then also has URL3P and URL4P (for /krb5p).
# Kept for restarts of the same STATEDIR.
# Needs root, nfs-ganesha, nfs-ganesha-vfs (or -mem), rpcbind, libnfs-utils, python3
# (with GANESHA_NLM also nfs-common's rpc.statd);
# with GANESHA_KRB5 also what tests/kdc.sh needs.
set -euo pipefail

usage() {
	echo "usage: $0 start|stop|restart|stop-rpcbind STATEDIR" >&2
	exit 2
}

die() {
	echo "ganesha.sh: $*" >&2
	exit 1
}

# Is PID a live (non-zombie) process? With "ganesha", also check that it is ganesha.nfsd
# (just after the fork it is still bash or setsid; a stale pid may belong to anyone).
alive() {
	local pid=$1 state
	[[ -n $pid && -r /proc/$pid/status ]] || return 1
	if [[ ${2:-} == ganesha ]]; then
		[[ $(cat "/proc/$pid/comm" 2>/dev/null) == ganesha.nfsd ]] || return 1
	fi
	state=$(awk '/^State:/ { print $2 }' "/proc/$pid/status" 2>/dev/null) || return 1
	[[ -n $state && $state != Z ]]
}

# Is an rpcbind answering on its local socket in this network namespace (any rpcbind:
# the system's, another run's, or ours)? nfs-ganesha registers there.
rpcbind_up() {
	grep -qE ' (/var)?/run/rpcbind\.sock$' /proc/net/unix
}

# Start rpcbind if none answers, and note its pid in STATE/rpcbind.pid. rpcbind opens
# every visible transport of /etc/netconfig, that is port 111 over TCP and UDP on all
# addresses: its -h option binds UDP only, and Debian 12's rpcbind 1.2.6 aborts with it
# (double free). nfs-ganesha registers over the local socket /run/rpcbind.sock and the
# clients are given the ports, so this rpcbind gets a netconfig without the TCP and UDP
# lines, in a mount namespace of its own; where that cannot be made (a container without
# CAP_SYS_ADMIN), the usual rpcbind on port 111.
start_rpcbind() {
	local pid i
	rpcbind_up && return 0
	printf '%s\n' 'local tpi_cots_ord - loopback - - -' 'unix tpi_cots_ord - loopback - - -' \
		>"$STATE/netconfig"
	echo "=== rpcbind $(date '+%F %T')" >>"$STATE/rpcbind.log"
	# -f: rpcbind stays in the foreground, so $! is its pid (setsid and sh exec it).
	if unshare --mount --propagation private \
		mount --bind "$STATE/netconfig" /etc/netconfig 2>/dev/null; then
		# shellcheck disable=SC2016  # $1 is for sh
		setsid unshare --mount --propagation private \
			sh -c 'mount --bind "$1" /etc/netconfig && exec rpcbind -f' sh "$STATE/netconfig" \
			</dev/null >>"$STATE/rpcbind.log" 2>&1 &
	else
		setsid rpcbind -f </dev/null >>"$STATE/rpcbind.log" 2>&1 &
	fi
	pid=$!
	disown "$pid"
	for ((i = 0; i < 50; i++)); do
		if rpcbind_up && alive "$pid"; then
			echo "$pid" >"$STATE/rpcbind.pid"
			return 0
		fi
		# It exits at once when another rpcbind started meanwhile (lock file): use that one.
		if ! alive "$pid"; then
			rpcbind_up && return 0
			break
		fi
		sleep 0.1
	done
	kill -KILL "$pid" 2>/dev/null || true
	die "cannot start rpcbind: $(tail -n 3 "$STATE/rpcbind.log")"
}

# Does an rpcbind answer on TCP port 111 of 127.0.0.1 (GANESHA_NLM's NSM needs it)?
rpcbind_tcp() {
	timeout 2 bash -c ': </dev/tcp/127.0.0.1/111' 2>/dev/null
}

# GANESHA_NLM: something on 127.0.0.1:111 over TCP that tells ganesha's NSM client where
# rpc.statd listens. The rpcbind started here cannot (it has no TCP netconfig line, and
# without one it answers no GETADDR or GETPORT for a TCP service), and an rpcbind already
# running is anyone's: unless 111 answers already, a stub of its own (python3, pid in
# STATEDIR/stub111.pid) on 127.0.0.1 only answers the portmapper's NULL, GETPORT (v2) and
# GETADDR/GETVERSADDR (v3, v4) for rpc.statd (100024) with STATD_PORT and for NLM v4
# (100021, what a client asks rpcbind without nlmport=) with NLM_PORT, and "not
# registered" for any other program.
start_stub111() {
	local pid i
	rpcbind_tcp && return 0
	setsid python3 -c '
import socket, socketserver, struct, sys
PORTS = {100024: int(sys.argv[1]), 100021: int(sys.argv[2])}
def xdr_string(b):
    return struct.pack(">I", len(b)) + b + b"\0" * (-len(b) % 4)
def answer(rec):
    xid, mtype, _, prog, vers, proc = struct.unpack(">6I", rec[:24])
    off = 24
    for _ in range(2):	# credential, verifier
        off += 8 + (struct.unpack(">I", rec[off + 4:off + 8])[0] + 3) // 4 * 4
    args = rec[off:]
    head = struct.pack(">5I", xid, 1, 0, 0, 0)
    if prog != 100000:
        return head + struct.pack(">I", 1)	# PROG_UNAVAIL
    if proc == 0:
        return head + struct.pack(">I", 0)
    if proc == 3 and vers == 2:
        want = struct.unpack(">I", args[:4])[0]
        return head + struct.pack(">II", 0, PORTS.get(want, 0))
    if (proc == 3 and vers in (3, 4)) or (proc == 9 and vers == 4):
        port = PORTS.get(struct.unpack(">I", args[:4])[0], 0)
        ua = b"127.0.0.1.%d.%d" % (port >> 8, port & 255) if port else b""
        return head + struct.pack(">I", 0) + xdr_string(ua)
    return head + struct.pack(">I", 3)	# PROC_UNAVAIL
class Handler(socketserver.BaseRequestHandler):
    def handle(self):
        f = self.request.makefile("rb")
        while True:
            rec, last = b"", False
            while not last:
                mark = f.read(4)
                if len(mark) < 4:
                    return
                n = struct.unpack(">I", mark)[0]
                last, n = n >> 31, n & 0x7FFFFFFF
                rec += f.read(n)
            out = answer(rec)
            self.request.sendall(struct.pack(">I", 0x80000000 | len(out)) + out)
class Server(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True
Server(("127.0.0.1", 111), Handler).serve_forever()
' "$STATD_PORT" "$NLM" </dev/null >>"$STATE/stub111.log" 2>&1 &
	pid=$!
	disown "$pid"
	echo "$pid" >"$STATE/stub111.pid"
	for ((i = 0; i < 50; i++)); do
		rpcbind_tcp && return 0
		alive "$pid" || break
		sleep 0.1
	done
	die "GANESHA_NLM: nothing answers on 127.0.0.1:111 for ganesha's NSM client: $(tail -n 3 "$STATE/stub111.log")"
}

# GANESHA_NLM: an rpc.statd of this STATE's on port $1, before ganesha (its NSM client
# connects when a lock is first granted), and the stub that tells where it is.
start_statd() {
	local port=$1 pid i
	command -v rpc.statd >/dev/null || die "GANESHA_NLM: rpc.statd not found (apt-get install nfs-common)"
	stop_statd
	mkdir -p "$STATE/statd/sm" "$STATE/statd/sm.bak"
	echo "=== statd $(date '+%F %T') port $port" >>"$STATE/statd.log"
	setsid rpc.statd -F -L -P "$STATE/statd" -p "$port" </dev/null >>"$STATE/statd.log" 2>&1 &
	pid=$!
	disown "$pid"
	echo "$pid" >"$STATE/statd.pid"
	for ((i = 0; i < 50; i++)); do
		if ! alive "$pid"; then
			die "GANESHA_NLM: rpc.statd exited: $(tail -n 3 "$STATE/statd.log")"
		fi
		timeout 1 bash -c ": </dev/tcp/127.0.0.1/$port" 2>/dev/null && break
		sleep 0.1
	done
	((i < 50)) || die "GANESHA_NLM: rpc.statd does not listen on port $port"
	start_stub111
}

stop_statd() {
	local pid i
	pid=$(cat "$STATE/stub111.pid" 2>/dev/null) && alive "$pid" &&
		[[ $(cat "/proc/$pid/comm" 2>/dev/null) == python3 ]] && kill -TERM "$pid" 2>/dev/null
	rm -f "$STATE/stub111.pid"
	pid=$(cat "$STATE/statd.pid" 2>/dev/null) || return 0
	if [[ $(cat "/proc/$pid/comm" 2>/dev/null) == rpc.statd ]]; then
		kill -TERM "$pid" 2>/dev/null || true
		for ((i = 0; i < 30; i++)); do
			alive "$pid" || break
			sleep 0.1
		done
		alive "$pid" && kill -KILL "$pid" 2>/dev/null
	fi
	rm -f "$STATE/statd.pid"
}

# Stop the rpcbind that start_rpcbind started for this STATE, if it still runs. On SIGTERM
# it dumps its registrations (our servers' dead ports) for a warm start, and leaves its
# socket file: both removed (the socket file unless another rpcbind took it over).
stop_rpcbind() {
	local pid i
	pid=$(cat "$STATE/rpcbind.pid" 2>/dev/null) || return 0
	if [[ $(cat "/proc/$pid/comm" 2>/dev/null) == rpcbind ]]; then
		kill -TERM "$pid" 2>/dev/null || true
		for ((i = 0; i < 50; i++)); do
			alive "$pid" || break
			sleep 0.1
		done
		if alive "$pid"; then
			kill -KILL "$pid" 2>/dev/null || true
		fi
		rm -f /run/rpcbind/rpcbind.xdr /run/rpcbind/portmap.xdr
		rpcbind_up || rm -f /run/rpcbind.sock
	fi
	rm -f "$STATE/rpcbind.pid"
}

# Print N (default 2) distinct TCP ports in 20000-60000 that 127.0.0.1 can bind right now.
free_ports() {
	python3 - "${1:-2}" <<'EOF'
import random, socket, sys
found = []
while len(found) < int(sys.argv[1]):
    port = random.randint(20000, 60000)
    if port in found:
        continue
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        s.bind(("127.0.0.1", port))
        found.append(port)
    except OSError:
        pass
    finally:
        s.close()
print(*found)
EOF
}

write_conf() {
	local nfs_port=$1 mnt_port=$2 fsal=${GANESHA_FSAL:-VFS} idmap= nlm='Enable_NLM = false;'
	[[ -z $KRB5DIR ]] || idmap=$'\n\t'"IdmapConf = \"$STATE/idmapd.conf\";"
	[[ -z $NLM ]] || nlm="Enable_NLM = true;"$'\n\t'"NLM_Port = $NLM;"
	# GANESHA_GRACE=N: a grace period of N seconds after a (re)start, leases of
	# GANESHA_LEASE seconds (default N): a restart test's wait. Default: graceless.
	local grace="Graceless = true;"
	[[ -z ${GANESHA_GRACE:-} ]] ||
		grace="Graceless = false; Grace_Period = $GANESHA_GRACE; Lease_Lifetime = ${GANESHA_LEASE:-$GANESHA_GRACE};"
	cat >"$STATE/ganesha.conf" <<EOF
NFS_CORE_PARAM {
	Bind_Addr = 127.0.0.1;
	NFS_Port = $nfs_port;
	MNT_Port = $mnt_port;
	Protocols = 3, 4;
	$nlm
	Enable_RQUOTA = false;
	Enable_UDP = false;
	Mount_Path_Pseudo = true;
	# In NFS_CORE_PARAM: ganesha 4.3 silently ignores it anywhere else (then 1024).
	RPC_Max_Connections = ${GANESHA_MAX_CONNECTIONS:-4096};
}
NFSv4 {
	$grace
	# 4.2 as Linux mounts it; GANESHA_MINOR_VERSIONS="0, 1": a server without it.
	Minor_Versions = ${GANESHA_MINOR_VERSIONS:-0, 1, 2};
	# NFSv4.1 sessions: requests one session carries at once (default 64, at most 1024).
	slot_table_size = ${GANESHA_SLOTS:-1024};
	RecoveryRoot = "$STATE/recovery";$idmap
}
EOF
	if [[ -n $KRB5DIR ]]; then
		write_conf_krb5 "$fsal"
		return
	fi
	cat >>"$STATE/ganesha.conf" <<EOF
NFS_KRB5 {
	Active_krb5 = false;
	CCacheDir = "$STATE/ccache";
}
EOF
	export_block 1 "$EXPORT" /export sys "$fsal" >>"$STATE/ganesha.conf"
}

# export_block ID PATH PSEUDO SECTYPES FSAL: one EXPORT block of the config.
export_block() {
	cat <<EOF
EXPORT {
	Export_Id = $1;
	Path = "$2";
	Pseudo = $3;
	Access_Type = RW;
	Squash = No_Root_Squash;
	SecType = $4;
	Protocols = 3, 4;
	Transports = TCP;
	Attr_Expiration_Time = 0;
	FSAL { Name = $5; }
}
EOF
}

# With GANESHA_KRB5: a private idmapd.conf, Active_krb5 and the two Kerberos-only exports.
write_conf_krb5() {
	local fsal=$1
	# ganesha maps an RPCSEC_GSS principal to a uid through libnfsidmap (nfs4_gss_princ_to_ids),
	# in every NFS version; the static method maps the client principal to root (unmapped:
	# 65534). Without a Domain line the NFSv4 domain is the same as with the system's
	# idmapd.conf (Debian's sets none). Not /etc/idmapd.conf: nothing in /etc is touched.
	cat >"$STATE/idmapd.conf" <<EOF
[General]
Local-Realms = $(krb5_env REALM)
[Translation]
Method = static,nsswitch
[Static]
$(krb5_env CLIENT_PRINCIPAL) = root
EOF
	cat >>"$STATE/ganesha.conf" <<EOF
NFS_KRB5 {
	Active_krb5 = true;
	# ganesha acquires nfs@<host> from the keytab; the keytab holds nfs/127.0.0.1,
	# nfs/localhost and nfs/<hostname>, and krb5.conf's ignore_acceptor_hostname lets
	# a client ask for any of them.
	PrincipalName = "nfs";
	KeytabPath = "$(krb5_env KRB5_KTNAME)";
	CCacheDir = "$STATE/ccache";
}
EOF
	{
		export_block 1 "$EXPORT" /export "krb5, krb5i, krb5p" "$fsal"
		export_block 2 "$STATE/export-p" /krb5p krb5p "$fsal"
	} >>"$STATE/ganesha.conf"
}

# krb5_env KEY: the value of KEY in the realm's env file (GANESHA_KRB5, from tests/kdc.sh).
krb5_env() {
	sed -n "s/^$1=//p" "$KRB5DIR/env"
}

# The log of the latest start attempt, without the routine noise (no dbus, no krb5 unless
# it serves Kerberos, one line per client connection that closed with a reset).
attempt_log() {
	local noise='svc_vc_wait|:DBUS :|krb5|keytab|RADOS'
	[[ -z $KRB5DIR ]] || noise='svc_vc_wait|:DBUS :|RADOS'
	awk '/^=== start/ { buf = "" } { buf = buf $0 "\n" } END { printf "%s", buf }' \
		"$STATE/ganesha.log" 2>/dev/null |
		grep -vE "$noise" || true
}

# Is the server on these ports answering both NFSv3 (with MOUNT) and NFSv4?
answers() {
	local base=nfs://127.0.0.1/export
	if [[ -n $KRB5DIR ]]; then
		timeout 5 python3 - "$1" "$2" <<'EOF' >/dev/null 2>&1
# nfs-ls has no Kerberos, and rpcinfo -n asks rpcbind on port 111 first (ours has none):
# RPC NULL (AUTH_NONE) to NFSv3 and NFSv4, and an AUTH_SYS MOUNT of /export, which MOUNT
# answers whatever the export's flavours (they come in its reply).
import socket, struct, sys
def call(port, prog, vers, proc, args=b"", unix=False):
    cred = struct.pack(">IIIIIII", 1, 20, 0, 0, 0, 0, 0) if unix else struct.pack(">II", 0, 0)
    msg = struct.pack(">IIIIII", 1, 0, 2, prog, vers, proc) + cred + struct.pack(">II", 0, 0) + args
    with socket.create_connection(("127.0.0.1", port), timeout=2) as s:
        s.sendall(struct.pack(">I", 0x80000000 | len(msg)) + msg)
        f = s.makefile("rb")
        data, last = b"", False
        while not last:
            n = struct.unpack(">I", f.read(4))[0]
            last, n = n >> 31, n & 0x7FFFFFFF
            data += f.read(n)
    mtype, rstat, _, vlen = struct.unpack(">IIII", data[4:20])
    off = 20 + (vlen + 3) // 4 * 4
    if mtype != 1 or rstat != 0 or struct.unpack(">I", data[off:off + 4])[0] != 0:
        raise OSError("call refused")
    return data[off + 4:]
nfs, mnt = int(sys.argv[1]), int(sys.argv[2])
call(nfs, 100003, 3, 0)
call(nfs, 100003, 4, 0)
res = call(mnt, 100005, 3, 1, struct.pack(">I", 7) + b"/export\0", True)
sys.exit(struct.unpack(">I", res[:4])[0])
EOF
		return
	fi
	timeout 3 nfs-ls "$base?version=3&nfsport=$1&mountport=$2" >/dev/null 2>&1 &&
		timeout 3 nfs-ls "$base?version=4&nfsport=$1" >/dev/null 2>&1
}

# One attempt on the given ports: 0 = up, 1 = failed, 3 = failed to bind (try other
# ports) or rpcbind gone (stopped by another run meanwhile: start it and try again).
try_start() {
	local nfs_port=$1 mnt_port=$2 pid deadline=$((SECONDS + 10))
	local -a krb5=()
	rm -rf "$STATE/recovery"
	mkdir -p "$EXPORT" "$STATE/recovery" "$STATE/ccache"
	write_conf "$nfs_port" "$mnt_port"
	rm -f "$STATE/ganesha.pid"
	echo "=== start $(date '+%F %T') ports $nfs_port/$mnt_port" >>"$STATE/ganesha.log"
	if [[ -n $KRB5DIR ]]; then
		mkdir -p "$STATE/export-p" "$STATE/rcache"
		krb5=(env "KRB5_CONFIG=$(krb5_env KRB5_CONFIG)" "KRB5_KTNAME=$(krb5_env KRB5_KTNAME)"
			"KRB5RCACHEDIR=$STATE/rcache")
	fi
	# setsid: a test that kills its own process group must not take the server along.
	setsid "${krb5[@]}" ganesha.nfsd -F -f "$STATE/ganesha.conf" -L "$STATE/ganesha.log" \
		-p "$STATE/ganesha.pid" </dev/null >>"$STATE/ganesha.out" 2>&1 &
	pid=$!
	disown "$pid"
	echo "$pid" >"$STATE/pid"
	while ((SECONDS < deadline)); do
		if ! alive "$pid"; then
			attempt_log | grep -qiE 'address already in use|cannot bind' && return 3
			rpcbind_up || return 3
			return 1
		fi
		# A bad config leaves ganesha running without the export: give up at once.
		if attempt_log | grep -q 'CONFIG :CRIT'; then
			break
		fi
		if answers "$nfs_port" "$mnt_port"; then
			GANESHA_PID=$pid
			return 0
		fi
		sleep 0.1
	done
	kill -KILL "$pid" 2>/dev/null || true
	return 1
}

write_env() {
	local nfs_port=$1 mnt_port=$2 base=nfs://127.0.0.1/export
	cat >"$STATE/env" <<EOF
NFS_PORT=$nfs_port
MNT_PORT=$mnt_port${NLM:+
NLM_PORT=$NLM
STATD_PORT=$STATD_PORT}
EXPORT_DIR=$EXPORT
GANESHA_PID=$GANESHA_PID
URL3=$base?version=3&nfsport=$nfs_port&mountport=$mnt_port
URL4=$base?version=4&nfsport=$nfs_port
EOF
	if [[ -n $KRB5DIR ]]; then
		base=nfs://127.0.0.1/krb5p
		cat >>"$STATE/env" <<EOF
URL3P=$base?version=3&nfsport=$nfs_port&mountport=$mnt_port
URL4P=$base?version=4&nfsport=$nfs_port
EOF
	fi
	cat "$STATE/env"
}

# start [NFS_PORT MNT_PORT]: with ports given (restart), keep them; otherwise pick.
start() {
	local ports nfs_port mnt_port attempt fsal rc=1
	[[ $(id -u) == 0 ]] || die "must run as root (ganesha.nfsd needs it)"
	command -v ganesha.nfsd >/dev/null || die "ganesha.nfsd not found (run scripts/deps.sh test)"
	command -v nfs-ls >/dev/null || die "nfs-ls not found (run scripts/deps.sh test)"
	fsal=${GANESHA_FSAL:-VFS}
	if ! compgen -G "/usr/lib/*/ganesha/libfsal${fsal,,}.so" >/dev/null; then
		die "FSAL_$fsal is not installed (apt-get install nfs-ganesha-${fsal,,})"
	fi
	if [[ -n $KRB5DIR && ! -r $KRB5DIR/env ]]; then
		die "no $KRB5DIR/env: start tests/kdc.sh first"
	fi
	if [[ -r $STATE/pid ]] && alive "$(cat "$STATE/pid")" ganesha; then
		die "a server already runs for $STATE (pid $(cat "$STATE/pid"))"
	fi
	for ((attempt = 1; attempt <= 3; attempt++)); do
		# NFSv3 registers with rpcbind at start; ganesha exits (code 2) without it.
		start_rpcbind
		if (($# == 2)); then
			nfs_port=$1 mnt_port=$2
		elif [[ -n $NLM_ON ]]; then
			ports=$(free_ports 4)
			read -r nfs_port mnt_port NLM STATD_PORT <<<"$ports"
		else
			ports=$(free_ports)
			read -r nfs_port mnt_port <<<"$ports"
		fi
		[[ -z $NLM_ON ]] || start_statd "$STATD_PORT"
		rc=0
		try_start "$nfs_port" "$mnt_port" || rc=$?
		((rc == 0)) && break
		((rc == 3)) || break
		# On restart the old ports may take a moment to free up.
		if (($# == 2)); then
			sleep 1
		fi
	done
	if ((rc != 0)); then
		echo "ganesha.sh: nfs-ganesha did not come up on 127.0.0.1:$nfs_port/$mnt_port; log tail:" >&2
		{ attempt_log | grep -E ':(WARN|CRIT|MAJ|FATAL) :' || attempt_log; } | tail -n 15 >&2
		exit 1
	fi
	write_env "$nfs_port" "$mnt_port"
}

stop() {
	local pid i
	stop_statd
	pid=$(cat "$STATE/pid" 2>/dev/null) || return 0
	if alive "$pid" ganesha; then
		kill -TERM "$pid" 2>/dev/null || true
		for ((i = 0; i < 50; i++)); do
			alive "$pid" || break
			sleep 0.1
		done
		if alive "$pid"; then
			kill -KILL "$pid" 2>/dev/null || true
			for ((i = 0; i < 20; i++)); do
				alive "$pid" || break
				sleep 0.1
			done
		fi
	fi
	rm -f "$STATE/pid"
}

(($# == 2)) || usage
if [[ $1 == stop* && ! -d $2 ]]; then
	exit 0
fi
mkdir -p "$2"
STATE=$(cd "$2" && pwd -P)
if [[ $1 == start && -n ${GANESHA_EXPORT:-} ]]; then
	mkdir -p "$GANESHA_EXPORT"
	(cd "$GANESHA_EXPORT" && pwd -P) >"$STATE/export_dir"
elif [[ $1 == start ]]; then
	rm -f "$STATE/export_dir"
fi
EXPORT=$(cat "$STATE/export_dir" 2>/dev/null || echo "$STATE/export")
if [[ $1 == start && -n ${GANESHA_KRB5:-} ]]; then
	[[ -d $GANESHA_KRB5 ]] || die "GANESHA_KRB5=$GANESHA_KRB5 is not a directory"
	(cd "$GANESHA_KRB5" && pwd -P) >"$STATE/krb5_dir"
elif [[ $1 == start ]]; then
	rm -f "$STATE/krb5_dir"
fi
KRB5DIR=$(cat "$STATE/krb5_dir" 2>/dev/null || true)
if [[ $1 == start && -n ${GANESHA_NLM:-} && ${GANESHA_NLM:-} != 0 ]]; then
	echo 1 >"$STATE/nlm_on"
elif [[ $1 == start ]]; then
	rm -f "$STATE/nlm_on"
fi
NLM_ON=$(cat "$STATE/nlm_on" 2>/dev/null || true)
NLM= STATD_PORT=

case $1 in
start) start ;;
stop) stop ;;
stop-rpcbind) stop_rpcbind ;;
restart)
	[[ -r $STATE/env ]] || die "no $STATE/env: nothing to restart"
	nfs_port=$(sed -n 's/^NFS_PORT=//p' "$STATE/env")
	mnt_port=$(sed -n 's/^MNT_PORT=//p' "$STATE/env")
	NLM=$(sed -n 's/^NLM_PORT=//p' "$STATE/env")
	STATD_PORT=$(sed -n 's/^STATD_PORT=//p' "$STATE/env")
	stop
	start "$nfs_port" "$mnt_port"
	;;
*) usage ;;
esac
