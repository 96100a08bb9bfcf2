# SPDX-License-Identifier: MIT
"""transformers' LengthGroupedSampler under accelerator.prepare() only,
its permutation drawn from each process's default generator, which the
ranks seeded apart (torch.manual_seed(rank), as jobs that seed per rank
for augmentation do): accelerate's BatchSamplerShard cuts each rank's
batches out of an order that differs on every rank, so their parts
overlap and leave samples out. overlap and missing, whose fix names the
order (one seed on every rank), not "DistributedSampler or prepare(),
not both": the program shards once. venv only: transformers."""
import torch
from torch.utils.data import DataLoader

from scenario_kit import IndexDataset, here, make_accelerator

STACKS = ('venv',)
# The exact set of error and warning ids (infos are free).
EXPECT = ["missing", "overlap"]
OPTIONS = ["--accelerate",
           "--mention", "overlap=draw one order on every rank",
           "--mention", "missing=draw one order on every rank",
           "--absent", "not both"]


def run(truth, rank, world):
    from transformers.trainer_pt_utils import LengthGroupedSampler
    torch.manual_seed(rank)
    dataset = IndexDataset(400)
    lengths = [(i * 37) % 50 + 1 for i in range(len(dataset))]
    sampler = LengthGroupedSampler(8, lengths=lengths)
    accelerator = make_accelerator()
    loader = DataLoader(dataset, batch_size=8, sampler=sampler)
    psite = here(); loader = accelerator.prepare(loader)
    truth.read(truth.loader(psite), loader)
