# SPDX-License-Identifier: MIT
"""Every rank builds DistributedSampler(shuffle=True, seed=<its rank>): the
ranks cut their shards out of different permutations, so they overlap and
leave samples unread. One cause for both: order-diverged, which names the
seeds (the correct version is sharded.py: one seed for all)."""

from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler

from scenario_kit import IndexDataset, here

# The exact set of error and warning ids (infos are free).
EXPECT = ["order-diverged"]
# check.py options beside --expect.
OPTIONS = ["--mention", "order-diverged=the same seed"]


def run(truth, rank, world):
    dataset = IndexDataset(400)
    sampler = DistributedSampler(dataset, shuffle=True, seed=rank)
    site = here(); loader = DataLoader(dataset, batch_size=8, sampler=sampler)
    truth.epochs(truth.loader(site), loader, 2, sampler=sampler)
