#!/bin/bash
# SPDX-License-Identifier: MIT
# What recording needs of the machine, taken away: /dev/shm full or
# read-only (a small tmpfs in a mount namespace of its own), HOME unset for a
# user of its own, a wrong LTTNG_HOME. The program preloaded runs exactly as
# without accwatch and the preload says why once; accwatch-run says the
# cause and the fix in one line and exits 122 before starting it, or runs it
# unrecorded with --if-unrecordable=run, and accwatch-report then gives the
# cause. Needs root (mount, useradd). Usage: preload_shm.sh LIB_DIR
set -u
lib=$(cd "${1:?usage: preload_shm.sh LIB_DIR}" && pwd) || exit 2
bin=$(cd "$lib/../bin" && pwd) || exit 2
python=${ACCWATCH_PYTHON:-/usr/bin/python3}
if [ "$(id -u)" != 0 ] || ! command -v unshare >/dev/null || ! command -v useradd >/dev/null; then
	echo "SKIP: needs root, unshare and useradd"
	exit 77
fi
work=$(mktemp -d)
chmod 755 "$work"
user=awshm$$
# The user's wait file in /dev/shm (accwatch-run reserves it) goes with it.
cleanup() {
	local uid
	uid=$(id -u "$user" 2>/dev/null) && rm -f "/dev/shm/lttng-ust-wait-8-$uid"
	userdel "$user" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT
failed=0
fail() { echo "FAIL: $*"; failed=$((failed + 1)); }
export ACCWATCH_TEST_PYTHON=$python ACCWATCH_TEST_LIB=$lib ACCWATCH_TEST_BIN=$bin

cat >"$work/prog.py" <<'PY'
import sys
import torch.utils.data as d
n = sum(int(b.sum()) for b in d.DataLoader(list(range(100)), batch_size=10))
print("sum", n)
sys.exit(3)
PY
chmod 644 "$work/prog.py"

# The session daemon lives outside the namespaces below, as on a machine
# whose job runs in a container of its own.
"$bin/accwatch-run" -q -o "$work/warm" -- true || fail "accwatch-run cannot start a session daemon"

# Runs "$@" in a mount namespace whose /dev/shm is a 1 MiB tmpfs, full or
# read-only ($1), writing OUT.status, OUT.out, OUT.err ($2).
in_shm() {
	local kind=$1 out=$2
	shift 2
	unshare -m bash -c '
		kind=$1 out=$2; shift 2
		if [ "$kind" = full ]; then
			mount -t tmpfs -o size=1M tmpfs /dev/shm || exit 90
			dd if=/dev/zero of=/dev/shm/fill bs=1k 2>/dev/null
		else
			mount -t tmpfs -o size=1M,ro tmpfs /dev/shm || exit 90
		fi
		"$@" >"$out.out" 2>"$out.err"
		echo $? >"$out.status"' in_shm "$kind" "$out" "$@"
}

# The same as the plain run: status and stdout.
same_as_plain() {
	local plain=$1 run=$2 what=$3
	[ "$(cat "$run.status")" = "$(cat "$plain.status")" ] ||
		fail "$what: exit $(cat "$run.status"), without accwatch $(cat "$plain.status"): $(head -c 600 "$run.err")"
	cmp -s "$plain.out" "$run.out" || fail "$what: stdout differs: $(diff "$plain.out" "$run.out" | head -3)"
}

# Exactly one line of stderr matching $2.
once() {
	local n
	n=$(grep -c -e "$2" "$1.err")
	[ "$n" = 1 ] || fail "$3: '$2' said $n times, not once: $(head -c 800 "$1.err")"
}

for kind in full read-only; do
	word=$([ $kind = full ] && echo "is full" || echo "is read-only")
	w=$work/$kind
	mkdir "$w"
	in_shm $kind "$w/plain" "$python" "$work/prog.py"
	grep -q "^sum 4950$" "$w/plain.out" || fail "$kind: the plain program did not run: $(cat "$w/plain.err")"
	in_shm $kind "$w/preload" env LD_PRELOAD="$lib/libaccwatch.so" "$python" "$work/prog.py"
	same_as_plain "$w/plain" "$w/preload" "$kind /dev/shm, preloaded"
	once "$w/preload" "^accwatch: /dev/shm $word" "$kind /dev/shm, preloaded"
	in_shm $kind "$w/run" "$bin/accwatch-run" -o "$w/trace" -- "$python" "$work/prog.py"
	[ "$(cat "$w/run.status")" = 122 ] || fail "$kind /dev/shm: accwatch-run exited $(cat "$w/run.status"), not 122: $(cat "$w/run.err")"
	[ -s "$w/run.out" ] && fail "$kind /dev/shm: the command ran under accwatch-run: $(cat "$w/run.out")"
	once "$w/run" "^accwatch-run: /dev/shm $word.*was not started" "$kind /dev/shm, accwatch-run"
	[ "$(wc -l <"$w/run.err")" = 1 ] || fail "$kind /dev/shm, accwatch-run said more than one line: $(cat "$w/run.err")"
	in_shm $kind "$w/run2" "$bin/accwatch-run" --if-unrecordable=run -o "$w/trace2" -- "$python" "$work/prog.py"
	same_as_plain "$w/plain" "$w/run2" "$kind /dev/shm, --if-unrecordable=run"
	once "$w/run2" "^accwatch-run: nothing was recorded in $w/trace2: /dev/shm $word" "$kind /dev/shm, --if-unrecordable=run"
	grep -q "is it a Python program" "$w/run2.err" && fail "$kind /dev/shm: the program blamed: $(cat "$w/run2.err")"
	"$bin/accwatch-report" "$w/trace2" >/dev/null 2>"$w/report.err"
	report=$?
	[ $report = 2 ] && grep -q "/dev/shm $word" "$w/report.err" ||
		fail "$kind /dev/shm: accwatch-report exit $report without the cause: $(cat "$w/report.err")"
done

# A user of its own: HOME unset, then a wrong LTTNG_HOME.
useradd -M -d /nonexistent-home-$$ "$user" || { echo "FAIL: useradd"; exit 1; }
mkdir "$work/home" "$work/user"
chown "$user" "$work/home" "$work/user"
as_user() {
	local out=$1
	shift
	setpriv --reuid="$user" --regid="$user" --init-groups env -i PATH=/usr/bin:/bin \
		${PYTHONPATH:+PYTHONPATH=$PYTHONPATH} "$@" >"$out.out" 2>"$out.err"
	echo $? >"$out.status"
}
u=$work/user
# A Python another user cannot run (a venv on an interpreter under /root):
# accwatch-run's refusals are still checked, the unrecorded run not.
as_user "$u/probe" "$python" -c pass
user_python=$(cat "$u/probe.status")
[ "$user_python" = 0 ] || echo "note: $python cannot be run by $user; the unrecorded run is not compared"
as_user "$u/plain" "$python" "$work/prog.py"
[ "$user_python" != 0 ] || grep -q "^sum 4950$" "$u/plain.out" || fail "user: the plain program did not run: $(cat "$u/plain.err")"
as_user "$u/nohome" "$bin/accwatch-run" -o "$u/t1" -- "$python" "$work/prog.py"
[ "$(cat "$u/nohome.status")" = 122 ] || fail "HOME unset: accwatch-run exited $(cat "$u/nohome.status"), not 122: $(cat "$u/nohome.err")"
[ -s "$u/nohome.out" ] && fail "HOME unset: the command ran"
once "$u/nohome" "^accwatch-run: neither HOME nor LTTNG_HOME is set.*set HOME" "HOME unset"
if [ "$user_python" = 0 ]; then
	as_user "$u/nohome2" "$bin/accwatch-run" --if-unrecordable=run -o "$u/t2" -- "$python" "$work/prog.py"
	same_as_plain "$u/plain" "$u/nohome2" "HOME unset, --if-unrecordable=run"
	once "$u/nohome2" "^accwatch-run: nothing was recorded in $u/t2: neither HOME" "HOME unset, --if-unrecordable=run"
fi
as_user "$u/badlh" env HOME="$work/home" LTTNG_HOME="$work/missing" "$bin/accwatch-run" -o "$u/t3" -- "$python" "$work/prog.py"
[ "$(cat "$u/badlh.status")" = 122 ] || fail "wrong LTTNG_HOME: accwatch-run exited $(cat "$u/badlh.status"), not 122: $(cat "$u/badlh.err")"
once "$u/badlh" "^accwatch-run: LTTNG_HOME=$work/missing is not a directory you can write" "wrong LTTNG_HOME"
grep -q "by hand" "$u/badlh.err" && fail "wrong LTTNG_HOME: $(cat "$u/badlh.err")"

echo "$([ $failed = 0 ] && echo ok || echo "$failed failed")"
[ "$failed" = 0 ]
