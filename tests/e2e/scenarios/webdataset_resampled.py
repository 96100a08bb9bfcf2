# SPDX-License-Identifier: MIT
"""webdataset's recipe for many ranks: WebDataset(..., resampled=True)
draws shards with replacement, independently in every rank's DataLoader
worker, through a shuffle buffer, and with_epoch() sets how many samples a
worker yields. 8 shards of 50 samples, 4 ranks, 2 workers of 100 samples
each (2 shards' worth), 2 epochs. Workers and ranks share samples, and
workers read samples twice themselves: random collisions of drawing with
replacement, no worker's read a copy of another's. No iterable-duplicate,
no overlap; the resampled info says so. venv only: webdataset."""

from torch.utils.data import DataLoader

from scenario_kit import here, note_worker_pid, webdataset_shards, webdataset_value

STACKS = ('venv',)
# The exact set of error and warning ids (infos are free).
EXPECT = []
# check.py options beside --expect.
OPTIONS = ["--workers", "--mention", "resampled=each source draws items again"]


def run(truth, rank, world):
    import webdataset as wds
    urls = webdataset_shards(8, 50)
    dataset = wds.WebDataset(urls, resampled=True, shardshuffle=False, nodesplitter=wds.split_by_node)
    dataset = dataset.shuffle(1000).decode().map(webdataset_value).with_epoch(100)
    site = here(); loader = DataLoader(dataset, batch_size=10, num_workers=2, persistent_workers=True, worker_init_fn=note_worker_pid)
    truth.epochs(truth.loader(site), loader, 2)
