# SPDX-License-Identifier: MIT
"""random_split(dataset, [300, 100], generator=<one seed>) on every rank,
then DistributedSampler over the training part: every rank holds the same
subset and reads its own quarter of it: no finding. (The positions every
rank draws are 0..299; the index maps turn them into the dataset's.)"""

import torch
from torch.utils.data import DataLoader, random_split
from torch.utils.data.distributed import DistributedSampler

from scenario_kit import IndexDataset, here

# The exact set of error and warning ids (infos are free).
EXPECT = []


def run(truth, rank, world):
    train, _ = random_split(IndexDataset(400), [300, 100], generator=torch.Generator().manual_seed(7))
    sampler = DistributedSampler(train, shuffle=True, seed=1)
    site = here(); loader = DataLoader(train, batch_size=8, sampler=sampler)
    truth.epochs(truth.loader(site), loader, 2, sampler=sampler)
