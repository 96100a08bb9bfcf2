# SPDX-License-Identifier: MIT
"""Lightning's predict loop over 4 ranks (venv only: Lightning 2.x needs
torch >= 2.1): trainer.predict() rebuilds the loader predict_dataloader()
returns with UnrepeatedDistributedSamplerWrapper, which shards the 130
samples without padding, 33, 33, 32 and 32 (5, 5, 4 and 4 batches of 8),
and runs no collective per batch: every rank finishes. Uneven by design:
uneven-batches is an info that says so. The loader Lightning builds is
reported at the user's trainer.predict() line (lightning_ranks.py runs
it)."""

STACKS = ("venv",)
# The exact set of error and warning ids (infos are free).
EXPECT = []
# check.py options beside --expect.
OPTIONS = ["--script", "lightning_ranks.py", "--launcher", "self",
           "--mention", "uneven-batches=by design: their UnrepeatedDistributedSamplerWrapper shards"]
# DataLoader workers per rank.
WORKERS = 0
# Predict over a dataset of this length instead of fitting.
PREDICT = 130
