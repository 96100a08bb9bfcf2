# SPDX-License-Identifier: MIT
"""HF streaming data split among the ranks with split_dataset_by_node: one
source of 8 shards (each rank reads 2 of them, 100 examples) and one of 3
shards, which do not divide among 4 ranks: there every rank reads all 400
examples and keeps 1 in 4. The ranks' data is right in both (disjoint,
covering); the second reads 4 times what it yields: read-amplification,
a warning with the fix (a multiple of 4 shards). venv only: datasets."""

from torch.utils.data import DataLoader

from scenario_kit import here

STACKS = ('venv',)
# The exact set of error and warning ids (infos are free).
EXPECT = ["read-amplification"]
# check.py options beside --expect.
OPTIONS = ["--env", "HF_DATASETS_OFFLINE=1", "--mention", "read-amplification=has 3 shards"]


def examples(shards):
    for shard in shards:
        for i in shard:
            yield {"index": i}


def stream(n_shards):
    import datasets
    shards = [list(range(s, 400, n_shards)) for s in range(n_shards)]
    return datasets.IterableDataset.from_generator(examples, gen_kwargs={"shards": shards}).with_format("torch")


def run(truth, rank, world):
    from datasets.distributed import split_dataset_by_node
    for ordinal, n_shards in enumerate((8, 3)):
        mine = split_dataset_by_node(stream(n_shards), rank=rank, world_size=world)
        site = here(); loader = DataLoader(mine, batch_size=10)
        truth.epochs(truth.loader(site, ordinal), loader, 1)
