# SPDX-License-Identifier: MIT
"""k-fold cross-validation: each of 3 folds builds its train and val
loaders on the same two lines, over Subsets of one dataset, each sharded
by a DistributedSampler; a fold's Subsets and samplers are freed before
the next fold builds its own, so CPython hands the new objects the old
ones' addresses. Each fold's loaders are loaders of their own: clean.
Before, a freed Subset's id() reused by the next fold chained the folds'
loaders into one, and each validation pass was judged against the train
subset (false `missing`, loaders "never iterated")."""
import gc

from torch.utils.data import DataLoader, Subset
from torch.utils.data.distributed import DistributedSampler

from scenario_kit import IndexDataset, here

# The exact set of error and warning ids (infos are free).
EXPECT = []

FOLDS = 3


def fold_loaders(dataset, fold, site):
    n = len(dataset)
    val = list(range(fold * n // FOLDS, (fold + 1) * n // FOLDS))
    train = [i for i in range(n) if i < val[0] or i > val[-1]]
    train_set, val_set = Subset(dataset, train), Subset(dataset, val)
    train_sampler = DistributedSampler(train_set, shuffle=True, seed=fold)
    val_sampler = DistributedSampler(val_set, shuffle=False)
    site[0] = here(); train_loader = DataLoader(train_set, batch_size=8, sampler=train_sampler)
    site[1] = here(); val_loader = DataLoader(val_set, batch_size=8, sampler=val_sampler)
    return train_loader, val_loader


def run(truth, rank, world):
    dataset = IndexDataset(240)
    site = [None, None]
    for fold in range(FOLDS):
        train_loader, val_loader = fold_loaders(dataset, fold, site)
        truth.read(truth.loader(site[0], ordinal=fold), train_loader)
        truth.read(truth.loader(site[1], ordinal=fold), val_loader)
        del train_loader, val_loader
        gc.collect()
