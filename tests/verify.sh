#!/usr/bin/env bash
# --verify against a real nfs-ganesha: every written block carries a header and
# a checksum, reads check them, a write workload is read back at the end; a byte
# flipped in the export directory on disk is reported exactly, exit 3.
# Needs NFSLOAD (the binary) and HELPERS (build/tests).
set -uo pipefail
. "$(dirname "$0")/lib.sh"

t_start_server || exit 1
BLOCKS_16M=$(((16 << 20) / 4096))

# Random writes with --verify: laid out in the block format, written, read back whole.
nl --dir v -t 2 -c 4 -q 4 --rw randwrite --size 16m --nrfiles 2 --runtime 2s --verify --keep \
	--output-format json "$URL3"
check_eq "write+verify: exit 0" 0 "$RC"
check_eq "write+verify: the files were read back" true "$(jqv .verify.pass.ran)"
check_eq "write+verify: every block checked once" $((2 * BLOCKS_16M)) "$(jqv .verify.blocks_checked)"
check_eq "write+verify: read back every byte" $((32 << 20)) "$(jqv .verify.pass.stats.bytes)"
check_eq "write+verify: no mismatch" 0 "$(jqv .verify.mismatches)"
check_ge "write+verify: the random writes happened" 100 "$(jqv .ops.write.count)"
check_eq "write+verify: a block starts with the NFLV header" "NFLV" \
	"$(head -c 4 "$EXPORT_DIR/v/file.000001")"

# Read alone over those files: every read checked as it completes. Through libnfs: the
# blocks the native engine (the default) wrote check out on the other client too.
nl --engine libnfs --dir v -c 2 -q 4 --rw read --size 16m --nrfiles 2 --verify --keep --output-format json "$URL3"
check_eq "read+verify: exit 0" 0 "$RC"
check_eq "read+verify: every block checked in the reads" $((2 * BLOCKS_16M)) "$(jqv .verify.blocks_checked)"
check_eq "read+verify: no read-back pass needed" false "$(jqv .verify.pass.ran)"

# One byte flipped behind the server's back: exactly that block, exit 3.
off=$((4096 * 37 + 1000))
orig=$(od -An -tu1 -j "$off" -N1 "$EXPORT_DIR/v/file.000001" | tr -d ' ')
printf "\\x$(printf %02x $(((orig + 1) % 256)))" |
	dd of="$EXPORT_DIR/v/file.000001" bs=1 seek="$off" conv=notrunc status=none
nl --dir v -c 2 --size 16m --nrfiles 2 --verify-only --output-format json "$URL3"
check_eq "flipped byte: exit 3" 3 "$RC"
check_eq "flipped byte: one mismatch" 1 "$(jqv .verify.mismatches)"
check_eq "flipped byte: that file" 1 "$(jqv '.verify.first[0].file')"
check_eq "flipped byte: that block" $((4096 * 37)) "$(jqv '.verify.first[0].offset')"
check_eq "flipped byte: that byte in the block" 1000 "$(jqv '.verify.first[0].first_diff')"
check_eq "flipped byte: the checksum caught it" checksum "$(jqv '.verify.first[0].kind')"
check_eq "flipped byte: found the byte on disk" $(((orig + 1) % 256)) "$(jqv '.verify.first[0].found_byte')"
check_eq "flipped byte: expected the byte written" "$orig" "$(jqv '.verify.first[0].expected_byte')"
check_match "flipped byte: stderr names file, offset and byte" \
	"verify: file 1 offset 151552 \(block 37\).*first differing byte at \+1000" "$(cat "$ERR")"
check_eq "flipped byte: files kept (verify-only removes nothing)" 2 \
	"$(find "$EXPORT_DIR/v" -name 'file.*' | wc -l)"

nl --dir v -c 2 --size 16m --nrfiles 2 --verify-only --verify-continue --output-format json "$URL3"
check_eq "verify-continue: exit 3" 3 "$RC"
check_eq "verify-continue: every block checked" $((2 * BLOCKS_16M)) "$(jqv .verify.blocks_checked)"
check_eq "verify-continue: still exactly one bad block" 1 "$(jqv .verify.mismatches)"

# A block of another file copied over this one: the header says whose it is.
dd if="$EXPORT_DIR/v/file.000000" of="$EXPORT_DIR/v/file.000001" bs=4096 skip=5 seek=5 count=1 \
	conv=notrunc status=none
nl --dir v -c 1 --size 16m --nrfiles 2 --verify-only --verify-continue --output-format json "$URL3"
check_eq "misplaced block: reported as another file's" 1 "$(jqv .verify.by_kind.file)"
check_eq "misplaced block: at its place" $((4096 * 5)) \
	"$(jqv '[.verify.first[] | select(.kind == "file")][0].offset')"

# Mixed reads and writes: reads during the run are not checked (a write of the same block
# may be in flight), the read-back checks everything.
nl --dir m -t 2 -c 4 -q 8 --rw randrw --bs 2k --size 4m --nrfiles 4 --runtime 2s --verify \
	--output-format json "$URL4"
check_eq "randrw+verify v4: exit 0" 0 "$RC"
check_eq "randrw+verify v4: read back whole" $((4 * (4 << 20) / 2048)) "$(jqv .verify.blocks_checked)"
check_eq "randrw+verify v4: no mismatch" 0 "$(jqv .verify.mismatches)"

# A clean 1 GiB sequential write with --verify, read back: zero mismatches. (The
# sanitizer builds, which the Makefile marks with SAN, fill and check 256 MiB: the same
# code, a quarter of the bytes, a minute less of CI.)
per_file=256m files=4
if [[ -n ${SAN:-} ]]; then
	per_file=64m
fi
total=$(($(numfmt --from=iec "${per_file^^}") * files))
nl --dir big -t 2 -c 4 -q 8 --rw write --bs 64k --size "$per_file" --nrfiles "$files" --verify \
	--output-format json "$URL3"
check_eq "$((total >> 20)) MiB write+verify: exit 0" 0 "$RC"
check_eq "$((total >> 20)) MiB write+verify: all written" "$total" "$(jqv .ops.write.bytes)"
check_eq "$((total >> 20)) MiB write+verify: all read back" "$total" "$(jqv .verify.pass.stats.bytes)"
check_eq "$((total >> 20)) MiB write+verify: every block checked" $((total / 65536)) "$(jqv .verify.blocks_checked)"
check_eq "$((total >> 20)) MiB write+verify: zero mismatches" 0 "$(jqv .verify.mismatches)"
check_eq "$((total >> 20)) MiB write+verify: cleaned up" 0 "$(find "$EXPORT_DIR" -path '*big*' | wc -l)"

# Files laid out without --verify: every block the run did not write is reported, with a hint.
nl --dir plain -c 2 --size 4m --nrfiles 2 --io-size 4k --keep "$URL3"
nl --dir plain -c 2 --rw write --size 4m --nrfiles 2 --io-size 64k --verify --verify-continue \
	--output-format json "$URL3"
check_eq "plain files: exit 3" 3 "$RC"
check_eq "plain files: only the blocks not written by the run are bad" \
	$((2 * (4 << 20) / 4096)) "$(($(jqv .verify.mismatches) + $(jqv '.ops.write.count')))"
check_eq "plain files: all for want of a header" "$(jqv .verify.mismatches)" "$(jqv .verify.by_kind.magic)"
check_match "plain files: a hint says why" "hint: every bad block lacks a header" "$(cat "$ERR")"

# Bad input and nothing to check: refused before anything is written.
nl --dir w -c 1 --bs 32 --size 1m --verify "$URL3"
check_eq "verify bs 32: exit 2" 2 "$RC"
check_match "verify bs 32: names the option" "^nfsload: --bs: at least 64 bytes with --verify" "$(cat "$ERR")"
nl --dir w -c 1 --bs 4k --size 10k --verify "$URL3"
check_eq "verify partial block: exit 2" 2 "$RC"
nl --dir w -c 1 --size 1m --verify-only --runtime 2s "$URL3"
check_eq "verify-only with runtime: exit 2" 2 "$RC"
nl --dir nothing-here -c 1 --size 1m --verify-only "$URL3"
check_eq "verify-only, no files: exit 1" 1 "$RC"
check_match "verify-only, no files: says so" "--verify-only: no nfsload work directory" "$(cat "$ERR")"
check_eq "verify-only, no files: nothing created" "" "$(ls "$EXPORT_DIR" | grep -x 'nothing-here')"
check_eq "bad input: nothing written" "" "$(ls "$EXPORT_DIR" | grep -x w)"

t_summary
