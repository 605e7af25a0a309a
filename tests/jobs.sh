#!/usr/bin/env bash
# Job files and sweeps against a real nfs-ganesha: phases in order, reported
# each and together, files kept between phases and removed after the last;
# sweeps as one table; bad job files name the file and line, touch nothing; an op the
# engine or the URL's NFS version lacks is refused at the start.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

t_start_server || exit 1
J=$TMP/job
mkdir -p "$J"

cat >"$J/two.job" <<'JOB'
; lay out and write, then read back
[global]
dir = jobdir
size = 2m
nrfiles = 2
connections = 2
iodepth = 4

[phase write]
rw = write
bs = 64k
skip-layout = 1

[phase read]
rw = randread
runtime = 1s
JOB
nl --job "$J/two.job" --output-format json "$URL3"
check_eq "job: exit 0" 0 "$RC"
check_eq "job: two runs, in order" "write read" "$(jqv '[.runs[].name] | join(" ")')"
check_eq "job: the write phase wrote the file set once" $((4 << 20)) "$(jqv '.runs[0].report.ops.write.bytes')"
check_eq "job: the read phase found the files written (no layout)" false "$(jqv '.runs[1].report.layout.ran')"
check_ge "job: the read phase read" 1 "$(jqv '.runs[1].report.ops.read.count')"
check_eq "job: a summary row per run" 2 "$(jqv '.summary | length')"
check "job: the work directory is removed after the last run" test ! -e "$EXPORT_DIR/jobdir"

nl --job "$J/two.job" --keep "$URL3"
check_eq "job text: exit 0" 0 "$RC"
check_match "job text: each run reported" "=== run 1 of 2: write.*=== run 2 of 2: read" "$(tr '\n' ' ' <"$OUT")"
check_match "job text: the summary table" "job summary, 2 runs" "$(cat "$OUT")"
check "job --keep: files stay" test -f "$EXPORT_DIR/jobdir/file.000001"
files_ok=$("$HELPERS/helper_pattern" "$EXPORT_DIR/jobdir/file.000001" 1 $((2 << 20)) && echo yes)
check_eq "job --keep: the written data is byte-exact" yes "$files_ok"

# A sweep: one run per value, one table.
nl --dir sweep -c 2 -q 4 --rw randrw --size 2m --runtime 1s --sweep rwmixread=100,50,0 \
	--output-format json "$URL3"
check_eq "sweep: exit 0" 0 "$RC"
check_eq "sweep: three points" "100 50 0" "$(jqv '[.summary[].sweep_value] | join(" ")')"
check_eq "sweep: 100% reads writes nothing" 0 "$(jqv '.summary[0].write_iops')"
check_eq "sweep: 0% reads reads nothing" 0 "$(jqv '.summary[2].read_iops')"
check_eq "sweep: 50% does both" true "$(jqv '.summary[1] | .read_iops > 0 and .write_iops > 0')"
check "sweep: its directory is removed" test ! -e "$EXPORT_DIR/sweep"
# "--conn" (an abbreviation of --connections) in a sweep: config_parse once pointed the
# job's word at a string of its own, which the job then freed (crash, found by fuzzing).
nl --dir sweepconn --conn 2 -q 2 --rw randread --size 1m --runtime 1s --sweep bs=4k,8k \
	--output-format json "$URL3"
check_eq "sweep with --conn 2: exit 0" 0 "$RC"
check_eq "sweep with --conn 2: 2 connections in each run" "2 2" \
	"$(jqv '[.runs[].report.settings.connections] | join(" ")')"

# --compare: the kernel's client (--engine local on a path) and then nfsload's on the URL,
# one table. No kernel NFS mount here: the path is the export directory itself, so both
# phases work on the same files, the second through the server.
nl --compare "$EXPORT_DIR" --engine native --dir cmp -c 2 -q 4 --rw randrw --bs 4k --size 2m \
	--nrfiles 2 --runtime 1s --verify --output-format json "$URL3"
check_eq "compare: exit 0" 0 "$RC"
check_eq "compare: the kernel's run, then nfsload's" "kernel nfsload" \
	"$(jqv '[.summary[].name] | join(" ")')"
check_eq "compare: the engines" "local native" "$(jqv '[.runs[].report.settings.engine] | join(" ")')"
check_eq "compare: the kernel's run on the path" "$EXPORT_DIR" "$(jqv '.runs[0].report.settings.path')"
check_eq "compare: both read and wrote" true \
	"$(jqv '[.summary[] | .read_iops > 0 and .write_iops > 0] | all')"
check_eq "compare: the client's CPU per op in the table" true \
	"$(jqv '[.summary[] | .cpu_us_per_op > 0] | all')"
check_eq "compare: verify clean on both" "0 0" "$(jqv '[.runs[].report.verify.mismatches] | join(" ")')"
check "compare: the work directory is removed" test ! -e "$EXPORT_DIR/cmp"
nl --compare "$EXPORT_DIR" --rw randread
check_eq "compare without a URL: exit 2" 2 "$RC"
check_match "compare without a URL: says so" "^nfsload: --compare .*also give the URL" "$(cat "$ERR")"
nl --compare "$EXPORT_DIR" --sweep bs=4k,8k "$URL3"
check_eq "compare with --sweep: exit 2" 2 "$RC"

# A metadata mix over each connection's own tree: every operation counted; the
# tree holds exactly what creates and removes say; removed afterwards.
MIX=read=20,write=10,getattr=15,lookup=5,access=5,setattr=5,readdir=5,create=10,remove=10
MIX=$MIX,mkdir=3,rmdir=3,rename=5,open=4
nl --dir meta -t 2 -c 2 -q 4 --mix "$MIX" --dirs 2 --files-per-dir 8 --runtime 2s --keep \
	--output-format json "$URL3"
check_eq "mix: exit 0" 0 "$RC"
# A READDIR racing a create or remove in the same directory can fail inside
# libnfs (it looks up entries the listing named); every other operation must not.
check_eq "mix: no errors (but racing READDIRs)" 0 \
	"$(jqv '[.ops | to_entries[] | select(.key != "readdir") | .value.errors] | add')"
check_eq "mix: every operation of the mix ran" 13 \
	"$(jqv '[.ops | to_entries[] | select(.key != "commit" and .value.count > 0)] | length')"
check_eq "mix: procedures named" "GETATTR READDIRPLUS RENAME" \
	"$(jqv '[.ops.getattr.procedure, .ops.readdir.procedure, .ops.rename.procedure] | join(" ")')"
check_eq "mix: files on disk = 2 x 2 x 8 + creates - removes" \
	"$(jqv '32 + .ops.create.count - .ops.remove.count')" \
	"$(find "$EXPORT_DIR/meta" -type f -name 'f[0-9]*' | wc -l)"
check_eq "mix: extra directories on disk = mkdirs - rmdirs" \
	"$(jqv '.ops.mkdir.count - .ops.rmdir.count')" "$(find "$EXPORT_DIR/meta" -type d -name 'x*' | wc -l)"
nl --dir meta -c 2 -q 4 --mix getattr=1,create=1,remove=1 --dirs 2 --files-per-dir 8 --runtime 1s "$URL3"
check_eq "mix without --keep: exit 0" 0 "$RC"
check "mix without --keep: the trees are removed" test ! -e "$EXPORT_DIR/meta/c0"
nl --mix read=1,frobnicate=2 --runtime 1s "$URL3"
check_eq "mix: unknown operation, exit 2" 2 "$RC"
check_match "mix: the message names it" "--mix: 'frobnicate' is not an operation" "$(cat "$ERR")"
nl --engine libnfs --mix create=1 --runtime 1s -q 4 "$URL4"
check_eq "mix: parallel NFSv4 OPENs refused, exit 2" 2 "$RC"
check_match "mix: the refusal names the engine that can" "use --engine native" "$(cat "$ERR")"
nl --dir v4mix --mix create=1 --runtime 1s -q 4 "$URL4"
check_eq "mix: parallel NFSv4.1 OPENs on the native engine (the default), exit 0" 0 "$RC"

# The small-file test: create (written whole), read, stat, delete, each timed.
nl --dir small -t 2 -c 4 -q 4 --small-files 256 --file-size 1k --keep --output-format json "$URL3"
check_eq "small files: exit 0" 0 "$RC"
check_eq "small files: four passes of 256 files" "create:256 read:256 getattr:256 remove:256" \
	"$(jqv '[.small_files.passes[] | "\(.pass):\(.files)"] | join(" ")')"
check_eq "small files: no errors" 0 "$(jqv '[.small_files.passes[].errors] | add')"
check_eq "small files: every file written and read whole" "$((256 * 1024)) $((256 * 1024))" \
	"$(jqv '"\(.ops.create.bytes) \(.ops.read.bytes)"')"
check_eq "small files: files/s per pass" true "$(jqv '[.small_files.passes[].files_s > 0] | all')"
check_eq "small files: the delete pass leaves no file" 0 "$(find "$EXPORT_DIR/small" -name 'f[0-9]*' | wc -l)"
nl --dir small2 -c 2 -q 2 --small-files 32 --file-size 2k "$URL3"
check_match "small files text: the table" "small files: 32 of 2.00 KiB" "$(cat "$OUT")"
check "small files: nothing left without --keep" test ! -e "$EXPORT_DIR/small2"
nl --small-files 8 --mix read=1 --runtime 1s "$URL3"
check_eq "small files with --mix: exit 2" 2 "$RC"

# An op the engine or the URL's version lacks (NFSv4.2's on version=3, version=4.1, libnfs):
# refused at the start with one line naming it, what has it and what the run lacks, exit
# 2, nothing written; a job file's phase likewise.
before=$(find "$EXPORT_DIR" | sort | md5sum)
has42="NFSv4.2 (version=4.2 or version=4 in the URL) and the native engine"
nl --dir v42 --mix read=1,read_plus=1 --runtime 1s "$URL3"
check_eq "v4.2 ops: read_plus on version=3, exit 2" 2 "$RC"
check_eq "v4.2 ops: version=3's one line" \
	"nfsload: --mix: read_plus needs $has42, not version=3" "$(cat "$ERR")"
nl --dir v42 --mix seek=1,getattr=1 --runtime 1s "${URL4/version=4/version=4.1}"
check_eq "v4.2 ops: seek on version=4.1, exit 2" 2 "$RC"
check_eq "v4.2 ops: version=4.1's one line" \
	"nfsload: --mix: seek needs $has42, not version=4.1" "$(cat "$ERR")"
nl --dir v42 --engine libnfs --mix setxattr=1 --runtime 1s "$URL4"
check_eq "v4.2 ops: setxattr on libnfs, exit 2" 2 "$RC"
check_eq "v4.2 ops: libnfs's one line" \
	"nfsload: --mix: setxattr needs $has42, not version=4 (NFSv4.0 on libnfs) with --engine libnfs" \
	"$(cat "$ERR")"
printf '[global]\ndir = v42\nruntime = 1s\n\n[phase a]\nmix = getattr=1\n\n[phase b]\nmix = copy=1\n' \
	>"$J/v42.job"
nl --job "$J/v42.job" "$URL3"
check_eq "v4.2 ops: a job file's phase with copy on version=3, exit 2" 2 "$RC"
check "v4.2 ops: the job file's line names copy" grep -qF "copy needs $has42, not version=3" "$ERR"
check_eq "v4.2 ops: refused before anything is written" "$before" "$(find "$EXPORT_DIR" | sort | md5sum)"

# Bad job files: FILE:LINE, exit 2, nothing written.
before=$(find "$EXPORT_DIR" | sort | md5sum)
printf '[global]\nsize = 1m\n\n[phase a]\nbogus = 1\n' >"$J/key.job"
nl --job "$J/key.job" "$URL3"
check_eq "bad key: exit 2" 2 "$RC"
check_match "bad key: file and line" "key.job:5: unknown key 'bogus'" "$(cat "$ERR")"
printf '[global]\nsize = 1m\n[phase a]\nbs = 4q\n' >"$J/value.job"
nl --job "$J/value.job" "$URL3"
check_eq "bad value: exit 2" 2 "$RC"
check_match "bad value: file, line and option" "value.job:4: --bs: '4q' is not a size" "$(cat "$ERR")"
printf '[global]\nsize = 1m\n[mystery]\nbs = 4k\n' >"$J/section.job"
nl --job "$J/section.job" "$URL3"
check_eq "bad section: exit 2" 2 "$RC"
check_match "bad section: file and line" "section.job:3: unknown section" "$(cat "$ERR")"
nl --job "$J/missing.job" "$URL3"
check_eq "missing job file: exit 2" 2 "$RC"
check_eq "bad job files: nothing written to the server" "$before" "$(find "$EXPORT_DIR" | sort | md5sum)"

t_summary
