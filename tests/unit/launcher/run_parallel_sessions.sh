#!/bin/bash
# SPDX-License-Identifier: MIT
# Two accwatch-run sessions at once, per-UID buffers: each must record only
# its own command's events (filter `run == <id>`), none of the other's, and
# none of a process outside both runs.
# usage: run_parallel_sessions.sh ACCWATCH_RUN EMITTER STUB_PRELOAD   (exit 77: skipped)
set -u
RUN=$1
EMITTER=$2
export ACCWATCH_PRELOAD=$3
command -v lttng-sessiond >/dev/null && command -v babeltrace2 >/dev/null || {
	echo "lttng-tools or babeltrace2 not installed: skipped"; exit 77; }

work=$(mktemp -d /tmp/accwatch-run-parallel.XXXXXX)
trap 'rm -rf "$work"' EXIT
count=200

"$RUN" -q -o "$work/a" -- "$EMITTER" A $count 5 &
first=$!
"$RUN" -q -o "$work/b" -- "$EMITTER" B $count 5 &
second=$!
sleep 0.3
ACCWATCH_RUN=1 "$EMITTER" OUTSIDER $count 5 &
outsider=$!
wait $first || { echo "FAIL first run exited $?"; exit 1; }
wait $second || { echo "FAIL second run exited $?"; exit 1; }
wait $outsider

failures=0
for trace in a b; do
	own=$(echo "$trace" | tr a-z A-Z)
	if ! babeltrace2 "$work/$trace" >"$work/$trace.txt" 2>"$work/$trace.err"; then
		echo "FAIL babeltrace2 cannot read trace $trace:"; head -3 "$work/$trace.err"
		failures=$((failures + 1))
		continue
	fi
	for tag in A B OUTSIDER; do
		got=$(grep -c "path = \"$tag\"" "$work/$trace.txt")
		want=0
		[ "$tag" = "$own" ] && want=$count
		if [ "$got" != "$want" ]; then
			echo "FAIL trace $trace has $got events of $tag, expected $want"
			failures=$((failures + 1))
		else
			echo "ok   trace $trace has $got events of $tag"
		fi
	done
done
exit $((failures > 0))
