"""A run resumed mid-epoch with accelerate's skip_first_batches: epoch 0 of
the resumed loader leaves out the 4 batches per rank trained before the
restart, on purpose (the sampler chain's SkipBatchSampler says how many):
no missing; the next epoch is read whole from the prepared loader."""

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
    ssite = here(); resumed = accelerator.skip_first_batches(prepared, 4)
    truth.epochs(truth.loader(ssite), resumed, 1)
    truth.epochs(truth.loader(psite), prepared, 1)
