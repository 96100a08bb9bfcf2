#!/bin/sh
# SPDX-License-Identifier: MIT
# CI, after the normal suite: the tests again under AddressSanitizer and
# UndefinedBehaviorSanitizer, the preload under ASan inside /usr/bin/python3,
# and a short fuzz run of the analyzer's intake. Exits non-zero on any
# failing test, sanitizer report or fuzz crash; prints a summary.
#
#   scripts/sanitize.sh [--no-e2e] [--no-fuzz] [-j N]
#
# Builds (next to the source tree unless the variables say otherwise):
#   build-asan          ACCWATCH_SANITIZE=ON, gcc: every test of ctest. The
#                       two preload libraries stay uninstrumented there (see
#                       CMakeLists.txt): python3 and every process of
#                       a job get them, and none loads the ASan runtime.
#   build-asan-preload  ACCWATCH_SANITIZE_PRELOAD=ON too: only libaccwatch.so
#                       and its recorder, run in python3 with libasan first
#                       in LD_PRELOAD (tests/sanitize/preload_smoke.py).
#   build-fuzz          clang, ACCWATCH_FUZZ=ON: fuzz_ingest, run for
#                       ACCWATCH_FUZZ_RUNS inputs (default 30000, ~30 s).
# Sanitizer reports of every process (forked children and subprocesses
# whose stderr a test swallows included) go to files, which are checked.
set -u

here=$(cd "$(dirname "$0")/.." && pwd)
asan=${ACCWATCH_ASAN_DIR:-$here/build-asan}
asan_preload=${ACCWATCH_ASAN_PRELOAD_DIR:-$here/build-asan-preload}
fuzz=${ACCWATCH_FUZZ_DIR:-$here/build-fuzz}
runs=${ACCWATCH_FUZZ_RUNS:-30000}
python=${ACCWATCH_PYTHON:-/usr/bin/python3}
jobs=$(nproc 2>/dev/null || echo 2)
e2e=yes do_fuzz=yes
while [ $# -gt 0 ]; do
	case $1 in
	--no-e2e) e2e=no ;;
	--no-fuzz) do_fuzz=no ;;
	-j) jobs=$2; shift ;;
	-j*) jobs=${1#-j} ;;
	*) echo "usage: sanitize.sh [--no-e2e] [--no-fuzz] [-j N]" >&2; exit 2 ;;
	esac
	shift
done

logs=$asan/sanitize-logs
rm -rf "$logs"
mkdir -p "$logs/reports"
summary=$logs/summary
: >"$summary"
failed=0
say() { echo "sanitize: $*" >&2; }
result() { # result STEP STATUS DETAIL
	printf '%-16s %-5s %s\n' "$1" "$2" "$3" >>"$summary"
	[ "$2" = PASS ] || [ "$2" = SKIP ] || failed=1
}
now() { date +%s; }

# Reports to files (log_path appends .PID), stack traces, stop at the first
# error; UBSan's checks are recoverable by default, so halt explicitly.
export ASAN_OPTIONS="log_path=$logs/reports/asan:halt_on_error=1:detect_leaks=1:strict_string_checks=1:detect_stack_use_after_return=1"
export UBSAN_OPTIONS="log_path=$logs/reports/ubsan:halt_on_error=1:print_stacktrace=1"
export LSAN_OPTIONS="log_path=$logs/reports/lsan"

# Files written by the sanitizers since the last call, reported as a step.
check_reports() { # check_reports STEP
	n=$(find "$logs/reports" -type f | wc -l)
	if [ "$n" -eq 0 ]; then
		result "$1/reports" PASS "no sanitizer report"
		return
	fi
	mkdir -p "$logs/$1-reports"
	mv "$logs"/reports/* "$logs/$1-reports/"
	for f in "$logs/$1-reports"/*; do
		say "sanitizer report $f:"
		head -n 30 "$f" >&2
	done
	result "$1/reports" FAIL "$n sanitizer report(s) in $logs/$1-reports"
}

build() { # build STEP DIR [cmake args...] -- [targets...]
	step=$1 dir=$2
	shift 2
	args=""
	while [ $# -gt 0 ] && [ "$1" != "--" ]; do
		args="$args $1"
		shift
	done
	[ $# -gt 0 ] && shift
	targets=""
	for t in "$@"; do targets="$targets --target $t"; done
	# shellcheck disable=SC2086 # word lists
	if ! { cmake -S "$here" -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo $args &&
		cmake --build "$dir" -j "$jobs" $targets; } >"$logs/$step-build.log" 2>&1; then
		tail -n 40 "$logs/$step-build.log" >&2
		result "$step/build" FAIL "see $logs/$step-build.log"
		return 1
	fi
	return 0
}

# 1. Every ctest test under ASan and UBSan.
start=$(now)
say "building $asan (ASan + UBSan)"
# The scenarios recorded without --live here (the plain suite records them
# with it: ACCWATCH_E2E_LIVE), so CI runs both ways of recording.
if build asan "$asan" -DACCWATCH_SANITIZE=ON -DACCWATCH_E2E_LIVE=OFF; then
	# preload_robust (minutes of forks, signals and exec paths) exercises the
	# preload libraries, which stay uninstrumented here: the plain suite runs it.
	exclude="-E ^preload_.*_robust$"
	[ $e2e = no ] && exclude="$exclude -LE e2e"
	say "running ctest in $asan"
	# shellcheck disable=SC2086
	(cd "$asan" && ctest --output-on-failure -j "$jobs" $exclude) \
		>"$logs/ctest.log" 2>&1
	status=$?
	line=$(grep -E "tests passed|tests failed" "$logs/ctest.log" | tail -n 1)
	if [ $status -eq 0 ]; then
		result ctest PASS "$line ($(($(now) - start)) s)"
	else
		grep -E "\(Failed\)|\(Timeout\)|\(SEGFAULT\)|\(Subprocess aborted\)|Not Run" \
			"$logs/ctest.log" >&2
		result ctest FAIL "$line; see $logs/ctest.log"
	fi
	# Also a report in the output of a process whose status nobody checked.
	if grep -q -E "ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:" \
		"$logs/ctest.log"; then
		grep -E "ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:" \
			"$logs/ctest.log" | head -n 20 >&2
		result ctest/output FAIL "sanitizer output in $logs/ctest.log"
	fi
fi
check_reports ctest

# 2. The instrumented preload in python3, libasan first in LD_PRELOAD.
start=$(now)
libasan=$(gcc -print-file-name=libasan.so 2>/dev/null)
if [ $e2e = no ]; then
	result preload SKIP "--no-e2e"
elif ! command -v lttng >/dev/null 2>&1 || ! [ -x "$python" ]; then
	result preload SKIP "no lttng CLI or no $python"
elif [ ! -e "$libasan" ]; then
	result preload FAIL "no libasan.so (gcc's)"
elif build preload "$asan_preload" -DACCWATCH_SANITIZE=ON \
	-DACCWATCH_SANITIZE_PRELOAD=ON -DACCWATCH_TESTS=OFF \
	-- accwatch accwatch-record; then
	session="accwatch_sanitize_$$"
	run_id=$(( ($$ % 100000) * 10 + 7 ))
	trace=$logs/preload-trace
	lttng list >/dev/null 2>&1 || lttng-sessiond --daemonize --quiet >/dev/null 2>&1
	status=1
	if lttng create "$session" --output="$trace" >/dev/null &&
		lttng enable-event -u 'accwatch:*' -s "$session" \
			--filter "run == $run_id" >/dev/null &&
		lttng start "$session" >/dev/null; then
		# Python leaks by design at exit: leak checking stays off here.
		ASAN_OPTIONS="$ASAN_OPTIONS:detect_leaks=0" \
		LD_PRELOAD="$(readlink -f "$libasan"):$asan_preload/lib/libaccwatch.so" \
		ACCWATCH_RUN=$run_id RANK=0 WORLD_SIZE=2 \
			timeout 300 "$python" "$here/tests/sanitize/preload_smoke.py" \
			>"$logs/preload.log" 2>&1
		status=$?
		lttng stop "$session" >/dev/null
	fi
	lttng destroy "$session" >/dev/null 2>&1
	batches=$(ASAN_OPTIONS="$ASAN_OPTIONS:log_path=$logs/reports/asan-report" \
		"$asan/bin/accwatch-report" --format json "$trace" 2>>"$logs/preload.log" |
		"$python" -c 'import json, sys; print(json.load(sys.stdin)["trace"]["events_by_kind"]["batch"])' \
		2>>"$logs/preload.log")
	if [ $status -eq 0 ] && grep -q '^ok$' "$logs/preload.log" &&
		[ "${batches:-0}" -gt 0 ]; then
		result preload PASS "python3 + torch, fork and spawn workers: $batches batch events ($(($(now) - start)) s)"
	else
		tail -n 30 "$logs/preload.log" >&2
		result preload FAIL "status $status, ${batches:-no} batch events; see $logs/preload.log"
	fi
fi
check_reports preload

# 3. A fixed number of fuzz inputs through the analyzer's intake.
start=$(now)
if [ $do_fuzz = no ]; then
	result fuzz SKIP "--no-fuzz"
elif ! command -v clang >/dev/null 2>&1; then
	result fuzz FAIL "no clang: install clang and libclang-rt-14-dev, or pass --no-fuzz"
elif build fuzz "$fuzz" -DCMAKE_C_COMPILER=clang -DACCWATCH_FUZZ=ON -- fuzz_ingest; then
	corpus=$logs/fuzz-corpus
	mkdir -p "$corpus"
	cp "$here"/tests/fuzz/seeds/ingest/* "$here"/tests/fuzz/regressions/ingest/* "$corpus/"
	# The sanitizers' own reports go to the fuzzer's output here.
	ASAN_OPTIONS="halt_on_error=1:detect_leaks=1" \
	UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1" \
		"$fuzz/bin/fuzz_ingest" -runs="$runs" -seed=1 -max_len=16384 \
		-rss_limit_mb=2048 -malloc_limit_mb=512 -timeout=10 \
		-max_total_time=120 -print_final_stats=1 \
		-artifact_prefix="$logs/fuzz-artifact-" "$corpus" \
		>"$logs/fuzz.log" 2>&1
	status=$?
	done_runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$logs/fuzz.log")
	speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$logs/fuzz.log")
	crashes=$(find "$logs" -maxdepth 1 -name 'fuzz-artifact-*' | wc -l)
	if [ $status -eq 0 ] && [ "$crashes" -eq 0 ]; then
		result fuzz PASS "${done_runs:-?} inputs, ${speed:-?}/s ($(($(now) - start)) s)"
	else
		grep -E "ERROR|runtime error|SUMMARY|Test unit written" "$logs/fuzz.log" | head -n 20 >&2
		result fuzz FAIL "status $status, $crashes crashing input(s) in $logs (fuzz-artifact-*); replay: $fuzz/bin/fuzz_ingest FILE"
	fi
fi
check_reports fuzz

echo "sanitize: summary (logs in $logs)"
cat "$summary"
[ $failed -eq 0 ] && echo "sanitize: all passed" || echo "sanitize: FAILED"
exit $failed
