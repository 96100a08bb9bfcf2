# SPDX-License-Identifier: MIT
"""Lightning's DDP with reload_dataloaders_every_n_epochs=1: train_dataloader()
is called again for every epoch and Lightning builds a new DataLoader with
its DistributedSampler around each (a new dataset object each time). Each
is a loader of its own at the trainer.fit() line, read in its epoch; the
iterator Lightning opens on the new loader and drops before the loop reads
it is no epoch (no empty "0 batches, partial" row). No finding."""

STACKS = ("venv",)
# The exact set of error and warning ids (infos are free).
EXPECT = []
# check.py options beside --expect.
OPTIONS = ["--script", "lightning_ranks.py", "--launcher", "self"]
# DataLoader workers per rank.
WORKERS = 0
TRAINER = {"reload_dataloaders_every_n_epochs": 1}
