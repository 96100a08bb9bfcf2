# SPDX-License-Identifier: MIT
"""Persistent workers, forked once before the named thread starts: neither
fork-threads nor worker-respawn."""

from scenario_kit import Heartbeat, sharded_workers_loader

# The exact set of error and warning ids (infos are free).
EXPECT = []
# check.py options beside --expect.
OPTIONS = ["--workers"]


def run(truth, rank, world):
    # The control: persistent workers are forked once, in the first epoch;
    # the named thread starts only after that fork, so no fork sees it.
    site, loader, sampler = sharded_workers_loader(persistent=True)
    entry = truth.loader(site)
    truth.epochs(entry, loader, 1, sampler=sampler)
    with Heartbeat():
        for epoch in (1, 2):
            sampler.set_epoch(epoch)
            truth.read(entry, loader)
