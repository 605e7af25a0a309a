#!/usr/bin/env bash
# Mutants: deliberately broken builds that the suite must catch (run by hand, not in CI).
#
#   tests/mutants.sh [-l] [MUTANT...]     MUTANT: a tests/mutants/NAME.patch, or NAME
#
# Each tests/mutants/NAME.patch starts with header lines, then a diff that `git apply`
# takes from the repository's root:
#   # suite: tests/integration.sh    the suite to run, or unit:test_hist (build/tests/test_hist)
#   # kills: CHECK                   a part of a check's name; one line per check
#   # why: what the mutant breaks
#   # env: VAR=value                 optional; SAN=... builds and runs that sanitizer build
#
# HEAD (what is committed) is copied to a scratch tree and built. Every suite a mutant
# names runs once on the clean build: each `kills:` check must print "ok - ..." there
# (cmocka: "[       OK ] ...") and no FAIL. Then each mutant is applied, built (only what it touches) and its suite
# run: the mutant is killed when, for every `kills:` line, a FAIL line contains it.
# One line per mutant: killed, SURVIVED, or why it could not be judged; exit 1 unless
# every mutant was killed. -l lists the mutants and what each breaks. MUTANT_KEEP=1
# keeps the scratch tree and the suites' output.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
dir=$top/tests/mutants

header() { sed -n "s/^# $2: //p" "$1"; }

if [[ ${1:-} == -l ]]; then
	for p in "$dir"/*.patch; do
		printf '%-40s %s\n' "$(basename "$p" .patch)" "$(header "$p" why)"
	done
	exit 0
fi

patches=()
if (($# == 0)); then
	patches=("$dir"/*.patch)
else
	for m in "$@"; do
		[[ -f $m ]] || m=$dir/${m%.patch}.patch
		if [[ ! -f $m ]]; then
			echo "mutants.sh: no mutant '$m' (tests/mutants.sh -l lists them)" >&2
			exit 2
		fi
		patches+=("$(realpath "$m")")
	done
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/nfsload-mutants.XXXXXX")
tree=$work/tree
cleanup() {
	if [[ -n ${MUTANT_KEEP:-} ]]; then echo "# kept $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT
mkdir -p "$tree" "$work/out"
git -C "$top" archive HEAD | tar -x -C "$tree"

# san_of PATCH: the SAN the mutant's env names ("" for the plain build).
san_of() { header "$1" env | sed -n 's/^SAN=//p' | tail -1; }
build_dir() { if [[ -n $1 ]]; then echo "build-san-${1//,/-}"; else echo build; fi; }

# build SAN SUITE: the scratch tree's build for SAN (incremental), with the MPI build
# for tests/mpi.sh. Non-zero if it fails.
build() {
	make -C "$tree" -s -j"$(nproc)" ${1:+SAN=$1} "$(build_dir "$1")/nfsload" \
		$(cd "$tree" && ls tests/test_*.c tests/helper_*.c | sed "s|^tests/\(.*\)\.c$|$(build_dir "$1")/tests/\1|") \
		$([[ $2 == tests/mpi.sh ]] && echo build-mpi/nfsload) >"$work/build.log" 2>&1
}

# run_suite SUITE SAN ENV... > output: the suite (or unit binary) on the scratch build.
run_suite() {
	local suite=$1 san=$2 b
	shift 2
	b=$tree/$(build_dir "$san")
	(
		cd "$tree" || exit 1
		export "$@" NFSLOAD=$b/nfsload HELPERS=$b/tests SAN=$san
		export NFSLOAD_MPI=$tree/build-mpi/nfsload
		if [[ $suite == unit:* ]]; then
			timeout -k 10 600 "$b/tests/${suite#unit:}"
		else
			timeout -k 10 1800 "$suite"
		fi
	) 2>&1
}

# verdict OUTPUT KILLS...: "killed" when every check in KILLS has a FAIL line.
verdict() {
	local out=$1 k
	shift
	for k in "$@"; do
		grep -F "$k" "$out" | grep -q FAIL || return 1
	done
}

declare -A baseline=()
killed=0 total=0
for p in "${patches[@]}"; do
	name=$(basename "$p" .patch)
	suite=$(header "$p" suite)
	san=$(san_of "$p")
	mapfile -t kills < <(header "$p" kills)
	mapfile -t envs < <(header "$p" env | grep -v '^SAN=')
	total=$((total + 1))
	if [[ -z $suite || ${#kills[@]} == 0 ]]; then
		echo "$name: no '# suite:' or '# kills:' line"
		continue
	fi
	key="$suite|$san|${envs[*]}"
	if [[ -z ${baseline[$key]:-} ]]; then
		if ! build "$san" "$suite"; then
			echo "$name: the clean tree does not build (SAN=$san): $work/build.log"
			continue
		fi
		baseline[$key]=$work/out/base.$(echo "$key" | md5sum | cut -c1-8)
		run_suite "$suite" "$san" "${envs[@]}" >"${baseline[$key]}"
	fi
	bad=
	for k in "${kills[@]}"; do
		if grep -F "$k" "${baseline[$key]}" | grep -q FAIL ||
			! grep -F "$k" "${baseline[$key]}" | grep -Eq '^ok - |^\[ +OK \]'; then
			bad+=" '$k'"
		fi
	done
	if [[ -n $bad ]]; then
		echo "$name: not judged: on the clean build these checks did not pass:$bad (${baseline[$key]})"
		continue
	fi
	if ! (cd "$tree" && git apply "$p" 2>"$work/apply.log"); then
		echo "$name: does not apply to HEAD: $(head -1 "$work/apply.log")"
		continue
	fi
	out=$work/out/$name
	if ! build "$san" "$suite"; then
		echo "$name: the mutant does not build: $(grep -m1 error "$work/build.log")"
	else
		run_suite "$suite" "$san" "${envs[@]}" >"$out"
		if verdict "$out" "${kills[@]}"; then
			killed=$((killed + 1))
			echo "$name: killed ($(grep -c FAIL "$out") FAIL lines in $suite)"
		else
			echo "$name: SURVIVED in $suite: $(header "$p" why)"
		fi
	fi
	(cd "$tree" && git apply -R "$p")
done
echo "$killed of $total mutants killed"
((killed == total))
