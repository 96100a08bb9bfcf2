# SPDX-License-Identifier: MIT
"""Lightning with a sampler of the user's: train_dataloader() returns a
DataLoader over WeightedRandomSampler(402 draws, replacement=True), which
Lightning wraps in its DistributedSamplerWrapper (num_replicas=4, rank=r)
when it rebuilds the loader in fit(). Each rank draws its 101 of the 402
draws: sampling with replacement promises no coverage and repeats samples
on purpose, the chain says so: no finding (venv only: Lightning 2.x needs
torch >= 2.1)."""

from torch.utils.data import DataLoader, WeightedRandomSampler

from scenario_kit import here

STACKS = ("venv",)
# The exact set of error and warning ids (infos are free).
EXPECT = []
# check.py options beside --expect.
OPTIONS = ["--script", "lightning_ranks.py", "--launcher", "self"]
# DataLoader workers per rank.
WORKERS = 0


def loader(dataset, workers):
    """The loader train_dataloader() returns, and its site."""
    sampler = WeightedRandomSampler([1.0] * len(dataset), num_samples=len(dataset), replacement=True)
    site = here(); built = DataLoader(dataset, batch_size=8, sampler=sampler, num_workers=workers)
    return site, built
