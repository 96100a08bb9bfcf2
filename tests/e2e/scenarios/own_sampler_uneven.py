# SPDX-License-Identifier: MIT
"""An inference sampler of the program's own (the pattern of detection
evaluation code): N = 50 samples split in contiguous shards of
ceil(N / world), the last shorter (13, 13, 13, 11), kept as `_rank`,
`_world_size` and a range of its own, its len() that range's. Uneven by
design and no collective follows the loop: uneven-batches is an info
(each rank read exactly the share its len() states, the shares cover the
data once). Before, it was an error."""
from torch.utils.data import DataLoader, Sampler

from scenario_kit import IndexDataset, here

# The exact set of error and warning ids (infos are free).
EXPECT = []
OPTIONS = ["--mention", "uneven-batches=13, 13, 13, 11"]


class InferenceShard(Sampler):
    def __init__(self, size, rank, world):
        self._size, self._rank, self._world_size = size, rank, world
        shard = (size - 1) // world + 1
        self._local_indices = range(shard * rank, min(shard * (rank + 1), size))

    def __iter__(self):
        yield from self._local_indices

    def __len__(self):
        return len(self._local_indices)


def run(truth, rank, world):
    dataset = IndexDataset(50)
    site = here(); loader = DataLoader(dataset, batch_size=4, sampler=InferenceShard(len(dataset), rank, world))
    truth.read(truth.loader(site), loader)
