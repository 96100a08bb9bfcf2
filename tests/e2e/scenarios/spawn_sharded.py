# SPDX-License-Identifier: MIT
"""Two ranks started by torch.multiprocessing.spawn below a process that
carries RANK=0 (torchrun --nproc-per-node 1); they join no process group and
shard with DistributedSampler(num_replicas=2, rank=<spawn's rank>): clean,
two ranks, the launcher none of them."""

from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler

from scenario_kit import IndexDataset, here

# The exact set of error and warning ids (infos are free).
EXPECT = []
# check.py options beside --expect.
OPTIONS = ["--script", "spawn_ranks.py", "--spawned", "--nproc", "2"]


def run(truth, rank, world):
    dataset = IndexDataset(400)
    sampler = DistributedSampler(dataset, num_replicas=world, rank=rank, shuffle=True, seed=3)
    site = here(); loader = DataLoader(dataset, batch_size=8, sampler=sampler)
    truth.epochs(truth.loader(site), loader, 2, sampler=sampler)
