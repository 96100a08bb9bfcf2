# SPDX-License-Identifier: MIT
"""Every rank breaks after 5 batches (workers drew 4 more): counts of 5, the
epochs partial (exhausted false), no missing."""

from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler

from scenario_kit import IndexDataset, here, note_worker_pid

# The exact set of error and warning ids (infos are free).
EXPECT = []
# check.py options beside --expect.
OPTIONS = ["--workers"]


# A loop that stops after k batches, with workers drawing ahead.
def run(truth, rank, world):
    dataset = IndexDataset(400)
    sampler = DistributedSampler(dataset, shuffle=True, seed=1)
    # 2 workers x prefetch_factor 2: 4 batches are drawn beyond the 5 consumed
    site = here(); loader = DataLoader(dataset, batch_size=8, sampler=sampler, num_workers=2, persistent_workers=True, worker_init_fn=note_worker_pid)
    truth.epochs(truth.loader(site), loader, 2, sampler=sampler, limit=5)
