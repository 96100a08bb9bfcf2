# SPDX-License-Identifier: MIT
"""loader_per_epoch with set_epoch called each epoch: the orders differ, no
same-order. Its workers are still forked anew every epoch, and
persistent_workers=True (given here) does not keep them: each new
DataLoader starts its own (worker-respawn, true of the program: the fix is
one DataLoader for all epochs)."""

from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler

from scenario_kit import IndexDataset, here, note_worker_pid

# The exact set of error and warning ids (infos are free).
EXPECT = ["worker-respawn"]
# check.py options beside --expect.
OPTIONS = ["--workers", "--finding-ranks", "worker-respawn=0,1,2,3",
           "--mention", "worker-respawn=whatever persistent_workers says"]


def run(truth, rank, world):
    dataset = IndexDataset(400)
    sampler = DistributedSampler(dataset, shuffle=True, seed=1)
    entry = None
    for epoch in range(3):
        sampler.set_epoch(epoch)
        site = here(); loader = DataLoader(dataset, batch_size=8, sampler=sampler, num_workers=2, persistent_workers=True, worker_init_fn=note_worker_pid)
        entry = entry or truth.loader(site)  # one loader: its epochs are the loader objects'
        truth.read(entry, loader)
