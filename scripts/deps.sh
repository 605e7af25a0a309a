#!/usr/bin/env bash
# Install the Debian packages nfsload needs, only those missing.
#
#   scripts/deps.sh [build|test|demo|bench|mpi|fuzz]      (default: build)
#
# As root: apt-get installs what is missing (apt-get update only then). Not root and
# something missing: one line saying what to run, exit 1. Silent when all is present.
set -euo pipefail

what=${1:-build}
# libkrb5-dev: GSS-API (MIT Kerberos) for the native engine's RPCSEC_GSS (sec=krb5, krb5i, krb5p).
# libpcap-dev: reads pcap/pcapng captures for --trace-summary (src/trace/).
build_pkgs=(gcc make pkg-config libnfs-dev libev-dev zlib1g-dev libinih-dev libxxhash-dev libtirpc-dev
	liburing-dev libjansson-dev libkrb5-dev libpcap-dev libzstd-dev)
# What tests/ganesha.sh needs for a private server: ganesha.nfsd, its VFS FSAL, rpcbind,
# nfs-ls (libnfs-utils) to see it answer, python3 to find free ports. The rest of what it
# and scripts/demo.sh run comes with every Debian system (coreutils, util-linux, mount, mawk).
server_pkgs=(nfs-ganesha nfs-ganesha-vfs rpcbind libnfs-utils python3)
# tshark: tests/wire.sh reads what went over loopback with Wireshark's dissectors.
# strace: tests/native.sh sees in which system call a worker thread sleeps.
# nfs-common: rpc.statd, the NSM that GANESHA_NLM's server needs to grant NLM locks (tests/nlm.sh).
# libopenmpi-dev, openmpi-bin: the MPI build (make MPI=1) and tests/mpi.sh's mpirun.
mpi_pkgs=(libopenmpi-dev openmpi-bin)
# krb5-kdc, krb5-admin-server, krb5-user: tests/kdc.sh's realm for GANESHA_KRB5 (tests/krb5.sh);
# libfaketime: tests/krb5.sh's KDC an hour ahead of the server.
krb5_pkgs=(krb5-kdc krb5-admin-server krb5-user libfaketime)
# clang and libclang-rt-14-dev (libclang_rt.fuzzer-x86_64.a, libFuzzer on Debian 12): make fuzz.
fuzz_pkgs=(clang libclang-rt-14-dev)
test_pkgs=("${server_pkgs[@]}" libcmocka-dev nfs-ganesha-mem jq procps tshark strace zstd nfs-common
	"${mpi_pkgs[@]}" "${krb5_pkgs[@]}")

case $what in
build) pkgs=("${build_pkgs[@]}") ;;
demo) pkgs=("${build_pkgs[@]}" "${server_pkgs[@]}") ;;
mpi) pkgs=("${build_pkgs[@]}" "${mpi_pkgs[@]}") ;;
test) pkgs=("${build_pkgs[@]}" "${test_pkgs[@]}" chromium) ;; # chromium: the HTML report test
bench) pkgs=("${build_pkgs[@]}" "${test_pkgs[@]}" time) ;;
fuzz) pkgs=("${build_pkgs[@]}" "${fuzz_pkgs[@]}") ;;
*)
	echo "usage: $0 [build|test|demo|bench|mpi|fuzz]" >&2
	exit 2
	;;
esac

missing=()
for pkg in "${pkgs[@]}"; do
	status=$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null) || status=
	if [[ $status != "install ok installed" ]]; then
		missing+=("$pkg")
	fi
done
if ((${#missing[@]} == 0)); then
	exit 0
fi

if [[ $(id -u) != 0 ]]; then
	echo "missing packages: ${missing[*]}; run: sudo apt-get install -y ${missing[*]}" >&2
	exit 1
fi

echo "deps.sh: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q "${missing[@]}"
