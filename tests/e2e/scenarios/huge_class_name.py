# SPDX-License-Identifier: MIT
"""A dataset class whose name is 1 MB long: its loader_new is recorded with
the name cut (not dropped whole), so the loader keeps its site and rows."""

from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler

from scenario_kit import IndexDataset, here

# The exact set of error and warning ids (infos are free): none, no
# trace-incomplete either (nothing was lost).
EXPECT = []
OPTIONS = ["--nproc", "2"]


def run(truth, rank, world):
    huge = type("D" * (1 << 20), (IndexDataset,), {})
    dataset = huge(64)
    sampler = DistributedSampler(dataset, num_replicas=world, rank=rank, shuffle=False)
    site = here(); loader = DataLoader(dataset, batch_size=8, sampler=sampler)
    truth.epochs(truth.loader(site), loader, 1)
