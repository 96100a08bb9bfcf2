# SPDX-License-Identifier: MIT
"""resume_epoch_reset.py done right: the restarted code calls set_epoch(2)
before skip_first_batches(loader, 5), so the resumed pass reads the rest of
epoch 2's order. No finding."""

from scenario_kit import load_scenario

# The exact set of error and warning ids (infos are free).
EXPECT = []
# check.py options beside --expect.
OPTIONS = ["--accelerate"]


def run(truth, rank, world):
    load_scenario("resume_epoch_reset").resume(truth, set_epoch=True)
