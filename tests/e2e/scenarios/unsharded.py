# SPDX-License-Identifier: MIT
"""Every rank builds DataLoader(shuffle=True) without a DistributedSampler:
every rank reads all 400 samples."""

from torch.utils.data import DataLoader

from scenario_kit import IndexDataset, here

# The exact set of error and warning ids (infos are free).
EXPECT = ["unsharded"]
# The HTML report too, in headless Chromium (check.py --html).
OPTIONS = ["--html"]


def run(truth, rank, world):
    dataset = IndexDataset(400)
    site = here(); loader = DataLoader(dataset, batch_size=8, shuffle=True)
    truth.epochs(truth.loader(site), loader, 2)
