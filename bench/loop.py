# SPDX-License-Identifier: MIT
"""The benchmarked workload: a DataLoader-bound loop over an in-memory map-style
dataset with a cheap __getitem__. Prints one JSON line: batches, indices and
seconds spent in the loop (startup excluded)."""
import argparse
import json
import os
import time

import torch
from torch.utils.data import DataLoader, Dataset

if os.environ.get("BENCH_PYTRACER"):
    import pytracer  # noqa: F401  (mode d: the hand-written Python tracer)


class RowDataset(Dataset):
    def __init__(self, rows, width):
        self.data = torch.arange(rows * width, dtype=torch.float32).reshape(rows, width)

    def __len__(self):
        return len(self.data)

    def __getitem__(self, index):
        return self.data[index]


def first(batch):
    return batch


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--samples", type=int, default=64 * 1500)
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--workers", type=int, default=0)
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--raw", action="store_true", help="no collation: a list of ints per batch (fast loop)")
    parser.add_argument("--shard", action="store_true", help="each rank reads its 1/WORLD_SIZE share")
    opts = parser.parse_args()
    torch.set_num_threads(1)

    if opts.raw:
        dataset = list(range(opts.samples))
        collate = first
    else:
        dataset = RowDataset(opts.samples, 8)
        collate = None
    sampler = None
    if opts.shard:
        world, rank = int(os.environ.get("WORLD_SIZE", 1)), int(os.environ.get("RANK", 0))
        sampler = list(range(rank, opts.samples, world))
    loader = DataLoader(dataset, batch_size=opts.batch, shuffle=sampler is None, sampler=sampler,
                        num_workers=opts.workers, collate_fn=collate,
                        persistent_workers=opts.workers > 0)
    batches = indices = 0
    if opts.workers:
        for _ in loader:  # start the workers outside the measured loop
            break
    start = time.perf_counter()
    for _ in range(opts.epochs):
        for batch in loader:
            batches += 1
            indices += len(batch)
    seconds = time.perf_counter() - start
    result = json.dumps({"pid": os.getpid(), "batches": batches, "indices": indices, "seconds": seconds})
    if os.environ.get("BENCH_OUT"):  # one file per rank: ranks' lines would interleave on a pipe
        with open(os.path.join(os.environ["BENCH_OUT"], f"{os.getpid()}.json"), "w") as f:
            f.write(result)
    else:
        print(result, flush=True)


if __name__ == "__main__":
    main()
