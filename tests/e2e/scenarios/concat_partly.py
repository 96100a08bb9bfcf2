# SPDX-License-Identifier: MIT
"""Ranks shard the first of two concatenated datasets by hand and forget
the second: rank r reads ConcatDataset([Subset(a, range(r, 200, world)),
b]) through DataLoader(shuffle=True). In the concatenation's indices every
rank reads all of b (200..399) and its own quarter of a: overlap on b,
nothing missing."""

from torch.utils.data import ConcatDataset, DataLoader, Subset

from scenario_kit import IndexDataset, here

# The exact set of error and warning ids (infos are free).
EXPECT = ["overlap"]


def run(truth, rank, world):
    a, b = IndexDataset(200), IndexDataset(200, offset=200)
    both = ConcatDataset([Subset(a, range(rank, 200, world)), b])
    site = here(); loader = DataLoader(both, batch_size=10, shuffle=True)
    truth.epochs(truth.loader(site), loader, 2)
