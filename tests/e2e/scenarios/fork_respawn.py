# SPDX-License-Identifier: MIT
"""No thread of the script's own; workers forked anew in each of 3 epochs."""

from scenario_kit import sharded_workers_loader

# The exact set of error and warning ids (infos are free).
EXPECT = ["worker-respawn"]
# check.py options beside --expect.
OPTIONS = ["--workers"]


def run(truth, rank, world):
    # No thread of the script's own; workers forked anew in each of 3 epochs.
    site, loader, sampler = sharded_workers_loader(persistent=False)
    truth.epochs(truth.loader(site), loader, 3, sampler=sampler)
