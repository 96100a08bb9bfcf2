# SPDX-License-Identifier: MIT
"""accelerate's prepare() on a DataLoader(shuffle=True) of 400 samples in
batches of 8, its line saying `# accwatch: allow padding`: the loaders
prepare() builds have that line as their site, so the `padding` info of
even_batches (50 batches over 4 ranks: 2 ranks get a 13th batch from the
epoch's head) is suppressed, and nothing else is found."""

from torch.utils.data import DataLoader

from scenario_kit import IndexDataset, here, make_accelerator

# The exact set of error and warning ids not suppressed (infos are free).
EXPECT = []
# The exact set of ids suppressed; the case uses accelerate.
OPTIONS = ["--accelerate", "--suppressed", "padding"]


def run(truth, rank, world):
    site = here(); loader = DataLoader(IndexDataset(400), batch_size=8, shuffle=True)
    accelerator = make_accelerator()
    psite = here(); prepared = accelerator.prepare(loader)  # accwatch: allow padding
    truth.loader(site)  # the user's loader, replaced: never iterated
    truth.epochs(truth.loader(psite), prepared, 2)
