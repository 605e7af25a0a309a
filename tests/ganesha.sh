#!/usr/bin/env bash
# A private nfs-ganesha on 127.0.0.1 for tests and the demo.
#
#   tests/ganesha.sh start   STATEDIR   start on two free ports, export STATEDIR/export
#   tests/ganesha.sh stop    STATEDIR   SIGTERM, then SIGKILL after 5 s (idempotent)
#   tests/ganesha.sh restart STATEDIR   stop, then start on the same ports, data kept
#
# On success STATEDIR/env holds (and stdout shows) NFS_PORT, MNT_PORT, EXPORT_DIR,
# GANESHA_PID, URL3 and URL4 as plain KEY=VALUE lines: the URLs contain '&', so read the
# lines (e.g. sed -n 's/^URL3=//p'), do not source the file. The URLs carry nfsport= and
# mountport=, so clients never ask rpcbind (one per machine, shared with any other
# ganesha) where to go.
# GANESHA_FSAL=MEM uses FSAL_MEM (keeps only the first 2 MiB of each file) instead of VFS.
# Needs root, nfs-ganesha, nfs-ganesha-vfs (or -mem), rpcbind, libnfs-utils, python3.
set -euo pipefail

usage() {
	echo "usage: $0 start|stop|restart STATEDIR" >&2
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

# Print two distinct TCP ports in 20000-60000 that 127.0.0.1 can bind right now.
free_ports() {
	python3 - <<'EOF'
import random, socket
found = []
while len(found) < 2:
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
	local nfs_port=$1 mnt_port=$2 fsal=${GANESHA_FSAL:-VFS}
	cat >"$STATE/ganesha.conf" <<EOF
NFS_CORE_PARAM {
	Bind_Addr = 127.0.0.1;
	NFS_Port = $nfs_port;
	MNT_Port = $mnt_port;
	Protocols = 3, 4;
	Enable_NLM = false;
	Enable_RQUOTA = false;
	Enable_UDP = false;
	Mount_Path_Pseudo = true;
}
NFS_RPC_Ctl {
	RPC_Max_Connections = 4096;
}
NFSv4 {
	Graceless = true;
	RecoveryRoot = "$STATE/recovery";
}
NFS_KRB5 {
	Active_krb5 = false;
	CCacheDir = "$STATE/ccache";
}
EXPORT {
	Export_Id = 1;
	Path = "$STATE/export";
	Pseudo = /export;
	Access_Type = RW;
	Squash = No_Root_Squash;
	SecType = sys;
	Protocols = 3, 4;
	Transports = TCP;
	Attr_Expiration_Time = 0;
	FSAL { Name = $fsal; }
}
EOF
}

# The log of the latest start attempt, without the routine noise (no dbus, no krb5,
# one line per client connection that closed with a reset).
attempt_log() {
	awk '/^=== start/ { buf = "" } { buf = buf $0 "\n" } END { printf "%s", buf }' \
		"$STATE/ganesha.log" 2>/dev/null |
		grep -vE 'svc_vc_wait|:DBUS :|krb5|keytab|RADOS' || true
}

# Is the server on these ports answering both NFSv3 (with MOUNT) and NFSv4?
answers() {
	local base=nfs://127.0.0.1/export
	timeout 3 nfs-ls "$base?version=3&nfsport=$1&mountport=$2" >/dev/null 2>&1 &&
		timeout 3 nfs-ls "$base?version=4&nfsport=$1" >/dev/null 2>&1
}

# One attempt on the given ports: 0 = up, 1 = failed, 3 = failed to bind (try other ports).
try_start() {
	local nfs_port=$1 mnt_port=$2 pid deadline=$((SECONDS + 10))
	rm -rf "$STATE/recovery"
	mkdir -p "$STATE/export" "$STATE/recovery" "$STATE/ccache"
	write_conf "$nfs_port" "$mnt_port"
	rm -f "$STATE/ganesha.pid"
	echo "=== start $(date '+%F %T') ports $nfs_port/$mnt_port" >>"$STATE/ganesha.log"
	# setsid: a test that kills its own process group must not take the server along.
	setsid ganesha.nfsd -F -f "$STATE/ganesha.conf" -L "$STATE/ganesha.log" \
		-p "$STATE/ganesha.pid" </dev/null >>"$STATE/ganesha.out" 2>&1 &
	pid=$!
	disown "$pid"
	echo "$pid" >"$STATE/pid"
	while ((SECONDS < deadline)); do
		if ! alive "$pid"; then
			attempt_log | grep -qiE 'address already in use|cannot bind' && return 3
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
MNT_PORT=$mnt_port
EXPORT_DIR=$STATE/export
GANESHA_PID=$GANESHA_PID
URL3=$base?version=3&nfsport=$nfs_port&mountport=$mnt_port
URL4=$base?version=4&nfsport=$nfs_port
EOF
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
	if [[ -r $STATE/pid ]] && alive "$(cat "$STATE/pid")" ganesha; then
		die "a server already runs for $STATE (pid $(cat "$STATE/pid"))"
	fi
	# NFSv3 registers with rpcbind at start; ganesha exits (code 2) without it.
	if ! pgrep -x rpcbind >/dev/null; then
		rpcbind -w 2>/dev/null || rpcbind || die "cannot start rpcbind"
	fi
	for ((attempt = 1; attempt <= 3; attempt++)); do
		if (($# == 2)); then
			nfs_port=$1 mnt_port=$2
		else
			ports=$(free_ports)
			read -r nfs_port mnt_port <<<"$ports"
		fi
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
if [[ $1 == stop && ! -d $2 ]]; then
	exit 0
fi
mkdir -p "$2"
STATE=$(cd "$2" && pwd -P)

case $1 in
start) start ;;
stop) stop ;;
restart)
	[[ -r $STATE/env ]] || die "no $STATE/env: nothing to restart"
	nfs_port=$(sed -n 's/^NFS_PORT=//p' "$STATE/env")
	mnt_port=$(sed -n 's/^MNT_PORT=//p' "$STATE/env")
	stop
	start "$nfs_port" "$mnt_port"
	;;
*) usage ;;
esac
