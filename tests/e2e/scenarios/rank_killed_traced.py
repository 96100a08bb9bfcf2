# SPDX-License-Identifier: MIT
"""rank_killed run by a launcher that imported torch (as torchrun and
accelerate launch do): the launcher's reaping is recorded, rank-died names
the rank and the batch."""

from scenario_kit import rank_killed

# The exact set of error and warning ids (infos are free).
EXPECT = ["rank-died"]
# check.py options beside --expect.
OPTIONS = ["--nproc", "2", "--status", "137", "--launcher", "launch-torch", "--finding-ranks", "rank-died=1"]


def run(truth, rank, world):
    rank_killed(truth, rank, world)
