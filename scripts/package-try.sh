#!/bin/sh
# SPDX-License-Identifier: MIT
# Tries the Debian package as a user would: apt-get installs it with what it
# declares it needs, on a machine with no build tools; accwatch-run records
# the bundled example under Debian's python3-torch, accwatch-report reports.
# usage: scripts/package-try.sh [--remove-build-tools] DEB
#   --remove-build-tools  first purge what scripts/package.sh installed
#                         (and what only they needed), as on a fresh machine
set -eu

here=$(cd "$(dirname "$0")/.." && pwd)
say() { echo "package-try: $*" >&2; }
die() {
	say "$*"
	exit 1
}
remove=0
[ "${1:-}" != --remove-build-tools ] || { remove=1; shift; }
[ $# -eq 1 ] || die "usage: scripts/package-try.sh [--remove-build-tools] DEB"
deb=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
[ -f "$deb" ] || die "no package $deb"
release=""
if [ -r /etc/os-release ]; then
	. /etc/os-release
	[ "${ID:-}" = debian ] && release=${VERSION_ID:-}
fi
. "$here/scripts/packages.sh"
export DEBIAN_FRONTEND=noninteractive

# The system's own tools only (a pyenv on PATH may bring a cmake of its own).
system_tool() { PATH=/usr/sbin:/usr/bin:/sbin:/bin command -v "$1" 2>/dev/null; }
build_tools="cc gcc c++ make cmake pkg-config"
if [ "$remove" -eq 1 ]; then
	say "purging the build packages"
	# shellcheck disable=SC2086
	apt-get purge -y -qq --autoremove $accwatch_build_packages \
		$accwatch_package_packages >/dev/null
	# What something left installed still recommends (make, the compiler).
	for tool in $build_tools; do
		path=$(system_tool "$tool") || continue
		package=$(dpkg -S "$(readlink -f "$path")" | cut -d: -f1)
		say "purging $package ($path)"
		apt-get purge -y -qq --autoremove "$package" >/dev/null
	done
fi
for tool in $build_tools; do
	! path=$(system_tool "$tool") || die "a build tool is present: $path"
done

t0=$(date +%s)
say "apt-get install $deb python3-torch"
apt-get update -qq
apt-get install -y -qq --no-install-recommends "$deb" python3-torch >/dev/null
say "installed in $(($(date +%s) - t0)) s: $(dpkg-query -W -f='${Package} ${Version}' accwatch)"
for f in /usr/share/man/man1/accwatch-run.1 /usr/share/man/man1/accwatch-report.1 \
	/usr/share/bash-completion/completions/accwatch-run \
	/usr/share/bash-completion/completions/accwatch-report; do
	[ -s "$f" ] || die "the package has no $f"
done

examples=/usr/share/accwatch/examples
work=$(mktemp -d "${TMPDIR:-/tmp}/accwatch-package.XXXXXX")
t0=$(date +%s)
accwatch-run -o "$work/trace" -- /usr/bin/python3 "$examples/launch.py" --nproc 2 \
	"$examples/train_unsharded.py"
say "recorded in $(($(date +%s) - t0)) s"
status=0
accwatch-report "$work/trace" >"$work/report.txt" || status=$?
cat "$work/report.txt"
[ "$status" -eq 1 ] || die "accwatch-report exited $status, not 1 (errors found)"
grep -q unsharded "$work/report.txt" || die "the report names no unsharded loader"
status=0
accwatch-report --format html -o "$work/report.html" "$work/trace" || status=$?
[ "$status" -eq 1 ] && [ -s "$work/report.html" ] || die "no HTML report (exit $status)"
rm -rf "$work"
say "ok: the installed accwatch-run and accwatch-report found the unsharded loader"
