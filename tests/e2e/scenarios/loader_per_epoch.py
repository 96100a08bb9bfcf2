# SPDX-License-Identifier: MIT
"""A new DataLoader every epoch around one DistributedSampler(shuffle=True),
as DeepSpeed's loader builds one on each iter(), and set_epoch never called:
the 3 loader objects are the 3 epochs of one loader, each repeats the first
epoch's order (same-order), and each forks its 2 workers anew
(worker-respawn). With set_epoch it is loader_per_epoch_set."""

from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler

from scenario_kit import IndexDataset, here, note_worker_pid

# The exact set of error and warning ids (infos are free).
EXPECT = ["same-order", "worker-respawn"]
# check.py options beside --expect.
OPTIONS = ["--workers", "--finding-ranks", "same-order=0,1,2,3",
           "--finding-ranks", "worker-respawn=0,1,2,3",
           "--mention", "same-order=set_epoch() was not called",
           "--mention", "worker-respawn=a new DataLoader was built for every epoch"]


def run(truth, rank, world):
    dataset = IndexDataset(400)
    sampler = DistributedSampler(dataset, shuffle=True, seed=1)
    entry = None
    for epoch in range(3):  # no sampler.set_epoch(epoch)
        site = here(); loader = DataLoader(dataset, batch_size=8, sampler=sampler, num_workers=2, worker_init_fn=note_worker_pid)
        entry = entry or truth.loader(site)  # one loader: its epochs are the loader objects'
        truth.read(entry, loader)
