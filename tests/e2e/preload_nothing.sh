#!/bin/bash
# SPDX-License-Identifier: MIT
# A job with nothing to judge is never "No data-loading problem found":
# a training script run without its launcher (it fails at once reading
# RANK) is recorded, and the report exits 3, says that no process iterated
# a DataLoader and how the process ended (the uncaught KeyError), and its
# JSON says judged: false. Usage: preload_nothing.sh LIBDIR
set -u
libdir=$(cd "${1:?usage: preload_nothing.sh BUILD_DIR/lib}" && pwd) || exit 2
python=${ACCWATCH_PYTHON:-/usr/bin/python3}
run=$libdir/../bin/accwatch-run
report=$libdir/../bin/accwatch-report
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
. "$here/tally.sh"
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
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
