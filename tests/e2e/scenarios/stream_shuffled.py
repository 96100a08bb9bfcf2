# SPDX-License-Identifier: MIT
"""The IterableDataset that shuffles its own items (shuffle=True) of
stream_same_order.py, its epoch set before each of 3 epochs: a new order
every epoch, no same-order (worker-respawn: its workers are forked anew
every epoch, which is how they see the new epoch)."""

from scenario_kit import shuffling_stream_epochs

# The exact set of error and warning ids (infos are free).
EXPECT = ["worker-respawn"]
# check.py options beside --expect.
OPTIONS = ["--workers"]


def run(truth, rank, world):
    shuffling_stream_epochs(truth, rank, world, set_epoch=True)
