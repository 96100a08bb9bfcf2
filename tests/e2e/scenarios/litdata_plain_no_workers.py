# SPDX-License-Identifier: MIT
"""litdata_plain_loader.py's StreamingDataset(shuffle=True) under a plain
torch DataLoader without workers: the dataset itself is iterated in the
rank's process and moves its own epoch when a pass ends (litdata 0.2.76),
so every epoch has a new order: no finding. With workers (each pass a copy
of the dataset at epoch 1): litdata_plain_loader.py."""

from scenario_kit import litdata_epochs

STACKS = ("venv",)
# The exact set of error and warning ids (infos are free).
EXPECT = []
# check.py options beside --expect.
OPTIONS = ["--nproc", "2"]


def run(truth, rank, world):
    litdata_epochs(truth, rank, world, streaming_loader=False, workers=0)
