# SPDX-License-Identifier: MIT
"""Each rank takes its shard of a HF datasets.Dataset the common way:
ds.shard(num_shards=world, index=rank) (contiguous: a slice of the Arrow
table, no indices mapping) and shuffles it (an indices mapping over that
slice), then reads it through a plain DataLoader; a second loader reads the
strided shard (contiguous=False). Recorded at loader_new, the slice's offset
and the mappings turn the positions every rank draws (0..99) into rows of
the whole table, which are disjoint: no finding (venv only: datasets needs
pyarrow)."""

from torch.utils.data import DataLoader

from scenario_kit import here

STACKS = ('venv',)
# The exact set of error and warning ids (infos are free).
EXPECT = []
# check.py options beside --expect.
OPTIONS = ["--env", "HF_DATASETS_OFFLINE=1"]


def run(truth, rank, world):
    import datasets
    full = datasets.Dataset.from_dict({"index": list(range(400))})
    block = full.shard(num_shards=world, index=rank).shuffle(seed=rank).with_format("torch")
    site = here(); loader = DataLoader(block, batch_size=8)
    truth.epochs(truth.loader(site), loader, 2)
    strided = full.shard(num_shards=world, index=rank, contiguous=False).with_format("torch")
    site = here(); loader = DataLoader(strided, batch_size=8, shuffle=True)
    truth.epochs(truth.loader(site), loader, 2)
