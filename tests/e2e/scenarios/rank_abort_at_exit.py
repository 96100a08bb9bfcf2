# SPDX-License-Identifier: MIT
"""A DDP job whose ranks all read and trained their two sharded epochs to
the end, then one aborted in destroy_process_group: rank 1 raises SIGABRT
there (as gloo's worker thread does when it drops a work at interpreter
exit: see examples/tiny_ddp.py's end_process_group), rank 0 lingers in it
and is stopped by the launcher's SIGTERM. The data was read: no error, no
warning; rank-ended-after-data (an info) says so for both ranks. The launcher's status is the job's failure (torchrun: 1;
examples/launch.py run by a Python that imported torch: 128 + 6)."""
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler

from scenario_kit import IndexDataset, abort_in_destroy, here

# The exact set of error and warning ids (infos are free).
EXPECT = []
# check.py options beside --expect, per stack: the real torchrun where it
# runs; Debian's torchrun 1.13 does not run on Python 3.11, so launch.py run
# by a Python that imported torch (it records the ranks' ends, as torchrun).
OPTIONS = {"venv": ["--nproc", "2", "--status", "1", "--launcher", "torchrun",
                    "--finding-ranks", "rank-ended-after-data=0,1", "--mention", "rank-ended-after-data=SIGABRT"],
           "debian": ["--nproc", "2", "--status", "134", "--launcher", "launch-torch",
                      "--finding-ranks", "rank-ended-after-data=0,1", "--mention", "rank-ended-after-data=SIGABRT"]}


def run(truth, rank, world):
    dataset = IndexDataset(64)
    sampler = DistributedSampler(dataset, shuffle=True, seed=3)
    site = here(); loader = DataLoader(dataset, batch_size=4, sampler=sampler)
    model = DistributedDataParallel(torch.nn.Linear(1, 1))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)

    def step(batch):
        optimizer.zero_grad()
        model(batch.float().unsqueeze(1)).sum().backward()
        optimizer.step()

    entry = truth.loader(site)
    for epoch in range(2):
        sampler.set_epoch(epoch)
        truth.read(entry, loader, step=step)
    abort_in_destroy(rank)
