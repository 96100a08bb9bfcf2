# SPDX-License-Identifier: MIT
"""A run restarted in epoch 2 after 5 of its batches: the restarted code
builds its DistributedSampler anew (seed 1, as before) and resumes with
accelerate's skip_first_batches(loader, 5), but never calls set_epoch(2),
so the sampler is back at epoch 0: the resumed pass reads the tail of
epoch 0's order again. resume-repeats-epoch (the correct version is
resume_epoch_set.py)."""

from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler

from scenario_kit import IndexDataset, accelerate, here

# The exact set of error and warning ids (infos are free).
EXPECT = ["resume-repeats-epoch"]
# check.py options beside --expect.
OPTIONS = ["--accelerate", "--mention", "resume-repeats-epoch=epoch 0 and seed 1"]


def run(truth, rank, world):
    resume(truth, set_epoch=False)


def resume(truth, set_epoch):
    dataset = IndexDataset(400)
    sampler = DistributedSampler(dataset, shuffle=True, seed=1)
    site = here(); loader = DataLoader(dataset, batch_size=8, sampler=sampler)
    truth.epochs(truth.loader(site), loader, 2, sampler=sampler)  # epochs 0 and 1; epoch 2 fails
    again = DistributedSampler(dataset, shuffle=True, seed=1)  # as the restarted process builds it
    rsite = here(); restarted = DataLoader(dataset, batch_size=8, sampler=again)
    if set_epoch:
        again.set_epoch(2)
    ssite = here(); resumed = accelerate().data_loader.skip_first_batches(restarted, 5)
    truth.loader(rsite)  # iterated only through the skipping loader
    truth.epochs(truth.loader(ssite), resumed, 1)
