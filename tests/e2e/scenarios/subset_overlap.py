# SPDX-License-Identifier: MIT
"""Ranks shard by hand with overlapping windows: rank r reads
Subset(dataset, range(75 r, 75 r + 150)). In the dataset's indices the
shards overlap by half: overlap (positions alone would have said every rank
reads everything). Samples 375-399 are in no rank's subset, and the
subsets are cut from the dataset itself (no part that every rank shares,
such as a split, leaves them to another loader): missing, an error, with
the coverage of the dataset (93.8%, not the 100% of what the subsets
hold)."""

from torch.utils.data import DataLoader, Subset

from scenario_kit import IndexDataset, here

# The exact set of error and warning ids (infos are free).
EXPECT = ["overlap", "missing"]
# check.py options beside --expect.
OPTIONS = ["--mention", "missing=25 are in no rank's index map (samples 375-399)",
           "--mention", "missing=coverage 93.8%"]


def run(truth, rank, world):
    dataset = IndexDataset(400)
    shard = Subset(dataset, range(75 * rank, 75 * rank + 150))
    site = here(); loader = DataLoader(shard, batch_size=10, shuffle=True)
    truth.epochs(truth.loader(site), loader, 2)
