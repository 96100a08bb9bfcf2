# SPDX-License-Identifier: MIT
"""The same, done right (13 batches per rank, even_batches padding is the
`padding` info)."""

from scenario_kit import prepared_shuffled

# The exact set of error and warning ids (infos are free).
EXPECT = []
# check.py options beside --expect.
OPTIONS = ["--accelerate"]


def run(truth, rank, world):
    # 50 batches over 4 ranks: ranks 2 and 3 get a 13th batch padded from the
    # epoch's first samples (even_batches): 16 repeats, the `padding` info.
    accelerator, prepared, entry = prepared_shuffled(truth)
    truth.epochs(entry, prepared, 2)
