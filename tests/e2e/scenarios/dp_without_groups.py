# SPDX-License-Identifier: MIT
"""DistributedSampler(num_replicas=2, rank=rank % 2) on 4 ranks, and no
model parallelism anywhere (no process group but the world's): nothing says
that ranks 0 and 2, or 1 and 3, belong together, so they are not taken for
a data-parallel group: they read the same half of the data, which is an
overlap (every sample read twice). The sampler's rank should be the
process's rank and its num_replicas the world size."""

from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler

from scenario_kit import IndexDataset, here

# The exact set of error and warning ids (infos are free).
EXPECT = ["overlap"]
# check.py options beside --expect.
OPTIONS = ["--finding-ranks", "overlap=0,1,2,3"]


def run(truth, rank, world):
    dataset = IndexDataset(400)
    sampler = DistributedSampler(dataset, num_replicas=2, rank=rank % 2, shuffle=True, seed=1)
    site = here(); loader = DataLoader(dataset, batch_size=8, sampler=sampler)
    truth.epochs(truth.loader(site), loader, 2, sampler=sampler)
