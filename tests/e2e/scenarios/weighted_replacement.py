# SPDX-License-Identifier: MIT
"""Oversampling on purpose: every rank draws its own num_samples = 100 with
replacement from WeightedRandomSampler, in batches of its own batch
sampler. Sampling with replacement promises neither coverage nor disjoint
ranks: no missing, no overlap (the chain records replacement=True)."""

import torch
from torch.utils.data import BatchSampler, DataLoader, WeightedRandomSampler

from scenario_kit import IndexDataset, here

# The exact set of error and warning ids (infos are free).
EXPECT = []


def run(truth, rank, world):
    dataset = IndexDataset(400)
    weights = torch.ones(400)
    weights[:100] = 4.0  # the rare class, drawn four times as often
    generator = torch.Generator().manual_seed(rank)
    sampler = WeightedRandomSampler(weights, num_samples=100, replacement=True, generator=generator)
    site = here(); loader = DataLoader(dataset, batch_sampler=BatchSampler(sampler, 10, drop_last=False))
    truth.epochs(truth.loader(site), loader, 2)
