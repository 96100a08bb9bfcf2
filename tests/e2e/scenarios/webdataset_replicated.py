# SPDX-License-Identifier: MIT
"""webdataset without a node split: nodesplitter=None lets each of the 4
ranks read all 8 shards of 50 samples (its 2 workers split them by
split_by_worker), so every rank trains on the whole data, the same samples
in the same order as every other rank, none twice: each worker's read is a
copy of the same worker's on the other ranks. iterable-duplicate (the
stream is replicated, not split) and unsharded (each rank reads it all).
venv only: webdataset."""

from torch.utils.data import DataLoader

from scenario_kit import here, note_worker_pid, webdataset_shards, webdataset_value

STACKS = ('venv',)
# The exact set of error and warning ids (infos are free).
EXPECT = ["iterable-duplicate", "unsharded"]
# check.py options beside --expect.
OPTIONS = ["--workers", "--mention", "iterable-duplicate=0 of them read twice by one source"]


def run(truth, rank, world):
    import webdataset as wds
    urls = webdataset_shards(8, 50)
    dataset = wds.WebDataset(urls, shardshuffle=False, nodesplitter=None)
    dataset = dataset.decode().map(webdataset_value)
    site = here(); loader = DataLoader(dataset, batch_size=10, num_workers=2, persistent_workers=True, worker_init_fn=note_worker_pid)
    truth.epochs(truth.loader(site), loader, 2)
