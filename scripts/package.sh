#!/bin/sh
# SPDX-License-Identifier: MIT
# Makes the Debian package: installs the packages that build accwatch
# (scripts/packages.sh), builds it without its tests into build-package/
# (prefix /usr) and runs `cpack -G DEB` there; prints the .deb's path.
# Environment: ACCWATCH_PACKAGE_DIR (build-package/).
set -eu

here=$(cd "$(dirname "$0")/.." && pwd)
build=${ACCWATCH_PACKAGE_DIR:-$here/build-package}
release=""
if [ -r /etc/os-release ]; then
	. /etc/os-release
	[ "${ID:-}" = debian ] && release=${VERSION_ID:-}
fi
. "$here/scripts/packages.sh"
# shellcheck disable=SC2086
accwatch_apt_install $accwatch_build_packages $accwatch_package_packages

log=$(mktemp "${TMPDIR:-/tmp}/accwatch-package.XXXXXX")
rm -f "$build"/accwatch_*.deb
if ! { cmake -S "$here" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	-DCMAKE_INSTALL_PREFIX=/usr -DACCWATCH_TESTS=OFF &&
	cmake --build "$build" -j "$(nproc)" &&
	(cd "$build" && cpack -G DEB); } >"$log" 2>&1; then
	cat "$log" >&2
	echo "package: the build failed (log above, also in $log)" >&2
	exit 1
fi
rm -f "$log"
deb=$(ls "$build"/accwatch_*.deb)
echo "package: $deb depends on: $(dpkg-deb -f "$deb" Depends)" >&2
echo "$deb"
