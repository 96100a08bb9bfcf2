# SPDX-License-Identifier: MIT
"""worker_epoch_stale.py done right: the stream keeps its epoch in a shared
memory tensor, so set_epoch in the main process reaches the 2 persistent
workers and every epoch has its own order. No finding."""

from scenario_kit import epoch_stream_epochs

# The exact set of error and warning ids (infos are free).
EXPECT = []
# check.py options beside --expect.
OPTIONS = ["--workers"]


def run(truth, rank, world):
    epoch_stream_epochs(truth, rank, world, shared=True)
