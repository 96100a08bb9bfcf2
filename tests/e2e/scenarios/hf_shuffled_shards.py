# SPDX-License-Identifier: MIT
"""Each rank shuffles a HF datasets.Dataset with its own seed and then takes
its shard: ds.shuffle(seed=rank).shard(num_shards=world, index=rank). The
shards are slices of differently shuffled rows: in the table's rows they
overlap (overlap), where the positions alone (0..99 on every rank) would say
every rank reads the same data. Together the shards leave about a third of
the table's rows in no rank's shard, and they are cut from the whole table
(no part that every rank shares leaves those rows to another loader):
missing, an error (venv only: datasets needs pyarrow)."""

from torch.utils.data import DataLoader

from scenario_kit import here

STACKS = ('venv',)
# The exact set of error and warning ids (infos are free).
EXPECT = ["overlap", "missing"]
# check.py options beside --expect.
OPTIONS = ["--env", "HF_DATASETS_OFFLINE=1",
           "--mention", "missing=are in no rank's index map (samples "]


def run(truth, rank, world):
    import datasets
    full = datasets.Dataset.from_dict({"index": list(range(400))})
    shard = full.shuffle(seed=rank).shard(num_shards=world, index=rank).with_format("torch")
    site = here(); loader = DataLoader(shard, batch_size=8, shuffle=True)
    truth.epochs(truth.loader(site), loader, 2)
