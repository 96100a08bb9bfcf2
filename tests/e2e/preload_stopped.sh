#!/bin/bash
# SPDX-License-Identifier: MIT
# A correct job stopped from outside is not a data-loading error: a 2-rank
# sharded job under torchrun, its accwatch-run stopped by `timeout` (SIGTERM,
# forwarded to the ranks by torchrun, as a scheduler's stop reaches every
# rank) mid-epoch: the report gives rank-died as an info saying the job was
# stopped from outside, no error, exit 0. Usage: preload_stopped.sh LIBDIR
set -u
libdir=$(cd "${1:?usage: preload_stopped.sh BUILD_DIR/lib}" && pwd) || exit 2
python=${ACCWATCH_PYTHON:-/usr/bin/python3}
run=$libdir/../bin/accwatch-run
report=$libdir/../bin/accwatch-report
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
. "$here/tally.sh"
cat >"$work/long.py" <<'PY'
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
timeout -s TERM 20 "$run" -q -o "$work/trace" -- "$python" -m torch.distributed.run \
	--nproc_per_node 2 "$work/long.py" >/dev/null 2>"$work/run.err"
status=$?
[ $status = 124 ] && pass || fail "the job was not stopped by timeout (status $status): $(tail -3 "$work/run.err")"
"$report" "$work/trace" >"$work/report.txt" 2>&1
status=$?
[ $status = 0 ] && pass || fail "the report exited $status, not 0: $(head -20 "$work/report.txt")"
grep -q "^INFO rank-died" "$work/report.txt" && grep -q "stopped from outside" "$work/report.txt" &&
	! grep -q "^ERROR" "$work/report.txt" && pass ||
	fail "the report does not say the job was stopped from outside: $(head -20 "$work/report.txt")"
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
