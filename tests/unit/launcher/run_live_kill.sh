#!/bin/bash
# SPDX-License-Identifier: MIT
# kill -9 of `accwatch-run --live` while the job runs must not lose the rest
# of the job's trace: the relay daemon the session streams to outlives it,
# and the guardian, once the command ended, destroys the session and then
# ends the relay daemon. A job of 300 events over 6 s, accwatch-run killed
# 2 s in: all 300 in the trace, no relay daemon left.
# usage: run_live_kill.sh ACCWATCH_RUN EMITTER STUB_PRELOAD   (exit 77: skipped)
set -u
RUN=$1
EMITTER=$2
export ACCWATCH_PRELOAD=$3
for tool in lttng-sessiond lttng-relayd babeltrace2; do
	command -v $tool >/dev/null || { echo "$tool not installed: skipped"; exit 77; }
done
work=$(mktemp -d /tmp/accwatch-run-live-kill.XXXXXX)
trap 'pkill -f "lttng-relayd .*-o $work/trace" 2>/dev/null; rm -rf "$work"' EXIT
tag=KILLED$$

"$RUN" -q --live -o "$work/trace" -- "$EMITTER" "$tag" 300 20 >/dev/null 2>"$work/err" &
run=$!
sleep 2
kill -9 $run
wait $run 2>/dev/null
# The command runs on, then the guardian tears down.
for _ in $(seq 150); do
	pgrep -f "emitter $tag" >/dev/null || pgrep -f "lttng-relayd .*-o $work/trace" >/dev/null || break
	sleep 0.1
done
failures=0
if pgrep -f "lttng-relayd .*-o $work/trace" >/dev/null; then
	echo "FAIL the relay daemon still runs 15 s after the command"
	failures=1
else
	echo "ok   the relay daemon ended after the session"
fi
events=$(babeltrace2 "$work/trace" 2>/dev/null | grep -c "$tag")
if [ "$events" = 300 ]; then
	echo "ok   all 300 events of the job are in the trace after kill -9 of accwatch-run"
else
	echo "FAIL $events of the job's 300 events in the trace after kill -9 of accwatch-run"
	cat "$work/err"
	failures=1
fi
exit $failures
