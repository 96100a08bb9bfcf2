"""One rank of an end-to-end scenario: builds the DataLoader the scenario names,
iterates it, and writes what it really read (the truth the report is checked
against) to TRUTH_DIR/rank-<r>.json. Started by examples/launch.py."""
import argparse
import inspect
import json
import os

import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler


class IndexDataset(Dataset):
    """Item i is the tensor i, so a batch tells which samples were read."""

    def __init__(self, length):
        self.length = length

    def __len__(self):
        return self.length

    def __getitem__(self, index):
        return torch.tensor(index)


def note_worker_pid(worker_id):
    with open(os.path.join(os.environ["ACCWATCH_E2E_TRUTH"], f"worker-{os.getpid()}"), "w") as f:
        f.write(f"{os.environ.get('RANK', '-1')} {worker_id}\n")


def here():
    """file:line of the caller: where the scenario builds its loader."""
    frame = inspect.stack()[1]
    return f"{os.path.basename(frame.filename)}:{frame.lineno}"


def build(case, rank, world):
    """Returns (loader, site, sampler_to_set_epoch_or_None, epochs)."""
    if case == "unsharded":
        dataset = IndexDataset(400)
        site = here(); loader = DataLoader(dataset, batch_size=8, shuffle=True)
        return loader, site, None, 2
    if case in ("sharded", "sharded_workers"):
        dataset = IndexDataset(402)  # not divisible by 4: DistributedSampler pads
        sampler = DistributedSampler(dataset, shuffle=True, seed=1)
        workers = 2 if case == "sharded_workers" else 0
        site = here(); loader = DataLoader(dataset, batch_size=8, sampler=sampler, num_workers=workers, worker_init_fn=note_worker_pid if workers else None)
        return loader, site, sampler, 2
    if case == "uneven":
        dataset = IndexDataset(400)
        sizes = [120, 100, 100, 80]
        start = sum(sizes[:rank])
        shard = list(range(start, start + sizes[rank]))
        site = here(); loader = DataLoader(dataset, batch_size=8, sampler=shard)
        return loader, site, None, 1
    if case == "overlap":
        dataset = IndexDataset(400)
        shard = list(range(rank * 80, rank * 80 + 120))
        site = here(); loader = DataLoader(dataset, batch_size=8, sampler=shard)
        return loader, site, None, 1
    raise SystemExit(f"ranks.py: unknown case {case!r}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--case", required=True)
    parser.add_argument("--truth", required=True)
    opts = parser.parse_args()
    os.environ["ACCWATCH_E2E_TRUTH"] = opts.truth

    dist.init_process_group("gloo")
    rank, world = dist.get_rank(), dist.get_world_size()
    torch.manual_seed(rank)
    loader, site, sampler, epochs = build(opts.case, rank, world)

    read = []
    for epoch in range(epochs):
        if sampler is not None:
            sampler.set_epoch(epoch)
        batches = [batch.tolist() for batch in loader]
        read.append({"epoch": epoch, "batches": batches})
    dist.barrier()

    truth = {"rank": rank, "world": world, "pid": os.getpid(),
             "loaders": [{"site": site, "epochs": read}]}
    with open(os.path.join(opts.truth, f"rank-{rank}.json"), "w") as f:
        json.dump(truth, f)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
