# SPDX-License-Identifier: MIT
"""Rank 1 calls os._exit(0) in its loop once it got batch #2 ([17, 19, 21,
23]), after rank 0 read its whole epoch: a clean status, but its epoch is
cut short while its peer's ran to the end, so rank-died names rank 1 and
that batch. The launcher exits 0."""

from scenario_kit import rank_ends_early

# The exact set of error and warning ids (infos are free).
EXPECT = ["rank-died"]
# check.py options beside --expect.
OPTIONS = ["--nproc", "2", "--finding-ranks", "rank-died=1"]


def run(truth, rank, world):
    rank_ends_early(truth, rank, world, "exit0")
