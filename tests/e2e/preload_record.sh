#!/bin/bash
# End to end: records preload_record_scenario.py in a real LTTng session and
# checks the trace against what the scenario read. Usage: preload_record.sh LIBDIR
set -u
libdir=$(cd "${1:?usage: preload_record.sh BUILD_DIR/lib}" && pwd) || exit 2
here=$(cd "$(dirname "$0")" && pwd)
python=${ACCWATCH_PYTHON:-/usr/bin/python3}
work=$(mktemp -d)
session=accwatch_preload_$$
trap 'lttng destroy "$session" >/dev/null 2>&1; rm -rf "$work"' EXIT

lttng list >/dev/null 2>&1 || lttng-sessiond --daemonize >/dev/null || exit 1
lttng create "$session" --output="$work/trace" >/dev/null || exit 1
# Blocking channel: the check needs every event.
lttng enable-channel -u -s "$session" --subbuf-size=1M --num-subbuf=8 \
	--blocking-timeout=inf chan >/dev/null || exit 1
# Our run only: other tests' processes of this user reach every session.
run=$((RANDOM * 32768 + RANDOM + 1))
lttng enable-event -u -s "$session" -c chan 'accwatch:*' \
	--filter "run == $run" >/dev/null || exit 1
lttng start "$session" >/dev/null || exit 1

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
