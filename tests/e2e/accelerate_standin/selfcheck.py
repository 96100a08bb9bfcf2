"""Self-check of the accelerate stand-in (tests/e2e/accelerate_standin/accelerate).

Run without RANK in the environment:

    /usr/bin/python3 tests/e2e/accelerate_standin/selfcheck.py [--nproc 2 3 4]

It first checks the single-process expectations copied from accelerate's own
tests/test_data_loader.py (BatchSamplerShard, IterableDatasetShard, skip, the
adapter's class identity), then starts itself as N local ranks through
examples/launch.py (RANK/WORLD_SIZE/MASTER_*; gloo) and, on every rank, builds
loaders with Accelerator.prepare() over a 402-sample dataset with batch size 8.
Rank 0 gathers what each rank read and compares it with the sharding rules
written out independently below (not by calling the stand-in), and prints one
line per scenario. Exit status 0 when every check holds."""
import argparse
import math
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
sys.path.insert(0, HERE)

import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402
from torch.utils.data import BatchSampler, DataLoader, Dataset, IterableDataset  # noqa: E402
from torch.utils.data.dataloader import _BaseDataLoaderIter  # noqa: E402

N, B = 402, 8
FAILURES = []


def check(cond, what):
    if not cond:
        FAILURES.append(what)
    return cond


class IndexDataset(Dataset):
    """Item i is tensor(i): a batch tells which samples were read."""

    def __len__(self):
        return N

    def __getitem__(self, i):
        return torch.tensor(i)


class IndexStream(IterableDataset):
    def __iter__(self):
        return (torch.tensor(i) for i in range(N))


# ---- counting what the inner DataLoader iterator draws ------------------------------------

DRAWN = [0]
_original_next_index = _BaseDataLoaderIter._next_index


def _counting_next_index(self):
    DRAWN[0] += 1  # counts calls, including the last one that raises StopIteration
    return _original_next_index(self)


_BaseDataLoaderIter._next_index = _counting_next_index


# ---- independent statement of the sharding rules ------------------------------------------

def batches_of(order, drop_last, size=B):
    out = [order[i:i + size] for i in range(0, len(order), size)]
    if drop_last and out and len(out[-1]) < size:
        out.pop()
    return out


def expect_shard(order, W, split, even, drop_last):
    """Per-rank batches of BatchSamplerShard over BatchSampler(order, B, drop_last)."""
    g = batches_of(order, drop_last)
    if split:
        k = B // W
        ranks = [[] for _ in range(W)]
        for b in g:
            if len(b) == B:
                for r in range(W):
                    ranks[r].append(b[r * k:(r + 1) * k])
        if not drop_last and g and len(g[-1]) < B:
            last = g[-1]
            if even:
                pad = list(g[0])
                while len(pad) < B:
                    pad += pad
                last = last + pad
                for r in range(W):
                    ranks[r].append(last[r * k:(r + 1) * k])
            else:
                for r in range(W):
                    if len(last) > r * k:
                        ranks[r].append(last[r * k:(r + 1) * k])
        return ranks
    if drop_last:
        g = g[:len(g) // W * W]
        return [g[r::W] for r in range(W)]
    if even:
        pad = [i for b in g[:W] for i in b]  # the first W batches of the epoch, then cyclically
        while len(pad) < W * B:
            pad += pad
        g = [list(b) for b in g]
        cursor = 0
        if len(g[-1]) < B:
            need = B - len(g[-1])
            g[-1] += pad[cursor:cursor + need]
            cursor += need
        while len(g) % W:
            g.append(pad[cursor:cursor + B])
            cursor += B
    return [g[r::W] for r in range(W)]


def expect_dispatch(order, W, split, drop_last):
    """Per-rank batches of DataLoaderDispatcher: rank 0 reads, the batch is broadcast and sliced."""
    g = batches_of(order, drop_last)
    steps = [g[i:i + 1] for i in range(len(g))] if split else [g[i:i + W] for i in range(0, len(g), W)]
    ranks = [[] for _ in range(W)]
    first = None
    for s, group in enumerate(steps):
        if not split and len(group) < W and drop_last:
            break
        cat = [i for b in group for i in b]
        if first is None:
            first = cat[:W]
        size = len(cat) // W
        if not drop_last and s == len(steps) - 1 and len(cat) % W:
            cat = cat + first
            size += 1
        for r in range(W):
            ranks[r].append(cat[r * size:(r + 1) * size])
    return ranks


def expect_iterable_shard(W, split, drop_last):
    """Per-rank batches of DataLoader(IterableDatasetShard(range(N)), batch_size B (B/W if split))."""
    real = B if split else B * W
    per = B // W if split else B
    items, chunks = list(range(N)), []
    for i in range(0, N, real):
        chunks.append(items[i:i + real])
    if chunks and len(chunks[-1]) < real:
        if drop_last:
            chunks.pop()
        else:
            first = chunks[0] if len(chunks) > 1 else list(chunks[-1])
            while len(chunks[-1]) < real:
                chunks[-1] = chunks[-1] + first
    out = []
    for r in range(W):
        mine = [i for c in chunks for i in c[r * per:(r + 1) * per]]
        out.append(batches_of(mine, drop_last, per))  # the inner DataLoader's batch_size is B/W with split
    return out


# ---- single-process checks (expectations from accelerate's tests/test_data_loader.py) -----

def unit_checks():
    from accelerate.data_loader import (BatchSamplerShard, DataLoaderDispatcher, DataLoaderShard,
                                        DataLoaderStateMixin, IterableDatasetShard, SkipBatchSampler,
                                        SkipDataLoader, skip_first_batches)

    def shards(bs, split=False, even=True):
        s = [BatchSamplerShard(bs, 2, i, split_batches=split, even_batches=even) for i in range(2)]
        return [list(x) for x in s], [len(x) for x in s]

    cases = [
        (BatchSampler(range(24), 3, False), False, True,
         [[[0, 1, 2], [6, 7, 8], [12, 13, 14], [18, 19, 20]], [[3, 4, 5], [9, 10, 11], [15, 16, 17], [21, 22, 23]]]),
        (BatchSampler(range(21), 3, False), False, True,
         [[[0, 1, 2], [6, 7, 8], [12, 13, 14], [18, 19, 20]], [[3, 4, 5], [9, 10, 11], [15, 16, 17], [0, 1, 2]]]),
        (BatchSampler(range(22), 3, False), False, True,
         [[[0, 1, 2], [6, 7, 8], [12, 13, 14], [18, 19, 20]], [[3, 4, 5], [9, 10, 11], [15, 16, 17], [21, 0, 1]]]),
        (BatchSampler(range(20), 3, False), False, True,
         [[[0, 1, 2], [6, 7, 8], [12, 13, 14], [18, 19, 0]], [[3, 4, 5], [9, 10, 11], [15, 16, 17], [1, 2, 3]]]),
        (BatchSampler(range(20), 3, True), False, True,
         [[[0, 1, 2], [6, 7, 8], [12, 13, 14]], [[3, 4, 5], [9, 10, 11], [15, 16, 17]]]),
        (BatchSampler(range(2), 3, False), False, True, [[[0, 1, 0]], [[1, 0, 1]]]),
        (BatchSampler(range(22), 4, False), True, True,
         [[[0, 1], [4, 5], [8, 9], [12, 13], [16, 17], [20, 21]], [[2, 3], [6, 7], [10, 11], [14, 15], [18, 19], [0, 1]]]),
        (BatchSampler(range(21), 4, False), True, True,
         [[[0, 1], [4, 5], [8, 9], [12, 13], [16, 17], [20, 0]], [[2, 3], [6, 7], [10, 11], [14, 15], [18, 19], [1, 2]]]),
        (BatchSampler(range(2), 4, False), True, True, [[[0, 1]], [[0, 1]]]),
        (BatchSampler(range(20), 3, False), False, False,
         [[[0, 1, 2], [6, 7, 8], [12, 13, 14], [18, 19]], [[3, 4, 5], [9, 10, 11], [15, 16, 17]]]),
        (BatchSampler(range(21), 4, False), True, False,
         [[[0, 1], [4, 5], [8, 9], [12, 13], [16, 17], [20]], [[2, 3], [6, 7], [10, 11], [14, 15], [18, 19]]]),
        (BatchSampler(range(2), 3, False), False, False, [[[0, 1]], []]),
        ([[0, 1, 2], [3, 4], [5, 6, 7, 8], [9, 10, 11], [12, 13]], False, False,
         [[[0, 1, 2], [5, 6, 7, 8], [12, 13]], [[3, 4], [9, 10, 11]]]),
        ([[0, 1, 2], [3, 4], [5, 6, 7, 8], [9, 10, 11], [12, 13]], False, True,
         [[[0, 1, 2], [5, 6, 7, 8], [12, 13]], [[3, 4], [9, 10, 11], [0, 1, 2]]]),
    ]
    for n, (bs, split, even, want) in enumerate(cases):
        got, lens = shards(bs, split, even)
        check(got == want, f"unit BatchSamplerShard case {n}: {got} != {want}")
        if not split:
            check(lens == [len(w) for w in want], f"unit BatchSamplerShard case {n}: len {lens}")

    # IterableDatasetShard: the shards interleave back into the stream, padded from its start
    for split in (False, True):
        for drop in (False, True):
            for length in (2, 37, 1000):
                ref = list(range(length))
                lists = [list(IterableDatasetShard(ref, batch_size=4, drop_last=drop, num_processes=2,
                                                   process_index=i, split_batches=split)) for i in range(2)]
                per = 2 if split else 4
                check(len(lists[0]) == len(lists[1]) and len(lists[0]) % per == 0, "unit IterableDatasetShard sizes")
                observed = []
                for i in range(0, len(lists[0]), per):
                    for l in lists:
                        observed += l[i:i + per]
                if not drop:
                    while len(ref) < len(observed):
                        ref += ref
                check(observed == ref[:len(observed)], f"unit IterableDatasetShard split={split} drop={drop} n={length}")

    check(list(SkipBatchSampler(BatchSampler(range(16), 4, False), 2)) == [[8, 9, 10, 11], [12, 13, 14, 15]],
          "unit SkipBatchSampler")
    check([t.tolist() for t in SkipDataLoader(list(range(16)), batch_size=4, skip_batches=2)]
          == [[8, 9, 10, 11], [12, 13, 14, 15]], "unit SkipDataLoader")
    check([t.tolist() for t in skip_first_batches(DataLoader(list(range(16)), batch_size=4), num_batches=2)]
          == [[8, 9, 10, 11], [12, 13, 14, 15]], "unit skip_first_batches")
    shard = DataLoaderShard(list(range(16)), batch_size=4)
    for _ in range(2):
        for idx, _batch in enumerate(shard):
            check(shard.end_of_dataloader == (idx == 3), "unit end_of_dataloader")
    skip_dl = SkipDataLoader(range(16), batch_size=4, skip_batches=2)
    dl_dispatcher = DataLoaderDispatcher(range(16), batch_size=4)
    for obj, cls in ((skip_dl, SkipDataLoader), (shard, DataLoaderShard), (dl_dispatcher, DataLoaderDispatcher)):
        check(isinstance(obj, cls) and isinstance(obj, DataLoader), f"unit isinstance {cls.__name__}")
        check(type(obj) is cls and obj.__class__ is DataLoader, f"unit type/__class__ {cls.__name__}")
        check(type(obj.base_dataloader) is DataLoader, f"unit base_dataloader {cls.__name__}")
    check(isinstance(shard, DataLoaderStateMixin), "unit DataLoaderStateMixin")
    try:
        DataLoaderShard.base_dataloader
        check(False, "unit DataLoaderShard.base_dataloader should raise AttributeError")
    except AttributeError:
        pass
    print(f"single-process checks (from accelerate tests/test_data_loader.py): "
          f"{'ok' if not FAILURES else 'FAILED: ' + '; '.join(FAILURES)}")


# ---- distributed scenarios ----------------------------------------------------------------

def safe_len(loader):
    try:
        return len(loader)
    except TypeError:  # an IterableDataset without __len__
        return None


def run_epoch(loader, stop_after=None):
    DRAWN[0] = 0
    got = []
    for batch in loader:
        got.append(batch.tolist())
        if stop_after is not None and len(got) == stop_after:
            break
    return got, DRAWN[0]


def distributed():
    from accelerate import Accelerator, DataLoaderConfiguration, skip_first_batches
    from accelerate.data_loader import DataLoaderDispatcher, DataLoaderShard

    dist.init_process_group("gloo")
    rank, W = dist.get_rank(), dist.get_world_size()
    torch.manual_seed(1234)  # same seed on every rank, as `set_seed` would
    order = list(range(N))
    rows = []

    def scenario(name, cfg, expected, make=None, epochs=1, stop_after=None, env=None, kind=None):
        if env:
            os.environ.update(env)
        cfg = dict(cfg)
        drop = cfg.pop("_drop", False)
        acc = Accelerator(dataloader_config=DataLoaderConfiguration(**cfg))
        user = make() if make else DataLoader(IndexDataset(), batch_size=B, drop_last=drop)
        prepared = acc.prepare(user)
        mine = []
        for _ in range(epochs):
            got, drawn = run_epoch(prepared, stop_after)
            mine.append({"batches": got, "drawn": drawn, "len": safe_len(prepared)})
        facts = {"type": type(prepared).__name__, "inner_is_user": prepared.base_dataloader is user,
                 "same_dataset": prepared.dataset is user.dataset
                 or getattr(prepared.dataset, "dataset", None) is user.dataset}
        everyone = [None] * W
        dist.all_gather_object(everyone, (mine, facts))
        if env:
            for k in env:
                os.environ.pop(k)
        if rank != 0:
            return
        ok = True
        for e in range(epochs):
            per = [everyone[r][0][e]["batches"] for r in range(W)]
            if expected is not None:
                ok &= check(per == expected, f"{name} (W={W}): batches differ from the rule")
            if kind == "shuffle":
                flat = [i for r in range(W) for b in per[r] for i in b]
                ok &= check(set(flat) == set(range(N)), f"{name} (W={W}): union is not the dataset")
                ok &= check(len(flat) - N < W * B, f"{name} (W={W}): more duplicates than the padding")
                if e > 0:
                    prev = [everyone[r][0][e - 1]["batches"] for r in range(W)]
                    ok &= check(all(per[r] != prev[r] for r in range(W)), f"{name} (W={W}): same order as last epoch")
        ok &= check(kind == "dispatch" or all(f["type"] == "DataLoaderShard" for _, f in everyone),
                    f"{name}: expected DataLoaderShard")
        ok &= check(kind != "dispatch" or all(f["type"] == "DataLoaderDispatcher" for _, f in everyone),
                    f"{name}: expected DataLoaderDispatcher")
        ok &= check(all(f["same_dataset"] and not f["inner_is_user"] for _, f in everyone),
                    f"{name}: inner loader/dataset identity")
        last = [everyone[r][0][-1] for r in range(W)]
        samples = [sum(len(b) for b in x["batches"]) for x in last]
        flat = [i for x in last for b in x["batches"] for i in b]
        rows.append((name, [x["len"] for x in last], [len(x["batches"]) for x in last], samples,
                     len(set(flat)), len(flat) - len(set(flat)), [x["drawn"] for x in last], ok))

    def expected_for(split, even, drop):
        return expect_shard(order, W, split, even, drop)

    scenario("shard even_batches", {}, expected_for(False, True, False))
    scenario("shard even_batches=False", {"even_batches": False}, expected_for(False, False, False))
    scenario("shard drop_last", {"_drop": True}, expected_for(False, True, True))
    if B % W == 0:
        scenario("shard split_batches", {"split_batches": True}, expected_for(True, True, False))
        scenario("shard split, even=False", {"split_batches": True, "even_batches": False},
                 expected_for(True, False, False))
    scenario("shard shuffle x2 epochs", {}, None, epochs=2, kind="shuffle",
             make=lambda: DataLoader(IndexDataset(), batch_size=B, shuffle=True))
    scenario("shard seedable x2 epochs", {"use_seedable_sampler": True}, None, epochs=2, kind="shuffle",
             make=lambda: DataLoader(IndexDataset(), batch_size=B, shuffle=True))
    scenario("shard break after 3", {}, [x[:3] for x in expected_for(False, True, False)], stop_after=3)
    scenario("shard workers=2 break after 3", {}, [x[:3] for x in expected_for(False, True, False)],
             stop_after=3, make=lambda: DataLoader(IndexDataset(), batch_size=B, num_workers=2))
    scenario("dispatch", {"dispatch_batches": True}, expect_dispatch(order, W, False, False), kind="dispatch")
    scenario("dispatch drop_last", {"dispatch_batches": True, "_drop": True},
             expect_dispatch(order, W, False, True), kind="dispatch")
    if B % W == 0:
        scenario("dispatch split_batches", {"dispatch_batches": True, "split_batches": True},
                 expect_dispatch(order, W, True, False), kind="dispatch")
    scenario("dispatch workers=2, all ranks iter", {"dispatch_batches": True},
             expect_dispatch(order, W, False, False), kind="dispatch",
             make=lambda: DataLoader(IndexDataset(), batch_size=B, num_workers=2),
             env={"ACCELERATE_STANDIN_ITER_ALL_RANKS": "1"})
    scenario("iterable (default: dispatch)", {}, expect_dispatch(order, W, False, False), kind="dispatch",
             make=lambda: DataLoader(IndexStream(), batch_size=B))
    scenario("iterable dispatch=False", {"dispatch_batches": False}, expect_iterable_shard(W, False, False),
             make=lambda: DataLoader(IndexStream(), batch_size=B))
    if B % W == 0:
        scenario("iterable dispatch=False split", {"dispatch_batches": False, "split_batches": True},
                 expect_iterable_shard(W, True, False), make=lambda: DataLoader(IndexStream(), batch_size=B))

    # skip_first_batches: a new DataLoaderShard whose batch sampler is SkipBatchSampler(BatchSamplerShard)
    acc = Accelerator()
    prepared = acc.prepare(DataLoader(IndexDataset(), batch_size=B))
    skipped = acc.skip_first_batches(prepared, 3)
    got, drawn = run_epoch(skipped)
    everyone = [None] * W
    dist.all_gather_object(everyone, (got, drawn, len(skipped), type(skipped).__name__,
                                      type(skipped.batch_sampler).__name__,
                                      type(skipped.batch_sampler.batch_sampler).__name__))
    if rank == 0:
        want = [x[3:] for x in expected_for(False, True, False)]
        ok = check([e[0] for e in everyone] == want, f"skip_first_batches (W={W})")
        ok &= check(all(e[3] == "DataLoaderShard" and e[4] == "SkipBatchSampler" and e[5] == "BatchSamplerShard"
                        for e in everyone), "skip_first_batches classes")
        rows.append(("skip_first_batches(3)", [e[2] for e in everyone], [len(e[0]) for e in everyone],
                     [sum(len(b) for b in e[0]) for e in everyone], len({i for e in everyone for b in e[0] for i in b}),
                     0, [e[1] for e in everyone], ok))

    if rank == 0:
        print(f"\nW={W} ranks, dataset {N} samples, batch size {B}; per rank: len() / batches / samples / "
              f"_next_index calls (drawn, incl. the StopIteration call)")
        print(f"{'scenario':36} {'len()':16} {'batches':16} {'samples':20} {'union':>5} {'dup':>4} "
              f"{'drawn':18} ok")
        for name, lens, nb, ns, union, dup, drawn, ok in rows:
            print(f"{name:36} {str(lens):16} {str(nb):16} {str(ns):20} {union:5} {dup:4} {str(drawn):18} "
                  f"{'ok' if ok else 'FAIL'}")
        if FAILURES:
            print("FAILURES:\n  " + "\n  ".join(FAILURES))
    dist.barrier()
    dist.destroy_process_group()
    return 1 if FAILURES else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--nproc", type=int, nargs="+", default=[2, 3, 4])
    opts = parser.parse_args()
    if "RANK" in os.environ:
        sys.exit(distributed())
    unit_checks()
    status = 1 if FAILURES else 0
    for n in opts.nproc:
        env = dict(os.environ, OMP_NUM_THREADS="1")
        run = subprocess.run([sys.executable, os.path.join(SOURCE, "examples", "launch.py"), "--nproc", str(n),
                              os.path.abspath(__file__)], env=env)
        status = status or run.returncode
    print(f"\nselfcheck: {'ok' if status == 0 else 'FAILED'}")
    sys.exit(status)


if __name__ == "__main__":
    main()
