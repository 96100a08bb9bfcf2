# SPDX-License-Identifier: MIT
"""Form 2: own DistributedSampler, then prepare() shards its batches again:
the ranks together read 112 of 400 samples. accelerate 1.x calls
set_epoch on the user's sampler at each epoch; 0.20 does not, so there each
rank also reads its share in the same order twice (same-order, true: the
ranks' truth shows it)."""

from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler

from scenario_kit import IndexDataset, here, make_accelerator

# The exact set of error and warning ids (infos are free), per stack.
EXPECT = {"venv": ["missing"], "debian": ["missing", "same-order"]}
# check.py options beside --expect.
OPTIONS = ["--accelerate"]


# 2: sharded twice: own DistributedSampler, then accelerate's BatchSamplerShard. ACCELERATE
def run(truth, rank, world):
    dataset = IndexDataset(400)
    sampler = DistributedSampler(dataset, shuffle=True, seed=1)  # 100 samples of this rank
    site = here(); loader = DataLoader(dataset, batch_size=8, sampler=sampler)
    accelerator = make_accelerator()
    # BatchSamplerShard keeps every 4th of the rank's 13 batches (+ even_batches
    # padding from the rank's own first batches): 4 batches, 32 samples, 28
    # distinct per rank, disjoint between ranks: the union is 112 of 400
    # (coverage 28%, ~1/W).
    # accelerate calls set_epoch on the DistributedSampler (set_epoch chain).
    psite = here(); prepared = accelerator.prepare(loader)
    truth.loader(site)
    truth.epochs(truth.loader(psite), prepared, 2)
