# SPDX-License-Identifier: MIT
"""A run restarted in epoch 1 after 5 of its batches, in one process (as
resume_epoch_reset.py): each rank reads its share of 400 samples
(UnseededShard: an order drawn from a generator the operating system
seeds, no seed, no epoch), epoch 0 whole and 7 batches of epoch 1 (the
last 2 after the checkpoint); the restarted code builds its sampler anew
and resumes with accelerate's skip_first_batches(loader, 5), drawing
another order. Joined with the 5 batches read before the checkpoint, epoch
1 reads samples twice (overlap) and leaves as many unread (missing) on
every rank. (A rank's second order whose 60 samples after its 5th batch
hold all 44 the first pass never read would show nothing: by chance with
probability C(56, 16) / C(100, 60), about 3e-15.)"""

from torch.utils.data import DataLoader

from scenario_kit import IndexDataset, UnseededShard, accelerate, here

# The exact set of error and warning ids (infos are free).
EXPECT = ["overlap", "missing"]
# check.py options beside --expect.
OPTIONS = ["--accelerate", "--finding-ranks", "overlap=0,1,2,3", "--finding-ranks", "missing=0,1,2,3",
           "--mention", "overlap=skip_first_batches"]


def run(truth, rank, world):
    dataset = IndexDataset(400)
    site = here(); loader = DataLoader(dataset, batch_size=8, sampler=UnseededShard(400, rank, world))
    entry = truth.loader(site)
    truth.read(entry, loader)
    truth.read(entry, loader, limit=7)  # the run fails after batch #6 of epoch 1
    rsite = here(); restarted = DataLoader(dataset, batch_size=8, sampler=UnseededShard(400, rank, world))
    ssite = here(); resumed = accelerate().data_loader.skip_first_batches(restarted, 5)
    truth.loader(rsite)  # iterated only through the skipping loader
    truth.epochs(truth.loader(ssite), resumed, 1)
