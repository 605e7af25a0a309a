#!/usr/bin/env bash
# The local engine (--engine local) on directories of this machine, no server:
# what was asked is what was done (counts, bytes), files hold exactly the bytes
# nfsload writes, --verify is clean, the work directory is created and removed
# (or kept) like on NFS, --direct works where the filesystem has direct I/O and
# is refused before anything is written where it has none; bad paths, URLs and
# engine mix-ups are usage errors (exit 2, one line).
# Needs NFSLOAD (the binary) and HELPERS (build/tests).
set -uo pipefail
. "$(dirname "$0")/lib.sh"

D=$TMP/local
mkdir -p "$D"
fstype=$(stat -f -c %T "$D")
echo "# $D is on $fstype"

# Files of the work directory that are not SIZE bytes of the pattern for their id (each
# 4 KiB block stamped with file and block: a block 64 KiB off is seen).
not_pattern() {
	local f id bad=0
	for f in "$D/$1"/file.*; do
		id=$((10#${f##*.}))
		if [[ $(stat -c %s "$f") != "$2" ]] ||
			! "$HELPERS/helper_pattern" "$f" "$id" "$2" >/dev/null; then
			bad=$((bad + 1))
		fi
	done
	echo "$bad"
}
# One line on stderr, naming WHAT.
one_line() { [[ $(wc -l <"$ERR") == 1 ]] && grep -q -- "$1" "$ERR"; }

# Sequential 64 KiB writes, kept: every byte on disk is the pattern.
nl --engine local --dir seq --rw write --bs 64k --size 4m --nrfiles 3 -c 3 -t 2 -q 4 \
	--keep --output-format json "$D"
check_eq "seq write: exit 0" 0 "$RC"
check_eq "seq write: writes = size / bs x files" 192 "$(jqv .ops.write.count)"
check_eq "seq write: bytes = size x files" $((3 * 4 << 20)) "$(jqv .ops.write.bytes)"
check_eq "seq write: no errors" 0 "$(jqv '[.ops[].errors] | add')"
check_eq "seq write: engine named" local "$(jqv .settings.engine)"
check_eq "seq write: path reported" "$D" "$(jqv .settings.path)"
check_eq "seq write: no URL, no NFS version in the JSON" "null null" \
	"$(jqv '"\(.settings.url) \(.settings.nfs_version)"')"
check_eq "seq write: three files of the pattern" 0 "$(not_pattern seq $((4 << 20)))"
check_eq "seq write: --keep keeps the work directory and its marker" "yes yes" \
	"$([[ -d $D/seq ]] && echo yes) $([[ -f $D/seq/.nfsload-owner ]] && echo yes)"

# The same files read back sequentially: every byte moved, nothing written.
nl --engine local --dir seq --rw read --bs 128k --size 4m --nrfiles 3 -c 3 -q 2 --keep \
	--output-format json "$D"
check_eq "seq read: exit 0" 0 "$RC"
check_eq "seq read: reads = size / bs x files" 96 "$(jqv .ops.read.count)"
check_eq "seq read: bytes" $((3 * 4 << 20)) "$(jqv .ops.read.bytes)"
check_eq "seq read: no layout (the files were whole)" 0 "$(jqv '.layout.bytes // 0')"
check_eq "seq read: files unchanged" 0 "$(not_pattern seq $((4 << 20)))"

# Text report: the path where an NFS run prints its URL; nothing of NFS.
nl --engine local --dir seq --rw read --size 4m --nrfiles 3 --keep "$D"
check_eq "text report: exit 0" 0 "$RC"
check_match "text report: header names the path and the engine" \
	"^nfsload [^,]+, $D \(engine local\), read" "$(head -1 "$OUT")"
check_eq "text report: no NFS version, no URL" 0 "$(grep -c -e NFSv -e 'nfs://' "$OUT")"
check_match "text report: the filesystem beneath" "engine: local, filesystem " "$(cat "$OUT")"

# Write then read back with --verify, work directory removed at the end.
nl --engine local --dir ver --rw write --bs 16k --size 2m --nrfiles 2 -c 2 -q 8 --verify \
	--output-format json "$D"
check_eq "verify write: exit 0" 0 "$RC"
check_eq "verify write: writes" 256 "$(jqv .ops.write.count)"
check_eq "verify write: read back clean" 0 "$(jqv .verify.mismatches)"
check_eq "verify write: every block checked" 256 "$(jqv .verify.blocks_checked)"
check_eq "verify write: work directory gone without --keep" no \
	"$([[ -e $D/ver ]] && echo yes || echo no)"

# Random read/write with --verify, several threads and connections, --commit-every.
nl --engine local --dir rnd --rw randrw --bs 4k --size 1m --nrfiles 4 -t 2 -c 4 -q 8 \
	--io-size 8m --commit-every 16 --verify --output-format json "$D"
check_eq "randrw: exit 0" 0 "$RC"
check_eq "randrw: no errors" 0 "$(jqv '[.ops[].errors] | add')"
check_eq "randrw: reads + writes = io-size / bs" 2048 \
	"$(jqv '.ops.read.count + .ops.write.count')"
check_eq "randrw: bytes = io-size" $((8 << 20)) "$(jqv '.ops.read.bytes + .ops.write.bytes')"
check_ge "randrw: fsyncs (COMMIT) issued" 1 "$(jqv .ops.commit.count)"
check_eq "randrw: verify clean" 0 "$(jqv .verify.mismatches)"
check_eq "randrw: 4 connections on 2 threads" "4 2" \
	"$(jqv '"\(.settings.connections) \(.settings.threads)"')"
check_match "randrw: writes say fsync" "fsync after every 16 writes" \
	"$(jqv .settings.write_stability)"
check_eq "randrw: work directory gone" no "$([[ -e $D/rnd ]] && echo yes || echo no)"

# --sync: files opened O_SYNC; timed.
nl --engine local --dir syn --rw randwrite --size 1m -q 4 --runtime 1s --sync --verify \
	--output-format json "$D"
check_eq "sync: exit 0" 0 "$RC"
check_ge "sync: writes" 1 "$(jqv .ops.write.count)"
check_eq "sync: no errors" 0 "$(jqv '[.ops[].errors] | add')"
check_eq "sync: verify clean" 0 "$(jqv .verify.mismatches)"
check_match "sync: writes say O_SYNC" "O_SYNC" "$(jqv .settings.write_stability)"

# HTML report: the path, and no empty server.
nl --engine local --dir htm --rw randread --size 1m --io-size 1m --report "$TMP/r.html" "$D"
check_eq "html: exit 0" 0 "$RC"
check_match "html: the path in the header" "<div class=\"url\">$D</div>" "$(cat "$TMP/r.html")"
check_eq "html: nothing of NFS" 0 "$(grep -c -e NFSv -e 'nfs://' "$TMP/r.html")"

# --direct where the filesystem has direct I/O (O_DIRECT through an unnamed file), as
# nfsload judges it: tmpfs takes O_DIRECT since Linux 6.6 but is refused all the same
# (its files are the page cache), so a $TMP on tmpfs is a skip, not a failure.
if [[ $fstype != tmpfs ]] &&
	python3 -c 'import os, sys; os.close(os.open(sys.argv[1], os.O_TMPFILE | os.O_RDWR | os.O_DIRECT))' \
	"$D" 2>/dev/null; then
	nl --engine local --dir dio --rw randrw --bs 4k --size 1m --nrfiles 2 -c 2 -q 8 \
		--io-size 4m --direct --verify --output-format json "$D"
	check_eq "direct: exit 0" 0 "$RC"
	check_eq "direct: reads + writes" 1024 "$(jqv '.ops.read.count + .ops.write.count')"
	check_eq "direct: no errors" 0 "$(jqv '[.ops[].errors] | add')"
	check_eq "direct: verify clean" 0 "$(jqv .verify.mismatches)"
	check_eq "direct: reported" "true O_DIRECT, no fsync" \
		"$(jqv '"\(.settings.direct) \(.settings.write_stability)"')"
	nl --engine local --dir dio --rw write --bs 1000 --size 1000k --direct "$D"
	check_eq "direct: --bs not a multiple of the block size: exit 2" 2 "$RC"
	check "direct: --bs named" one_line "--bs: a multiple of"
	check_eq "direct: nothing created for a refused --bs" no \
		"$([[ -e $D/dio ]] && echo yes || echo no)"
else
	t_skip "direct: runs with --direct" "$D is on $fstype, which has no direct I/O (only the refusals are tested)"
fi

# --direct on tmpfs: refused before anything is written, one line, exit 2.
if [[ -d /dev/shm && $(stat -f -c %T /dev/shm) == tmpfs ]]; then
	shm=$(mktemp -d /dev/shm/nfsload-local.XXXXXX)
	nl --engine local --rw write --size 1m --direct "$shm"
	check_eq "direct on tmpfs: exit 2" 2 "$RC"
	check "direct on tmpfs: one line naming --direct" one_line "^nfsload: --direct: '$shm'"
	check_eq "direct on tmpfs: nothing created" "" "$(ls -A "$shm")"
	rm -rf "$shm"
else
	t_skip "direct on tmpfs: refused" "no tmpfs at /dev/shm"
fi

# Bad paths, URLs, engines: exit 2, one line, before anything.
nl --engine local --rw write --size 1m "$D/missing"
check_eq "missing path: exit 2" 2 "$RC"
check "missing path: one line" one_line "'$D/missing': No such file"
: >"$D/a-file"
nl --engine local --rw write --size 1m "$D/a-file"
check_eq "a file, not a directory: exit 2" 2 "$RC"
check "a file: one line" one_line "is not a directory"
nl --engine local --rw write --size 1m "nfs://127.0.0.1/export"
check_eq "a URL to --engine local: exit 2" 2 "$RC"
check "a URL: one line naming the other engines" one_line "not a URL.*--engine native or libnfs"
for e in native libnfs; do
	nl --engine "$e" --rw write --size 1m "$D"
	check_eq "a path to --engine $e: exit 2" 2 "$RC"
	check "a path to --engine $e: one line naming --engine local" one_line "--engine local"
	nl --engine "$e" --direct "nfs://127.0.0.1/export"
	check_eq "--direct with --engine $e: exit 2" 2 "$RC"
	check "--direct with --engine $e: one line" one_line "^nfsload: --direct: only with --engine local"
done
nl --engine local --mix read=1 --runtime 1s "$D"
check_eq "--mix with --engine local: exit 2" 2 "$RC"
check "--mix: one line" one_line "^nfsload: --mix: not with --engine local"
nl --engine local
check_eq "no path: exit 2" 2 "$RC"
check_eq "nothing left in the directory but what the test made" "a-file seq" \
	"$(ls -A "$D" | tr '\n' ' ' | sed 's/ $//')"

# The owner marker policy holds here too: a foreign, non-empty directory is refused.
mkdir -p "$D/foreign" && echo keep >"$D/foreign/data"
nl --engine local --dir foreign --rw write --size 1m "$D"
check_eq "foreign directory: refused" 1 "$RC"
check_eq "foreign directory: untouched" "data keep" \
	"$(ls -A "$D/foreign" | tr '\n' ' ')$(cat "$D/foreign/data")"

t_summary
