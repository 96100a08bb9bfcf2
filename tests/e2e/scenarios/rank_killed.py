"""Rank 1 SIGKILLs itself after its loop got batch #3. Started by a plain
Python launcher (examples/launch.py without torch), nothing records the
rank's end: rank 1 vanished, trace-incomplete names it and the batch. The
launcher exits 128 + 9. (torchrun stops the other ranks itself when one
dies, which this scenario's timing would mix in: launch.py here.)"""

import os
import signal

import torch.distributed as dist
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler

from scenario_kit import IndexDataset, KILLED_RANK, TRUTH_ENV, here, items, wait_gone

# The exact set of error and warning ids (infos are free).
EXPECT = ["trace-incomplete"]
# check.py options beside --expect.
OPTIONS = ["--nproc", "2", "--status", "137", "--launcher", "launch", "--finding-ranks", "trace-incomplete=1"]


def run(truth, rank, world):
    # 64 samples, 2 ranks, no shuffle, no workers (the last batch drawn is
    # the one the loop got): rank 0 reads its 8 batches; rank 1 reads
    # 1, 3, 5, ... and, once its loop got batch 3 ([25, 27, 29, 31]), meets
    # rank 0 at the barrier main() would have run, writes its truth, waits
    # for rank 0 to have exited (so that the launcher stops no one), and
    # SIGKILLs itself inside the loop: no end of epoch, no exit of its own.
    pids = [None] * world
    dist.all_gather_object(pids, os.getpid())
    dataset = IndexDataset(64)
    sampler = DistributedSampler(dataset, shuffle=False)
    site = here(); loader = DataLoader(dataset, batch_size=4, sampler=sampler)
    entry = truth.loader(site)
    if rank != KILLED_RANK:
        truth.read(entry, loader)
        return
    entry["iterated"] = True
    batches = []
    entry["epochs"].append({"epoch": 0, "batches": batches, "exhausted": False})
    for batch in loader:
        batches.append(items(batch))
        if len(batches) == 4:
            truth.killed = {"batch": len(batches) - 1, "indices": batches[-1]}
            dist.barrier()
            truth.write(os.environ[TRUTH_ENV], rank, world)
            for other, pid in enumerate(pids):
                if other != rank:
                    wait_gone(pid)
            os.kill(os.getpid(), signal.SIGKILL)
