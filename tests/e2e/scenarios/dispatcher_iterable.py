"""accelerate's default for an IterableDataset: the dispatcher. Rank 0
alone iterates the stream (200 items, batches of 8), concatenates one batch
per rank each step and gives rank r slice r; the other ranks read nothing
themselves. Their shares are rebuilt from rank 0's items by the same rule as
for indices: every rank has its 50 of them, disjoint. No finding."""

from torch.utils.data import DataLoader

from scenario_kit import IndexStream, accelerate, here, make_accelerator

# The exact set of error and warning ids (infos are free).
EXPECT = []
# check.py options beside --expect.
OPTIONS = ["--accelerate"]


def run(truth, rank, world):
    acc = accelerate()
    stream = IndexStream(200, 0, 1, by_worker=False)
    site = here(); loader = DataLoader(stream, batch_size=8)
    if hasattr(acc, "DataLoaderConfiguration"):  # accelerate >= 0.28
        accelerator = make_accelerator(dataloader_config=acc.DataLoaderConfiguration(dispatch_batches=True))
    else:
        accelerator = make_accelerator(dispatch_batches=True)
    psite = here(); prepared = accelerator.prepare(loader)
    truth.loader(site)
    truth.epochs(truth.loader(psite), prepared, 2)
