# SPDX-License-Identifier: MIT
"""Workers started by forkserver: clean."""

from scenario_kit import start_method

# The exact set of error and warning ids (infos are free).
EXPECT = []
# check.py options beside --expect.
OPTIONS = ["--workers"]


def run(truth, rank, world):
    start_method(truth, rank, world, "forkserver")
