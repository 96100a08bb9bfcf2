"""A DistributedSampler with set_epoch over three epochs, each batch followed
by a pause of ACCWATCH_E2E_PACE seconds (0 unless set): clean. With
ACCWATCH_E2E_MARK, each rank creates <MARK>.<rank> once its first epoch is
done, so that a test can act while the job still runs (multinode.py breaks
a node's link to the collector there)."""
import os
import time

from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler

from scenario_kit import IndexDataset, here

# The exact set of error and warning ids (infos are free).
EXPECT = []
STACKS = ("venv",)


def run(truth, rank, world):
    pace = float(os.environ.get("ACCWATCH_E2E_PACE", "0"))
    mark = os.environ.get("ACCWATCH_E2E_MARK")
    dataset = IndexDataset(240)
    sampler = DistributedSampler(dataset, shuffle=True, seed=3)
    site = here(); loader = DataLoader(dataset, batch_size=8, sampler=sampler)
    entry = truth.loader(site)
    for epoch in range(3):
        sampler.set_epoch(epoch)
        truth.read(entry, loader, step=lambda batch: time.sleep(pace))
        if mark and epoch == 0:
            open(f"{mark}.{rank}", "w").close()
