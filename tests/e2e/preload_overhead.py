# Per-batch time of a DataLoader loop (batch 64, in-memory dataset,
# num_workers=0): prints "min median" µs per batch over short epochs. Run by
# preload_overhead.sh without the preload, preloaded without a session and
# while recording. Usage: preload_overhead.py identity|default EPOCHS BATCHES
import statistics
import sys
import time

import torch
from torch.utils.data import DataLoader, Dataset


class Memory(Dataset):
    def __init__(self, n):
        self.data = list(range(n))

    def __len__(self):
        return len(self.data)

    def __getitem__(self, i):
        return self.data[i]


def main():
    torch.set_num_threads(1)
    collate = (lambda batch: batch) if sys.argv[1] == "identity" else None
    loader = DataLoader(Memory(64 * int(sys.argv[3])), batch_size=64,
                        shuffle=True, collate_fn=collate)
    times = []
    for _ in range(int(sys.argv[2])):
        start = time.perf_counter()
        count = sum(1 for _ in loader)
        times.append((time.perf_counter() - start) / count * 1e6)
    print("%.3f %.3f" % (min(times), statistics.median(times)))


main()
