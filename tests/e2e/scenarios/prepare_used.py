"""The same, done right (13 batches per rank, even_batches padding is the
`padding` info)."""

from torch.utils.data import DataLoader

from scenario_kit import IndexDataset, here, make_accelerator

# The exact set of error and warning ids (infos are free).
EXPECT = []
# check.py options beside --expect.
OPTIONS = ["--accelerate"]


def run(truth, rank, world):
    dataset = IndexDataset(400)
    site = here(); loader = DataLoader(dataset, batch_size=8, shuffle=True)
    accelerator = make_accelerator()
    psite = here(); prepared = accelerator.prepare(loader)
    truth.loader(site)  # the user's loader, replaced: never iterated
    # 50 batches over 4 ranks: ranks 2 and 3 get a 13th batch padded from the
    # epoch's first samples (even_batches): 16 repeats, the `padding` info.
    truth.epochs(truth.loader(psite), prepared, 2)
