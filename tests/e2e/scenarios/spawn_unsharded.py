# SPDX-License-Identifier: MIT
"""Two ranks started by torch.multiprocessing.spawn below a process that
carries RANK=0, each with DataLoader(shuffle=True) and no sampler: both read
everything. Ranks are what processes say, not where they sit: these are two
ranks (numbered in pid order, nothing else tells), not workers of rank 0."""

from torch.utils.data import DataLoader

from scenario_kit import IndexDataset, here

# The exact set of error and warning ids (infos are free).
EXPECT = ["unsharded"]
# check.py options beside --expect.
OPTIONS = ["--script", "spawn_ranks.py", "--spawned", "--nproc", "2"]


def run(truth, rank, world):
    dataset = IndexDataset(400)
    site = here(); loader = DataLoader(dataset, batch_size=8, shuffle=True)
    truth.epochs(truth.loader(site), loader, 2)
