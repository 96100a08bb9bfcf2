# SPDX-License-Identifier: MIT
"""A batch sampler of the user's that buckets by length and drops each
rank's short last bucket (at most one batch), over a DistributedSampler: a
drop rule the trace cannot read, but no more than one batch per rank is no
error: no missing."""

from torch.utils.data import DataLoader, Sampler
from torch.utils.data.distributed import DistributedSampler

from scenario_kit import IndexDataset, here


class BucketBatchSampler(Sampler):
    """Sorts each window of 4 batches' worth of indices by a length key and
    cuts full batches; a short remainder is dropped."""

    def __init__(self, sampler, size):
        self.sampler, self.size = sampler, size

    def __iter__(self):
        indices = list(self.sampler)
        window = 4 * self.size
        for start in range(0, len(indices), window):
            chunk = sorted(indices[start:start + window], key=lambda i: i % 7)
            for b in range(0, len(chunk) - self.size + 1, self.size):
                yield chunk[b:b + self.size]

    def __len__(self):
        return len(self.sampler) // self.size


# The exact set of error and warning ids (infos are free).
EXPECT = []


def run(truth, rank, world):
    dataset = IndexDataset(402)
    sampler = DistributedSampler(dataset, shuffle=True, seed=5)
    site = here(); loader = DataLoader(dataset, batch_sampler=BucketBatchSampler(sampler, 8))
    truth.epochs(truth.loader(site), loader, 2, sampler=sampler)
