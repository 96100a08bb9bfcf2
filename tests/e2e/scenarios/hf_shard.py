"""Each rank takes its shard of a HF datasets.Dataset with
ds.shard(num_shards=world, index=rank, contiguous=False) and reads it
through DataLoader(shuffle=True). Such a shard keeps an indices mapping over
the Arrow table: recorded at loader_new, it turns the positions every rank
draws (0..99) into the table's rows, which are disjoint: no finding (venv
only: datasets needs pyarrow)."""

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
    shard = full.shard(num_shards=world, index=rank, contiguous=False).with_format("torch")
    site = here(); loader = DataLoader(shard, batch_size=8, shuffle=True)
    truth.epochs(truth.loader(site), loader, 2)
