#!/usr/bin/env bash
# The newcomer demo: a private nfs-ganesha on loopback, a 10 s mixed run, the report.
#
#   scripts/demo.sh NFSLOAD_BINARY        (make demo does this, as root)
set -euo pipefail

if (($# != 1)); then
	echo "usage: $0 NFSLOAD_BINARY" >&2
	exit 2
fi
nfsload=$1
if [[ ! -x $nfsload ]]; then
	echo "demo.sh: $nfsload is not an executable (build it with make)" >&2
	exit 2
fi

root=$(cd "$(dirname "$0")/.." && pwd)
state=$(mktemp -d "${TMPDIR:-/tmp}/nfsload-demo.XXXXXX")
# shellcheck disable=SC2317  # only called by the EXIT trap
cleanup() {
	"$root/tests/ganesha.sh" stop "$state" || true
	"$root/tests/ganesha.sh" stop-rpcbind "$state" || true # only if it started one
	rm -rf "$state"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

"$root/tests/ganesha.sh" start "$state" >/dev/null
url3=$(sed -n 's/^URL3=//p' "$state/env")

echo "demo: nfsload, 10 s of 70/30 random 4 KiB reads/writes (2 threads, 8 connections," \
	"iodepth 4, --size 64m in 4 files) over NFSv3 to a private nfs-ganesha at $url3"
rc=0
"$nfsload" --threads 2 --connections 8 --iodepth 4 --rw randrw --rwmixread 70 \
	--bs 4k --size 64m --nrfiles 4 --runtime 10s "$url3" || rc=$?
exit "$rc"
