#!/bin/bash
# SPDX-License-Identifier: MIT
# The traced job survives the faults of the trace's own parts: under
# accwatch-run --stall-timeout 2 a torch program runs while the session's
# consumer daemon is stopped (a stalled disk), stopped and then killed with
# the session daemon (an OOM kill), or while the session daemon alone is
# killed. Each run must print what the plain run prints and end with its
# status, within a bound of the plain run's duration (the stall, and
# accwatch-run's bounded wait for the daemon); the stalled processes must be
# named by accwatch-run and by the report. Runs in a private mount namespace
# with a session daemon of its own, which it may stop and kill (root only;
# exit 77 otherwise). Usage: preload_faults.sh LIBDIR
set -u
libdir=$(cd "${1:?usage: preload_faults.sh BUILD_DIR/lib}" && pwd) || exit 2
here=$(cd "$(dirname "$0")" && pwd)
python=${ACCWATCH_PYTHON:-/usr/bin/python3}
run=$libdir/../bin/accwatch-run
report=$libdir/../bin/accwatch-report
. "$here/private_lttng.sh"
daemon() { # starts our session daemon; its pid in $sessiond
	lttng-sessiond --daemonize >/dev/null 2>&1 || return 1
	sessiond=$(cat /var/run/lttng/lttng-sessiond.pid)
}
consumers() { # the consumer daemons of our session daemon
	local p
	for p in $(pgrep lttng-consumerd); do
		[ "$(ps -o ppid= -p "$p" | tr -d ' ')" = "$sessiond" ] && echo "$p"
	done
}
cleanup() {
	local p
	for p in $(consumers 2>/dev/null); do kill -CONT "$p" 2>/dev/null; done
	[ -n "${sessiond:-}" ] && kill -9 "$sessiond" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT
now() { date +%s; }

start=$(now)
"$python" "$here/preload_faults.py" 4 >"$work/plain.out" 2>"$work/plain.err"
plain_status=$?
plain_seconds=$(($(now) - start))

# case NAME FAULT: FAULT runs 4 s into the run (stop, stop-kill, kill).
case_run() {
	local name=$1 fault=$2 out=$work/$1
	mkdir -p "$out"
	daemon || { fail "$name: no session daemon"; return; }
	local begin=$(now) fault_at=0
	"$run" -o "$out/trace" --stall-timeout 2 --subbuf-size 64k \
		--num-subbuf 2 -- "$python" "$here/preload_faults.py" 4 \
		>"$out/run.out" 2>"$out/run.err" &
	local pid=$!
	sleep 4
	local cons
	cons=$(consumers)
	case $fault in
	stop) kill -STOP $cons ;;
	stop-kill)
		kill -STOP $cons
		sleep 3
		# the session daemon first: killed after its consumers, it
		# could still answer a destroy waiting on them, and the run
		# would rightly say the destroy failed, not that it is gone
		kill -9 "$sessiond" $cons
		;;
	kill) kill -9 "$sessiond" ;;
	esac
	fault_at=$(now)
	wait "$pid"
	local status=$? seconds=$(($(now) - begin)) after=$(($(now) - fault_at))
	[ "$status" = "$plain_status" ] && pass ||
		fail "$name: status $status, the plain run's $plain_status"
	cmp -s "$work/plain.out" "$out/run.out" && pass ||
		fail "$name: output differs: $(diff "$work/plain.out" "$out/run.out" | head -5)"
	case $fault in
	stop) # the stall (2 s) and accwatch-run's wait for the daemon (30 s),
		# beside the program's own time (twice the plain run's: a loaded
		# machine)
		[ "$seconds" -le $((2 * plain_seconds + 2 + 30 + 10)) ] && pass ||
			fail "$name: took $seconds s, the plain run $plain_seconds s"
		grep -q "stopped recording after an event waited 2000 ms" "$out/run.err" &&
			grep -q "did not answer within 30 s" "$out/run.err" && pass ||
			fail "$name: accwatch-run did not say what stopped: $(cat "$out/run.err")"
		;;
	stop-kill) # what is left of the program's own time, and a few s
		[ "$after" -le $((plain_seconds + 10)) ] && pass ||
			fail "$name: ended $after s after the daemons were killed (the plain run took $plain_seconds s)"
		grep -q "stopped recording" "$out/run.err" &&
			grep -q "session daemon is gone" "$out/run.err" && pass ||
			fail "$name: accwatch-run did not say what happened: $(cat "$out/run.err")"
		;;
	kill)
		[ "$seconds" -le $((2 * plain_seconds + 15)) ] && pass ||
			fail "$name: took $seconds s, the plain run $plain_seconds s"
		;;
	esac
	if [ "$fault" != kill ]; then
		ls "$out/trace"/accwatch-stalled.* >/dev/null 2>&1 && pass ||
			fail "$name: no stall note in $out/trace"
		"$report" "$out/trace" >"$out/report" 2>&1
		grep -q "stopped recording after an event waited 2000 ms" "$out/report" && pass ||
			fail "$name: the report does not say a process stopped recording: $(head -5 "$out/report")"
	fi
	for p in $(consumers); do kill -CONT "$p" 2>/dev/null; kill -9 "$p" 2>/dev/null; done
	kill -9 "$sessiond" 2>/dev/null
	sessiond=
	rm -f /var/run/lttng/lttng-sessiond.pid
	sleep 1
}

case_run consumer_stopped stop
case_run consumer_stopped_then_killed stop-kill
case_run sessiond_killed kill
echo "plain run: $plain_seconds s; $passed passed, $failed failed"
[ "$failed" = 0 ]
