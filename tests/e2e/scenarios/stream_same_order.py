# SPDX-License-Identifier: MIT
"""An IterableDataset that shuffles its own items (shuffle=True, its order
from seed + its epoch) read for 3 epochs by a plain DataLoader that never
moves its epoch (a streaming dataset whose own loader class would):
every rank's workers produce the same items in the same order each epoch
(same-order, from the item fingerprints; worker-respawn: its workers are
forked anew every epoch). With set_epoch: stream_shuffled.py."""

from scenario_kit import shuffling_stream_epochs

# The exact set of error and warning ids (infos are free).
EXPECT = ["same-order", "worker-respawn"]
# check.py options beside --expect.
OPTIONS = ["--workers", "--finding-ranks", "same-order=0,1,2,3",
           "--mention", "same-order=although its dataset (ShufflingStream) says it shuffles"]


def run(truth, rank, world):
    shuffling_stream_epochs(truth, rank, world, set_epoch=False)
