# SPDX-License-Identifier: MIT
# Sourced first by the e2e shell tests that stop or kill the session
# daemon: the script runs again in a private mount namespace with a tmpfs
# on /var/run/lttng (a session daemon of its own, never another test's or
# the machine's) and LTTNG_HOME under $work; root only, else exit 77.
# Sets work (a temporary directory) and sources tally.sh.
if [ -z "${ACCWATCH_PRIVATE_LTTNG:-}" ]; then
	[ "$(id -u)" = 0 ] && unshare -m --propagation private true 2>/dev/null || {
		echo "SKIP: needs root and mount namespaces"
		exit 77
	}
	exec unshare -m --propagation private env ACCWATCH_PRIVATE_LTTNG=1 \
		bash -c 'mount -t tmpfs tmpfs /var/run/lttng && exec "$@"' \
		bash "$0" "$@"
fi
work=$(mktemp -d)
export LTTNG_HOME=$work/home
mkdir -p "$LTTNG_HOME"
. "$(dirname "${BASH_SOURCE[0]}")/tally.sh"
