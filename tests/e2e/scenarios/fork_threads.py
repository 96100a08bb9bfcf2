# SPDX-License-Identifier: MIT
"""Form 4: a live thread of the script's own at each fork, workers re-forked
in each of 3 epochs."""

from scenario_kit import Heartbeat, THREAD_NAME, sharded_workers_loader, thread_names

# The exact set of error and warning ids (infos are free).
EXPECT = ["fork-threads", "worker-respawn"]
# check.py options beside --expect.
OPTIONS = ["--workers", "--mention", "fork-threads=metrics-uploader"]


def run(truth, rank, world):
    # A live non-daemon thread while the workers are forked, and workers
    # forked anew in each of the 3 epochs (persistent_workers=False).
    with Heartbeat():
        assert THREAD_NAME[:15] not in thread_names(), thread_names()  # the OS does not know its name
        site, loader, sampler = sharded_workers_loader(persistent=False)
        truth.epochs(truth.loader(site), loader, 3, sampler=sampler)
