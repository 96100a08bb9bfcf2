"""A tiny DDP training run with the classic bug: every rank builds a plain
DataLoader(shuffle=True), so each of the W ranks trains on the whole dataset.
Run it with: accwatch-run -o trace -- torchrun --nproc-per-node 4 train_unsharded.py
(or, where torchrun cannot run: python3 launch.py --nproc 4 train_unsharded.py)"""
import os

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, TensorDataset


def main():
    dist.init_process_group("gloo")
    rank, world = dist.get_rank(), dist.get_world_size()
    torch.manual_seed(0)

    features = torch.randn(512, 16)
    labels = (features.sum(dim=1) > 0).long()
    dataset = TensorDataset(features, labels)
    # The bug: no DistributedSampler, so every rank reads all 512 samples.
    loader = DataLoader(dataset, batch_size=32, shuffle=True)

    model = DistributedDataParallel(torch.nn.Linear(16, 2))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(2):
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


if __name__ == "__main__":
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    main()
