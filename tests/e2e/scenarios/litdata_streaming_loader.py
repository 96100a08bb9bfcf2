# SPDX-License-Identifier: MIT
"""litdata_plain_loader.py's StreamingDataset(shuffle=True) read for 3
epochs by litdata's own StreamingDataLoader, which sets the dataset's epoch
before each pass: a new order every epoch, no same-order (worker-respawn:
its 2 workers are forked anew every epoch, which is how they see the new
epoch)."""

from scenario_kit import litdata_epochs

STACKS = ("venv",)
# The exact set of error and warning ids (infos are free).
EXPECT = ["worker-respawn"]
# check.py options beside --expect.
OPTIONS = ["--nproc", "2", "--workers"]


def run(truth, rank, world):
    litdata_epochs(truth, rank, world, streaming_loader=True)
