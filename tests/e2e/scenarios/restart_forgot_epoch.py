# SPDX-License-Identifier: MIT
"""restart_resume.py without set_epoch(1) before load_state_dict: the
restarted DistributedSampler is at epoch 0, so the resumed pass reads the
tail of epoch 0's permutation again after skipping 3 batches, and epoch 1's
samples after its checkpoint are never read: resume-repeats-epoch in the
second attempt (its sampler's epoch and seed named), besides the first
attempt's rank-died."""

from scenario_kit import restarted_stateful

STACKS = ('venv',)
# The exact set of error and warning ids (infos are free).
EXPECT = ["rank-died", "resume-repeats-epoch"]
# check.py options beside --expect.
OPTIONS = ["--nproc", "2", "--launcher", "torchrun", "--max-restarts", "1",
           "--script", "restart_ranks.py", "--finding-ranks", "rank-died=1",
           "--finding-ranks", "resume-repeats-epoch=0,1",
           "--mention", "resume-repeats-epoch=load_state_dict"]


def run(truth, rank, world):
    restarted_stateful(truth, rank, world, set_epoch=False)
