# SPDX-License-Identifier: MIT
"""The ranks of live_fail_fast.py: a DataLoader over 256 samples read for
--epochs epochs, --sleep seconds a step; unsharded (every rank reads all of
it, every rank shuffling alike from torch.manual_seed(0), as training scripts
seed; with --seed-per-rank each rank shuffling its own way, from
torch.manual_seed(rank)) unless --shard (a DistributedSampler with
set_epoch; with --no-set-epoch, without it: every epoch in the same
order). Each rank appends
"RANK EPOCH" to --out when it has read an epoch, and "RANK TIME" (the wall
clock) to --first when it got its first batch. With --uneven the ranks
train (a gloo all-reduce a step) on hand-made shards, rank 0's 3 batches
of 8 and the others' 5, without Join: the longer ranks hang in their 4th
step's all-reduce. With --spawn N it is a launcher of N ranks that leave
its process group (--stubborn: ranks that ignore SIGINT and SIGTERM,
--pids: where each writes its pid)."""
import argparse
import os
import signal
import subprocess
import sys
import time

import torch
import torch.distributed as dist

from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler


def spawn(ranks):
    """A launcher whose ranks leave its process group: each in a session of
    its own (setsid), as daemonising launchers and `nohup cmd &` do."""
    args = [a for i, a in enumerate(sys.argv[1:]) if a != "--spawn" and sys.argv[i] != "--spawn"]
    procs = [subprocess.Popen([sys.executable, os.path.abspath(__file__), *args], start_new_session=True,
                              env={**os.environ, "RANK": str(r), "WORLD_SIZE": str(ranks)}) for r in range(ranks)]
    for p in procs:
        p.wait()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, required=True)
    parser.add_argument("--sleep", type=float, required=True)
    parser.add_argument("--shard", action="store_true")
    parser.add_argument("--out", required=True)
    parser.add_argument("--first")
    parser.add_argument("--uneven", action="store_true")
    parser.add_argument("--seed-per-rank", action="store_true")
    parser.add_argument("--no-set-epoch", action="store_true")
    parser.add_argument("--spawn", type=int, help="start this many ranks, each in a session of its own, and wait")
    parser.add_argument("--stubborn", action="store_true", help="ignore SIGINT and SIGTERM")
    parser.add_argument("--pids", help="append the rank's pid to this file")
    opts = parser.parse_args()
    if opts.spawn:
        spawn(opts.spawn)
        return
    if opts.stubborn:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    if opts.pids:
        with open(opts.pids, "a") as f:
            f.write(f"{os.getpid()}\n")
    rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
    torch.manual_seed(rank if opts.seed_per_rank else 0)
    data = list(range(256))
    sampler = DistributedSampler(data, num_replicas=world, rank=rank, shuffle=True, seed=0) if opts.shard else None
    loader = DataLoader(data, batch_size=16, sampler=sampler, shuffle=sampler is None)
    step = lambda: None  # noqa: E731
    if opts.uneven:
        dist.init_process_group("gloo")
        loader = DataLoader(data, batch_size=8, sampler=list(range(rank * 64, rank * 64 + (24 if rank == 0 else 40))))
        step = lambda: dist.all_reduce(torch.ones(1))  # noqa: E731
    for epoch in range(opts.epochs):
        if sampler and not opts.no_set_epoch:
            sampler.set_epoch(epoch)
        for _ in loader:
            if opts.first:
                with open(opts.first, "a") as f:
                    f.write(f"{rank} {time.time()}\n")
                opts.first = None
            step()
            time.sleep(opts.sleep)
        with open(opts.out, "a") as f:
            f.write(f"{rank} {epoch}\n")


if __name__ == "__main__":
    main()
