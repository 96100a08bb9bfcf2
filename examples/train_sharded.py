# SPDX-License-Identifier: MIT
"""The same tiny DDP run done right: a DistributedSampler shards the data and
set_epoch reshuffles every epoch. accwatch reports no error on it."""
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler

from tiny_ddp import train


def sharded_loader(dataset):
    sampler = DistributedSampler(dataset, shuffle=True)
    return DataLoader(dataset, batch_size=32, sampler=sampler), sampler.set_epoch


if __name__ == "__main__":
    train(sharded_loader)
