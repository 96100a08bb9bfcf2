# SPDX-License-Identifier: MIT
"""The job of bench/live_latency.py: one rank of a DataLoader loop over 256
samples (128 for order-diverged; batches of 16) with one mistake (--kind), drawing a batch every
--step seconds; it appends "EPOCH BATCH TIME" for every batch it got and
"EPOCH end TIME" at each epoch's end (wall clock) to --out/rank-RANK."""
import argparse
import os
import time

import torch
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler


def loader_of(kind, rank, world):
    data = list(range(256))
    if kind == "unsharded":  # every rank the whole dataset, in one order
        return DataLoader(data, batch_size=16, shuffle=True), None
    if kind == "order-diverged":  # a seed per rank: shards of other permutations
        # (128 samples: the ranks' first batches already share some)
        sampler = DistributedSampler(data[:128], num_replicas=world, rank=rank, shuffle=True, seed=rank)
        return DataLoader(data, batch_size=16, sampler=sampler), sampler
    if kind == "same-order":  # shuffles, but set_epoch is never called
        sampler = DistributedSampler(data, num_replicas=world, rank=rank, shuffle=True, seed=1)
        return DataLoader(data, batch_size=16, sampler=sampler), None
    # uneven-batches: the last rank has 2 batches fewer than the others
    size = 64 - 32 * (rank == world - 1)
    shard = list(range(rank * 64, rank * 64 + size))
    return DataLoader(data, batch_size=16, sampler=shard), None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--kind", required=True, choices=("unsharded", "order-diverged", "same-order", "uneven"))
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--step", type=float, default=0.5)
    parser.add_argument("--out", required=True)
    opts = parser.parse_args()
    torch.manual_seed(0)
    rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
    loader, sampler = loader_of(opts.kind, rank, world)
    with open(os.path.join(opts.out, f"rank-{rank}"), "a") as log:
        for epoch in range(opts.epochs):
            if sampler is not None:
                sampler.set_epoch(epoch)
            for batch, _ in enumerate(loader):
                log.write(f"{epoch} {batch} {time.time()}\n")
                log.flush()
                time.sleep(opts.step)
            log.write(f"{epoch} end {time.time()}\n")
            log.flush()


if __name__ == "__main__":
    main()
