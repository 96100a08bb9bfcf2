#!/bin/bash
# Measures what libaccwatch.so adds per batch (batch 64, in-memory dataset,
# num_workers=0), without a session and while recording. Prints numbers; not
# a pass/fail test. Usage: preload_overhead.sh LIBDIR
set -u
libdir=$(cd "${1:?usage: preload_overhead.sh BUILD_DIR/lib}" && pwd) || exit 2
here=$(cd "$(dirname "$0")" && pwd)
python=${ACCWATCH_PYTHON:-/usr/bin/python3}
work=$(mktemp -d)
session=accwatch_overhead_$$
trap 'lttng destroy "$session" >/dev/null 2>&1; rm -rf "$work"' EXIT

echo "loaded, no session:"
LD_PRELOAD=$libdir/libaccwatch.so "$python" "$here/preload_overhead.py"
lttng list >/dev/null 2>&1 || lttng-sessiond --daemonize >/dev/null
lttng create "$session" --output="$work/trace" >/dev/null
lttng enable-channel -u -s "$session" --subbuf-size=4M --num-subbuf=4 chan >/dev/null
lttng enable-event -u -s "$session" -c chan 'accwatch:*' >/dev/null
lttng start "$session" >/dev/null
echo "recording:"
LD_PRELOAD=$libdir/libaccwatch.so "$python" "$here/preload_overhead.py"
lttng stop "$session" >/dev/null
