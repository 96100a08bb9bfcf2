# SPDX-License-Identifier: MIT
"""A hand-made shard whose last rank reads index 400 of a 400-sample dataset."""

from torch.utils.data import DataLoader

from scenario_kit import IndexDataset, OffByOneShard, here

# The exact set of error and warning ids (infos are free).
EXPECT = ["index-range"]


# An index >= len(dataset).
def run(truth, rank, world):
    dataset = IndexDataset(400)
    sampler = OffByOneShard(len(dataset), rank, world)  # 100 each, rank 3: 101 (13 batches each)
    site = here(); loader = DataLoader(dataset, batch_size=8, sampler=sampler)
    truth.epochs(truth.loader(site), loader, 1)
