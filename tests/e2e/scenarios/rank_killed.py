# SPDX-License-Identifier: MIT
"""Rank 1 SIGKILLs itself after its loop got batch #3. Started by a plain
Python launcher (examples/launch.py without torch), nothing records the
rank's end: rank 1 vanished, trace-incomplete names it and the batch. The
launcher exits 128 + 9. (torchrun stops the other ranks itself when one
dies, which this scenario's timing would mix in: launch.py here.)"""

from scenario_kit import rank_killed

# The exact set of error and warning ids (infos are free).
EXPECT = ["trace-incomplete"]
# check.py options beside --expect.
OPTIONS = ["--nproc", "2", "--status", "137", "--launcher", "launch", "--finding-ranks", "trace-incomplete=1"]


def run(truth, rank, world):
    rank_killed(truth, rank, world)
