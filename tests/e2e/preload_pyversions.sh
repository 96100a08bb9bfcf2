#!/bin/bash
# SPDX-License-Identifier: MIT
# The preload attaches and records on every Python it supports (3.8 to 3.13,
# static or shared libpython), using the stand-in torch in preload_fake_torch/,
# and leaves the program's output and exit status as they were (its
# uncaught exception's traceback included).
# Pythons are taken from pyenv when present. Usage: preload_pyversions.sh LIBDIR
set -u
. "$(dirname "$0")/session.sh"
aw_test pyversions "${1:-}"
# Runs first_run + 1, + 2, ... (one per Python).
first_run=$((RANDOM * 32768 + 1000))
aw_session "run > $first_run && run < $((first_run + 100))" || exit 1

pythons=(/usr/bin/python3)
for version in 3.8 3.9 3.10 3.11 3.12 3.13; do
	for candidate in /root/.pyenv/versions/$version*/bin/python$version; do
		[ -x "$candidate" ] && pythons+=("$candidate")
	done
done
# The line of the script's raise, as the exception event gives its site.
raise_line=$(grep -n '^raise LookupError' "$here/preload_fake_torch_script.py" | cut -d: -f1)
run=$first_run
for python in "${pythons[@]}"; do
	run=$((run + 1))
	# 3.12+ warns when a process with other threads forks, and LTTng-UST's
	# listener threads must not make it: the plain program, single-threaded,
	# does not warn. -W always shows every warning, -W error makes them
	# exceptions (where Python lets them be).
	# Only the first is recorded (run 0 is outside the session's filter).
	for warnings in always error; do
		expected=$(PYTHONPATH=$here/preload_fake_torch "$python" -W $warnings \
			"$here/preload_fake_torch_script.py" 2>&1; echo "status $?")
		recorded=$([ $warnings = always ] && echo $run || echo 0)
		got=$(PYTHONPATH=$here/preload_fake_torch ACCWATCH_RUN=$recorded \
			LD_PRELOAD=$libdir/libaccwatch.so "$python" -W $warnings \
			"$here/preload_fake_torch_script.py" 2>&1; echo "status $?")
		if [ "$expected" = "$got" ]; then
			passed=$((passed + 1))
		else
			failed=$((failed + 1))
			echo "FAIL: $python -W $warnings: output differs"
			diff <(echo "$expected") <(echo "$got") | head
		fi
	done
	echo "$python $run" >>"$work/runs"
done
lttng stop "$session" >/dev/null
# The packed events as the plain ones the reader hands on (plain_events.py).
babeltrace2 "$work/trace" 2>&1 | /usr/bin/python3 "$here/plain_events.py" >"$work/text"
while read -r python run; do
	counts=""
	for event in process loader_new loader_len iter_begin batch \
		iter_end fork worker_start worker_fetch exception; do
		n=$(grep -c "accwatch:$event: .* run = $run, " "$work/text")
		counts="$counts $event=$n"
	done
	want=" process=3 loader_new=1 loader_len=1 iter_begin=2 batch=4 iter_end=2 fork=1 worker_start=1 worker_fetch=1 exception=1"
	if [ "$counts" = "$want" ] &&
		grep -q "accwatch:iter_end: .* run = $run, .*drawn = 3, yielded = 3, exhausted = 1" "$work/text" &&
		grep -q "accwatch:iter_end: .* run = $run, .*drawn = 1, yielded = 1, exhausted = 0" "$work/text" &&
		grep -q "accwatch:worker_fetch: .* run = $run, .*indices = \[ \[0\] = 1, \[1\] = 2, \[2\] = 3 \]" "$work/text" &&
		grep -q "accwatch:exception: .* run = $run, .*type_name = \"LookupError\", message = \"no sample 17\", site = \"$here/preload_fake_torch_script.py:$raise_line\"" "$work/text"; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
		echo "FAIL: $python recorded:$counts"
	fi
done <"$work/runs"

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
