#!/bin/bash
# SPDX-License-Identifier: MIT
# End to end: records preload_record_scenario.py in a real LTTng session and
# checks the trace against what the scenario read. Usage: preload_record.sh LIBDIR
set -u
. "$(dirname "$0")/session.sh"
aw_test record "${1:-}"
aw_session "" --subbuf-size=1M --num-subbuf=8 --blocking-timeout=inf || exit 1

LTTNG_UST_ALLOW_BLOCKING=1 RANK=0 WORLD_SIZE=1 ACCWATCH_RUN=$run \
	LD_PRELOAD="$libdir/libaccwatch.so" \
	"$python" "$here/preload_record_scenario.py" "$work/expected.json"
status=$?
lttng stop "$session" >/dev/null
if [ "$status" != 0 ]; then
	echo "FAIL: the scenario exited with $status"
	echo "0 passed, 1 failed"
	exit 1
fi
# Read with Debian's python3-bt2, whatever the stack.
/usr/bin/python3 "$here/preload_check_trace.py" "$work/trace" "$work/expected.json" "$run"
