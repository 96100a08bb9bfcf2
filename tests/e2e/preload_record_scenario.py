# SPDX-License-Identifier: MIT
# Recording scenario: iterates DataLoaders in the ways accwatch must record
# (workers, persistent workers, break, wide indices) and writes what it read.
# Run by preload_record.sh under LD_PRELOAD; preload_check_trace.py compares.
import gc
import json
import os
import sys

import torch
from torch.utils.data import DataLoader, Dataset


class Indexed(Dataset):
    """Item i is (i, pid of the process that read it)."""

    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return torch.tensor([i, os.getpid()])


class Failing(Indexed):
    def __getitem__(self, i):
        if i == 5:
            raise ValueError("item 5 is broken")
        return super().__getitem__(i)


class MyLoader(DataLoader):
    def __init__(self, dataset, **kwargs):
        super().__init__(dataset, **kwargs)
        self.extra = True


expected = {"main_pid": os.getpid(), "loaders": [], "forks": 0}


def run(loader, epochs, stop=None, workers=0):
    """Iterates; stop=k leaves each epoch after k batches."""
    record = {"epochs": [], "len": None}
    try:
        record["len"] = len(loader)
    except TypeError:
        pass
    for _ in range(epochs):
        batches = []
        for batch in loader:
            batch = batch.view(-1, 2)
            batches.append({"indices": batch[:, 0].tolist(),
                            "pids": sorted(set(batch[:, 1].tolist()))})
            if stop is not None and len(batches) == stop:
                break
        record["epochs"].append({"batches": batches,
                                 "exhausted": stop is None})
        gc.collect()
        if workers and not loader.persistent_workers:
            expected["forks"] += workers
    if workers and loader.persistent_workers:
        expected["forks"] += workers
    expected["loaders"].append(record)
    return record


# 0: main process, two full epochs
run(DataLoader(Indexed(100), batch_size=8, shuffle=True), 2)
# 1: two workers, one full epoch then one left after 3 batches
run(DataLoader(Indexed(100), batch_size=8, shuffle=True, num_workers=2),
    2, stop=None, workers=2)
loader = DataLoader(Indexed(100), batch_size=8, shuffle=True, num_workers=2)
# 2: same, epochs left early
run(loader, 2, stop=3, workers=2)
# 3: persistent workers, three epochs
run(DataLoader(Indexed(64), batch_size=16, shuffle=True, num_workers=2,
               persistent_workers=True), 3, workers=2)
# 4: no auto-collation: each batch is one index
run(DataLoader(Indexed(5), batch_size=None), 1)
# 5: a subclass calling super().__init__: one loader_new
run(MyLoader(Indexed(10), batch_size=4), 1)
# 6: batches longer than one event (4096 indices)
run(DataLoader(Indexed(6000), batch_size=5000), 1)


# 7: indices beyond 32 bits
class Wide(Indexed):
    def __getitem__(self, i):
        return torch.tensor([i, os.getpid()])


run(DataLoader(Wide(10), batch_size=2, sampler=[2**32 + 5, 7, 3, 2**40]), 1)
# 7b: both sides of CPython's 30-bit digits and of 32 bits; ints of one, two
# and three digits (the recorder reads small exact ints in place)
run(DataLoader(Wide(10), batch_size=3,
               sampler=[0, 1, 2**30 - 1, 2**30, 2**31, 2**32 - 1]), 1)
run(DataLoader(Wide(10), batch_size=3,
               sampler=[-1, -(2**31), 2**60 - 1, 2**60, 2**62, -(2**62)]), 1)

# 8, 9: __getitem__ raising in the main process and in a worker
for workers in (0, 2):
    loader = DataLoader(Failing(10), batch_size=2, num_workers=workers)
    received = []
    try:
        for batch in loader:
            received.append({"indices": batch[:, 0].tolist(),
                             "pids": sorted(set(batch[:, 1].tolist()))})
    except ValueError:
        pass
    gc.collect()
    expected["forks"] += workers
    expected["loaders"].append({"len": None, "epochs": [
        {"batches": received, "exhausted": False}]})

with open(sys.argv[1], "w") as out:
    json.dump(expected, out)
print("scenario done")
