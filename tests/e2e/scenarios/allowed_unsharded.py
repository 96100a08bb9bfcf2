# SPDX-License-Identifier: MIT
"""A validation loader every rank reads whole on purpose, its line saying so
(`# accwatch: allow unsharded`), beside a training loader sharded by a
DistributedSampler: the validation loader's unsharded finding is suppressed
(kept in the JSON, marked, and a SARIF suppression), and nothing else is
found."""

from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler

from scenario_kit import IndexDataset, here

# The exact set of error and warning ids not suppressed (infos are free).
EXPECT = []
# The exact set of ids suppressed.
OPTIONS = ["--suppressed", "unsharded"]


def run(truth, rank, world):
    train = IndexDataset(400)
    sampler = DistributedSampler(train, shuffle=True, seed=1)
    site = here(); train_loader = DataLoader(train, batch_size=8, sampler=sampler)
    train_entry = truth.loader(site)
    site = here(); val_loader = DataLoader(IndexDataset(64), batch_size=8)  # accwatch: allow unsharded
    val_entry = truth.loader(site)
    for epoch in range(2):
        sampler.set_epoch(epoch)
        truth.read(train_entry, train_loader)
        truth.read(val_entry, val_loader)
