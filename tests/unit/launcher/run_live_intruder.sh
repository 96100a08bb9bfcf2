#!/bin/bash
# SPDX-License-Identifier: MIT
# Another local user must neither read nor write the trace of
# `accwatch-run --live`: the relay daemon it starts listens on loopback
# ports that /proc shows to everyone. Root records a job live; a user made
# for the test connects to the three ports (each connection must be ended
# at once, while root's own stays open), sends a session of its own there
# with `accwatch-run --relayd` (refused, nothing of it in root's trace), and
# reads it with `accwatch-report --live` (refused). Root's run must end
# well with every event of its own in the trace.
# usage: run_live_intruder.sh ACCWATCH_RUN ACCWATCH_REPORT EMITTER STUB_PRELOAD
#        (root; exit 77: skipped)
set -u
RUN=$1
REPORT=$2
EMITTER=$3
PRELOAD=$4
if [ "$(id -u)" != 0 ] || ! command -v useradd >/dev/null || ! command -v runuser >/dev/null; then
	echo "needs root, useradd and runuser (a user is made): skipped"; exit 77
fi
for tool in lttng-sessiond lttng-relayd babeltrace2; do
	command -v $tool >/dev/null || { echo "$tool not installed: skipped"; exit 77; }
done

intruder=awintrude$$
work=$(mktemp -d /tmp/accwatch-run-intruder.XXXXXX)
chmod 755 "$work"
cleanup() {
	[ -n "${victim_pid:-}" ] && kill "$victim_pid" 2>/dev/null && wait "$victim_pid" 2>/dev/null
	if id "$intruder" >/dev/null 2>&1; then
		for pid in $(pgrep -u "$intruder"); do kill "$pid" 2>/dev/null; done
		for _ in $(seq 50); do pgrep -u "$intruder" >/dev/null || break; sleep 0.1; done
		userdel -r "$intruder" 2>/dev/null || userdel -f -r "$intruder" 2>/dev/null
	fi
	rm -rf "$work"
}
trap cleanup EXIT
useradd -m -s /bin/sh "$intruder" || { echo "FAIL useradd $intruder"; exit 1; }
ihome=$(getent passwd "$intruder" | cut -d: -f6)
mkdir -m 755 "$work/bin"
cp "$RUN" "$work/bin/accwatch-run"
cp "$REPORT" "$work/bin/accwatch-report"
cp "$EMITTER" "$work/bin/emitter"
cp "$PRELOAD" "$work/bin/libaccwatch.so"
chmod 755 "$work/bin"/*
as_intruder() { runuser -u "$intruder" -- env HOME="$ihome" ACCWATCH_PRELOAD="$work/bin/libaccwatch.so" "$@"; }

failures=0
fail() { echo "FAIL $*"; failures=$((failures + 1)); }

# Root's job: 300 events over about 15 s, recorded live.
trace=$work/trace
ACCWATCH_PRELOAD=$PRELOAD "$RUN" -q --live -o "$trace" -- "$EMITTER" VICTIM 300 50 \
	>"$work/victim.out" 2>"$work/victim.err" &
victim_pid=$!
ports=
for _ in $(seq 100); do
	relayd=$(pgrep -n -f "lttng-relayd .*-o $trace")
	if [ -n "$relayd" ]; then
		ports=$(tr '\0' ' ' </proc/"$relayd"/cmdline |
			grep -o 'tcp://127.0.0.1:[0-9]*' | sed 's/.*://' | tr '\n' ' ')
		[ "$(echo $ports | wc -w)" = 3 ] && [ -d "$trace" ] &&
			[ -n "$(find "$trace" -name metadata 2>/dev/null)" ] && break
	fi
	sleep 0.1
done
set -- $ports
control=${1:-}; data=${2:-}; viewer=${3:-}
if [ -z "$viewer" ]; then
	fail "no relay daemon of root's --live run found"
	cat "$work/victim.err"
	exit 1
fi
echo "     root's relay daemon listens on $control, $data, $viewer"

# A connection to each port: "ended" when the relay daemon shut it at once.
cat >"$work/probe.py" <<'PY'
import socket, sys
for port in sys.argv[1:]:
    s = socket.create_connection(("127.0.0.1", int(port)), timeout=5)
    s.settimeout(2)
    try:
        print(port, "ended" if s.recv(1) == b"" else "open")
    except socket.timeout:
        print(port, "open")
    except ConnectionResetError:
        print(port, "ended")
PY
chmod 644 "$work/probe.py"
probe=$(as_intruder /usr/bin/python3 "$work/probe.py" "$control" "$data" "$viewer")
if [ "$(echo "$probe" | grep -c ' ended$')" = 3 ]; then
	echo "ok   the intruder's connections to the three ports were ended at once"
else
	fail "the intruder's connections: $(echo $probe)"
fi
probe=$(/usr/bin/python3 "$work/probe.py" "$viewer")
if [ "$probe" = "$viewer open" ]; then
	echo "ok   root's own connection to the viewer port stays open"
else
	fail "root's own connection: $probe"
fi

# A session of the intruder's own sent to root's relay daemon.
as_intruder "$work/bin/accwatch-run" -q --relayd "127.0.0.1:$control:$data" -- \
	"$work/bin/emitter" INTRUDER 20 1 >"$work/intruder.out" 2>"$work/intruder.err"
status=$?
if [ $status = 0 ]; then
	fail "the intruder's accwatch-run --relayd to root's relay daemon exited 0"
else
	echo "ok   the intruder's session to root's relay daemon failed (exit $status):"
	sed 's/^/       /' "$work/intruder.err" | head -2
fi
# Reading root's sessions live (without the peer check: root's session).
timeout 30 runuser -u "$intruder" -- env HOME="$ihome" "$work/bin/accwatch-report" \
	--live "net://127.0.0.1:$viewer" >"$work/reader.out" 2>"$work/reader.err"
status=$?
if [ $status = 0 ] || [ $status = 124 ]; then
	fail "the intruder's accwatch-report --live on root's relay daemon exited $status"
else
	echo "ok   the intruder's live reader was refused (exit $status):"
	sed 's/^/       /' "$work/reader.err" | head -2
fi

wait "$victim_pid"
status=$?
victim_pid=
[ $status = 0 ] || { fail "root's run exited $status:"; sed 's/^/    /' "$work/victim.err"; }
events=$(babeltrace2 "$trace" 2>/dev/null)
victim_events=$(echo "$events" | grep -c 'VICTIM')
intruder_events=$(echo "$events" | grep -c 'INTRUDER')
if [ "$victim_events" = 300 ] && [ "$intruder_events" = 0 ]; then
	echo "ok   root's trace holds its 300 events and none of the intruder's"
else
	fail "root's trace holds $victim_events of its 300 events and $intruder_events of the intruder's"
fi
exit $((failures > 0))
