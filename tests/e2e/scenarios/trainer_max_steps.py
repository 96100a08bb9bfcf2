# SPDX-License-Identifier: MIT
"""HF Trainer with gradient accumulation stops at max_steps in the middle of
its first epoch: 3 optimizer steps of 2 batches, 6 batches per rank reach
training_step. Trainer builds the DataLoader itself and passes it through
accelerate's prepare(), whose DataLoaderShard fetches a 7th batch to know
whether the 6th was the last. The report counts the 6 the loop trained on,
and names the loader by the user's line that called train(), not by
Trainer's own lines in site-packages. Partial epoch, no finding."""

from scenario_kit import here, trainer_run

STACKS = ("venv",)
# The exact set of error and warning ids (infos are free).
EXPECT = []
# check.py options beside --expect.
OPTIONS = ["--accelerate"]


def run(truth, rank, world):
    trainer, entries = trainer_run(truth, length=160, batch_size=4, accumulation=2, max_steps=3)
    site = here(); trainer.train()
    for entry in entries:
        entry["site"] = site
