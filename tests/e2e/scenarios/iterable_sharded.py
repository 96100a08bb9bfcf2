# SPDX-License-Identifier: MIT
"""The IterableDataset sharded by rank and by worker: clean."""

from scenario_kit import iterable

# The exact set of error and warning ids (infos are free).
EXPECT = []
# check.py options beside --expect.
OPTIONS = ["--workers"]


def run(truth, rank, world):
    iterable(truth, rank, world, by_worker=True)
