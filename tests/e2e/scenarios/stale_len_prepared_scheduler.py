# SPDX-License-Identifier: MIT
"""accelerate's example scripts' way: len() of the loader before prepare()
(50) sizes the learning-rate schedule, and the scheduler is prepared with
the rest. accelerate's AcceleratedScheduler steps the scheduler once per
process for each optimizer step (no split_batches), so the 13 batches a
rank runs per epoch step it 52 times: len() before prepare() is the length
this schedule needs. No finding. Before, stale-len, whose fix (len() of
the prepared loader) would end the schedule 4 times too early. The same
program without preparing the scheduler is stale_len (the warning stays)."""

import torch
from torch.utils.data import DataLoader

from scenario_kit import IndexDataset, here, make_accelerator

# The exact set of error and warning ids (infos are free).
EXPECT = []
# check.py options beside --expect.
OPTIONS = ["--accelerate"]


def run(truth, rank, world):
    dataset = IndexDataset(400)
    site = here(); loader = DataLoader(dataset, batch_size=8, shuffle=True)
    original = truth.loader(site)
    epochs = 2
    steps_per_epoch = len(loader)  # 50, before prepare(): right for a prepared scheduler
    original["len"].append(steps_per_epoch)
    model = torch.nn.Linear(1, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scheduler = torch.optim.lr_scheduler.LinearLR(optimizer, start_factor=1.0, end_factor=0.0,
                                                  total_iters=epochs * steps_per_epoch)
    accelerator = make_accelerator()
    psite = here(); model, optimizer, loader, scheduler = accelerator.prepare(model, optimizer, loader, scheduler)
    prepared = truth.loader(psite)
    for _ in range(epochs):
        truth.read(prepared, loader)
        for _ in prepared["epochs"][-1]["batches"]:
            optimizer.step()
            scheduler.step()  # steps world times: 2 * 13 * 4 = 104 >= 100
    assert scheduler.scheduler.last_epoch >= epochs * steps_per_epoch
