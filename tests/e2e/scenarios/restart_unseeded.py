# SPDX-License-Identifier: MIT
"""restart_resume.py with a sampler whose order comes from a generator the
operating system seeds (UnseededShard: each rank's share, no seed, no
state_dict of its own): the restarted processes load the StatefulDataLoader's
state_dict and skip the 3 batches it had yielded, but of another order, so
joined with the 3 batches the first attempt read before the checkpoint,
epoch 1 reads some samples twice (overlap) and leaves as many unread
(missing), on both ranks; besides the first attempt's rank-died. The first
attempt dies after batch #3. The report tells the orders apart from the
sets alone: a rank whose second order draws, after its 3rd batch, the 16
samples the first attempt never read and 4 of the 16 it read would show
nothing, by chance once in about 124,000 runs (C(16, 4) / C(32, 20))."""

from scenario_kit import restarted_stateful

STACKS = ('venv',)
# The exact set of error and warning ids (infos are free).
EXPECT = ["rank-died", "overlap", "missing"]
# check.py options beside --expect.
OPTIONS = ["--nproc", "2", "--launcher", "torchrun", "--max-restarts", "1",
           "--script", "restart_ranks.py", "--finding-ranks", "rank-died=1",
           "--finding-ranks", "overlap=0,1", "--finding-ranks", "missing=0,1",
           "--mention", "overlap=continues epoch 1 of L0"]


def run(truth, rank, world):
    restarted_stateful(truth, rank, world, set_epoch=True, unseeded=True, last=3)
