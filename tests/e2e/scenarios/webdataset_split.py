# SPDX-License-Identifier: MIT
"""webdataset split the plain way: 8 shards of 50 samples, split_by_node
gives each of the 4 ranks 2 shards and split_by_worker one to each of its
2 workers; shuffle buffer, 2 epochs. Every sample is read once per epoch:
no finding. venv only: webdataset."""

from torch.utils.data import DataLoader

from scenario_kit import here, note_worker_pid, webdataset_shards, webdataset_value

STACKS = ('venv',)
# The exact set of error and warning ids (infos are free).
EXPECT = []
# check.py options beside --expect.
OPTIONS = ["--workers"]


def run(truth, rank, world):
    import webdataset as wds
    urls = webdataset_shards(8, 50)
    dataset = wds.WebDataset(urls, shardshuffle=False, nodesplitter=wds.split_by_node, workersplitter=wds.split_by_worker)
    dataset = dataset.shuffle(1000).decode().map(webdataset_value)
    site = here(); loader = DataLoader(dataset, batch_size=10, num_workers=2, persistent_workers=True, worker_init_fn=note_worker_pid)
    truth.epochs(truth.loader(site), loader, 2)
