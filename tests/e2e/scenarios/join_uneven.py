# SPDX-License-Identifier: MIT
"""DDP (a Linear(1, 1), gloo) trained on hand-made shards of 120, 100, 100
and 80 samples (15, 13, 13 and 10 batches of 8) for 2 epochs, each inside
torch.distributed's Join, the remedy PyTorch's tutorial gives for uneven
inputs: the ranks that run out shadow the all-reduces of those still going,
and every rank comes out of it. Without Join the longer ranks would hang in
their next backward. Handled: uneven-batches is an info that says so."""

import torch
from torch.distributed.algorithms.join import Join
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader

from scenario_kit import IndexDataset, here

# The exact set of error and warning ids (infos are free).
EXPECT = []
# check.py options beside --expect: the info that says it was handled.
OPTIONS = ["--mention", "uneven-batches=handled: every rank drew them inside torch.distributed's Join"]


def run(truth, rank, world):
    model = DistributedDataParallel(torch.nn.Linear(1, 1))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.001)

    def step(batch):
        optimizer.zero_grad()
        model(batch.float().unsqueeze(1)).sum().backward()  # an all-reduce per batch
        optimizer.step()

    sizes = [120, 100, 100, 80]
    start = sum(sizes[:rank])
    shard = list(range(start, start + sizes[rank]))
    site = here(); loader = DataLoader(IndexDataset(400), batch_size=8, sampler=shard)
    entry = truth.loader(site)
    for epoch in range(2):
        with Join([model]):
            truth.read(entry, loader, step=step)
