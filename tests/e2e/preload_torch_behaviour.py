# What a torch program can observe of the DataLoader: printed so that
# preload_torch_behaviour.sh can compare a run with libaccwatch.so to one without.
import gc
import inspect
import os
import pickle
import sys
import threading
import time
import traceback

import torch
import torch.distributed
import torch.utils.data._utils.worker as worker_module
from torch.distributed.algorithms.join import Join
from torch.utils.data import DataLoader, Dataset, IterableDataset
from torch.utils.data.dataloader import _BaseDataLoaderIter
from torch.utils.data._utils.fetch import _MapDatasetFetcher


class Squares(Dataset):
    def __len__(self):
        return 20

    def __getitem__(self, i):
        return i * i


class Failing(Squares):
    raised = None

    def __getitem__(self, i):
        if i == 5:
            Failing.raised = ValueError("item %d is broken" % i)
            raise Failing.raised
        return i


class MyStop(StopIteration):
    pass


class Stream(IterableDataset):
    stop = MyStop("custom end")

    def __iter__(self):
        return self

    def __next__(self):
        raise Stream.stop


class Counting(IterableDataset):
    def __iter__(self):
        return iter(range(10))


def show(*args):
    print(*args)
    sys.stdout.flush()


def signatures():
    for function in (DataLoader.__init__, DataLoader.__iter__,
                     DataLoader.__len__, _BaseDataLoaderIter.__init__,
                     _BaseDataLoaderIter.__next__,
                     _BaseDataLoaderIter._next_index, _MapDatasetFetcher.fetch,
                     torch.distributed.init_process_group, Join.__enter__,
                     Join.__exit__):
        show(function.__qualname__, inspect.signature(function))
    show("doc", DataLoader.__init__.__doc__ == DataLoader.__init__.__doc__)


def errors():
    loader = DataLoader(Failing(), batch_size=2)
    try:
        list(loader)
    except ValueError as error:
        show("main", type(error).__name__, error, error is Failing.raised)
        # The frames the error passed through: the recorder's per-batch
        # methods are C, so a recorded run shows exactly torch's frames.
        show("main frames", [(frame.name, os.path.basename(frame.filename))
                             for frame in traceback.extract_tb(
                                 error.__traceback__)])
    loader = DataLoader(Failing(), batch_size=2, num_workers=2)
    try:
        list(loader)
    except ValueError as error:
        # torch puts the worker's traceback into the message.
        show("worker", type(error).__name__, str(error))
    # The failed iterator sits in a cycle with the traceback: collect it
    # here, not at a random time in a later forked worker.
    gc.collect()
    it = iter(DataLoader(Stream(), batch_size=None))
    try:
        next(it)
    except StopIteration as stop:
        show("stop", type(stop).__name__, stop.args, stop is Stream.stop)
    it = iter(DataLoader(Squares(), batch_size=10))
    show("batches", [b.tolist() for b in it])
    try:
        next(it)
    except StopIteration as stop:
        show("stop again", type(stop).__name__, stop.args)
    for bad in ({"batch_size": 0}, {"num_workers": -1},
                {"sampler": [1], "shuffle": True}):
        try:
            DataLoader(Squares(), **bad)
        except ValueError as error:
            show("bad arguments", bad, error)


def pickling():
    loader = DataLoader(Squares(), batch_size=4, shuffle=True)
    for obj in (loader.dataset, loader.sampler, worker_module._worker_loop,
                DataLoader.__init__, DataLoader.__iter__,
                torch.distributed.init_process_group):
        copy = pickle.loads(pickle.dumps(obj))
        show("pickle", type(obj).__name__,
             copy is obj if callable(obj) and not isinstance(obj, Dataset)
             else type(copy).__name__)


def iterate():
    for context in (None, "fork", "spawn", "forkserver"):
        loader = DataLoader(Squares(), batch_size=3,
                            num_workers=0 if context is None else 2,
                            multiprocessing_context=context)
        show(context, len(loader), [b.tolist() for b in loader])
    loader = DataLoader(Squares(), batch_size=3, num_workers=2,
                        persistent_workers=True)
    for epoch in range(2):
        show("persistent", epoch, sum(b.sum().item() for b in loader))
    loader = DataLoader(Counting(), batch_size=4, num_workers=2)
    show("iterable", sorted(x for b in loader for x in b.tolist()))
    loader = DataLoader(Squares(), batch_size=None)
    show("unbatched", [int(x) for x in loader])
    it = iter(DataLoader(Squares(), batch_size=4))
    show("partial", next(it).tolist(), len(it))
    del it


def hf_datasets():
    """HF datasets' contiguous selects (patched when recorded): the same
    rows, signature, fingerprints and pickles (venv only)."""
    try:
        import datasets
    except ImportError:
        show("datasets: not installed")
        return
    datasets.disable_progress_bars()
    full = datasets.Dataset.from_dict({"i": list(range(40))})
    show("select signature", inspect.signature(datasets.Dataset._select_contiguous))
    for shard in (full.shard(4, 1), full.select(range(5, 15)),
                  full.shard(4, 2).shuffle(seed=3).with_format("torch"),
                  full.shard(4, 3, contiguous=False).shard(2, 1)):
        copy = pickle.loads(pickle.dumps(shard))
        show("shard", len(shard), shard._fingerprint, [int(x) for x in shard["i"]],
             [int(x) for x in copy["i"]])
    try:
        full.select(range(30, 50))
    except IndexError as error:
        show("select error", type(error).__name__, error)


if __name__ == "__main__":
    signatures()
    errors()
    pickling()
    iterate()
    # Queue feeder threads of finished loaders exit asynchronously.
    gc.collect()
    deadline = time.monotonic() + 10
    while threading.active_count() > 1 and time.monotonic() < deadline:
        time.sleep(0.05)
    show("python threads", threading.active_count())
    hf_datasets()  # after the count: datasets may start a thread
    sys.stderr.write("stderr end\n")
    sys.exit(3)
