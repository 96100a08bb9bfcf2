# SPDX-License-Identifier: MIT
"""Lightning's DDP over an IterableDataset sharded by rank and by worker,
read by 2 persistent workers, with limit_train_batches=5: each epoch stops
after 5 batches per rank while the workers had fetched more ahead
(prefetch). The report counts the 5 batches (20 items) each rank's
training_step got, not the items the workers had fetched. Partial epochs,
no finding (venv only: Lightning 2.x needs torch >= 2.1)."""

import torch.distributed as dist
from torch.utils.data import DataLoader

from scenario_kit import IndexStream, here

STACKS = ("venv",)
# The exact set of error and warning ids (infos are free).
EXPECT = []
# check.py options beside --expect.
OPTIONS = ["--script", "lightning_ranks.py", "--launcher", "self"]
# DataLoader workers per rank.
WORKERS = 2
# Lightning keeps the user's loader (an IterableDataset has no sampler to
# replace); each epoch stops at 5 batches.
TRAINER = {"use_distributed_sampler": False, "limit_train_batches": 5}
STOPS_EARLY = True


def loader(dataset, workers):
    """The loader train_dataloader() returns, and its site: the stream of
    this rank, not `dataset`."""
    stream = IndexStream(400, dist.get_rank(), dist.get_world_size(), by_worker=True)
    site = here(); built = DataLoader(stream, batch_size=4, num_workers=workers, persistent_workers=True)
    return site, built
