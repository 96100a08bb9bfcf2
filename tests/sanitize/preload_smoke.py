# SPDX-License-Identifier: MIT
"""The preload under AddressSanitizer inside /usr/bin/python3 (scripts/sanitize.sh
runs it with libasan first in LD_PRELOAD): a DataLoader with fork and spawn
workers, sharded, two epochs each. Prints "ok" when every epoch read its share."""
import torch
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler


class Squares(Dataset):
    def __len__(self):
        return 96

    def __getitem__(self, i):
        return i * i


def main():
    ds = Squares()
    for method in ("fork", "spawn"):
        sampler = DistributedSampler(ds, num_replicas=2, rank=0, shuffle=True)
        dl = DataLoader(ds, batch_size=8, sampler=sampler, num_workers=2,
                        multiprocessing_context=method)
        for epoch in range(2):
            sampler.set_epoch(epoch)
            n = sum(len(b) for b in dl)
            assert n == 48, n
    print("ok")


if __name__ == "__main__":
    main()
