# SPDX-License-Identifier: MIT
"""Hand-made shards of 120, 100, 100 and 80 samples: uneven batches."""

from torch.utils.data import DataLoader

from scenario_kit import IndexDataset, here

# The exact set of error and warning ids (infos are free).
EXPECT = ["uneven-batches"]
# The HTML report too, in headless Chromium (check.py --html).
OPTIONS = ["--html"]


def run(truth, rank, world):
    dataset = IndexDataset(400)
    sizes = [120, 100, 100, 80]
    start = sum(sizes[:rank])
    shard = list(range(start, start + sizes[rank]))
    site = here(); loader = DataLoader(dataset, batch_size=8, sampler=shard)
    truth.epochs(truth.loader(site), loader, 1)
