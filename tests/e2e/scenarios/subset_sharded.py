# SPDX-License-Identifier: MIT
"""Ranks shard by hand: each reads Subset(dataset, range(rank, N, world))
through DataLoader(shuffle=True). Every rank's sampler draws positions 0..99
of its own subset; the index maps recorded at loader_new turn them into the
dataset's indices: disjoint shards that cover the data, no finding."""

from torch.utils.data import DataLoader, Subset

from scenario_kit import IndexDataset, here

# The exact set of error and warning ids (infos are free).
EXPECT = []


def run(truth, rank, world):
    dataset = IndexDataset(400)
    shard = Subset(dataset, range(rank, 400, world))
    site = here(); loader = DataLoader(shard, batch_size=8, shuffle=True)
    truth.epochs(truth.loader(site), loader, 2)
