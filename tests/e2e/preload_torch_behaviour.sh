#!/bin/bash
# SPDX-License-Identifier: MIT
# A torch program must see no difference when libaccwatch.so records it:
# runs preload_torch_behaviour.py with and without the preload (and with an
# LTTng session listening) and compares stdout, stderr and exit status.
# Usage: preload_torch_behaviour.sh LIBDIR
set -u
. "$(dirname "$0")/session.sh"
aw_test torch_behaviour "${1:-}"

cd "$work" || exit 2
"$python" "$here/preload_torch_behaviour.py" >plain.out 2>plain.err
plain=$?
# Worker tracebacks quote paths: same directory for every run.
compare() {
	local name=$1 status=$2
	if [ "$plain" = "$status" ] && cmp -s plain.out run.out &&
		cmp -s plain.err run.err; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
		echo "FAIL: $name (status $plain vs $status)"
		diff plain.out run.out | head -20
		diff plain.err run.err | head -20
	fi
}

LD_PRELOAD=$libdir/libaccwatch.so "$python" "$here/preload_torch_behaviour.py" \
	>run.out 2>run.err
compare "preloaded, no session" $?

if aw_session 2>/dev/null; then
	ACCWATCH_RUN=$run LD_PRELOAD=$libdir/libaccwatch.so "$python" \
		"$here/preload_torch_behaviour.py" >run.out 2>run.err
	compare "preloaded, recorded" $?
	lttng stop "$session" >/dev/null
	events=$(babeltrace2 "$work/trace" 2>/dev/null | grep -c -E 'accwatch:batch_(bits|packed):')
	if [ "${events:-0}" -gt 0 ]; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
		echo "FAIL: nothing recorded"
	fi
fi

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
