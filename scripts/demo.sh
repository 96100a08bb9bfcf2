#!/bin/sh
# SPDX-License-Identifier: MIT
# Quick start, part one: set up only what the tool and the example need
# (scripts/setup.sh --demo), record the bundled 4-rank example (a DDP run
# whose DataLoader is not sharded) started by the real torchrun of the venv
# stack, and show accwatch's report on it.
set -eu

here=$(cd "$(dirname "$0")/.." && pwd)
build=${ACCWATCH_BUILD_DIR:-$here/build}
"$here/scripts/setup.sh" --demo

trace=$(mktemp -d "${TMPDIR:-/tmp}/accwatch-demo.XXXXXX")/trace
t0=$(date +%s)
# OMP_NUM_THREADS set: torchrun then prints no banner saying it set it.
OMP_NUM_THREADS=${OMP_NUM_THREADS:-1} "$build/bin/accwatch-run" -o "$trace" -- \
	"$here/.venv/bin/torchrun" --standalone --nproc-per-node 4 "$here/examples/train_unsharded.py"
echo "demo: recorded in $(($(date +%s) - t0)) s" >&2
echo
status=0
"$build/bin/accwatch-report" "$trace" || status=$?
# 1 means the report found errors, which is what this example is for.
[ "$status" -le 1 ] || exit "$status"
html=$(dirname "$trace")/report.html
status=0
"$build/bin/accwatch-report" --format html -o "$html" "$trace" || status=$?
[ "$status" -le 1 ] || exit "$status"
echo "The same report as a page with plots: $html"
