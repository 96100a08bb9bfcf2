#!/bin/bash
# SPDX-License-Identifier: MIT
# libaccwatch.so never breaks the traced program: each case of
# preload_robust.py runs without the preload, preloaded without a session and
# preloaded while recorded; stdout, stderr and exit status must be the same.
# Then: scrubbed environments get LD_PRELOAD and ACCWATCH_* back, the
# preload creates no file, bad ACCWATCH_* values change nothing, a session
# daemon killed mid-run does not stop the program, and the trace has the
# exit/exec/item events. Runs in a private mount namespace with its own
# lttng-sessiond when it can (never touching another one), else with the
# machine's daemon and a session of its own. Usage: preload_robust.sh LIBDIR
set -u
libdir=$(cd "${1:?usage: preload_robust.sh BUILD_DIR/lib}" && pwd) || exit 2
here=$(cd "$(dirname "$0")" && pwd)
python=${ACCWATCH_PYTHON:-/usr/bin/python3}
lib=$libdir/libaccwatch.so

# Private namespace: /var/run/lttng and LTTNG_HOME of our own.
if [ -z "${ROBUST_PRIVATE:-}" ] && [ "$(id -u)" = 0 ] &&
	unshare -m --propagation private true 2>/dev/null; then
	exec unshare -m --propagation private env ROBUST_PRIVATE=1 \
		bash -c 'mount -t tmpfs tmpfs /var/run/lttng && exec "$@"' \
		bash "$0" "$@"
fi
work=$(mktemp -d)
session=accwatch_robust_$$
own_run=$((RANDOM * 32768 + RANDOM + 1)) # cases without a run of their own
private=${ROBUST_PRIVATE:-}
if [ -n "$private" ]; then
	export LTTNG_HOME=$work/home
	mkdir -p "$LTTNG_HOME"
	lttng-sessiond --daemonize >/dev/null 2>&1 || exit 1
fi
cleanup() {
	lttng destroy "$session" >/dev/null 2>&1
	if [ -n "$private" ] && [ -f /var/run/lttng/lttng-sessiond.pid ]; then
		kill "$(cat /var/run/lttng/lttng-sessiond.pid)" 2>/dev/null
	fi
	rm -rf "$work"
}
trap cleanup EXIT
lttng list >/dev/null 2>&1 || lttng-sessiond --daemonize >/dev/null 2>&1 || exit 1
. "$here/tally.sh"

start_session() {
	lttng create "$session" --output="$work/trace" >/dev/null &&
		lttng enable-channel -u -s "$session" --subbuf-size=1M \
			--num-subbuf=8 --blocking-timeout=inf chan >/dev/null &&
		lttng enable-event -u -s "$session" -c chan 'accwatch:*' \
			--filter "run == ${run:-$own_run}" >/dev/null &&
		lttng start "$session" >/dev/null
}
stop_session() {
	lttng stop "$session" >/dev/null 2>&1
	lttng destroy "$session" >/dev/null 2>&1
}

# Output that differs between runs for reasons of its own: pids; the
# frames of our wrappers in main-process tracebacks (known, documented in
# recorder/boot/: they never change what the program sees); and
# multiprocessing's resource_tracker warnings, which the plain program itself
# prints or not depending on timing (seen in an unpreloaded run under load).
normalize() {
	sed -E '/File "<accwatch_boot\//d; s/pid(\(s\))?[ =][0-9]+/pid N/g
		/resource_tracker\.py:[0-9]+: UserWarning: resource_tracker:/,+1d' "$1"
}

# same NAME [python options] CASE: plain, preloaded, preloaded + recorded.
same() {
	local name=$1 status mode
	shift
	(cd "$work" && timeout 300 "$python" "$@" >plain.out 2>plain.err)
	status=$?
	for mode in preloaded recorded; do
		[ "$mode" = recorded ] && start_session
		(cd "$work" && LD_PRELOAD=$lib LTTNG_UST_ALLOW_BLOCKING=1 \
			ACCWATCH_RUN=${run:-$own_run} timeout 300 "$python" "$@" \
			>run.out 2>run.err)
		local got=$?
		[ "$mode" = recorded ] && stop_session
		if [ "$status" = "$got" ] &&
			cmp -s <(normalize "$work/plain.out") <(normalize "$work/run.out") &&
			cmp -s <(normalize "$work/plain.err") <(normalize "$work/run.err"); then
			pass
		else
			fail "$name, $mode (status $status vs $got)"
			diff <(normalize "$work/plain.out") <(normalize "$work/run.out") | head -10
			diff <(normalize "$work/plain.err") <(normalize "$work/run.err") | head -10
		fi
	done
}

script=$here/preload_robust.py
for case in getitem_raises stop_iteration keyboard_interrupt sigint_uncaught \
	signatures pickling fork_storm clone subprocesses workers32 no_torch; do
	same "$case" "$script" "$case"
done
same "python -I" -I "$script" stop_iteration
same "python -S" -S "$script" no_site
same "python -I -S" -I -S "$script" no_site

# The recorded trace of one case: the events of issue 3 are there.
run=4242
start_session
(cd "$work" && LD_PRELOAD=$lib LTTNG_UST_ALLOW_BLOCKING=1 ACCWATCH_RUN=$run \
	"$python" "$script" subprocesses >/dev/null 2>&1)
stop_session
babeltrace2 "$work/trace" 2>/dev/null | grep "run = $run," >"$work/events"
rm -rf "$work/trace"
for pattern in 'accwatch:exec: .*path = "/bin/sh", child_pid = 0' \
	'accwatch:exec: .*path = "/bin/sh", child_pid = [1-9]' \
	'accwatch:exit: .*status = 3, signal = -1' \
	'accwatch:exit: .*status = 6, signal = -1' \
	'accwatch:exit: .*status = 9, signal = -1' \
	'accwatch:worker_fetch_end: .*ok = 1'; do
	if grep -q "$pattern" "$work/events"; then pass; else fail "trace lacks $pattern"; fi
done
unset run

# Scrubbed environments get the preload and ACCWATCH_* back; environments
# that keep an ACCWATCH_* variable are left as they are.
check_env() {
	local name=$1 want=$2 unwanted=$3 out
	shift 3
	out=$(LD_PRELOAD=$lib ACCWATCH_RUN=77 "$@" 2>&1)
	if grep -q "$want" <<<"$out" && ! grep -q "$unwanted" <<<"$out"; then
		pass
	else
		fail "$name: $(tr '\n' ' ' <<<"$out" | cut -c1-300)"
	fi
}
check_env "env -i" "^LD_PRELOAD=$lib$" "^PATH=" env -i /usr/bin/env
check_env "env -i keeps the run" "^ACCWATCH_RUN=77$" "^HOME=" env -i /usr/bin/env
check_env "env -i LD_PRELOAD=other" "^LD_PRELOAD=$lib:/nonexistent.so$" "^HOME=" \
	env -i LD_PRELOAD=/nonexistent.so /usr/bin/env
check_env "kept ACCWATCH_ respected" "^ACCWATCH_RUN=5$" "LD_PRELOAD" \
	env -i ACCWATCH_RUN=5 /usr/bin/env
check_env "python env={}" "LD_PRELOAD=$lib" "^PATH=" "$python" -c \
	'import subprocess; print(subprocess.run(["/usr/bin/env"], env={}, capture_output=True, text=True).stdout)'
check_env "posix_spawn env={}" "ACCWATCH_RUN=77" "^PATH=" "$python" -c \
	'import os; os.waitpid(os.posix_spawn("/usr/bin/env", ["env"], {}), 0)'
check_env "ACCWATCH_DISABLE" "^ACCWATCH_DISABLE=1$" "LD_PRELOAD" \
	env ACCWATCH_DISABLE=1 "$python" -c \
	'import subprocess; print(subprocess.run(["/usr/bin/env"], env={"ACCWATCH_DISABLE": "1"}, capture_output=True, text=True).stdout)'
long=$(head -c 5000 /dev/zero | tr '\0' a)
check_env "huge LD_PRELOAD passed through" "^ok$" "ACCWATCH_RUN" env -i \
	"LD_PRELOAD=/$long.so" sh -c 'env | grep -q "^LD_PRELOAD=/a" && echo ok; env'

# Bad ACCWATCH_* values change nothing (bounded parsing).
for value in garbage -5 99999999999999999999999 "$long" ""; do
	for variable in ACCWATCH_RUN ACCWATCH_DEBUG ACCWATCH_DISABLE; do
		(cd "$work" && env "$variable=$value" LD_PRELOAD=$lib \
			"$python" "$script" stop_iteration >run.out 2>run.err)
		got=$?
		(cd "$work" && "$python" "$script" stop_iteration >plain.out 2>plain.err)
		if [ "$got" = $? ] && cmp -s "$work/plain.out" "$work/run.out" &&
			cmp -s "$work/plain.err" "$work/run.err"; then
			pass
		else
			fail "$variable=${value:0:20}"
		fi
	done
done

# The preload creates no file: what a recorded run creates (O_CREAT) is
# what the plain run creates, LTTng-UST's own shared memory aside.
created() {
	grep -E 'O_CREAT|creat\(' "$1" | grep -v ENOENT |
		grep -oE '"[^"]*"' |
		sed -E 's/[0-9]+/N/g; s/_[A-Za-z0-9]{6,}/_X/g; s/sem\.[A-Za-z0-9_]+/sem.X/' |
		sed -E 's|^"/tmp/[A-Za-z0-9_]+"$|"/tmp/X"|' |
		grep -v -E '^"/dev/shm/lttng-ust-wait|^"/dev/shm/ust-shm' | sort
}
if ! command -v strace >/dev/null; then
	fail "strace not found: the check of files created cannot run (scripts/setup.sh installs it)"
else
	start_session
	(cd "$work" && strace -f -qq -e trace=openat,creat -o "$work/strace.pre" \
		env LD_PRELOAD=$lib "$python" "$script" stop_iteration >/dev/null 2>&1)
	stop_session
	(cd "$work" && strace -f -qq -e trace=openat,creat -o "$work/strace.plain" \
		"$python" "$script" stop_iteration >/dev/null 2>&1)
	if cmp -s <(created "$work/strace.plain") <(created "$work/strace.pre"); then
		pass
	else
		fail "files created differ"
		diff <(created "$work/strace.plain") <(created "$work/strace.pre") | head
	fi
fi

# The session daemon killed mid-run (ours, in our namespace only).
if [ -n "$private" ]; then
	start_session
	(cd "$work" && ROBUST_SECONDS=4 LD_PRELOAD=$lib "$python" "$script" \
		long_run >run.out 2>run.err) &
	program=$!
	sleep 2
	# Our daemon and its consumer daemons, by pid.
	daemon=$(cat /var/run/lttng/lttng-sessiond.pid)
	consumers=$(ps -o pid= --ppid "$daemon")
	kill -9 "$daemon" $consumers 2>/dev/null
	wait "$program"
	got=$?
	(cd "$work" && ROBUST_SECONDS=1 "$python" "$script" long_run >plain.out 2>plain.err)
	if [ "$got" = 3 ] && cmp -s "$work/plain.out" "$work/run.out" &&
		cmp -s "$work/plain.err" "$work/run.err"; then
		pass
	else
		fail "session daemon killed: status $got"
		diff "$work/plain.out" "$work/run.out" | head -5
		diff "$work/plain.err" "$work/run.err" | head -5
	fi
	rm -f /var/run/lttng/lttng-sessiond.pid
else
	echo "skipped: session daemon killed mid-run (no private namespace)"
fi

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
