#!/bin/bash
# SPDX-License-Identifier: MIT
# torchdata's StatefulDataLoader (its own __init__ and __iter__, persistent
# iterators _reset outside DataLoader.__iter__) is recorded like a
# DataLoader: one loader_new with its creation site, one iteration per
# epoch, workers' fetches in the right iteration. Needs the real torchdata
# (the venv stack). Usage: preload_torchdata.sh LIBDIR
set -u
. "$(dirname "$0")/session.sh"
aw_test torchdata "${1:-}"
aw_session "" --blocking-timeout=inf || exit 1
expected=$("$python" \
	"$here/preload_torchdata.py" 2>&1)
got=$(LTTNG_UST_ALLOW_BLOCKING=1 \
	ACCWATCH_RUN=$run LD_PRELOAD=$libdir/libaccwatch.so "$python" \
	"$here/preload_torchdata.py" 2>&1)
lttng stop "$session" >/dev/null
if [ "$expected" = "$got" ]; then
	passed=$((passed + 1))
else
	failed=$((failed + 1))
	echo "FAIL: output differs"
	diff <(echo "$expected") <(echo "$got") | head
fi
# The packed events as the plain ones the reader hands on (plain_events.py).
babeltrace2 "$work/trace" 2>/dev/null | /usr/bin/python3 "$here/plain_events.py" |
	grep "run = $run," >"$work/events"

expect() { # expect COUNT PATTERN: COUNT events match
	local n
	n=$(grep -c -E "$2" "$work/events")
	if [ "$n" = "$1" ]; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
		echo "FAIL: $n events, not $1, match $2"
	fi
}
for site in 0 1; do
	line=$(grep -n "# SITE $site" "$here/preload_torchdata.py" | cut -d: -f1)
	expect 1 "loader_new: .*loader = $site, .*loader_class = \"torchdata.stateful_dataloader.stateful_dataloader.StatefulDataLoader\".*site = \"[^\"]*preload_torchdata.py:$line\""
done
expect 2 "iter_begin: .*loader = 0, "
expect 3 "iter_begin: .*loader = 1, "
for iteration in 0 1; do
	expect 1 "iter_end: .*loader = 0, iteration = $iteration, drawn = 5, yielded = 5, exhausted = 1"
done
for iteration in 0 1 2; do
	expect 1 "iter_end: .*loader = 1, iteration = $iteration, drawn = 5, yielded = 5, exhausted = 1"
	expect 5 "worker_fetch: .*loader = 1, iteration = $iteration, "
	expect 5 "worker_fetch_end: .*loader = 1, iteration = $iteration, .*ok = 1"
done
expect 2 "worker_start: .*loader = 1, iteration = 0, loader_pid = [1-9]"

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
