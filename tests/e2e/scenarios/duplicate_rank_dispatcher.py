# SPDX-License-Identifier: MIT
"""duplicate_rank.py through accelerate's dispatcher: two processes started
as ranks 0 and 1 each join a process group of their own (rank 0 of 1), so
each Accelerator() is a job of one process, and prepare(dispatch_batches=True)
makes each one the dispatcher of itself: each reads the whole dataset and
keeps all of it. Whatever the loader, several processes that ran at the same
time and each said it is rank 0 are duplicate-rank."""

from scenario_kit import dispatcher

# The exact set of error and warning ids (infos are free).
EXPECT = ["duplicate-rank"]
# check.py options beside --expect.
OPTIONS = ["--script", "solo_ranks.py", "--nproc", "2", "--accelerate", "--finding-ranks", "duplicate-rank=0",
           "--mention", "duplicate-rank=torch.distributed rank 0 of 1"]


def run(truth, rank, world):
    dispatcher(truth, rank, world)
