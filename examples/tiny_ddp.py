# SPDX-License-Identifier: MIT
"""What the two example scripts share: a tiny dataset and model, trained with
DDP for two epochs. Only how each script builds its DataLoader differs."""
import os

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import TensorDataset


def dataset():
    torch.manual_seed(0)
    features = torch.randn(512, 16)
    labels = (features.sum(dim=1) > 0).long()
    return TensorDataset(features, labels)


def train(make_loader, epochs=2):
    """Trains on the loader of make_loader(dataset), which returns the loader
    and what to call at the start of every epoch (None: nothing)."""
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    dist.init_process_group("gloo")
    rank, world = dist.get_rank(), dist.get_world_size()
    loader, before_epoch = make_loader(dataset())
    model = DistributedDataParallel(torch.nn.Linear(16, 2))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(epochs):
        if before_epoch:
            before_epoch(epoch)
        total = 0.0
        for x, y in loader:
            optimizer.zero_grad()
            loss = torch.nn.functional.cross_entropy(model(x), y)
            loss.backward()
            optimizer.step()
            total += loss.item()
        if rank == 0:
            print(f"epoch {epoch}: {len(loader)} steps per rank on {world} ranks, loss {total / len(loader):.3f}")
    dist.destroy_process_group()
