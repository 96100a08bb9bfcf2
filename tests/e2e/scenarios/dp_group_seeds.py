# SPDX-License-Identifier: MIT
"""Tensor-parallel pairs seeded the Megatron way: each rank's seed is the
run's seed plus its tensor-parallel rank, and that seed also goes to
DistributedSampler(num_replicas=world // 2, rank=rank // 2, seed=...) (the
pairs' process groups built with dist.new_group). The
two ranks of a pair draw different permutations, so they read different
halves of their group's data where they must share every batch:
group-diverged, naming the ranks and their seeds. Across the groups the
first ranks agree (the same seed): sharding across groups is correct."""

from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler

from scenario_kit import IndexDataset, here, tensor_parallel_groups

# The exact set of error and warning ids (infos are free).
EXPECT = ["group-diverged"]
# check.py options beside --expect.
OPTIONS = ["--mention", "group-diverged=seeds: 1 and 2"]


def run(truth, rank, world):
    dataset = IndexDataset(400)
    tp_rank = tensor_parallel_groups(world, 2)
    sampler = DistributedSampler(dataset, num_replicas=world // 2, rank=rank // 2, shuffle=True, seed=1 + tp_rank)
    site = here(); loader = DataLoader(dataset, batch_size=8, sampler=sampler)
    truth.epochs(truth.loader(site), loader, 2, sampler=sampler)
