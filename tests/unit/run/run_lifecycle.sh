#!/bin/bash
# accwatch-run against a real lttng-sessiond: exit statuses (own, signal, not
# found, not executable), signal forwarding, and no session left behind.
# usage: run_lifecycle.sh ACCWATCH_RUN STUB_PRELOAD     (exit 77: skipped)
set -u
RUN=$1
export ACCWATCH_PRELOAD=$2
command -v lttng >/dev/null && command -v lttng-sessiond >/dev/null || {
	echo "lttng-tools not installed: skipped"; exit 77; }

work=$(mktemp -d /tmp/accwatch-run-lifecycle.XXXXXX)
trap 'rm -rf "$work"' EXIT
failures=0

# expect STATUS DESCRIPTION -- accwatch-run arguments...
expect() {
	local want=$1 what=$2 got session
	shift 3
	rm -rf "$work/trace"
	ACCWATCH_DEBUG=1 "$RUN" -o "$work/trace" "$@" 2>"$work/err"
	got=$?
	session=$(grep -o 'session accwatch-[0-9]*-[0-9a-f]*' "$work/err" | cut -d' ' -f2)
	if [ "$got" != "$want" ]; then
		echo "FAIL $what: exit $got, expected $want"; cat "$work/err"; failures=$((failures + 1))
	elif [ -n "$session" ] && lttng list 2>/dev/null | grep -q "$session"; then
		echo "FAIL $what: session $session left behind"; failures=$((failures + 1))
	else
		echo "ok   $what (exit $got)"
	fi
}

expect 0 "true" -- /bin/true
expect 3 "exit 3" -- bash -c 'exit 3'
expect 137 "killed by SIGKILL" -- bash -c 'kill -9 $$'
expect 127 "not found" -- /nonexistent/command
expect 127 "not on PATH" -- accwatch-no-such-command
touch "$work/not-executable"
expect 126 "not executable" -- "$work/not-executable"
grep -q "cannot run" "$work/err" || { echo "FAIL no message for exec failure"; failures=$((failures + 1)); }

# SIGINT and SIGTERM sent to accwatch-run reach the command; cleanup still happens.
set -m # background jobs keep SIGINT (a script's & jobs would ignore it)
for signal in INT TERM; do
	rm -rf "$work/trace"
	ACCWATCH_DEBUG=1 "$RUN" -o "$work/trace" -- sleep 30 2>"$work/err" &
	pid=$!
	sleep 1
	kill -s "$signal" "$pid"
	wait "$pid"
	got=$?
	want=$((128 + $(kill -l "$signal")))
	session=$(grep -o 'session accwatch-[0-9]*-[0-9a-f]*' "$work/err" | cut -d' ' -f2)
	if [ "$got" != "$want" ]; then
		echo "FAIL SIG$signal: exit $got, expected $want"; cat "$work/err"; failures=$((failures + 1))
	elif [ -z "$session" ] || lttng list 2>/dev/null | grep -q "$session"; then
		echo "FAIL SIG$signal: session '$session' left behind"; failures=$((failures + 1))
	else
		echo "ok   SIG$signal forwarded (exit $got)"
	fi
done
set +m

# Usage errors and the output directory guard.
"$RUN" --no-such-option true 2>/dev/null; [ $? = 2 ] && echo "ok   usage error" || {
	echo "FAIL usage error status"; failures=$((failures + 1)); }
mkdir -p "$work/full" && touch "$work/full/x"
"$RUN" -o "$work/full" -- true 2>/dev/null; [ $? = 125 ] && echo "ok   non-empty refused" || {
	echo "FAIL non-empty output accepted"; failures=$((failures + 1)); }

exit $((failures > 0))
