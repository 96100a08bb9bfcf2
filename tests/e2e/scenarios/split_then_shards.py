# SPDX-License-Identifier: MIT
"""Every rank splits the dataset the same way, random_split(dataset, [300,
100], generator=<one seed>), and shards the training part by hand: rank r
reads Subset(train, range(r, 300, world)). The ranks' index maps differ
(each its own quarter) and share the split below them, so together they
cover the 300 samples of the training part and none of the other 100:
coverage 75% of the dataset, and missing as a warning that names the part
every rank shares, whose rest is meant for another loader (a validation
split), not as an error."""

import torch
from torch.utils.data import DataLoader, Subset, random_split

from scenario_kit import IndexDataset, here

# The exact set of error and warning ids (infos are free).
EXPECT = ["missing"]
# check.py options beside --expect.
OPTIONS = ["--mention", "missing=100 are outside the 300 samples of the part every rank's index maps share",
           "--mention", "missing=coverage 75.0%"]


def run(truth, rank, world):
    train, _ = random_split(IndexDataset(400), [300, 100], generator=torch.Generator().manual_seed(7))
    shard = Subset(train, range(rank, 300, world))
    site = here(); loader = DataLoader(shard, batch_size=8, shuffle=True)
    truth.epochs(truth.loader(site), loader, 2)
