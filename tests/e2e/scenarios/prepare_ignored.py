# SPDX-License-Identifier: MIT
"""Form 1b: prepare()'s return value dropped, the user's unsharded loader
iterated: every rank reads everything, accelerate's loader is never used."""

from torch.utils.data import DataLoader

from scenario_kit import IndexDataset, here, make_accelerator

# The exact set of error and warning ids (infos are free).
EXPECT = ["unsharded", "unused-prepared"]
# check.py options beside --expect.
OPTIONS = ["--accelerate"]


# 1 / 1b: accelerate's prepare(), its return value ignored or used. ACCELERATE
def run(truth, rank, world):
    dataset = IndexDataset(400)
    site = here(); loader = DataLoader(dataset, batch_size=8, shuffle=True)
    accelerator = make_accelerator()
    psite = here(); accelerator.prepare(loader)  # the bug: the sharded loader it returns is dropped
    truth.epochs(truth.loader(site), loader, 2)  # every rank reads all 400
    truth.loader(psite)  # built by accelerate, never iterated
