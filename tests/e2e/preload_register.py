# SPDX-License-Identifier: MIT
"""Ranks forked at once from one torch process, for preload_register.sh:
`preload_register.py RANKS STOP_AT HOLD TRUTH_DIR` forks ranks 0..STOP_AT-1,
then (STOP_AT < RANKS) stops the session daemon (SIGSTOP, its pid from
/var/run/lttng/lttng-sessiond.pid), forks the others, and lets it go on
HOLD seconds later. Each rank reads its DistributedSampler's share of one
epoch (no process group) and writes the indices it got to
TRUTH_DIR/rank-<r>.json. Exit 0 when every rank did."""
import json
import os
import signal
import sys
import time

import torch
from torch.utils.data import DataLoader, DistributedSampler


def rank_main(rank, world, truth_dir):
    data = list(range(world * 12))
    sampler = DistributedSampler(data, num_replicas=world, rank=rank, shuffle=True, seed=3)
    got = []
    for batch in DataLoader(data, batch_size=4, sampler=sampler):
        got.extend(int(i) for i in batch)
    with open(os.path.join(truth_dir, f"rank-{rank}.json"), "w") as out:
        json.dump(got, out)


def fork_rank(rank, world, truth_dir):
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            rank_main(rank, world, truth_dir)
            code = 0
        finally:
            os._exit(code)
    return pid


def main():
    world, stop_at, hold, truth_dir = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
    torch.manual_seed(0)
    pids = [fork_rank(r, world, truth_dir) for r in range(stop_at)]
    if stop_at < world:
        with open("/var/run/lttng/lttng-sessiond.pid") as f:
            daemon = int(f.read())
        time.sleep(1)
        os.kill(daemon, signal.SIGSTOP)
        try:
            pids += [fork_rank(r, world, truth_dir) for r in range(stop_at, world)]
            time.sleep(hold)
        finally:
            os.kill(daemon, signal.SIGCONT)
    failed = sum(os.waitpid(pid, 0)[1] != 0 for pid in pids)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
