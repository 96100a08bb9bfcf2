# SPDX-License-Identifier: MIT
"""An IterableDataset sharded by rank and by worker, read by 2 workers that
each keep 2 batches fetched ahead (prefetch_factor; persistent), and a loop that stops
after 5 batches per rank in each of 2 epochs (max_steps): the workers had
produced more than the loop got. The report counts the 5 batches the loop
consumed, not what the workers had fetched ahead. Partial epochs, no
finding."""

from torch.utils.data import DataLoader

from scenario_kit import IndexStream, here, note_worker_pid

# The exact set of error and warning ids (infos are free).
EXPECT = []
# check.py options beside --expect.
OPTIONS = ["--workers"]


def run(truth, rank, world):
    stream = IndexStream(400, rank, world, by_worker=True)
    site = here(); loader = DataLoader(stream, batch_size=4, num_workers=2, prefetch_factor=2, persistent_workers=True, worker_init_fn=note_worker_pid)
    entry = truth.loader(site)
    for epoch in range(2):
        truth.read(entry, loader, limit=5)
