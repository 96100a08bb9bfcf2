# SPDX-License-Identifier: MIT
"""Tensor-parallel pairs: the two ranks of one model-parallel group must
read the same batches, so each builds DistributedSampler(num_replicas=world
// 2, rank=rank // 2, shuffle=True, seed=1): ranks 0 and 1 read one half,
ranks 2 and 3 the other. The sampler chain says so, and the pairs' process
groups (dist.new_group, as Megatron builds them) say that the ranks of a
pair belong together: sharding is judged across the two data-parallel
groups, which are disjoint and cover the data; inside each group the ranks
read the same samples on purpose. No finding."""

from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler

from scenario_kit import IndexDataset, here, tensor_parallel_groups

# The exact set of error and warning ids (infos are free).
EXPECT = []


def run(truth, rank, world):
    tensor_parallel_groups(world, 2)
    dataset = IndexDataset(400)
    sampler = DistributedSampler(dataset, num_replicas=world // 2, rank=rank // 2, shuffle=True, seed=1)
    site = here(); loader = DataLoader(dataset, batch_size=8, sampler=sampler)
    truth.epochs(truth.loader(site), loader, 2, sampler=sampler)
