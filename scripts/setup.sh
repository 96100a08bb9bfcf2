#!/bin/sh
# SPDX-License-Identifier: MIT
# Installs what accwatch needs and builds it into build/. Used by the
# README's quick start and by CI; run again, it does only what is missing.
#
#   setup.sh          everything the test suite needs too: both Python stacks
#   setup.sh --demo   only what the tool and the demo need: the Debian
#                     packages that build and run accwatch, and .venv/ with
#                     torch alone (requirements-demo.txt); no tests built
#
# Stacks: Debian's python3-torch on /usr/bin/python3 with accelerate from
# requirements-debian.txt in .debian-site/, and .venv/ (a Python 3.11 venv of
# requirements.txt: PyPI's torch, accelerate, datasets, Lightning, torchdata
# and the rest, with litdata installed apart).
#
# Environment: ACCWATCH_BUILD_DIR (build/), ACCWATCH_CMAKE_ARGS,
# ACCWATCH_VENV_PYTHON (the Python 3.11 the venv is made from; default the
# first python3.11 or python3 of version 3.11 on PATH).
set -eu

here=$(cd "$(dirname "$0")/.." && pwd)
build=${ACCWATCH_BUILD_DIR:-$here/build}
venv=$here/.venv
debian_site=$here/.debian-site
demo=0
case ${1:-} in
--demo) demo=1 ;;
"") ;;
*)
	echo "usage: scripts/setup.sh [--demo]" >&2
	exit 2
	;;
esac

say() { echo "setup: $*" >&2; }
since() { echo "$(($(date +%s) - $1)) s"; }
die() {
	say "$*"
	exit 1
}

# --- Debian packages ---------------------------------------------------------

release=""
if [ -r /etc/os-release ]; then
	. /etc/os-release
	[ "${ID:-}" = debian ] && release=${VERSION_ID:-}
fi
case $release in
12 | 13) ;;
*) die "accwatch's set-up knows Debian 12 and 13; this is ${PRETTY_NAME:-an unknown system}." \
	"Install LTTng-UST 2.13, lttng-tools, babeltrace2 (with its Python bindings), libunwind," \
	"CRoaring, xxHash, jansson, Criterion, CMake, clang and Python 3 with torch yourself," \
	"then build with: cmake -S $here -B $build && cmake --build $build" ;;
esac
. "$here/scripts/packages.sh"
if [ "$demo" -eq 1 ]; then
	# shellcheck disable=SC2086
	accwatch_apt_install $accwatch_build_packages $accwatch_run_packages
else
	# shellcheck disable=SC2086
	accwatch_apt_install $accwatch_build_packages $accwatch_run_packages \
		$accwatch_test_packages
fi

# --- Python stacks -----------------------------------------------------------

# A stamp holds the requirements file a stack was made from: the same file,
# nothing to do.
up_to_date() { # up_to_date REQUIREMENTS STAMP
	[ -f "$2" ] && cmp -s "$1" "$2"
}

# pip's output only when it fails (a machine's pip config may warn a lot).
pip_quiet() {
	pip_log=$(mktemp "${TMPDIR:-/tmp}/accwatch-pip.XXXXXX")
	if "$@" --disable-pip-version-check >"$pip_log" 2>&1; then
		rm -f "$pip_log"
		return 0
	fi
	cat "$pip_log" >&2
	rm -f "$pip_log"
	return 1
}

venv_python() {
	if [ -n "${ACCWATCH_VENV_PYTHON:-}" ]; then
		echo "$ACCWATCH_VENV_PYTHON"
		return
	fi
	for candidate in python3.11 python3; do
		path=$(command -v "$candidate" 2>/dev/null) || continue
		version=$("$path" -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null) || continue
		if [ "$version" = 3.11 ]; then
			echo "$path"
			return
		fi
	done
}

# The demo's venv (torch alone) is a part of the suite's: the suite adds
# the rest to it.
requirements=$here/requirements.txt
[ "$demo" -eq 0 ] || requirements=$here/requirements-demo.txt
t0=$(date +%s)
if up_to_date "$requirements" "$venv/.accwatch-requirements" ||
	{ [ "$demo" -eq 1 ] && up_to_date "$here/requirements.txt" "$venv/.accwatch-requirements"; }; then
	:
elif [ "$demo" -eq 0 ] && up_to_date "$here/requirements-demo.txt" "$venv/.accwatch-requirements"; then
	say "adding requirements.txt to $venv"
	pip_quiet "$venv/bin/python" -m pip install -r "$requirements" ||
		die "pip could not install requirements.txt into $venv (its output above)"
	cp "$requirements" "$venv/.accwatch-requirements"
	say "$venv made in $(since "$t0")"
else
	python=$(venv_python)
	[ -n "$python" ] || die "the venv stack needs Python 3.11 (torch 2.13.0's CPU wheel is built" \
		"for it) and none is on PATH; set ACCWATCH_VENV_PYTHON to one"
	say "making $venv from $(basename "$requirements") with $python"
	"$python" -m venv --clear "$venv"
	pip_quiet "$venv/bin/python" -m pip install -r "$requirements" ||
		die "pip could not install $(basename "$requirements") into $venv (its output above)"
	cp "$requirements" "$venv/.accwatch-requirements"
	say "$venv made in $(since "$t0")"
fi
# litdata apart, with --no-deps: its wheel declares torchvision, and PyPI's
# torchvision does not load beside the CPU torch of requirements.txt
# ("operator torchvision::nms does not exist"); litdata imports torchvision
# only to decode images and video, which the suite does not do. Its other
# dependencies are in requirements.txt.
litdata=litdata==0.2.76
if [ "$demo" -eq 0 ] &&
	! "$venv/bin/python" -m pip show litdata 2>/dev/null | grep -qx "Version: ${litdata#*==}"; then
	say "installing $litdata into $venv without its dependencies"
	pip_quiet "$venv/bin/python" -m pip install --no-deps "$litdata" ||
		die "pip could not install $litdata into $venv (its output above)"
fi
if [ "$demo" -eq 0 ] && ! up_to_date "$here/requirements-debian.txt" "$debian_site/.accwatch-requirements"; then
	say "installing requirements-debian.txt into $debian_site"
	rm -rf "$debian_site"
	pip_quiet "$venv/bin/python" -m pip install --no-deps --target "$debian_site" \
		-r "$here/requirements-debian.txt" ||
		die "pip could not install requirements-debian.txt into $debian_site (its output above)"
	cp "$here/requirements-debian.txt" "$debian_site/.accwatch-requirements"
fi

# --- build -------------------------------------------------------------------

# The demo builds no tests, unless a build with them is there already.
tests=-DACCWATCH_TESTS=ON
if [ "$demo" -eq 1 ]; then
	tests=""
	[ -f "$build/CMakeCache.txt" ] || tests=-DACCWATCH_TESTS=OFF
fi
log=$(mktemp "${TMPDIR:-/tmp}/accwatch-build.XXXXXX")
t0=$(date +%s)
if ! { cmake -S "$here" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	-DACCWATCH_VENV_PYTHON="$venv/bin/python" -DACCWATCH_DEBIAN_SITE="$debian_site" \
	$tests ${ACCWATCH_CMAKE_ARGS:-} &&
	cmake --build "$build" -j "$(nproc)"; } >"$log" 2>&1; then
	cat "$log" >&2
	die "the build failed (log above, also in $log)"
fi
rm -f "$log"
say "built into $build in $(since "$t0")"
