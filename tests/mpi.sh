#!/usr/bin/env bash
# The MPI build (make MPI=1: build-mpi/nfsload) under mpirun, on this host, against the
# private nfs-ganesha: one nfsload per rank, each in a work directory of its own, the
# measured phases started together, one report from rank 0 whose counts are the sum of
# the ranks' and whose percentiles are those of the ranks' buckets added by hand (jq);
# 2 and 3 ranks; CSV, the HdrHistogram log and the HTML report of the merged run. Without
# mpirun the MPI build is the single-host tool. --job and --merge are refused in one line.
# Judged outside nfsload too: the merged READ and WRITE operations and bytes against the
# calls tshark sees in the ranks' measured windows.
# mpirun refuses root unless told (OMPI_ALLOW_RUN_AS_ROOT*): the tests run as root.
# Needs NFSLOAD_MPI (the MPI build), NFSLOAD, jq, mpirun (openmpi-bin), tshark.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

MPI_BIN=${NFSLOAD_MPI:-}
if [[ ! -x $MPI_BIN ]] || ! command -v mpirun >/dev/null; then
	t_fail "the MPI build and mpirun" "NFSLOAD_MPI='$MPI_BIN' (make test builds it), mpirun: $(command -v mpirun)"
	t_summary
	exit 1
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# Shared memory between ranks on one host; no warnings about a missing network.
export OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=none
t_start_server || exit 1
. "$(dirname "$0")/capture.sh"
trap '[[ -n $TSHARK_PID ]] && kill -INT "$TSHARK_PID" 2>/dev/null; t_cleanup' EXIT

# mpi NP ARGS...: mpirun -np NP the MPI build, bounded; stdout $OUT, stderr $ERR, $RC.
mpi() {
	local np=$1
	shift
	RC=0
	t_run_bounded 120 mpirun -np "$np" --oversubscribe "$MPI_BIN" --quiet "$@" >"$OUT" 2>"$ERR" ||
		RC=$?
}

for np in 2 3; do
	name="mpirun -np $np"
	M=$TMP/np$np.json
	capture_start "tcp port $NFS_PORT"
	mpi "$np" --engine native --dir "mpi$np" -c 2 -q 4 --rw randrw --bs 4k --size 2m \
		--nrfiles 2 --runtime 2s --keep --output-format json --output "$M" "$URL3"
	capture_stop
	check_eq "$name: exit 0" 0 "$RC"
	ranks=()
	for ((r = 0; r < np; r++)); do ranks+=("$M.rank$r"); done
	# The merged totals against the wire: every operation a rank counted was sent in its
	# measured window; besides, only what was in flight at a rank's stop (not counted: at
	# most connections x iodepth = 8 a rank, of 4 KiB each).
	read -r _ wr_n wr_b _ ww_n ww_b <<<"$(capture_wire_io "${ranks[@]}")"
	echo "# $name: merged vs the wire: read $(jq .ops.read.ops "$M") of $wr_n, write $(jq .ops.write.ops "$M") of $ww_n"
	for op in read:$wr_n:$wr_b write:$ww_n:$ww_b; do
		IFS=: read -r o wn wb <<<"$op"
		check_ge "$name: the wire: $o calls in the windows ($wn) >= the merged $o operations" \
			"$(jq ".ops.$o.ops + .ops.$o.errors" "$M")" "$wn"
		check_ge "$name: the wire: $o bytes asked in the windows ($wb) >= the merged $o bytes" \
			"$(jq ".ops.$o.bytes" "$M")" "$wb"
	done
	check_le "$name: the wire: calls beyond the merged operations, at most the $((np * 8)) in flight at the stops" \
		$((np * 8)) "$((wr_n + ww_n - $(jq '[.ops.read, .ops.write | .ops + .errors] | add' "$M")))"
	check_le "$name: the wire: bytes beyond the merged bytes, at most $((np * 8)) x 4 KiB" $((np * 8 * 4096)) \
		"$((wr_b + ww_b - $(jq '.ops.read.bytes + .ops.write.bytes' "$M")))"
	capture_explain
	check_eq "$name: each rank's own report next to --output" "$np" \
		"$(jq -s 'length' "${ranks[@]}" 2>/dev/null)"
	check_eq "$name: one row per rank" "$(seq -s ' ' 0 $((np - 1)) | sed 's/[0-9]\+/rank &/g')" \
		"$(jq -r '[.inputs[].file] | join(" ")' "$M")"
	for op in read write; do
		check_eq "$name: $op ops == the sum of the ranks'" \
			"$(jq -s "[.[].ops.$op.ops] | add" "${ranks[@]}")" "$(jq ".ops.$op.ops" "$M")"
		for p in 50:p50 99:p99; do
			check_eq "$name: $op ${p#*:} from the ranks' buckets added by hand" \
				"$(t_merged_pct "$op" "${p%%:*}" "${ranks[@]}")" \
				"$(jq ".ops.$op.lat_ns[\"${p#*:}\"]" "$M")"
		done
	done
	check_eq "$name: every rank did I/O" "$np" "$(jq '[.inputs[] | select(.ops > 0)] | length' "$M")"
	check_eq "$name: the interval series merged too" true "$(jq .series_merged "$M")"
	check_eq "$name: ops per interval and op are the ranks' sums" \
		"$(jq -s -c '[.[].series[] | {i: ((.start_ns / 1000000000) | round), op, ops}] |
			group_by([.i, .op]) | map([.[0].i, .[0].op, (map(.ops) | add)])' "${ranks[@]}")" \
		"$(jq -c '[.series[] | [(.start_ns / 1000000000 | round), .op, .ops]]' "$M")"
	# The barrier: every rank's measured window overlaps every other's.
	check_eq "$name: the ranks' measured phases overlap" true \
		"$(jq -s '[.[] | [.start_unix_ns, .start_unix_ns + .duration_ns]] as $w |
			[$w[] as $a | $w[] as $b | $a[0] < $b[1] and $b[0] < $a[1]] | all' "${ranks[@]}")"
	dirs=$(cd "$EXPORT_DIR" && ls -d "mpi$np"-rank* 2>/dev/null | tr '\n' ' ')
	check_eq "$name: a work directory per rank" \
		"$(for ((r = 0; r < np; r++)); do printf 'mpi%s-rank%s ' "$np" "$r"; done)" "$dirs"
done

# Text: one report, a row per rank; without --keep the ranks' directories go.
mpi 2 --engine libnfs --dir mpitext -c 1 -q 2 --rw randread --bs 4k --size 1m --nrfiles 1 \
	--runtime 1s "$URL3"
check_eq "text: exit 0" 0 "$RC"
check_match "text: one merged report" "2 MPI ranks' reports merged" "$(head -1 "$OUT")"
check_eq "text: a row per rank" 2 "$(grep -c '^rank [01] ' "$OUT")"
check_eq "text: the ranks' work directories are gone" "" \
	"$(cd "$EXPORT_DIR" && ls -d mpitext* 2>/dev/null)"

# CSV, the HdrHistogram log and the HTML report: the merged run, rank 0 writes them.
mpi 2 --engine native --dir mpicsv -c 1 -q 2 --rw randread --bs 4k --size 1m --nrfiles 1 \
	--runtime 2s --output-format csv --hdr-log "$TMP/mpi.hlog" --output "$TMP/mpi.csv" \
	--report "$TMP/mpi.html" "$URL3"
check_eq "csv + hdr-log + report: exit 0" 0 "$RC"
check "html: renders in Chromium, not blank" "$(dirname "$0")/check_html.sh" "$TMP/mpi.html" \
	"$TMP/mpi.png"
check_match "html: says what it merged" "2 MPI ranks&#39;? reports merged|2 MPI ranks' reports merged" \
	"$(cat "$TMP/mpi.html")"
check_eq "html: the reads in its totals are the ranks' sum" \
	"$(jq -s '[.[].ops.read.ops] | add' "$TMP/mpi.csv.rank0" "$TMP/mpi.csv.rank1")" \
	"$(grep -o '<th class="l">read</th><td>[0-9]*' "$TMP/mpi.html" | grep -o '[0-9]*$')"
check_eq "csv: the ops per interval are the ranks' sums" \
	"$(jq -s -r '[.[].series[] | {i: ((.start_ns / 1000000000) | round), ops}] | group_by(.i) |
		map(map(.ops) | add) | .[]' "$TMP/mpi.csv.rank0" "$TMP/mpi.csv.rank1")" \
	"$(tail -n +2 "$TMP/mpi.csv" | cut -d, -f4)"
check_eq "hdr-log: the same counts, read back by an independent decoder" \
	"$(tail -n +2 "$TMP/mpi.csv" | cut -d, -f4)" \
	"$(python3 "$(dirname "$0")/hdrlog_decode.py" "$TMP/mpi.hlog" | jq -r .count)"

# A rank that cannot start (its work directory is someone else's): the others do not wait
# for it at the start; they stop and clean up; exit 1, said once.
mkdir -p "$EXPORT_DIR/fail-rank1"
echo theirs >"$EXPORT_DIR/fail-rank1/data"
mpi 2 --engine native --dir fail -c 1 -q 2 --rw randread --bs 4k --size 1m --nrfiles 1 \
	--runtime 5s "$URL3"
check_eq "a rank that cannot start: exit 1" 1 "$RC"
check_match "a rank that cannot start: says so" "a rank failed before the measured phase" \
	"$(cat "$ERR")"
check_eq "a rank that cannot start: the other rank's directory is gone" "" \
	"$(cd "$EXPORT_DIR" && ls -d fail-rank0 2>/dev/null)"
check_eq "a rank that cannot start: the foreign directory untouched" "data" \
	"$(ls "$EXPORT_DIR/fail-rank1")"

# Not merged across ranks yet: refused, one line, exit 2, nothing written.
for args in "--job /dev/null" "--merge $TMP/np2.json"; do
	# shellcheck disable=SC2086
	mpi 2 --engine native --dir refused -c 1 --rw read --size 1m $args "$URL3"
	check_eq "mpirun with ${args%% *}: exit 2" 2 "$RC"
	check_match "mpirun with ${args%% *}: says why" "with mpirun" "$(cat "$ERR")"
done
check_eq "refused runs wrote nothing" "" "$(cd "$EXPORT_DIR" && ls -d refused* 2>/dev/null)"

# The MPI build without mpirun: the single-host tool.
RC=0
t_run_bounded 60 "$MPI_BIN" --quiet --engine native --dir single -c 1 -q 2 --rw randread \
	--bs 4k --size 1m --nrfiles 1 --runtime 1s --output-format json "$URL3" >"$OUT" 2>"$ERR" || RC=$?
check_eq "without mpirun: exit 0" 0 "$RC"
check_eq "without mpirun: a run's own report" native "$(jq -r .settings.engine "$OUT")"
check_eq "without mpirun: its work directory has no rank" "" \
	"$(cd "$EXPORT_DIR" && ls -d single-rank* 2>/dev/null)"

t_summary
