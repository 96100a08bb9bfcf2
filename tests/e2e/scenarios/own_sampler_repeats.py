# SPDX-License-Identifier: MIT
"""A repeated-augmentation sampler of the program's own (the pattern of
image-classification training scripts): each sample of a seeded
permutation is drawn 3 times, the copies dealt to different ranks (each
augments its copy its own way), and each rank keeps only its first
len(dataset) / world draws. An epoch reads a third of the data by design.
It keeps DistributedSampler's numbers for its draws (num_replicas, rank,
num_samples, total_size) and a len() of what it keeps: no plain split, so
accwatch cannot tell design from bug. Before, `missing` was an error; now
a warning naming the sampler, with what it states and what each rank
read."""
import math

import torch
from torch.utils.data import DataLoader, Sampler

from scenario_kit import IndexDataset, here

# The exact set of error and warning ids (infos are free): missing, as a
# warning (the report's status is 0).
EXPECT = ["missing"]
OPTIONS = ["--mention", "missing=RepeatedAugmentationSampler draws with code of its own",
           "--mention", "missing=len()=60"]


class RepeatedAugmentationSampler(Sampler):
    def __init__(self, length, rank, world, repeats=3):
        self.length, self.rank, self.num_replicas = length, rank, world
        self.repeats, self.epoch = repeats, 0
        self.num_samples = math.ceil(length * repeats / world)
        self.total_size = self.num_samples * world
        self.kept = length // world

    def set_epoch(self, epoch):
        self.epoch = epoch

    def __iter__(self):
        generator = torch.Generator()
        generator.manual_seed(self.epoch)
        order = torch.randperm(self.length, generator=generator).tolist()
        draws = [i for i in order for _ in range(self.repeats)]
        draws += draws[:self.total_size - len(draws)]
        mine = draws[self.rank:self.total_size:self.num_replicas]
        return iter(mine[:self.kept])

    def __len__(self):
        return self.kept


def run(truth, rank, world):
    dataset = IndexDataset(240)
    sampler = RepeatedAugmentationSampler(len(dataset), rank, world)
    site = here(); loader = DataLoader(dataset, batch_size=6, sampler=sampler)
    truth.epochs(truth.loader(site), loader, 2, sampler=sampler)
