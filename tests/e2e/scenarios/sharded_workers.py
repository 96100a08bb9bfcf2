# SPDX-License-Identifier: MIT
"""sharded with 2 persistent workers (forked once: workers re-forked every
epoch are worker-respawn)."""

from scenario_kit import sharded

# The exact set of error and warning ids (infos are free).
EXPECT = []
# check.py options beside --expect.
OPTIONS = ["--workers"]


def run(truth, rank, world):
    sharded(truth, rank, world, workers=2)
