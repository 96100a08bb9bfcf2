# SPDX-License-Identifier: MIT
"""--live at the first batch of epoch 1: DistributedSampler(shuffle=True,
seed=1) without set_epoch over 160 samples, batches of 8, 0.1 s a step in
epoch 0 and 1.5 s in epoch 1 (7.5 s for its five batches a rank, room for a
loaded machine's live reader): epoch 1 draws epoch 0's first batch with the
same seed and epoch, and the live line says same-order before any rank ends
epoch 1."""
import time

from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler

from scenario_kit import IndexDataset, here

# The exact set of error and warning ids (infos are free).
EXPECT = ["same-order"]
# check.py options beside --expect.
OPTIONS = ["--live", "--live-before", "same-order=1"]


def run(truth, rank, world):
    dataset = IndexDataset(160)
    sampler = DistributedSampler(dataset, shuffle=True, seed=1)
    site = here(); loader = DataLoader(dataset, batch_size=8, sampler=sampler)
    entry = truth.loader(site)
    for pause in (0.1, 1.5):  # no sampler.set_epoch(): epoch 1 repeats 0
        truth.read(entry, loader, step=lambda batch, pause=pause: time.sleep(pause))
