# SPDX-License-Identifier: MIT
"""Rank 1's worker 1 SIGKILLs itself mid-epoch; rank 1 catches the
DataLoader's RuntimeError. Rank 1 consumed fewer batches than the others,
but its loop died (not exhausted): that is worker-died, not uneven-batches,
and a partial epoch says nothing about coverage (no missing). The killed
worker's end is known (exit by signal), so no trace-incomplete."""

import os

from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler

from scenario_kit import KillingDataset, TRUTH_ENV, collate_list, here, note_worker_pid

# The exact set of error and warning ids (infos are free).
EXPECT = ["worker-died"]
# check.py options beside --expect.
OPTIONS = ["--finding-ranks", "worker-died=1", "--html"]


# A worker SIGKILLed mid-epoch.
KILL_RANK = 1


def run(truth, rank, world):
    # Rank 1 reads 1, 5, 9, ... (shuffle off): its batch 5 (worker 1's third
    # batch) starts with sample 1 + 4*40 = 161, whose read kills worker 1.
    # The rank catches the DataLoader's RuntimeError and goes on to the final
    # barrier, so no rank waits for it.
    dataset = KillingDataset(400, rank, kill_rank=KILL_RANK, kill_index=KILL_RANK + world * 40)
    sampler = DistributedSampler(dataset, shuffle=False)
    site = here(); loader = DataLoader(dataset, batch_size=8, sampler=sampler, num_workers=2, worker_init_fn=note_worker_pid, collate_fn=collate_list)
    entry = truth.loader(site)
    done = truth.read(entry, loader, tolerate="DataLoader worker")
    assert done == (rank != KILL_RANK), f"rank {rank}: loop exhausted={done}"
    truth_dir = os.environ[TRUTH_ENV]
    for name in os.listdir(truth_dir):
        if name.startswith("died-"):
            with open(os.path.join(truth_dir, name)) as f:
                died_rank, worker_id, index = map(int, f.read().split())
            if died_rank == rank:
                truth.died_workers.append({"worker_id": worker_id, "pid": int(name.split("-")[1]),
                                           "index": index})
