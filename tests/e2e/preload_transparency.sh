#!/bin/bash
# SPDX-License-Identifier: MIT
# libaccwatch.so must not change the programs it does not record: same stdout,
# stderr, exit status and threads for non-Python and torch-less Python
# processes, with and without the preload. Usage: preload_transparency.sh LIBDIR
set -u
libdir=$(cd "${1:?usage: preload_transparency.sh BUILD_DIR/lib}" && pwd) || exit 2
lib=$libdir/libaccwatch.so
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
passed=0
failed=0

# same NAME COMMAND...: runs COMMAND without and with the preload.
same() {
	local name=$1 plain preloaded
	shift
	"$@" >"$work/plain.out" 2>"$work/plain.err" </dev/null
	plain=$?
	LD_PRELOAD=$lib "$@" >"$work/pre.out" 2>"$work/pre.err" </dev/null
	preloaded=$?
	if [ "$plain" = "$preloaded" ] && cmp -s "$work/plain.out" "$work/pre.out" &&
		cmp -s "$work/plain.err" "$work/pre.err"; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
		echo "FAIL: $name (status $plain vs $preloaded)"
		diff "$work/plain.out" "$work/pre.out" | head -5
		diff "$work/plain.err" "$work/pre.err" | head -5
	fi
}

same "true" /bin/true
same "false" /bin/false
same "bash status 3" bash -c 'echo hi; echo oops >&2; exit 3'
same "bash forks" bash -c 'for i in 1 2 3; do (echo $i; exit $i); echo $?; done | sort'
same "threads of grep" grep Threads /proc/self/status
same "threads of a shell" bash -c 'ls /proc/$$/task | wc -l'
same "signal" bash -c 'sh -c "kill -TERM \$\$"; echo status $?'

cat >"$work/plain.py" <<'PY'
import os, sys, threading, subprocess
print(sys.version_info[:2] >= (3, 0), threading.active_count())
print(len(os.listdir("/proc/self/task")))
pid = os.fork()
if pid == 0:
    print("child"); sys.stdout.flush(); os._exit(7)
_, status = os.waitpid(pid, 0)
print("child status", os.waitstatus_to_exitcode(status) if hasattr(os, "waitstatus_to_exitcode") else status >> 8)
print(subprocess.run(["sh", "-c", "echo sub; exit 2"], capture_output=True).returncode)
sys.stderr.write("to stderr\n")
raise SystemExit(5)
PY
cat >"$work/raise.py" <<'PY'
def f():
    raise ValueError("boom")
f()
PY
pythons=(/usr/bin/python3)
for version in 3.6 3.7 3.8 3.9 3.10 3.11 3.12 3.13; do
	for candidate in /root/.pyenv/versions/$version*/bin/python$version; do
		[ -x "$candidate" ] && pythons+=("$candidate")
	done
done
for python in "${pythons[@]}"; do
	same "$python script" "$python" "$work/plain.py"
	same "$python traceback" "$python" "$work/raise.py"
	same "$python -c" "$python" -c 'import json; print(json.dumps({"a": 1}))'
	# Python's debug allocator checks every block it frees: the audit
	# hook's entry, allocated before Py_Initialize, must come back right.
	same "$python -X dev" "$python" -X dev "$work/plain.py"
	same "$python PYTHONMALLOC=debug" env PYTHONMALLOC=debug "$python" "$work/plain.py"
	same "$python PYTHONDEVMODE=1" env PYTHONDEVMODE=1 "$python" "$work/raise.py"
done
# The stack's torch, recording, under the debug allocator and dev mode.
torch_python=${ACCWATCH_PYTHON:-/usr/bin/python3}
loop='import torch.utils.data as d; print([b.tolist() for b in d.DataLoader(list(range(10)), batch_size=4)])'
same "$torch_python torch PYTHONMALLOC=debug" env PYTHONMALLOC=debug "$torch_python" -c "$loop"
same "$torch_python torch -X dev" "$torch_python" -X dev -c "$loop"
# Workers forked from a recorded process, every warning an exception (as
# pytest's filterwarnings = error makes them).
workers='import torch.utils.data as d; print(sorted(b.tolist() for b in d.DataLoader(list(range(10)), batch_size=4, num_workers=2)))'
same "$torch_python torch -W error workers" "$torch_python" -W error -c "$workers"
# Disabled: dormant even where torch would be recorded.
same "ACCWATCH_DISABLE=1 torch" env ACCWATCH_DISABLE=1 /usr/bin/python3 -c \
	'import torch, threading; print(threading.active_count(), len(__import__("os").listdir("/proc/self/task")) > 0)'

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
