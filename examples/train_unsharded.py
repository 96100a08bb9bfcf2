# SPDX-License-Identifier: MIT
"""A tiny DDP training run with the classic bug: every rank builds a plain
DataLoader(shuffle=True), so each of the W ranks trains on the whole dataset.
Run it with: accwatch-run -o trace -- torchrun --nproc-per-node 4 train_unsharded.py
(or, where torchrun cannot run: python3 launch.py --nproc 4 train_unsharded.py)"""
from torch.utils.data import DataLoader

from tiny_ddp import train


def unsharded_loader(dataset):
    # The bug: no DistributedSampler, so every rank reads all 512 samples.
    return DataLoader(dataset, batch_size=32, shuffle=True), None


if __name__ == "__main__":
    train(unsharded_loader)
