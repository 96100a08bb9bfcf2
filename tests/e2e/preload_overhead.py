# Per-batch cost added by libaccwatch's DataLoader wrappers (batch 64,
# in-memory dataset, num_workers=0). Run under LD_PRELOAD by
# preload_overhead.sh: measures in one process, alternating the wrapped
# methods and the originals (their __wrapped__), so machine noise cancels.
import time

import torch
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.dataloader import _BaseDataLoaderIter

METHODS = [(DataLoader, "__iter__"), (DataLoader, "__len__"),
           (_BaseDataLoaderIter, "__init__"), (_BaseDataLoaderIter, "__next__"),
           (_BaseDataLoaderIter, "_next_index")]


class Memory(Dataset):
    def __init__(self, n):
        self.data = list(range(n))

    def __len__(self):
        return len(self.data)

    def __getitem__(self, i):
        return self.data[i]


def epoch(loader):
    start = time.perf_counter()
    count = sum(1 for _ in loader)
    return (time.perf_counter() - start) / count * 1e6


def main():
    torch.set_num_threads(1)
    wrapped = {(owner, name): owner.__dict__[name] for owner, name in METHODS}
    if not all(hasattr(w, "__wrapped__") for w in wrapped.values()):
        print("not preloaded")
        return
    for collate, label in ((lambda batch: batch, "identity collate"),
                           (None, "default collate")):
        loader = DataLoader(Memory(64 * 2000), batch_size=64, shuffle=True,
                            collate_fn=collate)
        best = {"wrapped": float("inf"), "original": float("inf")}
        for _ in range(15):
            for mode in ("original", "wrapped"):
                for (owner, name), wrapper in wrapped.items():
                    setattr(owner, name, wrapper if mode == "wrapped"
                            else wrapper.__wrapped__)
                best[mode] = min(best[mode], epoch(loader))
        print("%-17s original %6.2f µs  wrapped %6.2f µs  added %5.2f µs"
              % (label, best["original"], best["wrapped"],
                 best["wrapped"] - best["original"]))


main()
