#!/usr/bin/env bash
# The fuzz targets' checks as a test suite, without fuzzing: builds the
# targets (clang, as `make fuzz`) and runs each once over every input of
# tests/fuzz/corpus/TARGET/ and tests/fuzz/regress/TARGET/. One line per
# target: "ok - fuzz TARGET: ..." when every input passes the target's checks,
# "FAIL - fuzz TARGET: <the check that failed>" when one does not. For the
# mutants (tests/mutants/fuzz-*.patch): deterministic, a few seconds a target.
#   tests/fuzz/check.sh [TARGET...]     (default: $FUZZ_CHECK, else every target)
# FUZZ_CHECK="nfs3 gss" limits it as arguments do (a mutant's "# env:" line).
set -uo pipefail
cd "$(dirname "$0")/../.."

all=$(sed -n 's/^FUZZ_TARGETS := //p' Makefile)
targets=${*:-${FUZZ_CHECK:-$all}}
bins=()
for t in $targets; do
	bins+=("build-fuzz/fuzz_$t")
done
if ! make -s "${bins[@]}" >build-fuzz.check.log 2>&1; then
	tail -20 build-fuzz.check.log
	echo "FAIL - fuzz: the targets do not build (see build-fuzz.check.log)"
	exit 1
fi
rm -f build-fuzz.check.log
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
unset POSIXLY_CORRECT

failed=0
for t in $targets; do
	dirs=()
	n=0
	for d in tests/fuzz/corpus/$t tests/fuzz/regress/$t; do
		if [[ -d $d ]]; then
			dirs+=("$d")
			n=$((n + $(find "$d" -maxdepth 1 -type f | wc -l)))
		fi
	done
	log=build-fuzz/$t.check.log
	# -runs=0: the inputs are run once each (as the corpus is loaded), nothing more
	if build-fuzz/fuzz_$t -runs=0 -timeout=25 -rss_limit_mb=2048 -artifact_prefix=build-fuzz/check- "${dirs[@]}" >"$log" 2>&1; then
		echo "ok - fuzz $t: $n inputs pass its checks"
	else
		why=$(grep -m1 -E 'check failed|runtime error|ERROR: AddressSanitizer|ERROR: LeakSanitizer|SUMMARY' "$log")
		echo "FAIL - fuzz $t: ${why:-see $log}"
		failed=1
	fi
done
exit $failed
