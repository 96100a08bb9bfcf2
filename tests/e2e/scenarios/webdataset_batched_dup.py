# SPDX-License-Identifier: MIT
"""Whole batches hide duplicates: a webdataset pipeline split by node but
not by worker (workersplitter=None), read by 2 workers, each shuffling
its copy of the rank's 2 shards before batched(8), DataLoader(batch_size=
None). Every sample reaches each rank twice per epoch, inside batches
whose contents differ (each worker's shuffle is its own). Counted inside
the batches, the copies are seen: iterable-duplicate. Before, each batch
was one item and no two batches were alike: nothing. venv only:
webdataset."""

from torch.utils.data import DataLoader

from scenario_kit import here, note_worker_pid, webdataset_row, webdataset_shards

STACKS = ('venv',)
# The exact set of error and warning ids (infos are free).
EXPECT = ["iterable-duplicate"]
# check.py options beside --expect.
OPTIONS = ["--workers"]


def run(truth, rank, world):
    import webdataset as wds
    urls = webdataset_shards(8, 48)
    dataset = wds.WebDataset(urls, shardshuffle=False, nodesplitter=wds.split_by_node, workersplitter=None)
    dataset = dataset.shuffle(100).decode().map(webdataset_row).batched(8)
    site = here(); loader = DataLoader(dataset, batch_size=None, num_workers=2, persistent_workers=True, worker_init_fn=note_worker_pid)
    truth.epochs(truth.loader(site), loader, 2)
