#!/bin/sh
# SPDX-License-Identifier: MIT
# Installs every package accwatch and its tests need, makes the two Python
# stacks of the suite and builds into build/. Used by the README's quick
# start and by CI; run again, it does only what is missing.
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

say() { echo "setup: $*" >&2; }
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
12) clang_rt=libclang-rt-14-dev ;;
13) clang_rt=libclang-rt-19-dev ;;
*) die "accwatch's set-up knows Debian 12 and 13; this is ${PRETTY_NAME:-an unknown system}." \
	"Install LTTng-UST 2.13, lttng-tools, babeltrace2 (with its Python bindings), libunwind," \
	"CRoaring, xxHash, jansson, Criterion, CMake, clang and Python 3 with torch yourself," \
	"then build with: cmake -S $here -B $build && cmake --build $build" ;;
esac

# Named one by one, nothing left to Recommends: the build (compilers,
# LTTng, babeltrace2, the libraries), the sanitizer run (clang and its
# runtime), the format check (clang-format), the Debian stack (torch, and
# accelerate's dependencies), the tests (python3-bt2 reads traces, strace
# checks the dormant preload, python3-pytest runs the bootstrap's unit
# tests, python3-jsonschema validates the SARIF logs, chromium shows the HTML report to its test); libjs-chart.js
# is the Chart.js that accwatch-report inlines into its HTML report.
# python3-setuptools gives Python 3.12+ (Debian 13) back the distutils that
# accelerate 0.2x imports.
packages="build-essential cmake pkg-config git lttng-tools liblttng-ust-dev
liblttng-ctl-dev babeltrace2 libbabeltrace2-dev python3-bt2 libunwind-dev
libroaring-dev libxxhash-dev libjansson-dev libcriterion-dev clang $clang_rt
clang-format python3 python3-torch python3-numpy python3-packaging
python3-psutil python3-yaml python3-setuptools python3-pytest python3-jsonschema strace
libjs-chart.js chromium"

missing=""
for p in $packages; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
		missing="$missing $p"
done
if [ -n "$missing" ]; then
	say "installing$missing"
	sudo=""
	[ "$(id -u)" -eq 0 ] || sudo=sudo
	# sudo's env_reset drops variables set before it: pass them through env.
	$sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq
	$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
		--no-install-recommends $missing >/dev/null
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

if ! up_to_date "$here/requirements.txt" "$venv/.accwatch-requirements"; then
	python=$(venv_python)
	[ -n "$python" ] || die "the venv stack needs Python 3.11 (torch 2.13.0's CPU wheel is built" \
		"for it) and none is on PATH; set ACCWATCH_VENV_PYTHON to one"
	say "making $venv from requirements.txt with $python"
	"$python" -m venv --clear "$venv"
	pip_quiet "$venv/bin/python" -m pip install -r "$here/requirements.txt" ||
		die "pip could not install requirements.txt into $venv (its output above)"
	cp "$here/requirements.txt" "$venv/.accwatch-requirements"
fi
# litdata apart, with --no-deps: its wheel declares torchvision, and PyPI's
# torchvision does not load beside the CPU torch of requirements.txt
# ("operator torchvision::nms does not exist"); litdata imports torchvision
# only to decode images and video, which the suite does not do. Its other
# dependencies are in requirements.txt.
litdata=litdata==0.2.76
if ! "$venv/bin/python" -m pip show litdata 2>/dev/null | grep -qx "Version: ${litdata#*==}"; then
	say "installing $litdata into $venv without its dependencies"
	pip_quiet "$venv/bin/python" -m pip install --no-deps "$litdata" ||
		die "pip could not install $litdata into $venv (its output above)"
fi
if ! up_to_date "$here/requirements-debian.txt" "$debian_site/.accwatch-requirements"; then
	say "installing requirements-debian.txt into $debian_site"
	rm -rf "$debian_site"
	pip_quiet "$venv/bin/python" -m pip install --no-deps --target "$debian_site" \
		-r "$here/requirements-debian.txt" ||
		die "pip could not install requirements-debian.txt into $debian_site (its output above)"
	cp "$here/requirements-debian.txt" "$debian_site/.accwatch-requirements"
fi

# --- build -------------------------------------------------------------------

log=$(mktemp "${TMPDIR:-/tmp}/accwatch-build.XXXXXX")
if ! { cmake -S "$here" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	-DACCWATCH_VENV_PYTHON="$venv/bin/python" -DACCWATCH_DEBIAN_SITE="$debian_site" \
	${ACCWATCH_CMAKE_ARGS:-} &&
	cmake --build "$build" -j "$(nproc)"; } >"$log" 2>&1; then
	cat "$log" >&2
	die "the build failed (log above, also in $log)"
fi
rm -f "$log"
say "built into $build"
