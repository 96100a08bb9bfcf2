# SPDX-License-Identifier: MIT
"""litdata's StreamingDataset(shuffle=True), built locally by
litdata.optimize, read for 3 epochs by a plain torch DataLoader with 2
workers: the dataset shuffles by itself, but only litdata's
StreamingDataLoader moves it to the next epoch, and the workers get a copy
made before any epoch: every rank reads the same order each epoch
(same-order, from the item fingerprints; worker-respawn: the workers are
forked anew every epoch). With litdata's loader: litdata_streaming_loader.py."""

from scenario_kit import litdata_epochs

STACKS = ("venv",)
# The exact set of error and warning ids (infos are free).
EXPECT = ["same-order", "worker-respawn"]
# check.py options beside --expect.
OPTIONS = ["--nproc", "2", "--workers", "--finding-ranks", "same-order=0,1",
           "--mention", "same-order=although its dataset (StreamingDataset) says it shuffles"]


def run(truth, rank, world):
    litdata_epochs(truth, rank, world, streaming_loader=False)
