#!/usr/bin/env bash
# The shipped presets (jobs/*.job) end to end against a real nfs-ganesha, at a
# tiny scale (--size, --runtime on the command line win over the files):
# every phase runs and the summary tables have the right rows.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

JOBS=$(cd "$(dirname "$0")/../jobs" && pwd)
t_start_server || exit 1
. "$(dirname "$0")/capture.sh"
trap '[[ -n $TSHARK_PID ]] && kill -INT "$TSHARK_PID" 2>/dev/null; t_cleanup' EXIT
# Headers only: what is judged is the TCP payload each way, not its contents.
CAP_SNAPLEN=128

# phases_without_io: the phases (by name) that did not do the I/O their settings ask
# for: reads when rw reads (rwmixread > 0 in a mix), writes when it writes, none of a
# kind they do not ask for, every byte in a full --bs operation; a small-file phase,
# files in every pass; a --mix phase, every operation of its mix, and no other, each
# write of a whole --file-size file, reads of at most that (a file the mix created
# is empty until a write) and not all of nothing. Without it a preset whose phases
# did nothing passed: exit 0, no errors, the right rows, "reads only at 100" with no
# reads at all.
phases_without_io() {
	jqv '[[.summary, .runs] | transpose[] | .[0].name as $name | .[1].report as $r
		| $r.settings as $s
		| (if ($s.rw | test("^(rand)?read$")) then 100
		   elif ($s.rw | test("^(rand)?write$")) then 0 else $s.rwmixread end) as $pr
		| if (($s.mix // "") != "") then
			($s.mix | split(",") | map(split("=")[0]) | sort) as $want
			| ([$r.ops | to_entries[] | select(.value.count > 0) | .key] | sort) as $got
			| select($want != $got or $r.ops.read.bytes > $r.ops.read.count * $s.file_size
				 or ($r.ops.read.count > 0 and $r.ops.read.bytes == 0)
				 or $r.ops.write.bytes != $r.ops.write.count * $s.file_size)
			| "\($name) (--mix \($s.mix)): ops done \($got | join(",")), \($r.ops.read.bytes) bytes read in \($r.ops.read.count), \($r.ops.write.bytes) written in \($r.ops.write.count)"
		  else
			select(if (($r.small_files.passes // []) | length > 0)
			 then ([$r.small_files.passes[].files > 0] | all | not)
			 else (($pr > 0) != ($r.ops.read.count > 0)) or (($pr < 100) != ($r.ops.write.count > 0))
			   or $r.ops.read.bytes != $r.ops.read.count * $s.bs
			   or $r.ops.write.bytes != $r.ops.write.count * $s.bs end)
			| "\($name) (\($s.rw), \($pr)% reads): \($r.ops.read.count) reads, \($r.ops.write.count) writes"
		  end]
		| join("; ")'
}

# wire_short: the phases whose bytes on the wire fall short of what they report (judged
# outside nfsload: a capture of the job, headers only). Phases run one after the other,
# each on TCP connections of its own, made before its measured window: a connection
# belongs to the phase in whose time its first bytes went, a phase's time running from
# the end of the one before (its report's start_unix_ns + duration_ns; not the next
# one's start_unix_ns: a small-file phase's is its last pass's) to its own end. All
# of a connection's bytes count for its phase, those after the phase's end too (a
# write in flight at the stop, counted by the worker that had not seen the stop yet).
# The TCP payload to the server's NFS port must carry at least the bytes the phase's
# writes report, the payload from it at least those its reads report (headers, the
# layout's writes and the calls in flight at the stop only add), and more than nothing
# each way the phase asks for (a small-file phase writes its files whole in its first
# pass, files x file_size bytes, and reads them back).
wire_short() {
	capture_read -o tcp.desegment_tcp_streams:FALSE -Y "tcp.len > 0" -T fields \
		-e frame.time_epoch -e tcp.stream -e tcp.dstport -e tcp.len >"$TMP/wire-bytes"
	jqv '[.summary, .runs] | transpose[] | .[0].name as $name | .[1].report
		| ((.small_files.passes // []) | length) as $sf
		| (.settings.rw // "") as $rw
		| [$name, .start_unix_ns + .duration_ns, .ops.read.bytes,
		   (if $sf > 0 then .small_files.passes[0].files * .settings.file_size
		    else .ops.write.bytes end),
		   $sf > 0 or (($rw | test("read|rw")) and .settings.rwmixread != 0),
		   $sf > 0 or (($rw | test("read$")) | not)] | @tsv' >"$TMP/phases"
	awk -F'\t' -v port="$NFS_PORT" -v n=0 '
		NR == FNR { name[n] = $1; end[n] = $2 / 1e9; rd[n] = $3; wr[n] = $4
			    wantr[n] = $5 == "true"; wantw[n] = $6 == "true"; n++; next }
		!($2 in phase) { for (i = 0; i < n - 1 && $1 >= end[i]; i++) ;
				 phase[$2] = i }
		{ i = phase[$2]; if ($3 == port) up[i] += $4; else down[i] += $4 }
		END { for (i = 0; i < n; i++)
			if (up[i] < wr[i] || down[i] < rd[i] || (wantw[i] && up[i] == 0) || (wantr[i] && down[i] == 0))
				printf "%s: %.0f bytes to the server for %.0f written, %.0f back for %.0f read; ",
					name[i], up[i], wr[i], down[i], rd[i] }' "$TMP/phases" "$TMP/wire-bytes"
}

# preset JOB ARGS...: the job at a tiny scale against $PRESET_URL (default the NFSv3 URL).
preset() {
	local job=$1 short
	shift
	capture_start "tcp port $NFS_PORT" || return 1
	nl --job "$JOBS/$job" --size 2m --runtime 1s --dir "preset-${job%.job}" "$@" \
		--output-format json "${PRESET_URL:-$URL3}"
	capture_stop
	check_eq "$job: exit 0" 0 "$RC"
	check_eq "$job: no errors" 0 "$(jqv '[.summary[].errors] | add')"
	check_eq "$job: every phase did the I/O it asks for" "" "$(phases_without_io)"
	short=$(wire_short)
	check_eq "$job: every phase's bytes on the wire, each way, at least those it reports" "" "$short"
	capture_explain
}

preset large-sequential.job
check_eq "large-sequential: write then read" "write read" "$(jqv '[.summary[].name] | join(" ")')"
check_eq "large-sequential: the steady-state verdict in each" true \
	"$(jqv '[.runs[].report.steady_state.verdict | length > 0] | all')"
# The shortest run its comment promises a verdict for (6 s: 3 intervals of 2 s;
# the README's 10 s gives 5), not "too few intervals", in each phase. The size
# does not matter to a time-based run.
nl --job "$JOBS/large-sequential.job" --size 2m --runtime 6s --dir preset-large-sequential-6s \
	--output-format json "$URL3"
check_eq "large-sequential, 6 s: exit 0" 0 "$RC"
check_eq "large-sequential, 6 s: every phase did the I/O it asks for" "" "$(phases_without_io)"
check_eq "large-sequential, 6 s: a steady-state verdict in each phase" "true true" \
	"$(jqv '[.runs[].report.steady_state | .valid and .intervals >= 3] | map(tostring) | join(" ")')"

# 20 runs: 300 ms each (a later --runtime wins) is enough for the table's shape.
preset volume-limits.job --runtime 300ms
check_eq "volume-limits: 4 block sizes x 5 mixes" 20 "$(jqv '.summary | length')"
check_eq "volume-limits: rows per mix" "100 75 50 25 0" \
	"$(jqv '[.summary[] | select(.name | startswith("rand-4k")) | .sweep_value] | join(" ")')"
check_eq "volume-limits: reads only at 100, writes only at 0" true \
	"$(jqv '[.summary[] | select(.sweep_value == "100") | .write_iops == 0] + [.summary[] | select(.sweep_value == "0") | .read_iops == 0] | all')"
check_eq "volume-limits: 48 streams over 16 connections" "48 16" \
	"$(jqv '.runs[0].report.settings | "\(.nrfiles) \(.connections)"')"

preset container-volume.job
check_eq "container-volume: six phases" "seq-write seq-read sync-write rand-read rand-write mixed-70-30" \
	"$(jqv '[.summary[].name] | join(" ")')"
# Time-based: the writes in flight at the stop (4 connections x 1) get no COMMIT.
check_eq "container-volume: a COMMIT after every write in the synchronized test" true \
	"$(jqv '.runs[2].report.ops | .commit.count > 0 and .commit.count <= .write.count and .commit.count >= .write.count - 4')"
check_eq "container-volume: 70/30 mix on 4 workers" "70 4" \
	"$(jqv '.runs[5].report.settings | "\(.rwmixread) \(.threads)"')"

preset appliance.job
check_eq "appliance: big file, then the small-file test" "big-write big-read small-files" \
	"$(jqv '[.summary[].name] | join(" ")')"
check_eq "appliance: 8192 files of 1 KiB in each pass" "8192 8192 8192 8192" \
	"$(jqv '[.runs[2].report.small_files.passes[].files | tostring] | join(" ")')"
check "appliance: nothing left behind" test ! -e "$EXPORT_DIR/preset-appliance"

# The state presets: over NFSv4.1 (their held opens), a small tree (--dirs,
# --files-per-dir win over the files' SPEC sizes) and small back-end files.
PRESET_URL=${URL4/version=4/version=4.1}
preset swbuild.job --dirs 2 --files-per-dir 10
check_eq "swbuild: one phase, the SWBUILD mix" \
	"build getattr=70,access=6,setattr=5,read=6,write=7,mkdir=1,remove=2,create=1,readdir=2" \
	"$(jqv '"\(.summary[0].name) \(.runs[0].report.settings.mix)"')"
check_eq "swbuild: 5 connections, each holding its 64 opens at the end" "5 320" \
	"$(jqv '.runs[0].report | "\(.settings.connections) \(.state.held_opens)"')"
check "swbuild: nothing left behind (trees and held files)" test ! -e "$EXPORT_DIR/preset-swbuild"

preset eda.job --dirs 2 --files-per-dir 10 --size 256k
check_eq "eda: the front end's mix, then the back end's 50/50 stream" \
	"frontend getattr=39,access=15,write=25,read=15,create=2,remove=2,mkdir=1,setattr=1; backend readwrite 50" \
	"$(jqv '[.summary, .runs] | transpose | map(.[1].report.settings as $s | "\(.[0].name) \(if ($s.mix // "") != "" then $s.mix else "\($s.rw) \($s.rwmixread)" end)") | join("; ")')"
check_eq "eda: the front end's 3 connections hold their 64 opens each" 192 \
	"$(jqv '.runs[0].report.state.held_opens')"
check "eda: nothing left behind" test ! -e "$EXPORT_DIR/preset-eda"
unset PRESET_URL

t_summary
