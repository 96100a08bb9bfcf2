# SPDX-License-Identifier: MIT
"""Form 3: len() of the loader before prepare() (50) sizes the schedule, the
prepared loader runs 13 batches. Only stale-len: the user's loader is not
iterated but that is no unused-prepared (the prepared one is iterated), the
prepared loader's len() is never called (no len-mismatch), and its shards
are right (padding is info)."""

import torch
from torch.utils.data import DataLoader

from scenario_kit import IndexDataset, here, make_accelerator

# The exact set of error and warning ids (infos are free).
EXPECT = ["stale-len"]
# check.py options beside --expect.
OPTIONS = ["--accelerate"]


# 3: len() of the loader before prepare() used for the step count. ACCELERATE
def run(truth, rank, world):
    dataset = IndexDataset(400)
    site = here(); loader = DataLoader(dataset, batch_size=8, shuffle=True)
    original = truth.loader(site)
    epochs = 2
    steps_per_epoch = len(loader)  # 50: the bug, taken before prepare()
    original["len"].append(steps_per_epoch)
    total_steps = epochs * steps_per_epoch
    accelerator = make_accelerator()
    psite = here(); loader = accelerator.prepare(loader)  # 13 batches per rank and epoch
    model = torch.nn.Linear(1, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scheduler = torch.optim.lr_scheduler.LinearLR(optimizer, start_factor=1.0, end_factor=0.0, total_iters=total_steps)
    prepared = truth.loader(psite)
    for _ in range(epochs):
        truth.read(prepared, loader)
        for _ in prepared["epochs"][-1]["batches"]:
            optimizer.step()
            scheduler.step()  # ends at lr 0.074 instead of 0: the schedule is off by W
    assert total_steps == 100 and sum(len(e["batches"]) for e in prepared["epochs"]) == 26
