"""worker_epoch_stale.py done right: the stream keeps its epoch in a shared
memory tensor, so set_epoch in the main process reaches the 2 persistent
workers and every epoch has its own order. No finding."""

from torch.utils.data import DataLoader

from scenario_kit import EpochStream, here, note_worker_pid

# The exact set of error and warning ids (infos are free).
EXPECT = []
# check.py options beside --expect.
OPTIONS = ["--workers"]


def run(truth, rank, world):
    stream = EpochStream(160, rank, world, shared=True)
    site = here(); loader = DataLoader(stream, batch_size=8, num_workers=2, persistent_workers=True, worker_init_fn=note_worker_pid)
    entry = truth.loader(site)
    for epoch in range(3):
        stream.set_epoch(epoch)
        truth.read(entry, loader)
