#!/bin/bash
# SPDX-License-Identifier: MIT
# A signal reaches the command under accwatch-run as it reaches the command
# run alone: once, with the same lines written, the same status and about
# the same time. Each
# signal is sent to accwatch-run alone and to its whole process group (no
# terminal: a batch job, CI, a scheduler), and a terminal's Ctrl-C, Ctrl-\
# and hangup are sent through a pseudo-terminal whose foreground group
# accwatch-run and the command share. Every case is run plain first.
# usage: run_signal_paths.sh ACCWATCH_RUN STUB_PRELOAD PYTHON   (77: skipped)
set -u
RUN=$1
export ACCWATCH_PRELOAD=$2
python=$3
here=$(cd "$(dirname "$0")" && pwd)
command -v lttng >/dev/null && command -v lttng-sessiond >/dev/null || {
	echo "lttng-tools not installed: skipped"; exit 77; }
command -v setsid >/dev/null || { echo "no setsid: skipped"; exit 77; }

work=$(mktemp -d /tmp/accwatch-run-signals.XXXXXX)
trap 'rm -rf "$work"' EXIT
failures=0

# The command: counts every signal it traps, one line each, in $LOG.
cat >"$work/command.sh" <<'SCRIPT'
n=0
for s in INT TERM HUP QUIT USR1 USR2 ALRM; do
	trap "n=\$((n + 1)); echo caught $s >>\"\$LOG\"" "$s"
done
: >"$READY"
for i in 1 2 3 4 5 6 7 8; do sleep 0.2 & wait $!; done
echo "signals $n" >>"$LOG"
exit 4
SCRIPT

# run_case NAME HOW SIGNAL [accwatch-run -o DIR --]: HOW is pid, group or a
# run_pty.py key; prints the status and the seconds it took, the lines are
# in $work/NAME.log.
run_case() {
	local name=$1 how=$2 signal=$3 pid status start=$SECONDS
	shift 3
	rm -f "$work/$name.log" "$work/$name.ready"
	export LOG=$work/$name.log READY=$work/$name.ready
	case $how in
	pid | group)
		# a session of its own: no terminal, its own process group; and
		# SIGINT, SIGQUIT as a launcher leaves them (a script's & jobs
		# would have them ignored)
		"$python" -c 'import os, signal, sys
for s in (signal.SIGINT, signal.SIGQUIT):
    signal.signal(s, signal.SIG_DFL)
os.setsid()
os.execvp(sys.argv[1], sys.argv[1:])' "$@" bash "$work/command.sh" >/dev/null 2>>"$work/err" &
		pid=$!
		for _ in $(seq 300); do [ -e "$READY" ] && break; sleep 0.05; done
		if [ "$how" = pid ]; then kill -s "$signal" "$pid"; else kill -s "$signal" -- "-$pid"; fi
		wait "$pid"
		status=$?
		;;
	*)
		"$python" "$here/run_pty.py" "$READY" "$how" "$@" bash "$work/command.sh" \
			2>>"$work/err"
		status=$?
		;;
	esac
	echo "$status $((SECONDS - start))"
}

# check NAME HOW SIGNAL: the plain run, then under accwatch-run.
check() {
	local name=$1 how=$2 signal=$3 plain traced plain_s traced_s
	read -r plain plain_s < <(run_case "$name.plain" "$how" "$signal")
	read -r traced traced_s < <(run_case "$name.run" "$how" "$signal" "$RUN" -o "$work/trace-$name" --)
	if [ "$(cat "$work/$name.plain.log")" != "caught $signal
signals 1" ]; then
		echo "FAIL $name: the plain run did not catch SIG$signal once: $(cat "$work/$name.plain.log")"
		failures=$((failures + 1))
	elif ! cmp -s "$work/$name.plain.log" "$work/$name.run.log"; then
		echo "FAIL $name: under accwatch-run: $(cat "$work/$name.run.log" | tr '\n' ' ') (plain: $(cat "$work/$name.plain.log" | tr '\n' ' '))"
		failures=$((failures + 1))
	elif [ "$plain" != "$traced" ]; then
		echo "FAIL $name: status $traced, the plain run's $plain"
		failures=$((failures + 1))
	elif [ "$traced_s" -gt $((plain_s + 10)) ]; then
		# the session's set-up and teardown, beside the command's time
		echo "FAIL $name: took $traced_s s, the plain run $plain_s s"
		failures=$((failures + 1))
	else
		echo "ok   $name: SIG$signal caught once, status $traced"
	fi
}

for signal in INT TERM HUP USR1 USR2 ALRM; do
	check "$signal-alone" pid "$signal"
	check "$signal-group" group "$signal"
done
check terminal-ctrl-c ctrl-c INT
check terminal-ctrl-backslash ctrl-backslash QUIT
check terminal-hangup hangup HUP
[ "$failures" = 0 ] || {
	echo "$failures failed; what the runs said:"
	grep -v "nothing was recorded" "$work/err" | sed 's/^/  /'
	exit 1
}
