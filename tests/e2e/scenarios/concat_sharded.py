# SPDX-License-Identifier: MIT
"""Ranks shard two datasets by hand and read them as one: rank r reads
ConcatDataset([Subset(a, range(r, 200, world)), Subset(b, range(r, 200,
world))]) through DataLoader(shuffle=True), a and b 200 samples each. Every
rank's sampler draws positions 0..99 of its own concatenation; the map
recorded at loader_new (each part's subset, b's offset by a's length) turns
them into indices of a then b: disjoint shards that cover both, no finding."""

from torch.utils.data import ConcatDataset, DataLoader, Subset

from scenario_kit import IndexDataset, here

# The exact set of error and warning ids (infos are free).
EXPECT = []


def run(truth, rank, world):
    a, b = IndexDataset(200), IndexDataset(200, offset=200)
    both = ConcatDataset([Subset(a, range(rank, 200, world)), Subset(b, range(rank, 200, world))])
    site = here(); loader = DataLoader(both, batch_size=8, shuffle=True)
    truth.epochs(truth.loader(site), loader, 2)
