# SPDX-License-Identifier: MIT
"""A stream that shards itself by rank (items i with i % world == rank, as
is right without accelerate), prepared by accelerate, whose default for an
IterableDataset is the dispatcher: only rank 0 iterates it, so only rank
0's quarter is read and cut into four. The loop sizes its schedule with
len(prepared), 7 batches (the stream's __len__ is 200), and gets 2:
len-mismatch, with each rank's share rebuilt (12 or 13 items of rank 0's
50) and the loader's coverage of the 200 at 25%."""

from torch.utils.data import DataLoader

from scenario_kit import IndexStream, accelerator_dispatching, here

# The exact set of error and warning ids (infos are free).
EXPECT = ["len-mismatch"]
# check.py options beside --expect.
OPTIONS = ["--accelerate", "--mention", "len-mismatch=dispatch_batches=False"]


class SizedStream(IndexStream):
    def __len__(self):
        return self.length


def run(truth, rank, world):
    stream = SizedStream(200, rank, world, by_worker=False)
    site = here(); loader = DataLoader(stream, batch_size=8)
    accelerator = accelerator_dispatching(True)
    psite = here(); prepared = accelerator.prepare(loader)
    truth.loader(site)
    steps = len(prepared)  # 7: the schedule's length (the report has it on the dispatcher)
    print(f"rank {rank}: len(prepared) = {steps}", flush=True)
    truth.epochs(truth.loader(psite), prepared, 2)
