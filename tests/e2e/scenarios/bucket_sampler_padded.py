# SPDX-License-Identifier: MIT
"""The TTS/VITS idiom: a DistributedSampler subclass that groups samples into
length buckets, pads every bucket to a multiple of W x B with that bucket's
own items, deals each rank its stride of every bucket and batches it
(used as batch_sampler=). It states its own num_samples and total_size, as
DistributedSampler does: the padding comes from them (400 samples in
buckets of 101, 150 and 149 padded to 112, 160 and 160: 32 duplicates in
all), nothing is missing and nothing overlaps beyond it. No finding, and
no mention of a library the program does not use."""

import torch
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler

from scenario_kit import IndexDataset, here

# The exact set of error and warning ids (infos are free).
EXPECT = []
# check.py options beside --expect.
OPTIONS = ["--absent", "accelerate"]


class DistributedBucketSampler(DistributedSampler):
    """As in VITS (data_utils.py): buckets by length between boundaries,
    each padded with its own items to a multiple of num_replicas x
    batch_size."""

    def __init__(self, lengths, batch_size, boundaries, num_replicas, rank, shuffle=True):
        super().__init__(lengths, num_replicas=num_replicas, rank=rank, shuffle=shuffle)
        self.lengths = lengths
        self.batch_size = batch_size
        self.boundaries = boundaries
        self.buckets, self.num_samples_per_bucket = self._create_buckets()
        self.total_size = sum(self.num_samples_per_bucket)
        self.num_samples = self.total_size // self.num_replicas

    def _create_buckets(self):
        buckets = [[] for _ in range(len(self.boundaries) - 1)]
        for i, length in enumerate(self.lengths):
            for b in range(len(self.boundaries) - 1):
                if self.boundaries[b] < length <= self.boundaries[b + 1]:
                    buckets[b].append(i)
                    break
        buckets = [bucket for bucket in buckets if bucket]
        total_batch_size = self.num_replicas * self.batch_size
        per_bucket = []
        for bucket in buckets:
            rem = (total_batch_size - (len(bucket) % total_batch_size)) % total_batch_size
            per_bucket.append(len(bucket) + rem)
        return buckets, per_bucket

    def __iter__(self):
        g = torch.Generator()
        g.manual_seed(self.epoch)
        batches = []
        for bucket, padded in zip(self.buckets, self.num_samples_per_bucket):
            order = torch.randperm(len(bucket), generator=g).tolist() if self.shuffle else list(range(len(bucket)))
            rem = padded - len(bucket)
            ids = order + order * (rem // len(bucket)) + order[:rem % len(bucket)]
            ids = ids[self.rank::self.num_replicas]
            for b in range(len(ids) // self.batch_size):
                batches.append([bucket[i] for i in ids[b * self.batch_size:(b + 1) * self.batch_size]])
        if self.shuffle:
            batches = [batches[i] for i in torch.randperm(len(batches), generator=g).tolist()]
        return iter(batches)

    def __len__(self):
        return self.num_samples // self.batch_size


def run(truth, rank, world):
    dataset = IndexDataset(400)
    # Lengths 1..30: buckets (0, 10], (10, 20], (20, 30].
    lengths = [1 + (i * 7) % 30 for i in range(400)]
    sampler = DistributedBucketSampler(lengths, 4, [0, 10, 20, 30], num_replicas=world, rank=rank)
    site = here(); loader = DataLoader(dataset, batch_sampler=sampler)
    truth.epochs(truth.loader(site), loader, 2, sampler=sampler)
