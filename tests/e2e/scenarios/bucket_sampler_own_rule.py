# SPDX-License-Identifier: MIT
"""A length-bucketing DistributedSampler subclass (the pattern of speech
and text training code) that fills each bucket up to a multiple of the
world with that bucket's own samples, deals each rank its stride of every
bucket and yields single indices, keeping DistributedSampler's num_samples
and total_size (the padding of the whole, not of its buckets) and len():
its ranks read more samples than it states, and repeat other samples than
DistributedSampler would. Its rule is its own: what it repeats is said as
warnings naming it (overlap), never an error. Before, `missing` and
`overlap` were errors. With set_epoch, 2 epochs."""
import torch
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler

from scenario_kit import IndexDataset, here

# The exact set of error and warning ids (infos are free).
EXPECT = ["overlap"]
OPTIONS = ["--mention", "overlap=LengthBucketSampler draws with code of its own"]


class LengthBucketSampler(DistributedSampler):
    def __init__(self, lengths, boundaries, num_replicas, rank):
        super().__init__(lengths, num_replicas=num_replicas, rank=rank, shuffle=True, seed=5)
        self.buckets = [[i for i, n in enumerate(lengths) if lo < n <= hi]
                        for lo, hi in zip(boundaries, boundaries[1:])]

    def __iter__(self):
        generator = torch.Generator()
        generator.manual_seed(self.seed + self.epoch)
        mine = []
        for bucket in self.buckets:
            order = [bucket[i] for i in torch.randperm(len(bucket), generator=generator).tolist()]
            order += order[:(-len(order)) % self.num_replicas]
            mine += order[self.rank::self.num_replicas]
        return iter(mine)


def run(truth, rank, world):
    dataset = IndexDataset(402)
    lengths = [1 + (i * 7) % 30 for i in range(len(dataset))]
    sampler = LengthBucketSampler(lengths, [0, 10, 20, 30], num_replicas=world, rank=rank)
    site = here(); loader = DataLoader(dataset, batch_size=8, sampler=sampler)
    truth.epochs(truth.loader(site), loader, 2, sampler=sampler)
