# SPDX-License-Identifier: MIT
"""Validation the way image-classification examples do it: a
DistributedSampler(shuffle=False, drop_last=True) over 402 samples (100 a
rank, 400 in all), then, after the metrics' all_reduce, a plain
DataLoader over Subset(dataset, range(400, 402)), the 2 samples drop_last
left out, read by every rank. That loader is unsharded by design: it holds
exactly the remainder of the sharded one over the same dataset. No error:
shared-remainder (an info) says so. Before, `unsharded` with "use
DistributedSampler" as the fix."""
import torch.distributed as dist
from torch.utils.data import DataLoader, Subset
from torch.utils.data.distributed import DistributedSampler

from scenario_kit import IndexDataset, here

# The exact set of error and warning ids (infos are free).
EXPECT = []
OPTIONS = ["--finding-ranks", "shared-remainder=0,1,2,3",
           "--mention", "shared-remainder=exactly what L0"]


def run(truth, rank, world):
    dataset = IndexDataset(402)
    sampler = DistributedSampler(dataset, shuffle=False, drop_last=True)
    site = here(); loader = DataLoader(dataset, batch_size=16, sampler=sampler)
    truth.read(truth.loader(site), loader)
    dist.barrier()  # the metrics' all_reduce
    tail = Subset(dataset, range(len(sampler) * world, len(dataset)))
    tsite = here(); tail_loader = DataLoader(tail, batch_size=16)
    truth.read(truth.loader(tsite), tail_loader)
