# SPDX-License-Identifier: MIT
"""A DistributedSampler with set_epoch over three epochs: clean. For a test
that acts while the job runs (multinode.py breaks a node's link to the
collector there): with ACCWATCH_E2E_MARK, each rank creates <MARK>.<rank>
once its first epoch is done, then waits for <MARK>.go before the next;
ACCWATCH_E2E_LEN sets the dataset's length (240 unless set), so that the
epochs after it emit enough events to fill a node's buffers."""
import os
import time

from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler

from scenario_kit import IndexDataset, here

# The exact set of error and warning ids (infos are free).
EXPECT = []
STACKS = ("venv",)


def wait_go(mark, rank):
    open(f"{mark}.{rank}", "w").close()
    while not os.path.exists(f"{mark}.go"):
        time.sleep(0.05)


def run(truth, rank, world):
    mark = os.environ.get("ACCWATCH_E2E_MARK")
    dataset = IndexDataset(int(os.environ.get("ACCWATCH_E2E_LEN", "240")))
    sampler = DistributedSampler(dataset, shuffle=True, seed=3)
    site = here(); loader = DataLoader(dataset, batch_size=8, sampler=sampler)
    entry = truth.loader(site)
    for epoch in range(3):
        sampler.set_epoch(epoch)
        truth.read(entry, loader)
        if mark and epoch == 0:
            wait_go(mark, rank)
