# SPDX-License-Identifier: MIT
"""A DistributedSampler with set_epoch: clean."""

from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler

from scenario_kit import IndexDataset, here, note_worker_pid

# The exact set of error and warning ids (infos are free).
EXPECT = []
# The HTML report too (padding: two samples read by two ranks), in headless
# Chromium (check.py --html).
OPTIONS = ["--html"]


def run(truth, rank, world, workers=0):
    dataset = IndexDataset(402)  # not divisible by 4: DistributedSampler pads
    sampler = DistributedSampler(dataset, shuffle=True, seed=1)
    # persistent_workers: workers re-forked every epoch are a finding of their own (fork_respawn)
    site = here(); loader = DataLoader(dataset, batch_size=8, sampler=sampler, num_workers=workers, worker_init_fn=note_worker_pid if workers else None, persistent_workers=bool(workers))
    truth.epochs(truth.loader(site), loader, 2, sampler=sampler)
