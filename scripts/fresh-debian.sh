#!/bin/sh
# SPDX-License-Identifier: MIT
# Developer tool (not CI): runs the README's quick start (scripts/demo.sh, then scripts/test.sh), or makes and
# tries the Debian package (--package), on a fresh debootstrapped Debian 12/13 root in a chroot; it tests a git
# clone in /src, so only COMMITTED work is tested.
set -eu

usage() {
	cat >&2 <<'EOF'
usage: scripts/fresh-debian.sh [--keep] [--only-setup|--only-demo|--package] RELEASE [WORKDIR]
  RELEASE       bookworm|12 or trixie|13
  WORKDIR       default /var/tmp/accwatch-fresh-RELEASE; the root is WORKDIR/root (made
                anew each run), the logs WORKDIR/{debootstrap,demo,test,setup}.log
  --keep        leave WORKDIR/root on disk afterwards (unmounted); default: remove it
  --only-setup  run only scripts/setup.sh (timed) instead of demo.sh and test.sh
  --only-demo   run only scripts/demo.sh (timed)
  --package     make the .deb in the root (scripts/package.sh), purge the build packages, install the
                .deb with apt-get and record and report the example with it (scripts/package-try.sh)
  ACCWATCH_SOURCE=REPO  what to clone into /src (default: this script's git toplevel)
The root models a fresh machine of this project's kind: the host's /root/.pyenv (Python
3.11 first on PATH), root's pip config, /opt/wheels, /opt/pypi, /etc/pip.conf, /etc/xdg/pip
bound read-only, and the host's certificate authorities installed.
EOF
	exit "${1:-2}"
}

case ${1:-} in -h | --help) usage 0 ;; esac
source=${ACCWATCH_SOURCE:-$(git -c safe.directory='*' -C "$(dirname "$0")" rev-parse --show-toplevel)}
# Everything here (apt-get, debootstrap, mount, chroot) needs root.
if [ "$(id -u)" -ne 0 ]; then
	exec sudo env DEBIAN_FRONTEND=noninteractive ACCWATCH_SOURCE="$source" sh "$0" "$@"
fi
export DEBIAN_FRONTEND=noninteractive

keep=0
steps="demo test"
while [ $# -gt 0 ]; do
	case $1 in
	--keep) keep=1 ;;
	--only-setup) steps=setup ;;
	--only-demo) steps=demo ;;
	--package) steps="package package-try" ;;
	-h | --help) usage 0 ;;
	--) shift; break ;;
	-*) usage ;;
	*) break ;;
	esac
	shift
done
[ $# -ge 1 ] && [ $# -le 2 ] || usage
case $1 in
bookworm | 12) release=bookworm ;;
trixie | 13) release=trixie ;;
*) usage ;;
esac
workdir=${2:-/var/tmp/accwatch-fresh-$release}

say() { echo "fresh-debian: $*" >&2; }

mkdir -p "$workdir"
workdir=$(cd "$workdir" && pwd -P)
[ "$workdir" != / ] || { say "refusing WORKDIR /"; exit 2; }
root=$workdir/root
mirror=http://deb.debian.org/debian
# The host paths that make this a machine of the project's kind, bound read-only.
binds="/root/.pyenv /root/.config/pip /opt/wheels /opt/pypi /etc/pip.conf /etc/xdg/pip"
inner_path=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
[ ! -d /root/.pyenv ] || inner_path=/root/.pyenv/shims:/root/.pyenv/bin:$inner_path

# --- cleaning up: processes in the root, mounts under it, the root itself ---

mounts_under() { # mount points at or below $root, in mount order
	awk -v r="$root" '$5 == r || index($5, r "/") == 1 { print $5 }' /proc/self/mountinfo
}

pids_inside() { # processes whose root directory is (under) $root
	for d in /proc/[0-9]*; do
		r=$(readlink "$d/root" 2>/dev/null) || continue
		case $r in "$root" | "$root"/*) echo "${d#/proc/}" ;; esac
	done
}

kill_inside() {
	told=
	for sig in TERM TERM TERM TERM TERM KILL KILL; do
		pids=$(pids_inside)
		[ -n "$pids" ] || return 0
		[ "$sig" = KILL ] || [ -n "$told" ] || {
			told=1
			for p in $pids; do say "ending process $p ($(cat "/proc/$p/comm" 2>/dev/null)) left in the root"; done
		}
		# shellcheck disable=SC2086
		kill -s "$sig" $pids 2>/dev/null || true
		sleep 1
	done
	[ -z "$(pids_inside)" ] || say "processes still in the root: $(pids_inside | tr '\n' ' ')"
}

unmount_all() {
	passes=0
	while [ -n "$(mounts_under)" ] && [ "$passes" -lt 5 ]; do
		for m in $(mounts_under | tac); do
			umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || true
		done
		passes=$((passes + 1))
	done
	[ -z "$(mounts_under)" ] || { say "still mounted under $root:" $(mounts_under); return 1; }
}

remove_root() { # only once nothing is mounted under it: /dev is a bind of the host's
	[ -e "$root" ] || return 0
	unmount_all || { say "not removing $root"; return 1; }
	rm -rf --one-file-system "$root"
}

cleaned=0
cleanup() {
	status=$?
	set +e
	trap - EXIT INT TERM
	if [ "$cleaned" -eq 0 ]; then
		cleaned=1
		kill_inside
		unmount_all || status=1
		if [ "$keep" -eq 1 ]; then
			[ ! -d "$root" ] || say "root kept (unmounted) in $root"
		else
			remove_root || status=1
		fi
	fi
	return "$status"
}
trap 'cleanup; exit $?' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# --- 1. debootstrap on the host ---

if ! command -v debootstrap >/dev/null 2>&1; then
	say "installing debootstrap on the host"
	apt-get update -qq
	apt-get install -y -qq debootstrap >/dev/null
fi

# --- 2. a fresh root ---

if [ -e "$root" ]; then
	say "removing the previous root $root"
	kill_inside
	remove_root
fi
say "debootstrap $release into $root (log $workdir/debootstrap.log)"
t0=$(date +%s)
if ! debootstrap --variant=minbase --include=git,ca-certificates,sudo \
	"$release" "$root" "$mirror" >"$workdir/debootstrap.log" 2>&1; then
	tail -n 20 "$workdir/debootstrap.log" >&2
	say "debootstrap failed (log $workdir/debootstrap.log)"
	exit 1
fi
debootstrap_secs=$(($(date +%s) - t0))
debian_version=$(cat "$root/etc/debian_version")

# Debian's installer defaults: one-line sources.list on 12, deb822 on 13.
if [ "$release" = bookworm ]; then
	cat >"$root/etc/apt/sources.list" <<EOF
deb $mirror $release main
deb $mirror $release-updates main
deb http://security.debian.org/debian-security $release-security main
EOF
else
	rm -f "$root/etc/apt/sources.list"
	cat >"$root/etc/apt/sources.list.d/debian.sources" <<EOF
Types: deb
URIs: $mirror
Suites: $release $release-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: http://security.debian.org/debian-security
Suites: $release-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
fi
rm -f "$root/etc/resolv.conf"
cp -L /etc/resolv.conf "$root/etc/resolv.conf"
# The machine's own certificate authorities (its network reaches PyPI
# through them): copied in and installed as on the host.
if [ -d /usr/local/share/ca-certificates ]; then
	mkdir -p "$root/usr/local/share/ca-certificates"
	cp -a /usr/local/share/ca-certificates/. "$root/usr/local/share/ca-certificates/"
	chroot "$root" update-ca-certificates >/dev/null 2>&1 ||
		say "update-ca-certificates failed in the root: PyPI may be unreachable"
fi
# Every installed Debian has these (debootstrap writes neither): localhost must resolve.
[ -s "$root/etc/hosts" ] || printf '127.0.0.1\tlocalhost\n127.0.1.1\t%s\n::1\tlocalhost ip6-localhost ip6-loopback\n' \
	"$(hostname)" >"$root/etc/hosts"

# --- 3. mounts ---

# Each bind is made private at once so that nothing mounted on top of it (the new
# /dev/shm) propagates back to the host, whatever the host's propagation is.
bind() { # SRC DST [ro]
	mount --bind "$1" "$2"
	mount --make-private "$2"
	[ "${3:-}" != ro ] || mount -o remount,bind,ro "$2"
}
mount -t proc proc "$root/proc"
mount -t sysfs -o ro sysfs "$root/sys"
bind /dev "$root/dev"
bind /dev/pts "$root/dev/pts"
# A new, empty /dev/shm and /run: LTTng-UST keeps its shm files in the one and
# lttng-sessiond its sockets in the other, and the host may run LTTng too.
mount -t tmpfs -o mode=1777,nosuid,nodev tmpfs "$root/dev/shm"
mount -t tmpfs -o mode=755,nosuid,nodev tmpfs "$root/run"
mkdir -m 1777 "$root/run/lock"
for p in $binds; do
	[ -e "$p" ] || continue
	if [ -d "$p" ]; then
		mkdir -p "$root$p"
	else
		mkdir -p "$(dirname "$root$p")"
		: >"$root$p"
	fi
	bind "$p" "$root$p" ro
done

# --- 4. the clone ---

say "cloning $source into /src"
git -c safe.directory='*' clone -q --no-hardlinks "$source" "$root/src"
commit=$(git -C "$root/src" log -1 --format='%h %s' | cut -c 1-70)
if [ -d "$source" ] && [ -n "$(git -c safe.directory='*' -C "$source" status --porcelain 2>/dev/null)" ]; then
	say "note: $source has uncommitted changes; they are not tested"
fi

# --- 5. the quick start, in the chroot ---

in_root() {
	chroot "$root" /usr/bin/env -i HOME=/root PATH="$inner_path" PYENV_ROOT=/root/.pyenv \
		TERM=dumb LANG=C.UTF-8 "$@"
}

# step NAME [ARGS]: runs /src/scripts/NAME.sh ARGS inside, log teed to
# $workdir/NAME.log; sets NAME_status and NAME_secs (NAME with _ for -).
step() {
	say "running scripts/$1.sh in the root (log $workdir/$1.log)"
	statusfile=$(mktemp "$workdir/.status.XXXXXX")
	t0=$(date +%s)
	{
		s=0
		in_root /bin/sh -c "cd /src && exec scripts/$1.sh ${2:-}" </dev/null 2>&1 || s=$?
		echo "$s" >"$statusfile"
	} | tee "$workdir/$1.log"
	v=$(echo "$1" | tr - _)
	eval "${v}_secs=$(($(date +%s) - t0))"
	eval "${v}_status=$(cat "$statusfile")"
	rm -f "$statusfile"
}

for s in $steps; do
	case $s in
	package-try) step "$s" "--remove-build-tools build-package/accwatch_*.deb" ;;
	*) step "$s" ;;
	esac
	v=$(echo "$s" | tr - _)
	# The package is tried only once it was made.
	[ "$s" != package ] || eval "[ \$${v}_status -eq 0 ]" || break
done

# Clean up now, so the summary comes last.
set +e
cleanup
cleanup_status=$?
set -e

failed=0
echo
echo "== fresh-debian summary"
echo "release      $release, Debian $debian_version"
echo "source       $source at $commit"
echo "debootstrap  ${debootstrap_secs} s"
for s in $steps; do
	v=$(echo "$s" | tr - _)
	eval "st=\${${v}_status:-skipped} secs=\${${v}_secs:-0}"
	[ "$st" = 0 ] || failed=1
	printf '%-12s exit %s, %s s wall, log %s\n' "$s.sh" "$st" "$secs" "$workdir/$s.log"
done
if [ "$steps" = "demo test" ]; then
	ctest=$(grep -E '^[0-9]+% tests passed' "$workdir/test.log" | tail -n 1 || true)
	echo "ctest        ${ctest:-(no ctest summary in test.log)}"
fi
if [ "$keep" -eq 1 ]; then
	echo "root         kept in $root (unmounted)"
else
	echo "root         removed"
fi
[ "$cleanup_status" -eq 0 ] || { echo "cleanup      FAILED (see above)"; failed=1; }
exit "$failed"
