#!/bin/bash
# SPDX-License-Identifier: MIT
# A trace written to a full filesystem (a 256 KiB tmpfs this test mounts):
# the program runs as without accwatch (same output, same status), the
# run ends with a warning naming the full filesystem, and accwatch-report
# reads what is there or says in one line what is wrong with which file.
# Needs root (mount). Usage: preload_disk_full.sh BUILD_DIR
set -u
build=$(cd "${1:?usage: preload_disk_full.sh BUILD_DIR}" && pwd) || exit 2
python=${ACCWATCH_PYTHON:-/usr/bin/python3}
if [ "$(id -u)" != 0 ]; then
	echo "SKIP: mounting the small filesystem needs root"
	exit 77
fi
work=$(mktemp -d)
small=$work/small
trap 'umount "$small" 2>/dev/null; rm -rf "$work"' EXIT
mkdir "$small"
mount -t tmpfs -o size=256k tmpfs "$small" || { echo "FAIL: cannot mount a tmpfs"; exit 1; }
failed=0
fail() { echo "FAIL: $*"; failed=$((failed + 1)); }

cat >"$work/many.py" <<'PY'
import torch.utils.data as d
n = 0
for epoch in range(10):
    for b in d.DataLoader(list(range(20000)), batch_size=64, shuffle=True):
        n += len(b)
print("read", n)
raise SystemExit(3)
PY
"$python" "$work/many.py" >"$work/plain.out" 2>&1
plain=$?
"$build/bin/accwatch-run" -o "$small/trace" -- "$python" "$work/many.py" >"$work/run.out" 2>"$work/run.err"
status=$?
[ "$status" = "$plain" ] || fail "accwatch-run exited $status, the plain program $plain"
cmp -s "$work/plain.out" "$work/run.out" || fail "the program's output differs: $(diff "$work/plain.out" "$work/run.out" | head -3)"
grep -q "warning: the filesystem of $small/trace is full" "$work/run.err" ||
	fail "no warning about the full filesystem: $(cat "$work/run.err")"
grep -q "nothing was recorded" "$work/run.err" && fail "the full disk taken for an empty recording"
"$build/bin/accwatch-report" "$small/trace" >"$work/report.out" 2>"$work/report.err"
report=$?
case $report in
0 | 1) ;;
2) [ "$(wc -l <"$work/report.err")" = 1 ] && grep -q -F "$small/trace" "$work/report.err" ||
	fail "accwatch-report exit 2 without one line naming the trace: $(cat "$work/report.err")" ;;
*) fail "accwatch-report exit $report (a crash?): $(cat "$work/report.err")" ;;
esac
# Its session, if the consumer could not close it ("cannot destroy session
# NAME"), goes with the next run.
left=$(grep -o 'cannot destroy session accwatch-[0-9]*-[0-9a-f]*' "$work/run.err" | cut -d' ' -f4)
"$build/bin/accwatch-run" -q -o "$work/next" -- true 2>/dev/null
if [ -n "$left" ] && lttng list 2>/dev/null | grep -q "$left"; then
	fail "session $left stayed behind after the next run"
fi
echo "$([ $failed = 0 ] && echo ok || echo "$failed failed"): status $status, report exit $report"
[ "$failed" = 0 ]
