# SPDX-License-Identifier: MIT
"""Each rank splits one HF datasets.Dataset of 200 rows with
train_test_split(test_size=0.2) and no seed=, then trains on its train part
with HF's Trainer: every process draws its own permutation, so the ranks'
train parts differ, and Trainer's DistributedSampler-style shard of each
overlaps the others and leaves rows of the 160 unread. split-diverged, fixed
with the split's own seed= (not torch's random_split). The same with
seed=: trainer_split_seeded.py."""

from scenario_kit import here, trainer_split

STACKS = ("venv",)
# The exact set of error and warning ids (infos are free).
EXPECT = ["split-diverged"]
# check.py options beside --expect.
OPTIONS = ["--accelerate", "--env", "HF_DATASETS_OFFLINE=1",
           "--mention", "split-diverged=train_test_split(..., seed=", "--absent", "random_split"]


def run(truth, rank, world):
    trainer, entries = trainer_split(truth, seed=None)
    site = here(); trainer.train()
    for entry in entries:
        entry["site"] = site
