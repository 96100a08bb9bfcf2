# SPDX-License-Identifier: MIT
"""One iterator for the whole run (the multi-epoch loader pattern of
image-classification training code, which keeps its workers alive): a
DataLoader subclass wraps its batch sampler in a sampler of its own that
starts it over forever, builds one iterator in __init__, and yields
len(sampler) batches of it per epoch. Under it a DistributedSampler over
200 samples, set_epoch(epoch) before each epoch, 2 workers. The workers'
prefetch draws the first batches of epoch 1 while epoch 0's last ones are
consumed, before set_epoch(1): epoch 1 repeats epoch 0's order on every
rank (set_epoch takes effect one epoch late). The recorder sees each start
of torch's batch sampler inside the one pass and ends an epoch there:
same-order, naming the epoch the sampler held. Before, one pass and no
finding."""
from torch.utils.data.distributed import DistributedSampler

from scenario_kit import IndexDataset, OneIteratorLoader, here


# The exact set of error and warning ids (infos are free).
EXPECT = ["same-order"]


def run(truth, rank, world):
    dataset = IndexDataset(200)
    sampler = DistributedSampler(dataset, shuffle=True, seed=0)
    site = here(); loader = OneIteratorLoader(dataset, batch_size=10, sampler=sampler, num_workers=2)
    truth.epochs(truth.loader(site), loader, 3, sampler=sampler)
