"""Ranks shard by hand with overlapping windows: rank r reads
Subset(dataset, range(75 r, 75 r + 150)). In the dataset's indices the
shards overlap by half: overlap (positions alone would have said every rank
reads everything). Samples 375-399 are in no rank's subset: not this
loader's to cover, no missing."""

from torch.utils.data import DataLoader, Subset

from scenario_kit import IndexDataset, here

# The exact set of error and warning ids (infos are free).
EXPECT = ["overlap"]


def run(truth, rank, world):
    dataset = IndexDataset(400)
    shard = Subset(dataset, range(75 * rank, 75 * rank + 150))
    site = here(); loader = DataLoader(shard, batch_size=10, shuffle=True)
    truth.epochs(truth.loader(site), loader, 2)
