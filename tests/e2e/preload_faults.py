# SPDX-License-Identifier: MIT
"""A torch program for preload_faults.sh: a fresh DataLoader over 4000
numbers per epoch, batches of 4 (many events), for the given seconds at
least; prints what it read, never how long it took (the runs compare their
output)."""
import sys
import time

from torch.utils.data import DataLoader

seconds = float(sys.argv[1])
start, epochs, total = time.monotonic(), 0, 0
while time.monotonic() - start < seconds or epochs < 2:
    for batch in DataLoader(list(range(4000)), batch_size=4, shuffle=True):
        total += int(batch.sum())
    epochs += 1
print("read", total // epochs, "per epoch", flush=True)
sys.exit(3)
