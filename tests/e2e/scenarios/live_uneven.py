# SPDX-License-Identifier: MIT
"""--live before an uneven epoch ends: hand-made shards of 160, 100, 100
and 80 samples (20, 13, 13 and 10 batches of 8), no Join, 1 s a step: once
rank 3's sampler ran out while the others drew on, the live line says
uneven-batches, before the last rank ends epoch 0 (where a training loop
with a collective per step would hang)."""
import time

from torch.utils.data import DataLoader

from scenario_kit import IndexDataset, here

# The exact set of error and warning ids (infos are free).
EXPECT = ["uneven-batches"]
# check.py options beside --expect.
OPTIONS = ["--live", "--live-before-end", "uneven-batches=0"]


def run(truth, rank, world):
    sizes = [160, 100, 100, 80]
    start = sum(sizes[:rank])
    shard = list(range(start, start + sizes[rank]))
    site = here(); loader = DataLoader(IndexDataset(440), batch_size=8, sampler=shard)
    truth.read(truth.loader(site), loader, step=lambda batch: time.sleep(1))
