# SPDX-License-Identifier: MIT
"""Two torchrun jobs in one recording, as a job killed and started again
runs: the first trains HF's Trainer for 2 epochs of 10 steps per rank,
saves a checkpoint every 4 steps and stops after step 13 (batch #2 of
epoch 1); the second job calls train(resume_from_checkpoint=True): it
restores step 12 and reads epoch 1 from batch #2 on (Trainer's
skip_first_batches), so batch #2 is read again and nothing is left out.
Each job is an attempt of its own: the first ends its epoch 1 early on
purpose, the resumed pass leaves out the 2 batches the checkpoint had
trained. No finding."""

import os

from scenario_kit import TRUTH_ENV, attempt, here, trainer_run

STACKS = ("venv",)
# The exact set of error and warning ids (infos are free).
EXPECT = []
# check.py options beside --expect.
OPTIONS = ["--launcher", "torchrun", "--jobs", "2"]


def run(truth, rank, world):
    checkpoints = os.path.join(os.environ[TRUTH_ENV], "checkpoints")
    first = attempt() == 0
    trainer, entries = trainer_run(truth, length=160, batch_size=4, accumulation=1, epochs=2,
                                   checkpoints=checkpoints, save_steps=4, stop_at=13 if first else 0,
                                   resumed=not first)
    if first:
        site = here(); trainer.train()
    else:
        site = here(); trainer.train(resume_from_checkpoint=True)
    for entry in entries:
        entry["site"] = site
