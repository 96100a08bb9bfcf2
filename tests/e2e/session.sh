# SPDX-License-Identifier: MIT
# Sourced by the preload_*.sh tests (bash): the set-up they share.
#
# aw_test NAME LIBDIR sets libdir (absolute), here (this directory), python
# (ACCWATCH_PYTHON or /usr/bin/python3), work (a temporary directory, removed
# at exit), session (accwatch_NAME_PID, destroyed at exit) and run (a random
# run id: other tests' processes of this user reach every session, the
# filter on run keeps ours), and counters passed and failed.
aw_test() {
	local name=$1
	libdir=$(cd "${2:?usage: preload_$name.sh BUILD_DIR/lib}" && pwd) || exit 2
	here=$(cd "$(dirname "$0")" && pwd)
	python=${ACCWATCH_PYTHON:-/usr/bin/python3}
	work=$(mktemp -d)
	session=accwatch_${name}_$$
	run=$((RANDOM * 32768 + RANDOM + 1))
	passed=0
	failed=0
	trap 'lttng destroy "$session" >/dev/null 2>&1; rm -rf "$work"' EXIT
}

# aw_session [FILTER [CHANNEL OPTIONS...]]: starts a session daemon if none
# runs and session, recording accwatch's events that match FILTER (default:
# run == $run) into $work/trace; with channel options, through a channel
# of those (--blocking-timeout=inf: the test needs every event). Non-zero
# when LTTng refused.
aw_session() {
	local filter=${1:-"run == $run"}
	local channel=()
	shift
	lttng list >/dev/null 2>&1 || lttng-sessiond --daemonize >/dev/null ||
		return 1
	lttng create "$session" --output="$work/trace" >/dev/null || return 1
	if [ $# -gt 0 ]; then
		lttng enable-channel -u -s "$session" "$@" chan >/dev/null ||
			return 1
		channel=(-c chan)
	fi
	lttng enable-event -u -s "$session" "${channel[@]}" 'accwatch:*' \
		--filter "$filter" >/dev/null || return 1
	lttng start "$session" >/dev/null
}
