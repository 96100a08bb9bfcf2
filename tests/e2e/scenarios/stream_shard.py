# SPDX-License-Identifier: MIT
"""An IterableDataset (the whole stream of 192 items, on every rank) through
accelerator.prepare() with dispatch_batches=False: accelerate wraps it in
IterableDatasetShard, and every rank reads all 192 items, 32 per step, to
keep its 8: each reads 4 times what it yields. The ranks' items are
disjoint and the reading is by design: read-amplification as info only, no
error or warning."""

from scenario_kit import IndexStream, prepared_stream

# The exact set of error and warning ids (infos are free).
EXPECT = []
# check.py options beside --expect.
OPTIONS = ["--accelerate", "--mention", "read-amplification=each reads 4 times what it yields"]


def run(truth, rank, world):
    prepared_stream(truth, IndexStream(192, 0, 1, by_worker=False), dispatch=False)
