# SPDX-License-Identifier: MIT
"""A dataset of 2^32 + 8 samples, the ranks reading samples on both sides of
2^32, the last rank also index len(dataset): only that one is out of range."""

from torch.utils.data import DataLoader, Sampler

from scenario_kit import IndexDataset, here

LENGTH = 2**32 + 8

# The exact set of error and warning ids (infos are free): 12 samples of
# 2^32 + 8 are read (missing), one index is len(dataset) (index-range).
EXPECT = ["index-range", "missing"]
OPTIONS = ["--nproc", "2", "--finding-ranks", "index-range=1",
           "--mention", "index-range=outside [0, 4294967304)",
           "--mention", "index-range=(e.g. 4294967304)",
           "--absent", "negative"]


class AroundTwo32(Sampler):
    """Rank r of 2 reads 6 samples of 2^32 - 4 .. 2^32 + 7; the last rank
    runs one past the end of the dataset."""

    def __init__(self, rank, world):
        self.start = 2**32 - 4 + 6 * rank
        self.stop = self.start + 6 + (1 if rank == world - 1 else 0)

    def __iter__(self):
        return iter(range(self.start, self.stop))

    def __len__(self):
        return self.stop - self.start


def run(truth, rank, world):
    assert world == 2, "the scenario's indices are for 2 ranks"
    dataset = IndexDataset(LENGTH)
    site = here(); loader = DataLoader(dataset, batch_size=4, sampler=AroundTwo32(rank, world))
    truth.epochs(truth.loader(site), loader, 1)
