# SPDX-License-Identifier: MIT
"""Hand-made shards of 120 overlapping by 40: overlap, and the tail no rank
reads is missing."""

from torch.utils.data import DataLoader

from scenario_kit import IndexDataset, here

# The exact set of error and warning ids (infos are free).
EXPECT = ["overlap", "missing"]


def run(truth, rank, world):
    dataset = IndexDataset(400)
    shard = list(range(rank * 80, rank * 80 + 120))
    site = here(); loader = DataLoader(dataset, batch_size=8, sampler=shard)
    truth.epochs(truth.loader(site), loader, 1)
