# SPDX-License-Identifier: MIT
"""Each rank splits one HF datasets.Dataset of 200 rows with
train_test_split(test_size=0.2, seed=7), then trains 2 epochs on its train
part with HF's Trainer: the ranks hold the same 160 rows, which Trainer's
shard of the prepared loader splits among them. No finding (the unseeded
split: trainer_split_unseeded.py)."""

from scenario_kit import here, trainer_split

STACKS = ("venv",)
# The exact set of error and warning ids (infos are free).
EXPECT = []
# check.py options beside --expect.
OPTIONS = ["--accelerate", "--env", "HF_DATASETS_OFFLINE=1"]


def run(truth, rank, world):
    trainer, entries = trainer_split(truth, seed=7)
    site = here(); trainer.train()
    for entry in entries:
        entry["site"] = site
