"""One rank of an end-to-end scenario: builds the DataLoader(s) the scenario
names, iterates them the way the scenario says, and writes what it really read
(the truth the report is checked against) to TRUTH_DIR/rank-<r>.json.
Started by examples/launch.py, e.g. without accwatch:

    /usr/bin/python3 examples/launch.py --nproc 4 tests/e2e/ranks.py --case sharded --truth /tmp/t

Cases marked ACCELERATE import accelerate (both stacks of scripts/setup.sh
have it: .debian-site on PYTHONPATH, or the venv).

Truth format (rank-<r>.json):
  {"rank", "world", "pid",
   "loaders": [{"site": "ranks.py:<line>",      creation site (for loaders built
                                                by accelerate: the prepare() line)
                "ordinal": 0,                   order among the loader objects built
                                                at that site (prepare() builds the
                                                DataLoader torch iterates first: 0;
                                                accelerate's adapter around it is 1)
                "iterated": bool,               false: this rank never iterated it
                "len": [values],                what len(loader) answered, if called
                "epochs": [{"epoch": i,         iteration ordinal of the loader
                            "batches": [[item, ...], ...],   what the loop got
                            "exhausted": bool}]}],           the loop ran to the end
   "died_workers": [{"worker_id", "pid",        workers this rank saw die, and the
                     "index"}],                 index whose read killed it
   "stuck_workers": [{"index",                  a worker of this rank hung reading
                      "indices"}],              index, in the fetch of these indices
   "killed": {"batch", "indices"}}              this rank killed itself after the
                                                loop got batch #batch (these indices)
Items are the dataset index (IndexDataset) or the value the IterableDataset
produced; with accelerate's dispatcher they are the slice this rank received."""
import argparse
import inspect
import json
import os
import signal
import threading
import time

import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, Dataset, IterableDataset, Sampler, get_worker_info
from torch.utils.data.distributed import DistributedSampler

TRUTH_ENV = "ACCWATCH_E2E_TRUTH"


class IndexDataset(Dataset):
    """Item i is the tensor i, so a batch tells which samples were read. Any
    index is accepted (like datasets that wrap indices modulo their length):
    an out-of-range index is read, not an IndexError."""

    def __init__(self, length):
        self.length = length

    def __len__(self):
        return self.length

    def __getitem__(self, index):
        return torch.tensor(index)


class KillingDataset(IndexDataset):
    """Item i is the int i (no tensor: a tensor a worker sends travels as a
    file descriptor fetched from the worker afterwards, and a worker killed
    before that turns the main process's read into ConnectionResetError
    instead of the DataLoader's RuntimeError). Its DataLoader worker SIGKILLs
    itself when rank `kill_rank` asks it for `kill_index`, after noting which
    worker died."""

    def __init__(self, length, rank, kill_rank, kill_index):
        super().__init__(length)
        self.rank, self.kill_rank, self.kill_index = rank, kill_rank, kill_index

    def __getitem__(self, index):
        info = get_worker_info()
        if info is not None and self.rank == self.kill_rank and index == self.kill_index:
            with open(os.path.join(os.environ[TRUTH_ENV], f"died-{os.getpid()}"), "w") as f:
                f.write(f"{self.rank} {info.id} {index}\n")
            os.kill(os.getpid(), signal.SIGKILL)
        return index


class HangingDataset(IndexDataset):
    """Item i is the int i; in a DataLoader worker of rank `hang_rank`,
    reading `hang_index` blocks forever (like a read without a timeout, or a
    lock that a thread held at the fork)."""

    def __init__(self, length, rank, hang_rank, hang_index):
        super().__init__(length)
        self.rank, self.hang_rank, self.hang_index = rank, hang_rank, hang_index

    def __getitem__(self, index):
        if get_worker_info() is not None and self.rank == self.hang_rank and index == self.hang_index:
            threading.Event().wait()
        return index


class IndexStream(IterableDataset):
    """Yields tensor(i) for the i in range(length) this rank (and, with
    by_worker, this DataLoader worker) is responsible for: items carry their
    index, so identical content means the same sample read twice."""

    def __init__(self, length, rank, world, by_worker):
        self.length, self.rank, self.world, self.by_worker = length, rank, world, by_worker

    def __iter__(self):
        shards, shard = self.world, self.rank
        info = get_worker_info()
        if self.by_worker and info is not None:
            shards, shard = self.world * info.num_workers, self.rank * info.num_workers + info.id
        return (torch.tensor(i) for i in range(shard, self.length, shards))


class OffByOneShard(Sampler):
    """Hand-made contiguous shard whose last rank runs one past the end
    (an inclusive bound where an exclusive one was meant): rank 3 of 4 over
    400 samples yields 300..400, and 400 is not a valid index."""

    def __init__(self, length, rank, world):
        size = length // world
        self.start = rank * size
        self.stop = length + 1 if rank == world - 1 else self.start + size

    def __iter__(self):
        return iter(range(self.start, self.stop))

    def __len__(self):
        return self.stop - self.start


def note_worker_pid(worker_id):
    with open(os.path.join(os.environ[TRUTH_ENV], f"worker-{os.getpid()}"), "w") as f:
        f.write(f"{os.environ.get('RANK', '-1')} {worker_id}\n")


def here():
    """file:line of the caller: where the scenario builds its loader (the
    `site = here(); loader = ...` idiom keeps both on one line)."""
    frame = inspect.stack()[1]
    return f"{os.path.basename(frame.filename)}:{frame.lineno}"


def make_accelerator(**options):
    """accelerate's Accelerator for these CPU ranks. cpu=True as a CPU job
    writes it: without it, accelerate 0.2x takes LOCAL_RANK for a GPU job
    and calls torch.cuda.set_device."""
    return accelerate().Accelerator(cpu=True, **options)


def accelerate():
    try:
        import accelerate as module
    except ImportError as e:
        raise SystemExit(f"ranks.py: this case needs accelerate ({e}): run it on a stack of scripts/setup.sh "
                         "(the venv, or /usr/bin/python3 with .debian-site on PYTHONPATH)")
    return module


# --- what a rank read --------------------------------------------------------

def items(batch):
    if isinstance(batch, dict):  # a HF datasets row batch: its "index" column
        batch = batch["index"]
    return batch.tolist() if isinstance(batch, torch.Tensor) else list(batch)


def collate_list(batch):
    """A batch as a plain list of the items."""
    return list(batch)


class Truth:
    def __init__(self):
        self.loaders = []
        self.died_workers = []
        self.stuck_workers = []
        self.killed = None

    def doc(self, rank, world):
        doc = {"rank": rank, "world": world, "pid": os.getpid(), "loaders": self.loaders,
               "died_workers": self.died_workers, "stuck_workers": self.stuck_workers}
        if self.killed is not None:
            doc["killed"] = self.killed
        return doc

    def write(self, truth_dir, rank, world):
        with open(os.path.join(truth_dir, f"rank-{rank}.json"), "w") as f:
            json.dump(self.doc(rank, world), f)

    def loader(self, site, ordinal=0):
        entry = {"site": site, "ordinal": ordinal, "iterated": False, "len": [], "epochs": []}
        self.loaders.append(entry)
        return entry

    def read(self, entry, loader, limit=None, tolerate=None):
        """One pass of `for batch in loader`, stopped after `limit` batches
        when given; records the batches the loop body got. A RuntimeError
        whose message holds `tolerate` ends the pass early instead of the
        rank."""
        entry["iterated"] = True
        batches, exhausted = [], True
        try:
            for batch in loader:
                batches.append(items(batch))
                if limit is not None and len(batches) == limit:
                    exhausted = False
                    break
        except RuntimeError as e:
            if not tolerate or tolerate not in str(e):
                raise
            exhausted = False
            print(f"rank {os.environ.get('RANK')}: loop stopped after {len(batches)} batches: {e}", flush=True)
        entry["epochs"].append({"epoch": len(entry["epochs"]), "batches": batches, "exhausted": exhausted})
        return exhausted

    def epochs(self, entry, loader, count, sampler=None, limit=None):
        for epoch in range(count):
            if sampler is not None:
                sampler.set_epoch(epoch)
            self.read(entry, loader, limit=limit)



# --- threads -----------------------------------------------------------------

THREAD_NAME = "metrics-uploader"


class Heartbeat(threading.Thread):
    """A live non-daemon Python thread of the program's own, like a metrics
    uploader. Python < 3.14 does not give the OS thread its name: in
    /proc/<pid>/task/<tid>/comm it looks like the main thread, and only
    Python's threading knows its name."""

    def __init__(self):
        super().__init__(name=THREAD_NAME)
        self.stop = threading.Event()
        self.started_ = threading.Event()

    def run(self):
        self.started_.set()
        while not self.stop.wait(0.05):
            pass

    def __enter__(self):
        self.start()
        self.started_.wait()
        return self

    def __exit__(self, *exc):
        self.stop.set()
        self.join()


def thread_names():
    task = "/proc/self/task"
    names = []
    for tid in os.listdir(task):
        try:
            with open(os.path.join(task, tid, "comm")) as f:
                names.append(f.read().strip())
        except OSError:
            pass
    return names


# --- scenarios ---------------------------------------------------------------
# Each returns nothing: it fills `truth`. Sizes are small (a few hundred
# samples, batch size 8, <= 3 epochs) to keep the suite fast on 2 cores.

def case_unsharded(truth, rank, world):
    dataset = IndexDataset(400)
    site = here(); loader = DataLoader(dataset, batch_size=8, shuffle=True)
    truth.epochs(truth.loader(site), loader, 2)


def case_sharded(truth, rank, world, workers=0):
    dataset = IndexDataset(402)  # not divisible by 4: DistributedSampler pads
    sampler = DistributedSampler(dataset, shuffle=True, seed=1)
    # persistent_workers: workers re-forked every epoch are a finding of their own (fork_respawn)
    site = here(); loader = DataLoader(dataset, batch_size=8, sampler=sampler, num_workers=workers, worker_init_fn=note_worker_pid if workers else None, persistent_workers=bool(workers))
    truth.epochs(truth.loader(site), loader, 2, sampler=sampler)


# A HF datasets.Dataset (Arrow-backed, torch format) read through a
# DistributedSampler: its items are rows; the "index" column says which.
def case_hf_dataset(truth, rank, world):
    import datasets
    dataset = datasets.Dataset.from_dict({"index": list(range(402))}).with_format("torch")
    sampler = DistributedSampler(dataset, shuffle=True, seed=1)
    site = here(); loader = DataLoader(dataset, batch_size=8, sampler=sampler, num_workers=2, persistent_workers=True, worker_init_fn=note_worker_pid)
    truth.epochs(truth.loader(site), loader, 2, sampler=sampler)


def case_sharded_workers(truth, rank, world):
    case_sharded(truth, rank, world, workers=2)


def case_uneven(truth, rank, world):
    dataset = IndexDataset(400)
    sizes = [120, 100, 100, 80]
    start = sum(sizes[:rank])
    shard = list(range(start, start + sizes[rank]))
    site = here(); loader = DataLoader(dataset, batch_size=8, sampler=shard)
    truth.epochs(truth.loader(site), loader, 1)


def case_overlap(truth, rank, world):
    dataset = IndexDataset(400)
    shard = list(range(rank * 80, rank * 80 + 120))
    site = here(); loader = DataLoader(dataset, batch_size=8, sampler=shard)
    truth.epochs(truth.loader(site), loader, 1)


# 1 / 1b: accelerate's prepare(), its return value ignored or used. ACCELERATE
def case_prepare_ignored(truth, rank, world):
    dataset = IndexDataset(400)
    site = here(); loader = DataLoader(dataset, batch_size=8, shuffle=True)
    accelerator = make_accelerator()
    psite = here(); accelerator.prepare(loader)  # the bug: the sharded loader it returns is dropped
    truth.epochs(truth.loader(site), loader, 2)  # every rank reads all 400
    truth.loader(psite)  # built by accelerate, never iterated


def case_prepare_used(truth, rank, world):
    dataset = IndexDataset(400)
    site = here(); loader = DataLoader(dataset, batch_size=8, shuffle=True)
    accelerator = make_accelerator()
    psite = here(); prepared = accelerator.prepare(loader)
    truth.loader(site)  # the user's loader, replaced: never iterated
    # 50 batches over 4 ranks: ranks 2 and 3 get a 13th batch padded from the
    # epoch's first samples (even_batches): 16 repeats, the `padding` info.
    truth.epochs(truth.loader(psite), prepared, 2)


# 2: sharded twice: own DistributedSampler, then accelerate's BatchSamplerShard. ACCELERATE
def case_double_shard(truth, rank, world):
    dataset = IndexDataset(400)
    sampler = DistributedSampler(dataset, shuffle=True, seed=1)  # 100 samples of this rank
    site = here(); loader = DataLoader(dataset, batch_size=8, sampler=sampler)
    accelerator = make_accelerator()
    # BatchSamplerShard keeps every 4th of the rank's 13 batches (+ even_batches
    # padding from the rank's own first batches): 4 batches, 32 samples, 28
    # distinct per rank, disjoint between ranks: the union is 112 of 400
    # (coverage 28%, ~1/W).
    # accelerate calls set_epoch on the DistributedSampler (set_epoch chain).
    psite = here(); prepared = accelerator.prepare(loader)
    truth.loader(site)
    truth.epochs(truth.loader(psite), prepared, 2)


# 3: len() of the loader before prepare() used for the step count. ACCELERATE
def case_stale_len(truth, rank, world):
    dataset = IndexDataset(400)
    site = here(); loader = DataLoader(dataset, batch_size=8, shuffle=True)
    original = truth.loader(site)
    epochs = 2
    steps_per_epoch = len(loader)  # 50: the bug, taken before prepare()
    original["len"].append(steps_per_epoch)
    total_steps = epochs * steps_per_epoch
    accelerator = make_accelerator()
    psite = here(); loader = accelerator.prepare(loader)  # 13 batches per rank and epoch
    model = torch.nn.Linear(1, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scheduler = torch.optim.lr_scheduler.LinearLR(optimizer, start_factor=1.0, end_factor=0.0, total_iters=total_steps)
    prepared = truth.loader(psite)
    for _ in range(epochs):
        truth.read(prepared, loader)
        for _ in prepared["epochs"][-1]["batches"]:
            optimizer.step()
            scheduler.step()  # ends at lr 0.074 instead of 0: the schedule is off by W
    assert total_steps == 100 and sum(len(e["batches"]) for e in prepared["epochs"]) == 26


# 4: DataLoader workers and fork.
def sharded_workers_loader(persistent):
    """(site, loader, sampler): the site is this function's DataLoader line."""
    dataset = IndexDataset(400)
    sampler = DistributedSampler(dataset, shuffle=True, seed=1)
    site = here(); loader = DataLoader(dataset, batch_size=8, sampler=sampler, num_workers=2, persistent_workers=persistent, worker_init_fn=note_worker_pid)
    return site, loader, sampler


def case_fork_threads(truth, rank, world):
    # A live non-daemon thread while the workers are forked, and workers
    # forked anew in each of the 3 epochs (persistent_workers=False).
    with Heartbeat():
        assert THREAD_NAME[:15] not in thread_names(), thread_names()  # the OS does not know its name
        site, loader, sampler = sharded_workers_loader(persistent=False)
        truth.epochs(truth.loader(site), loader, 3, sampler=sampler)


def case_fork_respawn(truth, rank, world):
    # No thread of the script's own; workers forked anew in each of 3 epochs.
    site, loader, sampler = sharded_workers_loader(persistent=False)
    truth.epochs(truth.loader(site), loader, 3, sampler=sampler)


def case_fork_persistent(truth, rank, world):
    # The control: persistent workers are forked once, in the first epoch;
    # the named thread starts only after that fork, so no fork sees it.
    site, loader, sampler = sharded_workers_loader(persistent=True)
    entry = truth.loader(site)
    truth.epochs(entry, loader, 1, sampler=sampler)
    with Heartbeat():
        for epoch in (1, 2):
            sampler.set_epoch(epoch)
            truth.read(entry, loader)


# 5: workers started by spawn / forkserver.
def case_start_method(truth, rank, world, method):
    dataset = IndexDataset(402)
    sampler = DistributedSampler(dataset, shuffle=True, seed=1)
    site = here(); loader = DataLoader(dataset, batch_size=8, sampler=sampler, num_workers=2, multiprocessing_context=method, persistent_workers=True, worker_init_fn=note_worker_pid)
    truth.epochs(truth.loader(site), loader, 2, sampler=sampler)


def case_spawn_workers(truth, rank, world):
    case_start_method(truth, rank, world, "spawn")


def case_forkserver_workers(truth, rank, world):
    case_start_method(truth, rank, world, "forkserver")


# 5 (form): set_epoch missing.
def case_same_order(truth, rank, world):
    dataset = IndexDataset(400)
    sampler = DistributedSampler(dataset, shuffle=True, seed=1)
    site = here(); loader = DataLoader(dataset, batch_size=8, sampler=sampler)
    truth.epochs(truth.loader(site), loader, 2)  # no sampler.set_epoch(): epoch 1 repeats epoch 0


# 6: IterableDataset with workers.
def case_iterable(truth, rank, world, by_worker):
    # 200 items; rank r takes those with i % 4 == r (50 each). Without
    # by_worker each of the 2 workers replays the rank's 50 (100 reads, 50
    # distinct); with it every item is read once.
    dataset = IndexStream(200, rank, world, by_worker=by_worker)
    site = here(); loader = DataLoader(dataset, batch_size=8, num_workers=2, persistent_workers=True, worker_init_fn=note_worker_pid)
    truth.epochs(truth.loader(site), loader, 2)


def case_iterable_dup(truth, rank, world):
    case_iterable(truth, rank, world, by_worker=False)


def case_iterable_sharded(truth, rank, world):
    case_iterable(truth, rank, world, by_worker=True)


# A worker SIGKILLed mid-epoch.
KILL_RANK = 1


def case_worker_killed(truth, rank, world):
    # Rank 1 reads 1, 5, 9, ... (shuffle off): its batch 5 (worker 1's third
    # batch) starts with sample 1 + 4*40 = 161, whose read kills worker 1.
    # The rank catches the DataLoader's RuntimeError and goes on to the final
    # barrier, so no rank waits for it.
    dataset = KillingDataset(400, rank, kill_rank=KILL_RANK, kill_index=KILL_RANK + world * 40)
    sampler = DistributedSampler(dataset, shuffle=False)
    site = here(); loader = DataLoader(dataset, batch_size=8, sampler=sampler, num_workers=2, worker_init_fn=note_worker_pid, collate_fn=collate_list)
    entry = truth.loader(site)
    done = truth.read(entry, loader, tolerate="DataLoader worker")
    assert done == (rank != KILL_RANK), f"rank {rank}: loop exhausted={done}"
    truth_dir = os.environ[TRUTH_ENV]
    for name in os.listdir(truth_dir):
        if name.startswith("died-"):
            with open(os.path.join(truth_dir, name)) as f:
                died_rank, worker_id, index = map(int, f.read().split())
            if died_rank == rank:
                truth.died_workers.append({"worker_id": worker_id, "pid": int(name.split("-")[1]),
                                           "index": index})


# A worker stuck in __getitem__; the loader's timeout= gives up on it.
HANG_RANK = 1


def case_worker_stuck(truth, rank, world):
    # 64 samples, 2 ranks, no shuffle: rank 1 reads 1, 3, 5, ... in batches
    # of 4, its batch 2 is [17, 19, 21, 23] (worker 0's second fetch), and
    # reading 19 blocks forever. After 3 s without a batch the DataLoader
    # raises "DataLoader timed out"; dropping the iterator shuts the workers
    # down, the stuck one by SIGTERM after a join timeout (shortened here
    # from 5 s so that the scenario stays short), which torch's worker
    # answers with _exit(0). Its fetch was open for >= 3.5 s.
    from torch.utils.data import _utils
    dataset = HangingDataset(64, rank, hang_rank=HANG_RANK, hang_index=19)
    sampler = DistributedSampler(dataset, shuffle=False)
    site = here(); loader = DataLoader(dataset, batch_size=4, sampler=sampler, num_workers=2, timeout=3, worker_init_fn=note_worker_pid, collate_fn=collate_list)
    join_timeout, _utils.MP_STATUS_CHECK_INTERVAL = _utils.MP_STATUS_CHECK_INTERVAL, 0.5
    try:
        done = truth.read(truth.loader(site), loader, tolerate="DataLoader timed out")
    finally:
        _utils.MP_STATUS_CHECK_INTERVAL = join_timeout
    assert done == (rank != HANG_RANK), f"rank {rank}: loop exhausted={done}"
    if rank == HANG_RANK:
        batches = [list(sampler)[i:i + 4] for i in range(0, len(sampler), 4)]
        truth.stuck_workers.append({"index": 19, "indices": next(b for b in batches if 19 in b)})


# A rank SIGKILLed mid-epoch.
KILLED_RANK = 1


def wait_gone(pid, seconds=60):
    """Until process pid has ended (exited, or a zombie its parent has not
    reaped yet)."""
    for _ in range(int(seconds / 0.05)):
        try:
            with open(f"/proc/{pid}/stat") as f:
                if f.read().rsplit(")", 1)[1].split()[0] in ("Z", "X"):
                    return
        except FileNotFoundError:
            return
        time.sleep(0.05)
    raise SystemExit(f"rank: process {pid} did not end in {seconds} s")


def case_rank_killed(truth, rank, world):
    # 64 samples, 2 ranks, no shuffle, no workers (the last batch drawn is
    # the one the loop got): rank 0 reads its 8 batches; rank 1 reads
    # 1, 3, 5, ... and, once its loop got batch 3 ([25, 27, 29, 31]), meets
    # rank 0 at the barrier main() would have run, writes its truth, waits
    # for rank 0 to have exited (so that the launcher stops no one), and
    # SIGKILLs itself inside the loop: no end of epoch, no exit of its own.
    pids = [None] * world
    dist.all_gather_object(pids, os.getpid())
    dataset = IndexDataset(64)
    sampler = DistributedSampler(dataset, shuffle=False)
    site = here(); loader = DataLoader(dataset, batch_size=4, sampler=sampler)
    entry = truth.loader(site)
    if rank != KILLED_RANK:
        truth.read(entry, loader)
        return
    entry["iterated"] = True
    batches = []
    entry["epochs"].append({"epoch": 0, "batches": batches, "exhausted": False})
    for batch in loader:
        batches.append(items(batch))
        if len(batches) == 4:
            truth.killed = {"batch": len(batches) - 1, "indices": batches[-1]}
            dist.barrier()
            truth.write(os.environ[TRUTH_ENV], rank, world)
            for other, pid in enumerate(pids):
                if other != rank:
                    wait_gone(pid)
            os.kill(os.getpid(), signal.SIGKILL)


# An index >= len(dataset).
def case_index_range(truth, rank, world):
    dataset = IndexDataset(400)
    sampler = OffByOneShard(len(dataset), rank, world)  # 100 each, rank 3: 101 (13 batches each)
    site = here(); loader = DataLoader(dataset, batch_size=8, sampler=sampler)
    truth.epochs(truth.loader(site), loader, 1)


# A loop that stops after k batches, with workers drawing ahead.
def case_early_break(truth, rank, world):
    dataset = IndexDataset(400)
    sampler = DistributedSampler(dataset, shuffle=True, seed=1)
    # 2 workers x prefetch_factor 2: 4 batches are drawn beyond the 5 consumed
    site = here(); loader = DataLoader(dataset, batch_size=8, sampler=sampler, num_workers=2, persistent_workers=True, worker_init_fn=note_worker_pid)
    truth.epochs(truth.loader(site), loader, 2, sampler=sampler, limit=5)


# accelerate's dispatcher: rank 0 reads, every rank gets a slice. ACCELERATE
def case_dispatcher(truth, rank, world, workers=0):
    acc = accelerate()
    dataset = IndexDataset(402)
    site = here(); loader = DataLoader(dataset, batch_size=8, shuffle=True, num_workers=workers, persistent_workers=bool(workers), worker_init_fn=note_worker_pid if workers else None)
    if hasattr(acc, "DataLoaderConfiguration"):  # accelerate >= 0.28
        accelerator = make_accelerator(dataloader_config=acc.DataLoaderConfiguration(dispatch_batches=True))
    else:
        accelerator = make_accelerator(dispatch_batches=True)
    # Rank 0 draws all 51 batches of 8; each step concatenates 4 of them and
    # rank r keeps [8r, 8r+8): 13 steps, the last [0:5]..[15:20] of 18 samples
    # padded with the epoch's first 4 (rank 3: 101 samples, 2 also rank 0's).
    psite = here(); prepared = accelerator.prepare(loader)
    truth.loader(site)
    truth.epochs(truth.loader(psite), prepared, 2)


def case_dispatcher_workers(truth, rank, world):
    # On torch >= 2.0.1 accelerate starts the inner iterator on every rank:
    # ranks 1-3's workers draw batches that no one consumes.
    case_dispatcher(truth, rank, world, workers=2)


CASES = {name[len("case_"):]: fn for name, fn in globals().items() if name.startswith("case_")}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--case", required=True, choices=sorted(CASES))
    parser.add_argument("--truth", required=True)
    opts = parser.parse_args()
    os.makedirs(opts.truth, exist_ok=True)
    os.environ[TRUTH_ENV] = opts.truth

    dist.init_process_group("gloo")
    rank, world = dist.get_rank(), dist.get_world_size()
    torch.manual_seed(rank)
    truth = Truth()
    CASES[opts.case](truth, rank, world)
    dist.barrier()

    truth.write(opts.truth, rank, world)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
