# SPDX-License-Identifier: MIT
"""Sharded twice through a dataset of the program's own: each rank reads
its Partition(data, list) of the partitioner's seeded split under a
DistributedSampler, which keeps a quarter of that again: the ranks read
25 of 400 samples each, 100 in all. The map is read from the wrapper's
__dict__, so the report sees that the ranks' parts differ and that the
sampler cuts each again; that the wrapper reads through its list is
assumed, so this is a warning naming Partition (the report's status is
0), with the fix that keeps one of the two splits. Before, nothing: the
ranks' positions covered the wrapper's 100, as if it were one dataset."""
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler

from scenario_kit import here, partition

# The exact set of error and warning ids (infos are free).
EXPECT = ["split-diverged"]
OPTIONS = ["--mention", "split-diverged=Partition is a dataset of the program's own",
           "--mention", "split-diverged=split the data twice"]


def run(truth, rank, world):
    part = partition(400, rank, world)
    sampler = DistributedSampler(part, shuffle=False)
    site = here(); loader = DataLoader(part, batch_size=25, sampler=sampler)
    truth.read(truth.loader(site), loader)
