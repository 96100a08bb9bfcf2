#!/bin/bash
# SPDX-License-Identifier: MIT
# How a job ended, said as it was. Nothing to judge is never "No
# data-loading problem found": a training script run without its launcher
# (it fails at once reading RANK) is recorded, and the report exits 3, says
# that no process iterated a DataLoader and how the process ended (the
# uncaught KeyError), and its JSON says judged: false. A correct job stopped
# from outside is not a data-loading error: a 2-rank sharded job under
# torchrun, its accwatch-run stopped by `timeout` (SIGTERM, forwarded to the
# ranks by torchrun, as a scheduler's stop reaches every rank) mid-epoch:
# rank-died is an info saying so, no error, exit 0 (on the venv stack only:
# Debian 12's torch 1.13 launcher does not run on its Python 3.11).
# Usage: preload_outcome.sh LIBDIR
set -u
libdir=$(cd "${1:?usage: preload_outcome.sh BUILD_DIR/lib}" && pwd) || exit 2
python=${ACCWATCH_PYTHON:-/usr/bin/python3}
run=$libdir/../bin/accwatch-run
report=$libdir/../bin/accwatch-report
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
. "$here/tally.sh"

# Nothing to judge.
cat >"$work/good.py" <<'PY'
import os
import torch
from torch.utils.data import DataLoader, DistributedSampler

rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
data = list(range(64))
for batch in DataLoader(data, batch_size=8, sampler=DistributedSampler(data, world, rank)):
    pass
PY
env -u RANK -u WORLD_SIZE "$run" -q -o "$work/trace" -- "$python" "$work/good.py" >/dev/null 2>"$work/run.err"
[ $? = 1 ] && pass || fail "the script without its launcher did not exit 1: $(tail -3 "$work/run.err")"
"$report" "$work/trace" >"$work/report.txt" 2>&1
status=$?
[ $status = 3 ] && pass || fail "the report exited $status, not 3: $(cat "$work/report.txt")"
grep -q "^Nothing to judge: no process iterated a DataLoader" "$work/report.txt" &&
	grep -q "ended with an uncaught KeyError: 'RANK'" "$work/report.txt" &&
	! grep -q "No data-loading problem found" "$work/report.txt" && pass ||
	fail "the report does not say there was nothing to judge and why: $(cat "$work/report.txt")"
"$report" --format json -o "$work/report.json" "$work/trace" 2>/dev/null
"$python" -c 'import json, sys; sys.exit(json.load(open(sys.argv[1]))["summary"]["judged"] is not False)' \
	"$work/report.json" && pass || fail "the JSON summary does not say judged: false"

# Stopped from outside.
if [ "${ACCWATCH_STACK:-venv}" = venv ]; then
	cat >"$work/long.py" <<-'PY'
	import os
	import time
	import torch
	from torch.utils.data import DataLoader, DistributedSampler

	rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
	data = list(range(4000))
	sampler = DistributedSampler(data, world, rank)
	for epoch in range(100):
	    sampler.set_epoch(epoch)
	    for batch in DataLoader(data, batch_size=8, sampler=sampler):
	        time.sleep(0.02)
	PY
	timeout -s TERM 20 "$run" -q -o "$work/stopped" -- "$python" -m torch.distributed.run \
		--nproc_per_node 2 "$work/long.py" >/dev/null 2>"$work/stopped.err"
	status=$?
	[ $status = 124 ] && pass || fail "the job was not stopped by timeout (status $status): $(tail -3 "$work/stopped.err")"
	"$report" "$work/stopped" >"$work/stopped.txt" 2>&1
	status=$?
	[ $status = 0 ] && pass || fail "the report exited $status, not 0: $(head -20 "$work/stopped.txt")"
	grep -q "^INFO rank-died" "$work/stopped.txt" && grep -q "stopped from outside" "$work/stopped.txt" &&
		! grep -q "^ERROR" "$work/stopped.txt" && pass ||
		fail "the report does not say the job was stopped from outside: $(head -20 "$work/stopped.txt")"
fi
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
