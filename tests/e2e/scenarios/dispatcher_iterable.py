# SPDX-License-Identifier: MIT
"""accelerate's default for an IterableDataset: the dispatcher. Rank 0
alone iterates the stream (200 items, batches of 8), concatenates one batch
per rank each step and gives rank r slice r; the other ranks read nothing
themselves. Their shares are rebuilt from rank 0's items by the same rule as
for indices: every rank has its 50 of them, disjoint. No finding."""

from scenario_kit import IndexStream, prepared_stream

# The exact set of error and warning ids (infos are free).
EXPECT = []
# check.py options beside --expect.
OPTIONS = ["--accelerate"]


def run(truth, rank, world):
    prepared_stream(truth, IndexStream(200, 0, 1, by_worker=False), dispatch=True)
