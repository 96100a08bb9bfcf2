# SPDX-License-Identifier: MIT
"""torchrun --max-restarts 1: rank 1 of the first attempt exits with status
1 in the middle of epoch 1, after both ranks saved their StatefulDataLoader's
state_dict at its batch #2; torchrun stops rank 0 and starts the job again.
The second attempt's processes claim the same ranks, call set_epoch(1) and
then load_state_dict, finish epoch 1 from batch #3 and train epoch 2. Each
attempt is judged on its own: the first has rank 1's death (rank-died), the
resumed pass skips what the first attempt read on purpose (no missing), and
the batches the first attempt read after the checkpoint, read again, are
no overlap. The torchdata recipe done right; restart_forgot_epoch.py is the
same without set_epoch before load_state_dict."""

from scenario_kit import restarted_stateful

STACKS = ('venv',)
# The exact set of error and warning ids (infos are free).
EXPECT = ["rank-died"]
# check.py options beside --expect.
OPTIONS = ["--nproc", "2", "--launcher", "torchrun", "--max-restarts", "1",
           "--script", "restart_ranks.py", "--finding-ranks", "rank-died=1"]


def run(truth, rank, world):
    restarted_stateful(truth, rank, world, set_epoch=True)
