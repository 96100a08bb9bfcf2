# SPDX-License-Identifier: MIT
"""... with workers. On torch >= 2.0.1 accelerate starts the inner iterator on
every rank (ranks 1-3 prime workers whose batches no one consumes); on
older torch only rank 0 does."""

from scenario_kit import dispatcher

# The exact set of error and warning ids (infos are free).
EXPECT = []
# check.py options beside --expect.
OPTIONS = ["--accelerate", "--workers"]


def run(truth, rank, world):
    dispatcher(truth, rank, world, workers=2)
