# SPDX-License-Identifier: MIT
"""iterable_dup with fewer items: 100, so each rank's 2 persistent workers
each replay the rank's 25 over 2 epochs (25 duplicates a rank an epoch).
Too few items for the resampling test alone to rule chance out; that each
worker read the whole of what the other did, in the same order, settles
it: iterable-duplicate. (It gave nothing since the resampling rule.)"""
from torch.utils.data import DataLoader

from scenario_kit import IndexStream, here, note_worker_pid

# The exact set of error and warning ids (infos are free).
EXPECT = ["iterable-duplicate"]
# check.py options beside --expect.
OPTIONS = ["--workers"]


def run(truth, rank, world):
    dataset = IndexStream(100, rank, world, by_worker=False)
    site = here(); loader = DataLoader(dataset, batch_size=5, num_workers=2, persistent_workers=True, worker_init_fn=note_worker_pid)
    truth.epochs(truth.loader(site), loader, 2)
