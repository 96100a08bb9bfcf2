# SPDX-License-Identifier: MIT
"""HF datasets' Dataset (Arrow rows in torch format) with a DistributedSampler
and workers under torchrun: clean (venv only: datasets needs pyarrow)."""

from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler

from scenario_kit import here, note_worker_pid

STACKS = ('venv',)
# The exact set of error and warning ids (infos are free).
EXPECT = []
# check.py options beside --expect.
OPTIONS = ["--workers", "--env", "HF_DATASETS_OFFLINE=1"]


# A HF datasets.Dataset (Arrow-backed, torch format) read through a
# DistributedSampler: its items are rows; the "index" column says which.
def run(truth, rank, world):
    import datasets
    dataset = datasets.Dataset.from_dict({"index": list(range(402))}).with_format("torch")
    sampler = DistributedSampler(dataset, shuffle=True, seed=1)
    site = here(); loader = DataLoader(dataset, batch_size=8, sampler=sampler, num_workers=2, persistent_workers=True, worker_init_fn=note_worker_pid)
    truth.epochs(truth.loader(site), loader, 2, sampler=sampler)
