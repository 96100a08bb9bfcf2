# SPDX-License-Identifier: MIT
"""Form 6: an IterableDataset sharded by rank but not by worker: each of the
2 workers replays the rank's 50 items."""

from scenario_kit import iterable

# The exact set of error and warning ids (infos are free).
EXPECT = ["iterable-duplicate"]
# check.py options beside --expect.
OPTIONS = ["--workers"]


def run(truth, rank, world):
    iterable(truth, rank, world, by_worker=False)
