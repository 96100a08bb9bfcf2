#!/bin/bash
# SPDX-License-Identifier: MIT
# accwatch-run against a real lttng-sessiond: exit statuses (own, signal, not
# found, not executable), signal forwarding, and no session left behind.
# usage: run_lifecycle.sh ACCWATCH_RUN STUB_PRELOAD     (exit 77: skipped)
set -u
RUN=$1
export ACCWATCH_PRELOAD=$2
command -v lttng >/dev/null && command -v lttng-sessiond >/dev/null || {
	echo "lttng-tools not installed: skipped"; exit 77; }

work=$(mktemp -d /tmp/accwatch-run-lifecycle.XXXXXX)
trap 'rm -rf "$work"' EXIT
failures=0

# expect STATUS DESCRIPTION -- accwatch-run arguments...
expect() {
	local want=$1 what=$2 got session
	shift 3
	rm -rf "$work/trace"
	ACCWATCH_DEBUG=1 "$RUN" -o "$work/trace" "$@" 2>"$work/err"
	got=$?
	session=$(grep -o 'session accwatch-[0-9]*-[0-9a-f]*' "$work/err" | cut -d' ' -f2)
	if [ "$got" != "$want" ]; then
		echo "FAIL $what: exit $got, expected $want"; cat "$work/err"; failures=$((failures + 1))
	elif [ -n "$session" ] && lttng list 2>/dev/null | grep -q "$session"; then
		echo "FAIL $what: session $session left behind"; failures=$((failures + 1))
	else
		echo "ok   $what (exit $got)"
	fi
}

expect 0 "true" -- /bin/true
expect 3 "exit 3" -- bash -c 'exit 3'
expect 137 "killed by SIGKILL" -- bash -c 'kill -9 $$'
expect 127 "not found" -- /nonexistent/command
expect 127 "not on PATH" -- accwatch-no-such-command
touch "$work/not-executable"
expect 126 "not executable" -- "$work/not-executable"
grep -q "cannot run" "$work/err" || { echo "FAIL no message for exec failure"; failures=$((failures + 1)); }

# --live without a relay daemon to be had: said, and the command runs
# recorded into DIR all the same (the lttng-relayd first on PATH is not
# there: exit 127, as the shell says of a missing program).
mkdir -p "$work/nobin"
printf '#!/bin/sh\nexit 127\n' >"$work/nobin/lttng-relayd"
chmod +x "$work/nobin/lttng-relayd"
PATH=$work/nobin:$PATH expect 3 "--live without lttng-relayd" -- --live -- /bin/bash -c 'exit 3'
grep -q -- "--live: cannot run lttng-relayd.* runs recorded into $work/trace without live lines" "$work/err" &&
	[ -d "$work/trace/ust" ] && echo "ok   --live without lttng-relayd: said, recorded into the directory" || {
	echo "FAIL --live without lttng-relayd: $(cat "$work/err")"; failures=$((failures + 1)); }

# Signals sent to accwatch-run reach the command (SLURM's requeue idiom sends
# USR1); cleanup still happens and the status is the command's.
set -m # background jobs keep SIGINT (a script's & jobs would ignore it)
for signal in INT TERM HUP QUIT USR1 USR2 ALRM; do
	rm -rf "$work/trace"
	ACCWATCH_DEBUG=1 "$RUN" -o "$work/trace" -- sleep 30 2>"$work/err" &
	pid=$!
	sleep 1
	kill -s "$signal" "$pid"
	wait "$pid"
	got=$?
	want=$((128 + $(kill -l "$signal")))
	session=$(grep -o 'session accwatch-[0-9]*-[0-9a-f]*' "$work/err" | cut -d' ' -f2)
	if [ "$got" != "$want" ]; then
		echo "FAIL SIG$signal: exit $got, expected $want"; cat "$work/err"; failures=$((failures + 1))
	elif [ -z "$session" ] || lttng list 2>/dev/null | grep -q "$session"; then
		echo "FAIL SIG$signal: session '$session' left behind"; failures=$((failures + 1))
	else
		echo "ok   SIG$signal forwarded (exit $got)"
	fi
done
set +m

# The command catches USR1 and goes on: accwatch-run forwards it and waits.
# The signal is sent once its trap is set (a loaded machine may take more
# than a second to start the command).
rm -rf "$work/trace" "$work/ready"
"$RUN" -o "$work/trace" -- bash -c 'trap "echo caught" USR1; : >"$0"; sleep 2 & wait; wait; exit 4' \
	"$work/ready" >"$work/out" 2>"$work/err" &
pid=$!
for _ in $(seq 600); do
	[ -e "$work/ready" ] && break
	sleep 0.05
done
kill -s USR1 "$pid"
wait "$pid"
got=$?
if [ "$got" = 4 ] && grep -q caught "$work/out"; then
	echo "ok   SIGUSR1 caught by the command, its status kept"
else
	echo "FAIL SIGUSR1 handled by the command: exit $got, output $(cat "$work/out")"
	failures=$((failures + 1))
fi
# accwatch-run's own output to a closed pipe: no SIGPIPE death, the command's
# status; and the command gets SIGPIPE as it inherited it (default here).
rm -rf "$work/trace"
"$RUN" -o "$work/trace" -- bash -c 'sleep 1; exit 5' 2>&1 | true
got=${PIPESTATUS[0]}
if [ "$got" = 5 ]; then
	echo "ok   output to a closed pipe: the command's status"
else
	echo "FAIL output to a closed pipe: exit $got, expected 5"
	failures=$((failures + 1))
fi
"$RUN" -o "$work/trace2" -- bash -c 'trap -p PIPE; yes | head -c 1 >/dev/null; echo "${PIPESTATUS[0]}"' \
	>"$work/out" 2>/dev/null
if [ "$(tail -n 1 "$work/out")" = 141 ]; then
	echo "ok   the command's SIGPIPE is its own (yes died of it)"
else
	echo "FAIL the command's SIGPIPE disposition changed: $(cat "$work/out")"
	failures=$((failures + 1))
fi

# accwatch-run -- sleep 3 in the background, 1 s in: its pid, its session
# and the session's guardian (whose pid the name bears).
start_sleeper() {
	rm -rf "$work/trace" "$work/next"
	ACCWATCH_DEBUG=1 "$RUN" -o "$work/trace" -- sleep 3 2>"$work/err" &
	pid=$!
	sleep 1
	session=$(grep -o 'session accwatch-[0-9]*-[0-9a-f]*' "$work/err" | cut -d' ' -f2)
	guardian=$(echo "$session" | cut -d- -f2)
}

# kill -9 of accwatch-run (the OOM killer): its guardian waits for the
# command to end, then stops and destroys the session (the trace is written
# out); nothing is left once the command ended.
start_sleeper
kill -9 "$pid"
wait "$pid" 2>/dev/null
if [ -z "$session" ] || ! lttng list 2>/dev/null | grep -q "$session"; then
	echo "FAIL kill -9: session '$session' gone while the command still runs"
	failures=$((failures + 1))
fi
# A process that runs (a zombie whose new parent has not reaped it does not).
running() { [ -r "/proc/$1/stat" ] && ! grep -q '^[0-9]* ([^)]*) [ZX]' "/proc/$1/stat"; }
for _ in $(seq 1 50); do
	lttng list 2>/dev/null | grep -q "$session" || running "$guardian" || break
	sleep 0.2
done
if lttng list 2>/dev/null | grep -q "$session"; then
	echo "FAIL kill -9: session $session left 10 s after the command ended"
	failures=$((failures + 1))
elif running "$guardian"; then
	echo "FAIL kill -9: the guardian $guardian is still there"
	failures=$((failures + 1))
else
	echo "ok   kill -9: the guardian destroyed $session once the command ended"
fi

# kill -9 of accwatch-run and of its guardian: the session stays behind
# until the next accwatch-run destroys it, saying where the trace is.
start_sleeper
kill -9 "$pid" "$guardian"
wait "$pid" 2>/dev/null
# Any accwatch-run reaps it, so one of a test running beside this one may
# have already: then only "nothing left" is checked.
reaped=
lttng list 2>/dev/null | grep -q "$session" || reaped=yes
"$RUN" -o "$work/next" -- true 2>"$work/err2"
if [ -z "$session" ]; then
	echo "FAIL kill -9 of both: no session named in $(cat "$work/err")"
	failures=$((failures + 1))
elif lttng list 2>/dev/null | grep -q "$session"; then
	echo "FAIL kill -9 of both: session $session still there after the next run"
	failures=$((failures + 1))
elif [ -z "$reaped" ] && ! grep -q "destroyed session $session.*$work/trace" "$work/err2"; then
	echo "FAIL kill -9 of both: the next run did not say it destroyed $session: $(cat "$work/err2")"
	failures=$((failures + 1))
else
	echo "ok   kill -9 of both: the next run${reaped:+ (or one beside it)} destroyed $session"
fi

# Usage errors and the output directory guard.
"$RUN" --no-such-option true 2>/dev/null; [ $? = 2 ] && echo "ok   usage error" || {
	echo "FAIL usage error status"; failures=$((failures + 1)); }
mkdir -p "$work/full" && touch "$work/full/x"
"$RUN" -o "$work/full" -- true 2>/dev/null; [ $? = 125 ] && echo "ok   non-empty refused" || {
	echo "FAIL non-empty output accepted"; failures=$((failures + 1)); }

exit $((failures > 0))
