#!/usr/bin/env bash
# Runs the libFuzzer targets built by `make fuzz` (see tests/fuzz/README.md).
#   tests/fuzz/run.sh BUILD_DIR SECONDS TARGET...
# Per target: replay tests/fuzz/regress/TARGET/* (each must pass), then fuzz
# for SECONDS from BUILD_DIR/corpus/TARGET (a copy of tests/fuzz/corpus/TARGET,
# which is never written to), with tests/fuzz/TARGET.dict when it exists.
# Crashes go to BUILD_DIR/crashes/TARGET/, logs to BUILD_DIR/TARGET.*.log, the
# table to BUILD_DIR/summary.txt. Exit status 1 when any target crashed.
set -uo pipefail

dir=$1 secs=$2
shift 2
src=tests/fuzz
summary=$dir/summary.txt
failed=0

# libFuzzer's own limits; a sanitizer report or a failed check is a crash.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
unset POSIXLY_CORRECT

# The last "cov: N" / "ft: N" / "corp: N/..." libFuzzer printed.
last_field() { grep -o "$1 [0-9]*" "$2" | tail -1 | awk '{print $2}'; }

printf '%-8s %12s %9s %6s %6s %6s %8s  %s\n' target execs exec/s cov ft corp regress result \
	| tee "$summary"
for t in "$@"; do
	bin=$dir/fuzz_$t
	log=$dir/$t.fuzz.log
	rlog=$dir/$t.regress.log
	crashes=$dir/crashes/$t
	corpus=$dir/corpus/$t
	opts=(-max_total_time="$secs" -timeout=25 -rss_limit_mb=2048 -print_final_stats=1
	      -artifact_prefix="$crashes/")
	[[ -f $src/$t.dict ]] && opts+=(-dict="$src/$t.dict")
	case $t in
	# at full length from the start: the limits are a few kB in
	job) opts+=(-max_len=8192 -len_control=0) ;;	# lines past JOB_LINE_MAX
	url) opts+=(-max_len=2048 -len_control=0) ;;	# URLs past CFG_URL_MAX
	esac
	mkdir -p "$crashes" "$corpus"
	cp -n "$src/corpus/$t"/* "$corpus/" 2>/dev/null
	status=ok

	# 1. the saved crashing inputs, once each
	regress=0
	if compgen -G "$src/regress/$t/*" >/dev/null; then
		regress=$(find "$src/regress/$t" -maxdepth 1 -type f | wc -l)
		if ! "$bin" -runs=1 "${opts[@]}" "$src/regress/$t"/* >"$rlog" 2>&1; then
			status="REGRESSION FAILED (see $rlog)"
			failed=1
		fi
	fi

	# 2. fuzzing
	before=$(find "$crashes" -type f | wc -l)
	if [[ $status == ok ]]; then
		"$bin" "${opts[@]}" "$corpus" >"$log" 2>&1
		rc=$?
		after=$(find "$crashes" -type f | wc -l)
		if ((rc != 0 || after > before)); then
			status="CRASH (exit $rc): $(grep -m1 -o 'Test unit written to .*' "$log" ||
				grep -m1 -o 'SUMMARY: .*' "$log" || echo "see $log")"
			failed=1
		else
			status="ok, no crashes"
		fi
		execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | awk '{print $2}')
		[[ -n $execs ]] || execs=$(grep -o '^#[0-9]*' "$log" | tail -1 | tr -d '#')
		persec=$(grep -o 'stat::average_exec_per_sec: *[0-9]*' "$log" | awk '{print $2}')
		cov=$(last_field cov: "$log") ft=$(last_field ft: "$log") corp=$(last_field corp: "$log")
	else
		execs=- persec=- cov=- ft=- corp=-
	fi
	printf '%-8s %12s %9s %6s %6s %6s %8s  %s\n' "$t" "${execs:-?}" "${persec:-?}" \
		"${cov:-?}" "${ft:-?}" "${corp:-?}" "$regress" "$status" | tee -a "$summary"
	if [[ $status != ok* ]]; then
		echo "---- $t: last lines of the log"
		tail -40 "$( [[ $status == REGRESSION* ]] && echo "$rlog" || echo "$log")"
		echo "----"
	fi
done
echo "fuzz: ${secs}s per target; logs, corpora and crashes in $dir/ (summary: $summary)"
if ((failed)); then
	echo "fuzz: FAILED: a target crashed; keep the input in tests/fuzz/regress/TARGET/"
fi
exit $failed
