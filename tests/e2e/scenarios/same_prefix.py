# SPDX-License-Identifier: MIT
"""Every rank stops each of its 2 epochs after 5 batches (max_steps per
epoch), over a DistributedSampler(shuffle=False): every epoch reads the same
first 160 samples again and the other 240 are never read in the run:
never-read. (early_break.py stops the same way but shuffles with set_epoch:
every epoch reads others, no finding.)"""

from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler

from scenario_kit import IndexDataset, here

# The exact set of error and warning ids (infos are free).
EXPECT = ["never-read"]
# check.py options beside --expect.
OPTIONS = ["--mention", "never-read=240 of the 400 samples"]


def run(truth, rank, world):
    dataset = IndexDataset(400)
    sampler = DistributedSampler(dataset, shuffle=False)
    site = here(); loader = DataLoader(dataset, batch_size=8, sampler=sampler)
    truth.epochs(truth.loader(site), loader, 2, sampler=sampler, limit=5)
