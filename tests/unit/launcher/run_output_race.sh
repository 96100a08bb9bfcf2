#!/bin/bash
# SPDX-License-Identifier: MIT
# Another user must not be able to redirect the trace of `accwatch-run -o`.
# Two users made for the test: the attacker owns a world-writable, non-sticky
# directory, or pre-creates a name in a sticky one (as in /tmp), and swaps
# every trace directory that appears there for a link, in a tight loop, to a
# directory of the victim's (whose files the daemon would overwrite) or of
# its own (which would receive the victim's streams). The victim runs
# accwatch-run -o into it, TRIES times per case. Checked: the victim's files
# and the attacker's directory are untouched, every run was refused with a
# message naming the directory, and a run into a safe name beside them works.
# usage: run_output_race.sh ACCWATCH_RUN EMITTER STUB_PRELOAD [TRIES]
#        (root; exit 77: skipped)
set -u
RUN=$1
EMITTER=$2
PRELOAD=$3
TRIES=${4:-50}
if [ "$(id -u)" != 0 ] || ! command -v useradd >/dev/null || ! command -v runuser >/dev/null; then
	echo "needs root, useradd and runuser (two users are made): skipped"; exit 77
fi
command -v lttng-sessiond >/dev/null || { echo "lttng-tools not installed: skipped"; exit 77; }

victim=awvictim$$
attacker=awattack$$
work=$(mktemp -d /tmp/accwatch-run-race.XXXXXX)
chmod 755 "$work"

# The victim's session daemon (and its consumer) are the only processes of
# the victim user that outlive a run: ended by pid before the users go.
cleanup() {
	touch "$work/stop" 2>/dev/null
	[ -n "${attack_pid:-}" ] && wait "$attack_pid" 2>/dev/null
	for user in "$victim" "$attacker"; do
		id "$user" >/dev/null 2>&1 || continue
		for pid in $(pgrep -u "$user"); do kill "$pid" 2>/dev/null; done
		for _ in $(seq 50); do pgrep -u "$user" >/dev/null || break; sleep 0.1; done
		userdel -r "$user" 2>/dev/null || userdel -f -r "$user" 2>/dev/null
	done
	rm -rf "$work"
}
trap cleanup EXIT
for user in "$victim" "$attacker"; do
	useradd -m -s /bin/sh "$user" || { echo "FAIL useradd $user"; exit 1; }
done
vhome=$(getent passwd "$victim" | cut -d: -f6)
vuid=$(id -u "$victim")

# The programs where both users can run them.
mkdir -m 755 "$work/bin"
cp "$RUN" "$work/bin/accwatch-run"
cp "$EMITTER" "$work/bin/emitter"
cp "$PRELOAD" "$work/bin/libaccwatch.so"
chmod 755 "$work/bin"/*

# The victim's files a swap to its home would overwrite: where the daemon
# writes a per-UID trace.
precious=$vhome/precious
runuser -u "$victim" -- sh -c "mkdir -p '$precious/ust/uid/$vuid/64-bit' &&
	for f in metadata accwatch_0 accwatch_1; do echo precious > '$precious/ust/uid/$vuid/64-bit/'\$f; done"
fingerprint() { (cd "$1" && find . -printf '%p %s %u\n' | sort && find . -type f -exec cat {} +) | md5sum; }
precious_before=$(fingerprint "$precious")
# The attacker's own directory, open to the victim's daemon.
box=$work/box
mkdir -m 777 "$box" && chown "$attacker:" "$box"

# Case 1: the attacker's world-writable, non-sticky directory.
open=$work/open
mkdir -m 777 "$open" && chown "$attacker:" "$open"
# Case 2: a sticky directory everyone may write to, like /tmp, where the
# attacker made a link and a world-writable directory before the victim.
sticky=$work/sticky
mkdir -m 1777 "$sticky"
runuser -u "$attacker" -- sh -c "ln -s '$precious' '$sticky/link' && ln -s '$box' '$sticky/boxlink' &&
	mkdir -m 777 '$sticky/made'"

# The attacker: every real directory named trace-* in the watched
# directories is moved away and replaced by a link, to the victim's files on
# even numbers, to the attacker's box on odd ones.
cat >"$work/attacker.py" <<'EOF'
import os, sys
stop, precious, box, watched = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
swaps = 0
while not os.path.exists(stop):
    for parent in watched:
        try:
            names = [e.name for e in os.scandir(parent)
                     if e.name.startswith("trace-") and e.is_dir(follow_symlinks=False)]
        except OSError:
            continue
        for name in names:
            try:
                os.rename(os.path.join(parent, name), os.path.join(parent, "moved-" + name))
                os.symlink(precious if int(name.split("-")[-1]) % 2 == 0 else box,
                           os.path.join(parent, name))
                swaps += 1
            except OSError:
                pass
print(f"attacker: {swaps} swaps", flush=True)
EOF
runuser -u "$attacker" -- /usr/bin/python3 "$work/attacker.py" "$work/stop" "$precious" "$box" \
	"$open" "$sticky" "$sticky/made" >"$work/attacker.log" 2>&1 &
attack_pid=$!

as_victim() {
	runuser -u "$victim" -- env HOME="$vhome" ACCWATCH_PRELOAD="$work/bin/libaccwatch.so" \
		"$work/bin/accwatch-run" -q "$@"
}

failures=0
fail() { echo "FAIL $*"; failures=$((failures + 1)); }
refused=0
# One run into dir; it must be refused with a message naming named.
refused_run() {
	local dir=$1 named=$2 log=$work/run.log status
	as_victim -o "$dir" -- "$work/bin/emitter" V 20 1 >/dev/null 2>"$log"
	status=$?
	if [ $status = 0 ] || ! grep -q "refusing output directory.*$named" "$log"; then
		fail "accwatch-run -o $dir exited $status without refusing $named:"
		sed 's/^/    /' "$log" | head -3
		return
	fi
	refused=$((refused + 1))
	[ $refused = 1 ] && sed 's/^/    refused: /' "$log"
}
for i in $(seq 1 "$TRIES"); do
	refused_run "$open/trace-$i" "$open"
	case $((i % 3)) in
	0) refused_run "$sticky/link" "$sticky/link" ;;
	1) refused_run "$sticky/boxlink" "$sticky/boxlink" ;;
	2) refused_run "$sticky/made/trace-$i" "$sticky/made" ;;
	esac
done
echo "     $refused of $((2 * TRIES)) runs refused"

# A name of the victim's own in the sticky directory: the attacker cannot
# move it, and the run records into it.
if ! as_victim -o "$sticky/trace-1000" -- "$work/bin/emitter" V 20 1 >/dev/null 2>"$work/own.log"; then
	fail "the run into $sticky/trace-1000 (the victim's own name) failed:"
	sed 's/^/    /' "$work/own.log" | head -3
elif [ -L "$sticky/trace-1000" ] || [ -z "$(find "$sticky/trace-1000" -type f -size +0c)" ]; then
	fail "the run into $sticky/trace-1000 left no trace there"
else
	echo "ok   a run into the victim's own name in the sticky directory recorded its trace"
fi

touch "$work/stop"
wait "$attack_pid"
attack_pid=
cat "$work/attacker.log"
if [ "$(fingerprint "$precious")" != "$precious_before" ]; then
	fail "the victim's files in $precious were changed:"
	(cd "$precious" && find . -type f -printf '    %p %s bytes\n')
else
	echo "ok   the victim's files are untouched"
fi
written=$(find "$box" -mindepth 1 | head -5)
if [ -n "$written" ]; then
	fail "the victim's trace went into the attacker's directory $box:"
	echo "$written" | sed 's/^/    /'
else
	echo "ok   nothing went into the attacker's directory"
fi
exit $((failures > 0))
