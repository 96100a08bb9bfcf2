# SPDX-License-Identifier: MIT
"""Ranks shard by hand with windows that overlap and stop short: rank r
reads Subset(dataset, range(20 r, 20 r + 28)) of a dataset of 100. In the
dataset's indices the windows overlap by 8 (overlap), and together they end
at 87: samples 88-99 are in no rank's subset, inside the dataset the ranks
cut their subsets from, and no rank ever reads them (missing, an error,
coverage 88% of the dataset, never 100%)."""

from torch.utils.data import DataLoader, Subset

from scenario_kit import IndexDataset, here

# The exact set of error and warning ids (infos are free).
EXPECT = ["overlap", "missing"]
# check.py options beside --expect.
OPTIONS = ["--mention", "missing=12 are in no rank's index map (samples 88-99)",
           "--mention", "missing=coverage 88.0%"]


def run(truth, rank, world):
    dataset = IndexDataset(100)
    shard = Subset(dataset, range(20 * rank, 20 * rank + 28))
    site = here(); loader = DataLoader(shard, batch_size=7, shuffle=True)
    truth.epochs(truth.loader(site), loader, 2)
