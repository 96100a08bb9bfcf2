# SPDX-License-Identifier: MIT
"""Lightning told to keep the user's sampler, Trainer(...,
use_distributed_sampler=False), and a train_dataloader() with shuffle=True
and no DistributedSampler: Lightning iterates the user's loader as it is,
and every rank reads all 402 samples: unsharded (venv only: Lightning 2.x
needs torch >= 2.1)."""

STACKS = ("venv",)
# The exact set of error and warning ids (infos are free).
EXPECT = ["unsharded"]
# check.py options beside --expect.
OPTIONS = ["--script", "lightning_ranks.py", "--launcher", "self"]
# DataLoader workers per rank.
WORKERS = 0
# Trainer options beside lightning_ranks.py's.
TRAINER = {"use_distributed_sampler": False}
