# SPDX-License-Identifier: MIT
"""accelerator.prepare() only, over a shuffling sampler of the program's
own whose order comes from a generator each rank seeds apart (its rank,
as jobs that seed per rank for augmentation do): accelerate's
BatchSamplerShard cuts each rank's batches out of an order that differs
on every rank, so their parts overlap and leave samples out. overlap and
missing, whose fix names the order (one seed on every rank). Before, the
fix said "one DistributedSampler ... or accelerator.prepare(), not both"
for a program that shards once."""
import random

from torch.utils.data import DataLoader, Sampler

from scenario_kit import IndexDataset, here, make_accelerator

# The exact set of error and warning ids (infos are free).
EXPECT = ["missing", "overlap"]
OPTIONS = ["--accelerate",
           "--mention", "overlap=draw one order on every rank",
           "--mention", "missing=draw one order on every rank",
           "--absent", "not both"]


class Shuffled(Sampler):
    def __init__(self, size, seed):
        self.size, self.rng = size, random.Random(seed)

    def __iter__(self):
        order = list(range(self.size))
        self.rng.shuffle(order)
        return iter(order)

    def __len__(self):
        return self.size


def run(truth, rank, world):
    dataset = IndexDataset(400)
    accelerator = make_accelerator()
    loader = DataLoader(dataset, batch_size=8, sampler=Shuffled(len(dataset), seed=rank))
    psite = here(); loader = accelerator.prepare(loader)
    truth.read(truth.loader(psite), loader)
