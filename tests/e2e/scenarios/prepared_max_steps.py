# SPDX-License-Identifier: MIT
"""A loop over accelerate's prepared loader stops at its 6th step (as
max_steps stops HF Trainer): DataLoaderShard had already fetched a 7th batch
from the DataLoader inside it, to know whether the 6th was the last. What
the loop trained on is 6 batches per rank, and 6 is what the report counts
(the 7th is drawn, never consumed). Partial epochs, no finding."""

from scenario_kit import prepared_shuffled

# The exact set of error and warning ids (infos are free).
EXPECT = []
# check.py options beside --expect.
OPTIONS = ["--accelerate"]


def run(truth, rank, world):
    accelerator, prepared, entry = prepared_shuffled(truth)
    truth.epochs(entry, prepared, 2, limit=6)
