# SPDX-License-Identifier: MIT
"""accelerate's dispatcher: rank 0 reads 51 batches, every rank gets 13
slices."""

from scenario_kit import dispatcher

# The exact set of error and warning ids (infos are free).
EXPECT = []
# check.py options beside --expect.
OPTIONS = ["--accelerate"]


def run(truth, rank, world):
    dispatcher(truth, rank, world)
