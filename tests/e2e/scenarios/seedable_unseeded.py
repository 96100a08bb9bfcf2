# SPDX-License-Identifier: MIT
"""accelerate's prepare() with use_seedable_sampler=True and no set_seed():
each rank's SeedableRandomSampler takes its seed from the process's own
random state (this rank program seeds torch with its rank), so the ranks
shuffle differently and BatchSamplerShard cuts each rank's batches out of a
permutation of its own: samples read twice and samples never read, from one
cause: order-diverged, naming the ranks' seeds (not "shard once")."""

from torch.utils.data import DataLoader

from scenario_kit import IndexDataset, accelerate, here, make_accelerator

STACKS = ('venv',)
# The exact set of error and warning ids (infos are free).
EXPECT = ["order-diverged"]
# check.py options beside --expect.
OPTIONS = ["--accelerate", "--mention", "order-diverged=seed", "--absent", "shard once"]


def run(truth, rank, world):
    acc = accelerate()
    accelerator = make_accelerator(dataloader_config=acc.DataLoaderConfiguration(use_seedable_sampler=True))
    site = here(); loader = DataLoader(IndexDataset(400), batch_size=8, shuffle=True)
    psite = here(); prepared = accelerator.prepare(loader)
    truth.loader(site)  # the user's loader, replaced: never iterated
    truth.epochs(truth.loader(psite), prepared, 2)
