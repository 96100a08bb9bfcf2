# SPDX-License-Identifier: MIT
"""--live at the first batches: every rank reads the whole dataset in order
(DataLoader without a sampler, shuffle=False), one batch every 0.1 s, 50
batches: the live line says unsharded before any rank ends epoch 0."""
import time

from torch.utils.data import DataLoader

from scenario_kit import IndexDataset, here

# The exact set of error and warning ids (infos are free).
EXPECT = ["unsharded"]
# check.py options beside --expect.
OPTIONS = ["--live", "--live-before", "unsharded=0"]


def run(truth, rank, world):
    site = here(); loader = DataLoader(IndexDataset(400), batch_size=8, shuffle=False)
    truth.read(truth.loader(site), loader, step=lambda batch: time.sleep(0.1))
