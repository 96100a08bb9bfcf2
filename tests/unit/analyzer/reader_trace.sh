#!/bin/sh
# SPDX-License-Identifier: MIT
# Records trace_gen's scenarios through real LTTng sessions, then checks the
# reader (test_reader) and accwatch-report's exit statuses on them, and on
# damaged copies. Exits 77 (skipped) when LTTng cannot record here.
#   reader_trace.sh ACCWATCH_REPORT TRACE_GEN TEST_READER
set -u
report=$1 gen=$2 test_reader=$3

skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }

command -v lttng >/dev/null 2>&1 || skip "no lttng CLI"
if ! lttng list >/dev/null 2>&1; then
	command -v lttng-sessiond >/dev/null 2>&1 || skip "no lttng-sessiond"
	lttng-sessiond --daemonize --quiet >/dev/null 2>&1
	lttng list >/dev/null 2>&1 || skip "no session daemon could be started"
fi

work=$(mktemp -d /tmp/accwatch-reader-XXXXXX) || fail "mktemp"
session=""
cleanup() {
	[ -n "$session" ] && lttng destroy "$session" >/dev/null 2>&1
	rm -rf "$work"
}
trap cleanup EXIT INT TERM

# Other processes of this user may emit accwatch events meanwhile (per-user
# buffers): each recording keeps only its own run id, as accwatch-run does.
run=$(( ($$ % 100000) * 10 ))
record() { # record SCENARIO
	run=$((run + 1))
	session="accwatch_reader_$$_$1"
	lttng create "$session" --output="$work/$1" >/dev/null || fail "lttng create"
	lttng enable-event -u 'accwatch:*' -s "$session" --filter "run == $run" >/dev/null ||
		fail "lttng enable-event"
	lttng start "$session" >/dev/null || fail "lttng start"
	"$gen" "$run" "$1" || fail "trace_gen $1"
	lttng stop "$session" >/dev/null || fail "lttng stop"
	lttng destroy "$session" >/dev/null || fail "lttng destroy"
	session=""
}

for scenario in sharded unsharded none; do
	record $scenario
done

ACCWATCH_TEST_TRACE_SHARDED=$work/sharded ACCWATCH_TEST_TRACE_UNSHARDED=$work/unsharded \
ACCWATCH_TEST_TRACE_NONE=$work/none "$test_reader" || fail "test_reader"

expect_status() { # expect_status STATUS ARGS...
	want=$1
	shift
	"$report" "$@" >"$work/out" 2>"$work/err"
	got=$?
	[ "$got" = "$want" ] || { cat "$work/out" "$work/err"; fail "accwatch-report $*: status $got, not $want"; }
}

expect_status 0 "$work/sharded"
expect_status 1 "$work/unsharded"
grep -q "ERROR unsharded" "$work/out" || fail "no unsharded finding in the text report"
expect_status 1 --format json -o "$work/report.json" "$work/unsharded"
grep -q '"schema": "accwatch-report/1"' "$work/report.json" || fail "no JSON report written"
expect_status 2 "$work/sharded" "$work/unsharded"
expect_status 1 --run all "$work/sharded" "$work/unsharded"
expect_status 2 "$work/none"
grep -q "no accwatch events in $work/none: was it recorded with accwatch-run?" "$work/err" ||
	fail "no clear message for a trace without accwatch events: $(cat "$work/err")"
expect_status 2 "$work/absent"
expect_status 2 "$work"/sharded/ust/uid/0/64-bit/channel0_0

# Damaged copies: a clear message and status 2, or a report flagged as cut
# short; never a crash.
damage() { # damage NAME COMMAND...: a copy of the sharded trace, then COMMAND in it
	name=$1
	shift
	cp -r "$work/sharded" "$work/$name"
	(cd "$work/$name/ust/uid/0/64-bit" && sh -c "$*") || fail "damaging $name"
	"$report" "$work/$name" >"$work/out" 2>"$work/err"
	got=$?
	case $got in
	0 | 1) grep -q "reading stopped early" "$work/err" "$work/out" ||
		echo "note: $name read without complaint (status $got)" ;;
	2) [ -s "$work/err" ] || fail "$name: status 2 without a message" ;;
	*) cat "$work/err"; fail "$name: status $got (crash?)" ;;
	esac
	echo "$name: status $got: $(head -c 300 "$work/err")"
}
damage truncated-stream 'for f in channel0_*; do truncate -s 100 "$f"; done'
damage garbage-stream 'for f in channel0_*; do dd if=/dev/urandom of="$f" bs=1 seek=200 count=600 conv=notrunc 2>/dev/null; done'
damage truncated-metadata 'truncate -s 2000 metadata'
damage empty-metadata ': > metadata'
echo "reader_trace: all checks passed"
