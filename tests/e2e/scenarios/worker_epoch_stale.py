"""An IterableDataset that reshuffles by its own epoch, which the loop sets
with dataset.set_epoch(epoch) in the main process, read by 2 persistent
workers: they hold the copy of the dataset they were started with, still at
epoch 0, and read the same items in the same order every epoch:
worker-stale-epoch (the correct version, the epoch in shared memory, is
worker_epoch_shared.py)."""

from torch.utils.data import DataLoader

from scenario_kit import EpochStream, here, note_worker_pid

# The exact set of error and warning ids (infos are free).
EXPECT = ["worker-stale-epoch"]
# check.py options beside --expect.
OPTIONS = ["--workers"]


def run(truth, rank, world):
    stream = EpochStream(160, rank, world, shared=False)
    site = here(); loader = DataLoader(stream, batch_size=8, num_workers=2, persistent_workers=True, worker_init_fn=note_worker_pid)
    entry = truth.loader(site)
    for epoch in range(3):
        stream.set_epoch(epoch)
        truth.read(entry, loader)
