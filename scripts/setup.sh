#!/bin/sh
# Installs every Debian package accwatch needs and builds it into build/.
# Used by the README's quick start and by CI; safe to run again.
set -eu

here=$(cd "$(dirname "$0")/.." && pwd)
build=${ACCWATCH_BUILD_DIR:-$here/build}

packages="build-essential cmake pkg-config lttng-tools liblttng-ust-dev
liblttng-ctl-dev babeltrace2 libbabeltrace2-dev libunwind-dev libroaring-dev
libxxhash-dev libjansson-dev libcriterion-dev python3-torch python3-numpy
clang libclang-rt-14-dev"

missing=""
for p in $packages; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
		missing="$missing $p"
done
if [ -n "$missing" ]; then
	echo "setup: installing$missing" >&2
	sudo=""
	[ "$(id -u)" -eq 0 ] || sudo=sudo
	$sudo apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq $missing >/dev/null
fi

log=$(mktemp "${TMPDIR:-/tmp}/accwatch-build.XXXXXX")
if ! { cmake -S "$here" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo ${ACCWATCH_CMAKE_ARGS:-} &&
	cmake --build "$build" -j "$(nproc)"; } >"$log" 2>&1; then
	cat "$log" >&2
	echo "setup: the build failed (log above, also in $log)" >&2
	exit 1
fi
rm -f "$log"
echo "setup: built into $build" >&2
