# SPDX-License-Identifier: MIT
"""Lightning's own launcher and DistributedSampler injection (venv only:
Lightning 2.x needs torch >= 2.1): Trainer(accelerator="cpu", devices=4,
strategy="ddp") started as one plain python process; 402 samples, ranks
read 101 each (2 padded), set_epoch called by Lightning: clean. The loader
Lightning builds in fit() is reported at the user's trainer.fit() line
(lightning_ranks.py runs it, here with 2 persistent workers per rank)."""

STACKS = ("venv",)
# The exact set of error and warning ids (infos are free).
EXPECT = []
# check.py options beside --expect.
OPTIONS = ["--script", "lightning_ranks.py", "--launcher", "self"]
# DataLoader workers per rank.
WORKERS = 2
