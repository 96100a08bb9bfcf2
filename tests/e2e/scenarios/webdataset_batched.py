# SPDX-License-Identifier: MIT
"""A webdataset pipeline that batches inside the dataset (batched(8)),
read with DataLoader(batch_size=None), as webdataset's examples do: 8
shards of 48 samples, split_by_node (2 shards a rank) and split_by_worker
(one each of 2 workers), a shuffle buffer, 2 epochs. Every sample is read
once per epoch: no finding, and each rank's table counts the 96 samples
it trained on (the samples inside each whole batch, split as the
pipeline's batches are), not 12 batches as 12 samples. venv only:
webdataset."""

from torch.utils.data import DataLoader

from scenario_kit import here, note_worker_pid, webdataset_row, webdataset_shards

STACKS = ('venv',)
# The exact set of error and warning ids (infos are free).
EXPECT = []
# check.py options beside --expect.
OPTIONS = ["--workers"]


def run(truth, rank, world):
    import webdataset as wds
    urls = webdataset_shards(8, 48)
    dataset = wds.WebDataset(urls, shardshuffle=False, nodesplitter=wds.split_by_node, workersplitter=wds.split_by_worker)
    dataset = dataset.shuffle(100).decode().map(webdataset_row).batched(8)
    site = here(); loader = DataLoader(dataset, batch_size=None, num_workers=2, persistent_workers=True, worker_init_fn=note_worker_pid)
    truth.epochs(truth.loader(site), loader, 2)
