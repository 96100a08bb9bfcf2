# SPDX-License-Identifier: MIT
"""A training loop that builds a new one-batch DataLoader every epoch over
one DistributedSampler (the shape of issue 19's slow report): run under
examples/launch.py by bench/report_growth.py --real, recorded by
accwatch-run. Each rank reads its share of 16 samples per epoch and asks
len() of each loader."""
import argparse

import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=1000)
    opts = parser.parse_args()
    torch.set_num_threads(1)
    dist.init_process_group("gloo")
    data = list(range(16))
    sampler = DistributedSampler(data, shuffle=True, seed=1)
    for epoch in range(opts.epochs):
        sampler.set_epoch(epoch)
        loader = DataLoader(data, batch_size=8, sampler=sampler)
        steps = len(loader)  # as a progress bar or a scheduler asks
        for _ in loader:
            steps -= 1
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
