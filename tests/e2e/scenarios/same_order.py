# SPDX-License-Identifier: MIT
"""Form 5: DistributedSampler(shuffle=True) without set_epoch, 2 epochs
(with set_epoch it is `sharded`)."""

from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler

from scenario_kit import IndexDataset, here

# The exact set of error and warning ids (infos are free).
EXPECT = ["same-order"]


# 5 (form): set_epoch missing.
def run(truth, rank, world):
    dataset = IndexDataset(400)
    sampler = DistributedSampler(dataset, shuffle=True, seed=1)
    site = here(); loader = DataLoader(dataset, batch_size=8, sampler=sampler)
    truth.epochs(truth.loader(site), loader, 2)  # no sampler.set_epoch(): epoch 1 repeats epoch 0
