# SPDX-License-Identifier: MIT
"""Two processes started as ranks 0 and 1 each join a process group of their
own as rank 0 of 1, so each trains alone on the whole dataset (its
DistributedSampler sees a world of 1). The report has one rank 0 whose rows
add both up, and says why: duplicate-rank, the environment's and
torch.distributed's view of each side by side."""

from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler

from scenario_kit import IndexDataset, here

# The exact set of error and warning ids (infos are free).
EXPECT = ["duplicate-rank"]
# check.py options beside --expect.
OPTIONS = ["--script", "solo_ranks.py", "--nproc", "2", "--finding-ranks", "duplicate-rank=0",
           "--mention", "duplicate-rank=torch.distributed rank 0 of 1"]


def run(truth, rank, world):
    dataset = IndexDataset(400)
    sampler = DistributedSampler(dataset, shuffle=True, seed=3)
    site = here(); loader = DataLoader(dataset, batch_size=8, sampler=sampler)
    truth.epochs(truth.loader(site), loader, 2, sampler=sampler)
