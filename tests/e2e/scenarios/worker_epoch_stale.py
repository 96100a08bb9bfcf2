# SPDX-License-Identifier: MIT
"""An IterableDataset that reshuffles by its own epoch, which the loop sets
with dataset.set_epoch(epoch) in the main process, read by 2 persistent
workers: they hold the copy of the dataset they were started with, still at
epoch 0, and read the same items in the same order every epoch:
worker-stale-epoch (the correct version, the epoch in shared memory, is
worker_epoch_shared.py)."""

from scenario_kit import epoch_stream_epochs

# The exact set of error and warning ids (infos are free).
EXPECT = ["worker-stale-epoch"]
# check.py options beside --expect.
OPTIONS = ["--workers"]


def run(truth, rank, world):
    epoch_stream_epochs(truth, rank, world, shared=False)
