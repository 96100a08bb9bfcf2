# SPDX-License-Identifier: MIT
"""Every rank makes its own random_split(dataset, [300, 100]) without a
shared generator (ranks.py seeds torch per rank), then shards its training
part with DistributedSampler: each rank cuts its shard out of another
subset. The index maps tell: split-diverged, one cause for the overlap and
the gaps (split_shared.py is the same with one generator)."""

from torch.utils.data import DataLoader, random_split
from torch.utils.data.distributed import DistributedSampler

from scenario_kit import IndexDataset, here

# The exact set of error and warning ids (infos are free).
EXPECT = ["split-diverged"]
# check.py options beside --expect.
OPTIONS = ["--mention", "split-diverged=generator=torch.Generator().manual_seed"]


def split(dataset):
    return random_split(dataset, [300, 100])


def run(truth, rank, world):
    train, _ = split(IndexDataset(400))
    sampler = DistributedSampler(train, shuffle=True, seed=1)
    site = here(); loader = DataLoader(train, batch_size=8, sampler=sampler)
    truth.epochs(truth.loader(site), loader, 2, sampler=sampler)
