# SPDX-License-Identifier: MIT
"""Rank 1's collate_fn raises on its batch #2 ([17, 19, 21, 23]) and the
exception ends the rank, after rank 0 read its whole epoch: rank-died names
rank 1, that batch and the exception (type and message), whatever starts
the ranks (its own exit is recorded from inside). The launcher exits 1."""

from scenario_kit import rank_ends_early

# The exact set of error and warning ids (infos are free).
EXPECT = ["rank-died"]
# check.py options beside --expect.
OPTIONS = ["--nproc", "2", "--status", "1", "--finding-ranks", "rank-died=1"]


def run(truth, rank, world):
    rank_ends_early(truth, rank, world, "raise")
