# SPDX-License-Identifier: MIT
"""--live at the first batches: DistributedSampler(shuffle=True,
seed=<rank>) over 128 samples, batches of 16, 2 s a step: the ranks' first
batches already share samples, and the live line says order-diverged before
any rank ends epoch 0 (seeds_differ.py is the same mistake, read at speed)."""
import time

from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler

from scenario_kit import IndexDataset, here

# The exact set of error and warning ids (infos are free).
EXPECT = ["order-diverged"]
# check.py options beside --expect.
OPTIONS = ["--live", "--live-before", "order-diverged=0"]


def run(truth, rank, world):
    dataset = IndexDataset(128)
    sampler = DistributedSampler(dataset, shuffle=True, seed=rank)
    site = here(); loader = DataLoader(dataset, batch_size=16, sampler=sampler)
    truth.read(truth.loader(site), loader, step=lambda batch: time.sleep(2))
