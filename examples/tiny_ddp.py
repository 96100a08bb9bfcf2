# SPDX-License-Identifier: MIT
"""What the two example scripts share: a tiny dataset and model, trained with
DDP for two epochs. Only how each script builds its DataLoader differs."""
import os
import sys

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
    end_process_group()


def end_process_group():
    """Ends the rank once its work is done, without the abort that torch
    over gloo can raise at exit ("terminate called without an active
    exception", SIGABRT: 3 runs of 10 of this example on PyPI's torch
    2.13.0 CPU build).

    The cause: each backward() stashes a Python object (a contextvars
    Context, torch/autograd/graph.py's _engine_run_backward) in the
    thread-local state that DDP's all-reduce works capture; gloo's worker
    thread drops a finished work, and with it that object, which needs
    the GIL. When the main thread has begun shutting the interpreter down
    by then, CPython before 3.14 ends the worker thread inside that
    destructor (python/cpython#87135) and C++ calls std::terminate. The
    process group is never freed before that (DDP keeps it), so neither a
    barrier before destroy_process_group (1 abort in 15 runs) nor not
    destroying it (4 in 15) is safe; torch's own fix, destroying the
    groups at exit, was abandoned (pytorch/pytorch#179291). Leaving with
    os._exit once the output is flushed skips the shutdown the race needs:
    no abort in the runs README.md counts."""
    if dist.is_initialized():  # a framework may have ended it already
        dist.destroy_process_group()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)
