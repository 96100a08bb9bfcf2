# SPDX-License-Identifier: MIT
# Sourced by scripts/setup.sh, package.sh and package-try.sh: the Debian
# packages each part needs, named one by one (nothing left to Recommends),
# for the Debian release in $release (12 or 13).
#
# build: what builds accwatch (compilers, LTTng, babeltrace2, the
#   libraries; libjs-chart.js is the Chart.js accwatch-report inlines).
# package: what CPack's DEB generator runs (scripts/package.sh).
# run: what the built tools need besides their libraries (the LTTng session
#   daemon accwatch-run starts).
# test: the test suite's: Criterion, the sanitizer run (clang and its
#   runtime), the format check (clang-format), the Debian stack (torch, and
#   accelerate's dependencies; python3-setuptools gives Python 3.12+ back
#   the distutils accelerate 0.2x imports), python3-bt2 reads traces,
#   strace checks the dormant preload, python3-pytest runs the bootstrap's
#   unit tests, python3-jsonschema validates the SARIF logs, chromium shows
#   the HTML report to its test, man-db renders the man pages, babeltrace2
#   and git for the scenarios.
case $release in
12) accwatch_clang_rt=libclang-rt-14-dev ;;
13) accwatch_clang_rt=libclang-rt-19-dev ;;
*) accwatch_clang_rt= ;;
esac
accwatch_build_packages="build-essential cmake pkg-config liblttng-ust-dev
liblttng-ctl-dev libbabeltrace2-dev libunwind-dev libroaring-dev
libxxhash-dev libjansson-dev libjs-chart.js"
accwatch_run_packages="lttng-tools"
# What `cpack -G DEB` runs besides the build (dpkg-shlibdeps, file).
accwatch_package_packages="dpkg-dev file"
accwatch_test_packages="git babeltrace2 python3-bt2 libcriterion-dev clang
$accwatch_clang_rt clang-format python3 python3-torch python3-numpy
python3-packaging python3-psutil python3-yaml python3-setuptools
python3-pytest python3-jsonschema strace chromium man-db"

# accwatch_apt_install PACKAGE...: installs those not installed yet.
accwatch_apt_install() {
	_missing=""
	for _p in "$@"; do
		dpkg-query -W -f='${Status}' "$_p" 2>/dev/null | grep -q "install ok installed" ||
			_missing="$_missing $_p"
	done
	[ -n "$_missing" ] || return 0
	echo "setup: installing$_missing" >&2
	_t0=$(date +%s)
	_sudo=""
	[ "$(id -u)" -eq 0 ] || _sudo=sudo
	# sudo's env_reset drops variables set before it: pass them through env.
	$_sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq
	$_sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
		--no-install-recommends $_missing >/dev/null
	echo "setup: installed them in $(($(date +%s) - _t0)) s" >&2
}
