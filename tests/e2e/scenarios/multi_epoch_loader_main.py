# SPDX-License-Identifier: MIT
"""The multi-epoch loader pattern (one iterator for the whole run over a
batch sampler started over forever) read without workers: nothing draws
ahead, so each epoch's first draw, which starts torch's batch sampler
again, comes after that epoch's set_epoch. The recorder ends an epoch at
each start: 3 epochs of 50 samples a rank, each a new order, no finding
(the truth's epochs are the report's). Before, one pass of 150."""
from torch.utils.data.distributed import DistributedSampler

from scenario_kit import IndexDataset, OneIteratorLoader, here

# The exact set of error and warning ids (infos are free).
EXPECT = []


def run(truth, rank, world):
    dataset = IndexDataset(200)
    sampler = DistributedSampler(dataset, shuffle=True, seed=0)
    site = here(); loader = OneIteratorLoader(dataset, batch_size=10, sampler=sampler)
    truth.epochs(truth.loader(site), loader, 3, sampler=sampler)
