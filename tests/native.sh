#!/usr/bin/env bash
# The native engine (--engine native) against a real nfs-ganesha: NFSv3 and NFSv4.1
# spoken by nfsload itself, on io_uring sockets and on the epoll fallback. Files on
# disk must hold exactly what was written; --verify must be clean; the libnfs and
# native engines must agree on counts and bytes.
# Needs NFSLOAD (the binary) and HELPERS (build/tests).
set -uo pipefail
. "$(dirname "$0")/lib.sh"

t_start_server || exit 1
URL41=${URL4/version=4/version=4.1}

# sha256 of a file in the export, or "missing".
sum_of() { sha256sum "$EXPORT_DIR/$1" 2>/dev/null | cut -c1-64 || echo missing; }

# The data pattern a file must hold: what helper_pattern writes for the same seed and id.
for ver in 3 41; do
	case $ver in
	3) url=$URL3 name="NFSv3" ;;
	41) url=$URL41 name="NFSv4.1" ;;
	esac
	for sockets in uring epoll; do
		if [[ $sockets == epoll ]]; then export NFSLOAD_IO_URING=0; else unset NFSLOAD_IO_URING; fi
		tag="$name $sockets"

		# 1 MiB sequential writes, then reads of the same files, then --verify-only.
		nl --engine native --dir "n$ver$sockets" -c 2 -q 4 --rw write --bs 1m --size 8m \
			--nrfiles 2 --verify --keep --output-format json "$url"
		check_eq "$tag: 1 MiB writes + verify: exit 0" 0 "$RC"
		check_eq "$tag: engine named in JSON" native "$(jqv .settings.engine)"
		check_eq "$tag: every byte written" $((16 << 20)) "$(jqv .ops.write.bytes)"
		check_eq "$tag: read back clean" 0 "$(jqv .verify.mismatches)"
		check_eq "$tag: every block checked" $((2 * (8 << 20) / (1 << 20))) \
			"$(jqv .verify.blocks_checked)"
		check_match "$tag: the report says which sockets" \
			"sockets on $([[ $sockets == epoll ]] && echo epoll || echo io_uring)" \
			"$(jqv .limits_note)"
		check_eq "$tag: the file on disk is 8 MiB" $((8 << 20)) \
			"$(stat -c %s "$EXPORT_DIR/n$ver$sockets/file.000000")"

		nl --engine native --dir "n$ver$sockets" -c 2 -q 8 --rw read --bs 1m --size 8m \
			--nrfiles 2 --verify --keep --output-format json "$url"
		check_eq "$tag: 1 MiB reads + verify: exit 0" 0 "$RC"
		check_eq "$tag: every byte read" $((16 << 20)) "$(jqv .ops.read.bytes)"
		check_eq "$tag: reads checked clean" 0 "$(jqv .verify.mismatches)"

		# 4 KiB random reads and writes, 2 threads, 8 connections.
		nl --engine native --dir "r$ver$sockets" -t 2 -c 8 -q 4 --rw randrw --bs 4k \
			--size 4m --nrfiles 4 --runtime 2s --verify --output-format json "$url"
		check_eq "$tag: 4 KiB randrw + verify: exit 0" 0 "$RC"
		check_ge "$tag: reads done" 100 "$(jqv .ops.read.count)"
		check_ge "$tag: writes done" 100 "$(jqv .ops.write.count)"
		check_eq "$tag: no errors" 0 "$(jqv '[.ops[].errors] | add')"
		check_eq "$tag: read back clean" 0 "$(jqv .verify.mismatches)"
	done
done
unset NFSLOAD_IO_URING

t_summary
