# SPDX-License-Identifier: MIT
"""What the end-to-end scenarios (scenarios/*.py) share: datasets whose items
say which sample they are, the truth a rank writes of what it read, threads,
and the loaders several scenarios build. ranks.py runs a scenario's run().

Scenarios that use accelerate need it on the stack (both stacks of
scripts/setup.sh have it: .debian-site on PYTHONPATH, or the venv).

Truth format (rank-<r>.json):
  {"rank", "world", "pid",
   "loaders": [{"site": "ranks.py:<line>",      creation site (for loaders built
                                                by accelerate: the prepare() line)
                "ordinal": 0,                   order among the loaders built at that
                                                site (prepare() builds the DataLoader
                                                torch iterates first: 0; accelerate's
                                                adapter around it is 1); DataLoaders
                                                built one per epoch around one sampler
                                                (or over one dataset) are one loader,
                                                one entry read once per epoch
                "iterated": bool,               false: this rank never iterated it
                "len": [values],                what len(loader) answered, if called
                "epochs": [{"epoch": i,         iteration ordinal of the loader
                            "batches": [[item, ...], ...],   what the loop got
                            "exhausted": bool}]}],           the loop ran to the end
   "died_workers": [{"worker_id", "pid",        workers this rank saw die, and the
                     "index"}],                 index whose read killed it
   "stuck_workers": [{"index",                  a worker of this rank hung reading
                      "indices"}],              index, in the fetch of these indices
   "killed": {"batch", "indices",               this rank ended itself mid-epoch: its
              "raised"}}                        last batch drawn, #batch (these
                                                indices), which the loop got or whose
                                                collate_fn raised; "raised": the
                                                exception that ended it, as
                                                "module.Type: message" (builtins bare)
Items are the dataset index (IndexDataset) or the value the IterableDataset
produced; with accelerate's dispatcher they are the slice this rank received."""
import gc
import importlib.util
import inspect
import json
import os
import random
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
    an out-of-range index is read, not an IndexError. With an offset, item
    i is i + offset: the samples of a dataset that comes after another in a
    ConcatDataset."""

    def __init__(self, length, offset=0):
        self.length = length
        self.offset = offset

    def __len__(self):
        return self.length

    def __getitem__(self, index):
        return torch.tensor(index + self.offset)


class EpochStream(IterableDataset):
    """The items i % world == rank of range(length), split between the
    DataLoader workers, each worker's part shuffled by the stream's own
    epoch (set_epoch). shared: the epoch is a shared-memory tensor, which
    persistent workers see change; else a plain int, their copy's."""

    def __init__(self, length, rank, world, shared):
        self.length, self.rank, self.world = length, rank, world
        self.epoch = torch.zeros(1, dtype=torch.int64).share_memory_() if shared else 0

    def set_epoch(self, epoch):
        if isinstance(self.epoch, torch.Tensor):
            self.epoch.fill_(epoch)
        else:
            self.epoch = epoch

    def __iter__(self):
        info = get_worker_info()
        workers, worker = (info.num_workers, info.id) if info is not None else (1, 0)
        mine = list(range(self.rank, self.length, self.world))[worker::workers]
        random.Random(int(self.epoch)).shuffle(mine)
        return iter(torch.tensor(i) for i in mine)


def epoch_stream_epochs(truth, rank, world, shared):
    """EpochStream read by 2 persistent workers for 3 epochs, set_epoch
    called in the main process before each."""
    stream = EpochStream(160, rank, world, shared=shared)
    site = here(); loader = DataLoader(stream, batch_size=8, num_workers=2, persistent_workers=True, worker_init_fn=note_worker_pid)
    entry = truth.loader(site)
    for epoch in range(3):
        stream.set_epoch(epoch)
        truth.read(entry, loader)


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


class ShufflingStream(IterableDataset):
    """Items i % world == rank of range(length), split between the
    DataLoader workers, in an order it shuffles itself (shuffle=True, as
    streaming datasets that shuffle their shards say): random.Random(seed +
    epoch), the epoch moved on only by set_epoch (a streaming dataset whose
    epoch its own loader class advances)."""

    def __init__(self, length, rank, world, seed):
        self.length, self.rank, self.world, self.seed = length, rank, world, seed
        self.shuffle = True
        self.epoch = 0

    def set_epoch(self, epoch):
        self.epoch = epoch

    def __iter__(self):
        info = get_worker_info()
        workers, worker = (info.num_workers, info.id) if info is not None else (1, 0)
        mine = list(range(self.rank, self.length, self.world))[worker::workers]
        random.Random(self.seed + self.epoch).shuffle(mine)
        return (torch.tensor(i) for i in mine)


def shuffling_stream_epochs(truth, rank, world, set_epoch):
    """3 epochs of a ShufflingStream of 200 items over 2 workers (made anew
    each epoch, so they see the epoch), batches of 5; set_epoch(epoch)
    before each when set_epoch."""
    stream = ShufflingStream(200, rank, world, seed=11)
    site = here(); loader = DataLoader(stream, batch_size=5, num_workers=2, worker_init_fn=note_worker_pid)
    entry = truth.loader(site)
    for epoch in range(3):
        if set_epoch:
            stream.set_epoch(epoch)
        truth.read(entry, loader)


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


class Partition:
    """A dataset of the program's own that reads the base data through a
    list of its indices (the distributed tutorial's data partitioner)."""

    def __init__(self, data, index):
        self.data = data
        self.index = index

    def __len__(self):
        return len(self.index)

    def __getitem__(self, index):
        data_idx = self.index[index]
        return self.data[data_idx]


def partition(length, rank, world, seed=1234):
    """Rank's Partition of IndexDataset(length): one seeded shuffle of its
    indices, alike on every rank, cut in `world` equal lists."""
    rng = random.Random()
    rng.seed(seed)
    indexes = list(range(length))
    rng.shuffle(indexes)
    part_len = length // world
    return Partition(IndexDataset(length),
                     indexes[part_len * rank:part_len * (rank + 1)])


class Forever:
    """A sampler that starts the one it wraps over each time it ends."""

    def __init__(self, sampler):
        self.sampler = sampler

    def __iter__(self):
        while True:
            yield from iter(self.sampler)


class OneIteratorLoader(DataLoader):
    """The multi-epoch loader pattern: one iterator for the whole run,
    over a batch sampler started over forever, len(sampler) batches of it
    per epoch (its workers live as long as the loader)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._DataLoader__initialized = False
        self.batch_sampler = Forever(self.batch_sampler)
        self._DataLoader__initialized = True
        self.iterator = super().__iter__()

    def __len__(self):
        return len(self.batch_sampler.sampler)

    def __iter__(self):
        for _ in range(len(self)):
            yield next(self.iterator)


def note_worker_pid(worker_id):
    with open(os.path.join(os.environ[TRUTH_ENV], f"worker-{os.getpid()}"), "w") as f:
        f.write(f"{os.environ.get('RANK', '-1')} {worker_id}\n")


def here():
    """file:line of the caller: where the scenario builds its loader (the
    `site = here(); loader = ...` idiom keeps both on one line)."""
    frame = inspect.stack()[1]
    return f"{os.path.basename(frame.filename)}:{frame.lineno}"


def tensor_parallel_groups(world, size):
    """The tensor-parallel groups of consecutive ranks, built the way
    Megatron builds them (dist.new_group for each, on every rank); returns
    this rank's tensor-parallel rank."""
    for start in range(0, world, size):
        dist.new_group(list(range(start, start + size)))
    return dist.get_rank() % size


def make_accelerator(**options):
    """accelerate's Accelerator for these CPU ranks. cpu=True as a CPU job
    writes it: without it, accelerate 0.2x takes LOCAL_RANK for a GPU job
    and calls torch.cuda.set_device."""
    return accelerate().Accelerator(cpu=True, **options)


def prepared_shuffled(truth, length=400, batch_size=8):
    """The user's DataLoader(shuffle=True) over IndexDataset(length), passed
    through accelerator.prepare(): the user's loader is in the truth (never
    iterated); returns the accelerator, the prepared loader and its truth
    entry."""
    site = here(); loader = DataLoader(IndexDataset(length), batch_size=batch_size, shuffle=True)
    accelerator = make_accelerator()
    psite = here(); prepared = accelerator.prepare(loader)
    truth.loader(site)  # the user's loader, replaced: never iterated
    return accelerator, prepared, truth.loader(psite)


def accelerate():
    try:
        import accelerate as module
    except ImportError as e:
        raise SystemExit(f"this scenario needs accelerate ({e}): run it on a stack of scripts/setup.sh "
                         "(the venv, or /usr/bin/python3 with .debian-site on PYTHONPATH)")
    return module


# --- HF Trainer --------------------------------------------------------------

class RowDataset(Dataset):
    """Row i is {"x": i}: a dataset in the form HF's Trainer takes."""

    def __init__(self, length):
        self.length = length

    def __len__(self):
        return self.length

    def __getitem__(self, index):
        return {"x": index}


def stack_rows(rows):
    return {"x": torch.tensor([row["x"] for row in rows])}


class Probe(torch.nn.Module):
    """The smallest model Trainer trains: its loss is a function of the
    batch, so every step sees the samples."""

    def __init__(self):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.ones(1))

    def forward(self, x):
        return {"loss": (self.weight * x.float()).mean()}


def trainer_run(truth, length, batch_size, accumulation, max_steps=-1, epochs=1, dataset=None,
                checkpoints=None, save_steps=0, stop_at=0, resumed=False):
    """transformers' Trainer over RowDataset(length) on these CPU ranks, each
    batch its training_step receives noted in the truth. Returns the trainer
    and the truth entries of the loaders it builds (the DataLoader Trainer
    makes, never iterated, and the one prepare() makes of it, whose
    passes its training steps read; when resumed, prepare()'s loader is
    not iterated either: the one skip_first_batches makes of it is); the
    caller sets their site to the line that calls train(). checkpoints:
    the directory Trainer saves to every save_steps steps (else none is
    saved); stop_at: the step after which the training stops (a job that
    ends there)."""
    import tempfile
    from transformers import Trainer, TrainerCallback, TrainingArguments
    # Trainer's DataLoader, prepare()'s DataLoader and DataLoaderShard
    # around it; resumed: skip_first_batches' DataLoader (iterated) and
    # its DataLoaderShard.
    entries = [truth.loader("", ordinal) for ordinal in range(4 if resumed else 2)]
    entry = entries[-1]
    entry["iterated"] = True

    class EpochNote(TrainerCallback):
        def on_epoch_begin(self, args, state, control, **kwargs):
            entry["epochs"].append({"epoch": len(entry["epochs"]), "batches": []})

        def on_step_end(self, args, state, control, **kwargs):
            if state.global_step == stop_at:
                control.should_training_stop = True

    class NotingTrainer(Trainer):
        def training_step(self, model, inputs, *args, **kwargs):
            entry["epochs"][-1]["batches"].append(inputs["x"].tolist())
            return super().training_step(model, inputs, *args, **kwargs)

    args = TrainingArguments(
        output_dir=checkpoints or tempfile.mkdtemp(prefix="accwatch-trainer-"), use_cpu=True,
        per_device_train_batch_size=batch_size, gradient_accumulation_steps=accumulation,
        max_steps=max_steps, num_train_epochs=epochs, report_to="none",
        save_strategy="steps" if save_steps else "no", save_steps=save_steps or 500,
        logging_strategy="no", disable_tqdm=True, dataloader_num_workers=0, ddp_backend="gloo")
    trainer = NotingTrainer(model=Probe(), args=args,
                            train_dataset=RowDataset(length) if dataset is None else dataset,
                            data_collator=stack_rows, callbacks=[EpochNote()])
    return trainer, entries


def trainer_split(truth, seed):
    """trainer_run over the train part of a HF datasets.Dataset of 200 rows
    ({"x": row}) split by train_test_split(test_size=0.2, seed=seed) on
    each rank: 2 epochs, batches of 4."""
    import datasets
    rows = datasets.Dataset.from_dict({"x": list(range(200))})
    part = rows.train_test_split(test_size=0.2, seed=seed)["train"]
    return trainer_run(truth, len(part), batch_size=4, accumulation=1, epochs=2, dataset=part)


# --- DeepSpeed ---------------------------------------------------------------

def deepspeed_epochs(truth, length, epochs, set_epoch):
    """DeepSpeed's own loader (deepspeed.initialize(training_data=...)):
    IndexDataset(length) in micro-batches of 4, which builds a new torch
    DataLoader on every iter() around one DistributedSampler; `epochs`
    passes, each noted in one truth entry at the line that iterates, after
    loader.data_sampler.set_epoch(epoch) when set_epoch."""
    import deepspeed
    config = {"train_micro_batch_size_per_gpu": 4, "optimizer": {"type": "SGD", "params": {"lr": 0.1}}}
    model = Probe()
    engine, _, loader, _ = deepspeed.initialize(model=model, model_parameters=model.parameters(),
                                                training_data=IndexDataset(length), config=config)
    entry = None
    for epoch in range(epochs):
        if set_epoch:
            loader.data_sampler.set_epoch(epoch)
        site = here(); batches = [items(batch) for batch in loader]
        entry = entry or truth.loader(site)  # one loader: its epochs are DeepSpeed's DataLoaders
        entry["iterated"] = True
        entry["epochs"].append({"epoch": epoch, "batches": batches, "exhausted": True})


# --- what a rank read --------------------------------------------------------

def items(batch):
    if isinstance(batch, dict):  # a HF datasets row batch: its "index" column
        batch = batch["index"]
    return batch.tolist() if isinstance(batch, torch.Tensor) else list(batch)


def collate_list(batch):
    """A batch as a plain list of the items."""
    return list(batch)


def rank_options(parser):
    """The options every rank program takes (--case, --truth) besides the
    parser's own, parsed; the truth directory made and put in the
    environment for the scenario's helpers."""
    parser.add_argument("--case", required=True, choices=scenario_names())
    parser.add_argument("--truth", required=True)
    opts = parser.parse_args()
    os.makedirs(opts.truth, exist_ok=True)
    os.environ[TRUTH_ENV] = opts.truth
    return opts


def attempt():
    """Which attempt of the job this process is: torchrun's restart count,
    or its job's index among the jobs check.py --jobs runs one after the
    other."""
    return (int(os.environ.get("TORCHELASTIC_RESTART_COUNT", "0"))
            + int(os.environ.get("ACCWATCH_E2E_SEQUENCE", "0")))


class Truth:
    def __init__(self):
        self.loaders = []
        self.died_workers = []
        self.stuck_workers = []
        self.killed = None

    def doc(self, rank, world):
        doc = {"rank": rank, "world": world, "pid": os.getpid(), "attempt": attempt(),
               "loaders": self.loaders, "died_workers": self.died_workers,
               "stuck_workers": self.stuck_workers}
        if self.killed is not None:
            doc["killed"] = self.killed
        return doc

    def write(self, truth_dir, rank, world, name=None):
        """TRUTH_DIR/rank-<rank>.json (rank-<rank>-attempt<k>.json after
        a restart), or <name>.json (processes that all claim one rank:
        solo_ranks.py)."""
        name = name or f"rank-{rank}" + (f"-attempt{attempt()}" if attempt() else "")
        with open(os.path.join(truth_dir, f"{name}.json"), "w") as f:
            json.dump(self.doc(rank, world), f)

    def loader(self, site, ordinal=0):
        entry = {"site": site, "ordinal": ordinal, "iterated": False, "len": [], "epochs": []}
        self.loaders.append(entry)
        return entry

    def read(self, entry, loader, limit=None, tolerate=None, step=None):
        """One pass of `for batch in loader`, stopped after `limit` batches
        when given; records the batches the loop body got, each then handed
        to step(batch) when given (a training step). A RuntimeError whose
        message holds `tolerate` ends the pass early instead of the rank."""
        entry["iterated"] = True
        batches, exhausted = [], True
        try:
            for batch in loader:
                batches.append(items(batch))
                if step is not None:
                    step(batch)
                if limit is not None and len(batches) == limit:
                    exhausted = False
                    break
        except RuntimeError as e:
            if not tolerate or tolerate not in str(e):
                raise
            exhausted = False
            print(f"rank {os.environ.get('RANK')}: loop stopped after {len(batches)} batches: {e}", flush=True)
        entry["epochs"].append({"epoch": len(entry["epochs"]), "batches": batches, "exhausted": exhausted,
                                "ended_at": time.time()})
        return exhausted

    def cut_short(self, entry):
        """The batches list of a pass the rank will not finish (it dies or
        is stopped inside it): its epoch is in the truth before the loop
        ends, not exhausted."""
        entry["iterated"] = True
        batches = []
        entry["epochs"].append({"epoch": len(entry["epochs"]), "batches": batches, "exhausted": False})
        return batches

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


# --- loaders several scenarios build ----------------------------------------


def sharded(truth, rank, world, workers=0):
    dataset = IndexDataset(402)  # not divisible by 4: DistributedSampler pads
    sampler = DistributedSampler(dataset, shuffle=True, seed=1)
    # persistent_workers: workers re-forked every epoch are a finding of their own (fork_respawn)
    site = here(); loader = DataLoader(dataset, batch_size=8, sampler=sampler, num_workers=workers, worker_init_fn=note_worker_pid if workers else None, persistent_workers=bool(workers))
    truth.epochs(truth.loader(site), loader, 2, sampler=sampler)


# 4: DataLoader workers and fork.
def sharded_workers_loader(persistent):
    """(site, loader, sampler): the site is this function's DataLoader line."""
    dataset = IndexDataset(400)
    sampler = DistributedSampler(dataset, shuffle=True, seed=1)
    site = here(); loader = DataLoader(dataset, batch_size=8, sampler=sampler, num_workers=2, persistent_workers=persistent, worker_init_fn=note_worker_pid)
    return site, loader, sampler


# 5: workers started by spawn / forkserver.
def start_method(truth, rank, world, method):
    dataset = IndexDataset(402)
    sampler = DistributedSampler(dataset, shuffle=True, seed=1)
    site = here(); loader = DataLoader(dataset, batch_size=8, sampler=sampler, num_workers=2, multiprocessing_context=method, persistent_workers=True, worker_init_fn=note_worker_pid)
    truth.epochs(truth.loader(site), loader, 2, sampler=sampler)


# 6: IterableDataset with workers.
def iterable(truth, rank, world, by_worker):
    # 200 items; rank r takes those with i % 4 == r (50 each). Without
    # by_worker each of the 2 workers replays the rank's 50 (100 reads, 50
    # distinct); with it every item is read once.
    dataset = IndexStream(200, rank, world, by_worker=by_worker)
    site = here(); loader = DataLoader(dataset, batch_size=8, num_workers=2, persistent_workers=True, worker_init_fn=note_worker_pid)
    truth.epochs(truth.loader(site), loader, 2)


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


def rank_killed(truth, rank, world):
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
    batches = truth.cut_short(entry)
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



# A rank that ends itself mid-epoch: an exception, or os._exit(0).
ENDING_RANK = 1


class UnreadableSample(Exception):
    """What a collate_fn raises on a sample it cannot decode."""


def rank_ends_early(truth, rank, world, how):
    """64 samples, 2 ranks, no shuffle, no workers: rank 0 reads its 8
    batches; rank 1 reads 1, 3, 5, ... and ends at its batch #2 ([17, 19,
    21, 23]): how "raise": its collate_fn raises UnreadableSample on that
    batch (the loop got #0 and #1); how "exit0": os._exit(0) in the loop
    body once it got that batch. Before it ends it meets rank 0 at the
    barrier main() would have run, writes its truth and waits for rank 0 to
    have exited: rank 0 waits for no one, no launcher stops anyone."""
    pids = [None] * world
    dist.all_gather_object(pids, os.getpid())
    calls = []

    def leave(killed):
        truth.killed = killed
        dist.barrier()
        truth.write(os.environ[TRUTH_ENV], rank, world)
        for other, pid in enumerate(pids):
            if other != rank:
                wait_gone(pid)

    def collate(samples):
        calls.append(len(calls))
        if how == "raise" and rank == ENDING_RANK and len(calls) == 3:
            indices = [int(s) for s in samples]
            error = UnreadableSample(f"sample {indices[0]} cannot be decoded")
            kind = type(error)
            leave({"batch": 2, "indices": indices, "raised": f"{kind.__module__}.{kind.__qualname__}: {error}"})
            raise error
        return torch.stack(samples)

    dataset = IndexDataset(64)
    sampler = DistributedSampler(dataset, shuffle=False)
    site = here(); loader = DataLoader(dataset, batch_size=4, sampler=sampler, collate_fn=collate)
    entry = truth.loader(site)
    if rank != ENDING_RANK:
        truth.read(entry, loader)
        return
    # The truth is written from inside the loop: its epoch is there already.
    batches = truth.cut_short(entry)
    for batch in loader:
        batches.append(items(batch))
        if how == "exit0" and len(batches) == 3:
            leave({"batch": 2, "indices": batches[-1]})
            os._exit(0)

def end_process_group():
    """Ends a rank program the way the bundled examples do
    (examples/tiny_ddp.py's end_process_group: torch 2.x's gloo can abort
    the interpreter's exit after a DDP backward), once loaders that only a
    reference cycle kept are freed, so that their workers are shut down as
    at a normal exit."""
    gc.collect()
    source = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    spec = importlib.util.spec_from_file_location("tiny_ddp", os.path.join(source, "examples", "tiny_ddp.py"))
    examples = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(examples)
    examples.end_process_group()


# A rank that aborts after its loops ended (rank_abort_*).
ABORTING_RANK = 1


def abort_in_destroy(rank):
    """dist.destroy_process_group as ranks.py calls it once the truth is
    written: the real one, then rank 1 raises SIGABRT (as torch 2.x's gloo
    does at interpreter exit: examples/tiny_ddp.py's end_process_group) and
    the others wait there for the launcher's SIGTERM."""
    real = dist.destroy_process_group

    def destroy(*args, **kwargs):
        real(*args, **kwargs)
        if rank == ABORTING_RANK:
            os.kill(os.getpid(), signal.SIGABRT)
        time.sleep(120)

    dist.destroy_process_group = destroy


# accelerate's dispatcher: rank 0 reads, every rank gets a slice. ACCELERATE
def accelerator_dispatching(dispatch):
    """make_accelerator with dispatch_batches as given, in the spelling of
    the accelerate installed."""
    acc = accelerate()
    if hasattr(acc, "DataLoaderConfiguration"):  # accelerate >= 0.28
        return make_accelerator(dataloader_config=acc.DataLoaderConfiguration(dispatch_batches=dispatch))
    return make_accelerator(dispatch_batches=dispatch)


def prepared_stream(truth, stream, dispatch):
    """stream read by DataLoader(batch_size=8) through
    accelerator.prepare() with dispatch_batches as given, 2 epochs; the
    user's loader is in the truth, never iterated."""
    site = here(); loader = DataLoader(stream, batch_size=8)
    accelerator = accelerator_dispatching(dispatch)
    psite = here(); prepared = accelerator.prepare(loader)
    truth.loader(site)
    truth.epochs(truth.loader(psite), prepared, 2)


def dispatcher(truth, rank, world, workers=0):
    dataset = IndexDataset(402)
    site = here(); loader = DataLoader(dataset, batch_size=8, shuffle=True, num_workers=workers, persistent_workers=bool(workers), worker_init_fn=note_worker_pid if workers else None)
    accelerator = accelerator_dispatching(True)
    # Rank 0 draws all 51 batches of 8; each step concatenates 4 of them and
    # rank r keeps [8r, 8r+8): 13 steps, the last [0:5]..[15:20] of 18 samples
    # padded with the epoch's first 4 (rank 3: 101 samples, 2 also rank 0's).
    psite = here(); prepared = accelerator.prepare(loader)
    truth.loader(site)
    truth.epochs(truth.loader(psite), prepared, 2)


# --- webdataset shards -------------------------------------------------------

def webdataset_shards(count, size):
    """count tar shards of size samples each, written with webdataset's
    ShardWriter into a directory of this process's own (removed at exit):
    sample k of shard s holds the int value s * size + k ("cls"), so a
    sample says which one it is on every rank. Returns the shards' paths."""
    import atexit
    import shutil
    import tempfile
    import webdataset as wds
    where = tempfile.mkdtemp(prefix="accwatch-wds-")
    atexit.register(shutil.rmtree, where, ignore_errors=True)
    with wds.ShardWriter(os.path.join(where, "shard-%02d.tar"), maxcount=size, verbose=0) as sink:
        for value in range(count * size):
            sink.write({"__key__": f"sample{value:05d}", "cls": value})
    return [os.path.join(where, f"shard-{s:02d}.tar") for s in range(count)]


def webdataset_value(sample):
    """A decoded webdataset sample as its value (see webdataset_shards)."""
    return sample["cls"]


def webdataset_row(sample):
    """A decoded webdataset sample as a row {"index": its value}: batched
    by the pipeline, a batch of them is {"index": the values}."""
    return {"index": sample["cls"]}


# --- litdata -----------------------------------------------------------------

def litdata_item(index):
    """The sample litdata.optimize stores for an input: the index itself."""
    return index


def litdata_epochs(truth, rank, world, streaming_loader, workers=2):
    """3 epochs of a litdata StreamingDataset(shuffle=True) of 120 items in
    chunks of 10, built by rank 0 with litdata.optimize into the truth
    directory (local files, no network), read in batches of 4 by `workers`
    workers: litdata's StreamingDataLoader when streaming_loader (it sets
    the dataset's epoch before each pass), else a plain torch DataLoader
    (workers get a copy of the dataset as it was at epoch 1, every pass;
    without workers the dataset moves its own epoch at each pass's end)."""
    # litdata's caches (optimize's chunks under the temporary directory by
    # default, /tmp/chunks) in this run's own directory.
    for name, sub in (("LITDATA_CACHE_DIR", "cache"), ("DATA_OPTIMIZER_CACHE_FOLDER", "chunks"),
                      ("DATA_OPTIMIZER_DATA_CACHE_FOLDER", "data")):
        os.environ[name] = os.path.join(os.environ[TRUTH_ENV], f"litdata-{sub}-{rank}")
    import litdata
    where = os.path.join(os.environ[TRUTH_ENV], "litdata-optimized")
    if rank == 0:
        litdata.optimize(fn=litdata_item, inputs=list(range(120)), output_dir=where, chunk_size=10,
                         num_workers=1)
    dist.barrier()
    dataset = litdata.StreamingDataset(where, shuffle=True, seed=5)
    kind = litdata.StreamingDataLoader if streaming_loader else DataLoader
    site = here(); loader = kind(dataset, batch_size=4, num_workers=workers, worker_init_fn=note_worker_pid)
    entry = truth.loader(site)
    for _ in range(3):
        truth.read(entry, loader)


# --- the scenario files ------------------------------------------------------

SCENARIOS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "scenarios")


def scenario_names():
    return sorted(name[:-3] for name in os.listdir(SCENARIOS) if name.endswith(".py"))


def load_scenario(name):
    """The module scenarios/<name>.py."""
    import importlib.util
    path = os.path.join(SCENARIOS, f"{name}.py")
    spec = importlib.util.spec_from_file_location(f"scenario_{name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# --- a job restarted by torchrun --------------------------------------------

def wait_file(path, seconds=60):
    for _ in range(int(seconds / 0.05)):
        if os.path.exists(path):
            return
        time.sleep(0.05)
    raise TimeoutError(path)


class UnseededShard(Sampler):
    """The rank's share of a dataset (indices i % world == rank) in an
    order drawn anew every pass from a generator seeded by the operating
    system: no seed, no epoch, no state a checkpoint could save, so a
    process started again draws another order."""

    def __init__(self, length, rank, world):
        self.mine = list(range(rank, length, world))

    def __iter__(self):
        generator = torch.Generator()
        generator.seed()
        order = torch.randperm(len(self.mine), generator=generator).tolist()
        return iter([self.mine[i] for i in order])

    def __len__(self):
        return len(self.mine)


def restarted_stateful(truth, rank, world, set_epoch, unseeded=False, last=4):
    """Two ranks (restart_ranks.py: no process group) under torchrun
    --max-restarts 1, a StatefulDataLoader over
    64 samples (DistributedSampler, shuffled, batches of 4; an
    UnseededShard when unseeded). The first
    attempt reads epoch 0, saves the loader's state_dict after batch #2 of
    epoch 1, and at batch #`last` writes its truth; then rank 1 exits with
    status 1 and rank 0 waits to be stopped. The second attempt (new
    processes, same ranks) restores the state (after set_epoch(1) when
    set_epoch) and reads the rest of the pass and then epoch 2."""
    from torchdata.stateful_dataloader import StatefulDataLoader
    state_path = os.path.join(os.environ[TRUTH_ENV], f"state-{rank}.pt")
    dataset = IndexDataset(64)
    if unseeded:
        sampler = UnseededShard(64, rank, world)
    else:
        sampler = DistributedSampler(dataset, num_replicas=world, rank=rank, shuffle=True, seed=3)
    site = here(); loader = StatefulDataLoader(dataset, batch_size=4, sampler=sampler)
    entry = truth.loader(site)
    move = getattr(sampler, "set_epoch", lambda epoch: None)
    if attempt() == 0:
        truth.read(entry, loader)
        move(1)
        batches = truth.cut_short(entry)
        for batch in loader:
            batches.append(items(batch))
            if len(batches) == 3:
                torch.save(loader.state_dict(), state_path)
            if len(batches) == last + 1:
                truth.write(os.environ[TRUTH_ENV], rank, world)
                if rank == 1:  # once rank 0 is there too
                    wait_file(os.path.join(os.environ[TRUTH_ENV], "rank-0.json"))
                    os._exit(1)
                time.sleep(300)  # until torchrun stops it
        raise AssertionError("the first attempt ran past its failure")
    state = torch.load(state_path, weights_only=False)
    if set_epoch:
        move(1)
    loader.load_state_dict(state)
    truth.read(entry, loader)
    move(2)
    truth.read(entry, loader)
