#!/usr/bin/env bash
# The native engine (--engine native) against a real nfs-ganesha: NFSv3 and NFSv4.1
# spoken by nfsload itself, on io_uring sockets and on the epoll fallback. Files on
# disk must hold exactly what was written; --verify must be clean; the libnfs and
# native engines must agree on counts and bytes.
# Needs NFSLOAD (the binary), HELPERS (build/tests) and tshark (the engines' latencies
# against the wire's).
set -uo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/capture.sh"
trap '[[ -n $TSHARK_PID ]] && kill -INT "$TSHARK_PID" 2>/dev/null; t_cleanup' EXIT

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

# Bad input: one line naming the option, exit 2, nothing written.
before=$(find "$EXPORT_DIR" | wc -l)
nl --engine libnfs --dir bad -c 1 --rw write --size 1m "$URL41"
check_eq "libnfs with version=4.1: exit 2" 2 "$RC"
check_match "libnfs with version=4.1: says to use the native engine" "version=4.1.*--engine native" "$(cat "$ERR")"
nl --engine native --dir bad -c 2 --connections-per-session 2 --rw write --size 1m "$URL3"
check_eq "sessions over NFSv3: exit 2" 2 "$RC"
check_match "sessions over NFSv3: names the option" "^nfsload: --connections-per-session" "$(cat "$ERR")"
nl --engine native --dir bad -c 6 --connections-per-session 4 --rw write --size 1m "$URL41"
check_eq "a session short of connections: exit 2" 2 "$RC"
check_match "a session short of connections: says what divides what" \
	"--connections \\(6\\) must be a multiple of 4" "$(cat "$ERR")"
nl --engine native --dir bad -c 1 --bs 2m --rw write --size 4m "$URL3"
check_eq "--bs 2m: exit 2" 2 "$RC"
nl --engine native --dir bad -c 1 --uid -1 --rw write --size 1m "$URL3"
check_eq "--uid -1: exit 2" 2 "$RC"
check_eq "bad input: nothing written" "$before" "$(find "$EXPORT_DIR" | wc -l)"

# 16 connections on one NFSv4.1 session: every one carries operations, one session.
nl --engine native --dir trunk -c 16 --connections-per-session 16 -q 4 --rw randrw --bs 4k \
	--size 1m --nrfiles 16 --runtime 2s --verify --output-format json "$URL41"
check_eq "16 connections, 1 session: exit 0" 0 "$RC"
check_eq "16 connections, 1 session: every connection did I/O" 16 \
	"$(jqv '[.connections[] | select(.ops > 0)] | length')"
check_match "16 connections, 1 session: the report says so" \
	"1 session of 16 connections, 66 slots granted" "$(jqv .limits_note)"
check_eq "16 connections, 1 session: setting in JSON" 16 "$(jqv .settings.connections_per_session)"
check_eq "16 connections, 1 session: verify clean" 0 "$(jqv .verify.mismatches)"

# Sessions across threads: 3 sessions of 2 on 2 threads (3 connections each: the second
# session has a member on each), and 1 session of 16 on 2 threads. Each thread hands out
# its own slots of a session; every connection works, the data reads back clean.
nl --engine native --dir split -t 2 -c 6 --connections-per-session 2 -q 4 --rw randrw --bs 4k \
	--size 1m --nrfiles 6 --runtime 1s --verify --output-format json "$URL41"
check_eq "sessions split across threads: exit 0" 0 "$RC"
check_match "sessions split across threads: 3 sessions of 2" "3 sessions of 2 connections" \
	"$(jqv .limits_note)"
check_eq "sessions split across threads: every connection did I/O" 6 \
	"$(jqv '[.connections[] | select(.ops > 0)] | length')"
check_eq "sessions split across threads: no errors" 0 "$(jqv '[.ops[].errors] | add')"
check_eq "sessions split across threads: verify clean" 0 "$(jqv .verify.mismatches)"
nl --engine native --dir trunk2 -t 2 -c 16 --connections-per-session 16 -q 4 --rw randrw \
	--bs 4k --size 1m --nrfiles 16 --runtime 1s --verify --output-format json "$URL41"
check_eq "1 session of 16 on 2 threads: exit 0" 0 "$RC"
check_match "1 session of 16 on 2 threads: one session" "1 session of 16 connections" \
	"$(jqv .limits_note)"
check_eq "1 session of 16 on 2 threads: both threads did I/O" "0 1" \
	"$(jqv '[.connections[] | select(.ops > 0) | .thread] | unique | map(tostring) | join(" ")')"
check_eq "1 session of 16 on 2 threads: every connection did I/O" 16 \
	"$(jqv '[.connections[] | select(.ops > 0)] | length')"
check_eq "1 session of 16 on 2 threads: no errors" 0 "$(jqv '[.ops[].errors] | add')"
check_eq "1 session of 16 on 2 threads: verify clean" 0 "$(jqv .verify.mismatches)"

# A session's connections sharing files (16 connections, 4 files): each OPEN of a file under
# the one open-owner bumps its stateid; READ and WRITE name the current one (seqid 0).
nl --engine native --dir shared -t 1 -c 16 --connections-per-session 16 -q 4 --rw randrw \
	--bs 4k --size 2m --nrfiles 4 --runtime 1s --verify --output-format json "$URL41"
check_eq "16 connections share 4 files on one session: exit 0" 0 "$RC"
check_eq "16 connections share 4 files on one session: no errors" 0 "$(jqv '[.ops[].errors] | add')"
check_eq "16 connections share 4 files on one session: verify clean" 0 "$(jqv .verify.mismatches)"

# More requests than the server grants slots (GANESHA default 64 is raised to 1024 here,
# so ask for more than 1024): the excess waits for a slot, the report warns.
nl --engine native --dir trunk -c 16 --connections-per-session 16 -q 80 --rw randread --bs 4k \
	--size 1m --nrfiles 16 --runtime 1s --keep --output-format json "$URL41"
check_eq "slots exhausted: exit 0" 0 "$RC"
check_match "slots exhausted: a warning with the numbers" \
	"16 connections x iodepth 80 = 1280 requests for 1024 slots" "$(jqv .limits_note)"
check_eq "slots exhausted: no errors" 0 "$(jqv '[.ops[].errors] | add')"

# 64 sessions on 2 threads at once.
nl --engine native --dir many -t 2 -c 64 -q 2 --rw randread --bs 4k --size 256k --nrfiles 64 \
	--runtime 1s --output-format json "$URL41"
check_eq "64 sessions on 2 threads: exit 0" 0 "$RC"
check_match "64 sessions on 2 threads: counted" "64 sessions of 1 connection" "$(jqv .limits_note)"
check_eq "64 sessions on 2 threads: every connection did I/O" 64 \
	"$(jqv '[.connections[] | select(.ops > 0)] | length')"

# More connections than the set-up window (128) on both engines: the window moves on
# from inside a set-up callback (libnfs: under its set-up lock, which it takes again).
for e in libnfs native; do
	nl --engine "$e" --dir wide -t 2 -c 300 -q 1 --rw randread --bs 4k --size 64k --nrfiles 300 \
		--runtime 1s --output-format json "$URL3"
	check_eq "300 connections, $e: exit 0" 0 "$RC"
	check_eq "300 connections, $e: every connection did I/O" 300 \
		"$(jqv '[.connections[] | select(.ops > 0)] | length')"
done

# The two engines agree: the same sequential pass over the same files moves the same
# operations and bytes. (Latencies differ: libnfs wakes once per reply, the native engine
# once per batch; each is its own client's view of the same server.) Each run is
# captured: its latencies are judged against the wire's (tshark's rpc.time, call frame
# to reply frame). A READ's latency runs from before its call is sent to after its reply
# is read, so it holds its time on the wire: the k-th smallest latency is at least the
# k-th smallest rpc.time, for p50 and p90 alike, on either engine. The report gives a
# percentile as its histogram bucket's midpoint, up to half a bucket (1/256 of the value,
# include/hist.h) below the value itself: the bound allows that, nothing for timing.
# wire_pct P: the P-th percentile (nearest rank) of the READ replies' rpc.time, in ns.
wire_pct() {
	capture_read -d "tcp.port==$NFS_PORT,rpc" -Y "rpc.msgtyp == 1 && nfs.procedure_v3 == 6" \
		-T fields -E occurrence=a -E aggregator=, -e rpc.time | tr ',' '\n' | grep -v '^$' |
		sort -g | awk -v p="$1" '{ v[NR] = $1 } END {
			r = p * NR / 100; k = int(r); if (k < r) k++; if (k < 1) k = 1
			printf "%d %d\n", v[k] * 1e9 + 0.5, NR }'
}
for e in libnfs native; do
	capture_start "tcp port $NFS_PORT" || continue
	nl --engine "$e" --dir agree -c 2 -q 4 --rw read --bs 64k --size 8m --nrfiles 2 --keep \
		--output-format json "$URL3"
	capture_stop || continue
	check_eq "agree: $e exit 0" 0 "$RC"
	eval "${e}_ops=\$(jqv .ops.read.count) ${e}_bytes=\$(jqv .ops.read.bytes)"
	for p in 50 90; do
		w=$(wire_pct "$p")
		got=$(jqv ".ops.read.lat_ns.p$p")
		echo "# agree: $e READ p$p $got ns, on the wire $w (ns, replies)"
		check_eq "agree: $e: READ replies on the wire = reads reported" "$(jqv .ops.read.count)" "${w#* }"
		check_ge "agree: $e: READ p$p >= the wire's p$p (${w% *} ns), less half a bucket" \
			"$(( ${w% *} - ${w% *} / 256 ))" "$got"
	done
	capture_explain
done
check_eq "agree: same READ count" "$libnfs_ops" "$native_ops"
check_eq "agree: same bytes" "$libnfs_bytes" "$native_bytes"
check_eq "agree: every byte of both files" $((16 << 20)) "$native_bytes"

# --max-load: fewer wake-ups, same work, and the report says latencies are upper bounds.
nl --engine native --dir agree -c 1 -q 64 --max-load 32 --rw randread --bs 4k --size 8m \
	--nrfiles 2 --runtime 1s --keep "$URL3"
check_eq "--max-load: exit 0" 0 "$RC"
check_match "--max-load: latencies called upper bounds" "latencies are upper bounds" "$(cat "$OUT")"
nl --engine libnfs --dir agree -c 1 -q 64 --max-load 32 --rw randread --bs 4k --size 8m \
	--nrfiles 2 --runtime 1s --output-format json "$URL3"
check_eq "--max-load libnfs: exit 0" 0 "$RC"
check_eq "--max-load libnfs: in the settings" 32 "$(jqv .settings.max_load)"
check_ge "--max-load libnfs: reads done" 100 "$(jqv .ops.read.count)"

# Where a worker thread sleeps, as strace sees it: in its ring (io_uring_enter with a
# wait, GETEVENTS|EXT_ARG), one call per wake that also submits, epoll only when the
# loop's own fds have events (its commands); with NFSLOAD_RING_WAIT=0, in libev's
# epoll_wait and never in the ring. The same reads either way.
# sleep_run TAG [VAR=VALUE...]: sets WAITS, EPOLLS (the worker thread's) and READS.
sleep_run() {
	local tag=$1 tid
	shift
	RC=0
	# (LeakSanitizer cannot run under ptrace: the sanitizer passes check leaks in the
	# other runs.)
	t_run_bounded 120 env "$@" ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
		strace -f -qq -o "$TMP/strace.out" \
		-e trace=io_uring_enter,epoll_wait,epoll_pwait "$NFSLOAD" --quiet --engine native \
		--dir agree -c 1 -q 16 --rw randread --bs 4k --size 8m --nrfiles 2 --runtime 1s \
		--keep --output-format json "$URL3" >"$OUT" 2>"$ERR" || RC=$?
	check_eq "$tag: exit 0" 0 "$RC"
	check_eq "$tag: no errors" 0 "$(jqv .total.errors)"
	# The worker thread: the one with the most io_uring_enter calls.
	tid=$(awk '/io_uring_enter\(/ { n[$1]++ } END { for (t in n) if (n[t] > m) { m = n[t]; w = t }
		print w }' "$TMP/strace.out")
	WAITS=$(grep -c "^$tid .*io_uring_enter(.*IORING_ENTER_EXT_ARG" "$TMP/strace.out")
	EPOLLS=$(grep -cE "^$tid .*epoll_p?wait\(" "$TMP/strace.out")
	READS=$(jqv .ops.read.count)
	echo "# $tag: $READS reads; the worker: $WAITS waits in its ring, $EPOLLS epoll calls"
}
sleep_run "ring wait"
check_ge "ring wait: reads done" 500 "$READS"
check_ge "ring wait: the worker sleeps in its ring" 100 "$WAITS"
check_le "ring wait: the worker's epoll calls are the loop's events only" 20 "$EPOLLS"
sleep_run "libev's wait" NFSLOAD_RING_WAIT=0
check_ge "libev's wait: reads done" 500 "$READS"
check_eq "libev's wait: no sleep in the ring" 0 "$WAITS"
check_ge "libev's wait: the worker sleeps in epoll_wait" 100 "$EPOLLS"

# --batch-wait: with one connection a sleep lasts all of the 10 ms (the replies that
# come meanwhile are one receive), and ganesha answers the 16 reads in flight well
# within it, so the worker thread sleeps about once per 16 reads (its voluntary
# context switches, from the kernel), give or take its commands; every read done, none
# failed. At iodepth 1 nothing is held: a held reply would make each read last 10 ms,
# at most 100 reads in the second.
nl --engine native --dir agree -c 1 -q 16 --rw randread --bs 4k --size 8m --nrfiles 2 \
	--runtime 2s --keep --batch-wait 10ms --output-format json "$URL3"
check_eq "--batch-wait: exit 0" 0 "$RC"
check_eq "--batch-wait: no errors" 0 "$(jqv .total.errors)"
check_ge "--batch-wait: reads done" 1000 "$(jqv .ops.read.count)"
check_eq "--batch-wait: in the settings" 10000000 "$(jqv .settings.batch_wait_ns)"
check_match "--batch-wait: in effect, the note says" "a wake waits up to 10.0 ms" \
	"$(jqv .limits_note)"
echo "# --batch-wait 10ms: $(jqv .cpu.sleeps_per_op) sleeps per read"
check_le "--batch-wait: sleeps per read" 0.3 "$(jqv .cpu.sleeps_per_op)"
check_eq "--batch-wait: the thread's sleeps counted" true "$(jqv '.threads[0].sleeps > 0')"
nl --engine native --dir agree -c 1 -q 1 --rw randread --bs 4k --size 8m --nrfiles 2 \
	--runtime 1s --keep --batch-wait 10ms --output-format json "$URL3"
check_eq "--batch-wait, iodepth 1: exit 0" 0 "$RC"
check_ge "--batch-wait, iodepth 1: no reply held" 300 "$(jqv .ops.read.count)"
nl --engine native --dir agree -c 1 -q 16 --rw randread --bs 4k --size 8m --nrfiles 2 \
	--runtime 1s --keep --output-format json "$URL3"
check_eq "no --batch-wait: exit 0" 0 "$RC"
check_eq "no --batch-wait: 0 in the settings" 0 "$(jqv .settings.batch_wait_ns)"
check_eq "no --batch-wait: sleeps per read reported" true "$(jqv '.cpu.sleeps_per_op > 0')"

# Operations on names (--mix, --small-files) and the work directory, all through the
# native engine: its own control connection (not libnfs's) makes the work directory,
# the trees and their files, and removes them; the error lines are its words.
MIX=read=20,write=10,getattr=15,lookup=5,access=5,setattr=5,readdir=5,create=10,remove=10
MIX=$MIX,mkdir=3,rmdir=3,rename=5,open=4
# Files below DIR in the export that are not N bytes of the pattern nfsload writes.
not_pattern() {
	local f bad=0
	while IFS= read -r f; do
		if [[ $(stat -c %s "$f") != "$2" ]] ||
			! "$HELPERS/helper_pattern" "$f" 0 "$2" >/dev/null; then
			bad=$((bad + 1))
		fi
	done < <(find "$EXPORT_DIR/$1" -type f -name 'f[0-9]*')
	echo "$bad"
}
for ver in 3 41; do
	case $ver in
	3) url=$URL3 name="NFSv3" ports="NFS port $NFS_PORT (given), MOUNT port $MNT_PORT (given)" ;;
	41) url=$URL41 name="NFSv4.1" ports="NFS port $NFS_PORT (given)" ;;
	esac

	# Every operation of the mix, none failing; the tree holds what the counts say.
	nl --engine native --dir "mix$ver" -t 2 -c 2 -q 4 --mix "$MIX" --dirs 2 --files-per-dir 8 \
		--runtime 2s --keep --output-format json "$url"
	check_eq "$name mix: exit 0" 0 "$RC"
	check_eq "$name mix: every operation of the mix ran" 13 \
		"$(jqv '[.ops | to_entries[] | select(.key != "commit" and .value.count > 0)] | length')"
	check_eq "$name mix: no errors" 0 "$(jqv '[.ops[].errors] | add')"
	check_eq "$name mix: the control connection's ports" "$ports" "$(jqv .setup.ports)"
	check_eq "$name mix: files on disk = 2 x 2 x 8 + creates - removes" \
		"$(jqv '32 + .ops.create.count - .ops.remove.count')" \
		"$(find "$EXPORT_DIR/mix$ver" -type f -name 'f[0-9]*' | wc -l)"
	check_eq "$name mix: extra directories on disk = mkdirs - rmdirs" \
		"$(jqv '.ops.mkdir.count - .ops.rmdir.count')" \
		"$(find "$EXPORT_DIR/mix$ver" -type d -name 'x*' | wc -l)"

	# The old tree goes first (READDIR, REMOVE, RMDIR through the control connection);
	# the new files are what the control connection wrote: 5000 bytes of the pattern.
	nl --engine native --dir "mix$ver" -c 2 -q 4 --mix getattr=1,lookup=1 --dirs 2 \
		--files-per-dir 4 --file-size 5000 --runtime 1s --keep --output-format json "$url"
	check_eq "$name mix over an old tree: exit 0" 0 "$RC"
	check_eq "$name mix over an old tree: no errors" 0 "$(jqv '[.ops[].errors] | add')"
	check_eq "$name mix over an old tree: no extra directory left" 0 \
		"$(find "$EXPORT_DIR/mix$ver" -type d -name 'x*' | wc -l)"
	check_eq "$name tree files: 2 x 2 x 4" 16 \
		"$(find "$EXPORT_DIR/mix$ver" -type f -name 'f[0-9]*' | wc -l)"
	check_eq "$name tree files: 5000 bytes of the pattern each" 0 "$(not_pattern "mix$ver" 5000)"

	# Whole-file writes and reads on names (3001 bytes: XDR padding), as on disk.
	nl --engine native --dir "mix$ver" -c 2 -q 4 --mix write=1,read=1 --dirs 2 \
		--files-per-dir 4 --file-size 3001 --runtime 1s --keep --output-format json "$url"
	check_eq "$name whole-file writes and reads: exit 0" 0 "$RC"
	check_eq "$name whole-file writes and reads: no errors" 0 "$(jqv '[.ops[].errors] | add')"
	check_eq "$name whole-file reads: every byte" "$(jqv '.ops.read.count * 3001')" \
		"$(jqv .ops.read.bytes)"
	check_eq "$name whole-file writes: 3001 bytes of the pattern on disk" 0 \
		"$(not_pattern "mix$ver" 3001)"

	# The small-file test: each file created with its data, read whole, stat'ed, removed.
	nl --engine native --dir "small$ver" -t 2 -c 4 -q 4 --small-files 256 --file-size 1k \
		--output-format json "$url"
	check_eq "$name small files: exit 0" 0 "$RC"
	check_eq "$name small files: four passes of 256 files" \
		"create:256 read:256 getattr:256 remove:256" \
		"$(jqv '[.small_files.passes[] | "\(.pass):\(.files)"] | join(" ")')"
	check_eq "$name small files: no errors" 0 "$(jqv '[.small_files.passes[].errors] | add')"
	check_eq "$name small files: every file written and read whole" \
		"$((256 * 1024)) $((256 * 1024))" "$(jqv '"\(.ops.create.bytes) \(.ops.read.bytes)"')"
	# Made and removed through the control connection: nothing left without --keep.
	check "$name small files: the work directory is gone" test ! -e "$EXPORT_DIR/small$ver"
	nl --engine native --dir "gone$ver" -c 2 -q 4 --mix getattr=1,create=1,remove=1,mkdir=1 \
		--dirs 2 --files-per-dir 4 --runtime 1s "$url"
	check_eq "$name mix without --keep: exit 0" 0 "$RC"
	check "$name mix without --keep: the work directory is gone" test ! -e "$EXPORT_DIR/gone$ver"
done
check_eq "names: nothing else left in the export" "mix3 mix41" \
	"$(find "$EXPORT_DIR" -mindepth 1 -maxdepth 1 \( -name 'mix*' -o -name 'small*' \
		-o -name 'gone*' \) -printf '%f\n' | sort | xargs)"
nl --engine native --mix getattr=1 --file-size 2m --runtime 1s "$URL3"
check_eq "names: --file-size over 1 MiB refused, exit 2" 2 "$RC"
check_match "names: the message names the option" "--file-size" "$(cat "$ERR")"
nl --engine native -c 1 --runtime 1s "${URL3/\/export/\/nope}"
check_eq "names: an export that is not there, exit 1" 1 "$RC"
check_match "names: NFSv3 says where to look" "MOUNT of '/nope' refused.*export path" \
	"$(cat "$ERR")"
nl --engine native -c 1 --runtime 1s "${URL41/\/export/\/nope}"
check_eq "names: NFSv4.1, exit 1" 1 "$RC"
check_match "names: NFSv4.1 says where to look" "LOOKUP of the export path failed.*namespace" \
	"$(cat "$ERR")"
nl --engine native -c 1 --runtime 1s "${URL41/nfsport=$NFS_PORT/nfsport=$(t_free_port)}"
check_match "names: nothing listening, says so" "Connection refused at .*is nfsport right" \
	"$(cat "$ERR")"

# Two native engine instances side by side in one process (tests/helper_engines.c): an
# NFSv3 one and an NFSv4.1 one, each on its own thread, read the same file at once, and
# each counts only its own (sessions made, the report's note).
nl --engine native --dir two -c 1 --rw write --bs 64k --size 64k --nrfiles 1 --keep "$URL3"
check_eq "two instances: the file written" 0 "$RC"
out=$("$HELPERS/helper_engines" two "$URL3" "$URL41" 2>&1)
check_eq "two instances: both read every block clean" 0 "$?"
check_match "two instances: NFSv3 reads" 'engine A: reads 256 ok 256 bad 0 lost 0 sessions 0 ' "$out"
check_match "two instances: NFSv4.1 reads" 'engine B: reads 256 ok 256 bad 0 lost 0 sessions 2 ' "$out"
check_match "two instances: the NFSv4.1 one's sessions in its own note" \
	'engine B: .*note "native: .*2 sessions of 1 connection' "$out"
check_eq "two instances: the NFSv3 one's note names no session" "" \
	"$(grep '^engine A' <<<"$out" | grep -o 'session[s]* of')"

t_summary
