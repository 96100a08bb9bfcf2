# SPDX-License-Identifier: MIT
"""A run resumed mid-epoch with accelerate's skip_first_batches: epoch 0 of
the resumed loader leaves out the 4 batches per rank trained before the
restart, on purpose (the sampler chain's SkipBatchSampler says how many):
no missing; the next epoch is read whole from the prepared loader."""

from scenario_kit import here, prepared_shuffled

# The exact set of error and warning ids (infos are free).
EXPECT = []
# check.py options beside --expect.
OPTIONS = ["--accelerate"]


def run(truth, rank, world):
    accelerator, prepared, entry = prepared_shuffled(truth)
    ssite = here(); resumed = accelerator.skip_first_batches(prepared, 4)
    truth.epochs(truth.loader(ssite), resumed, 1)
    truth.epochs(entry, prepared, 1)
