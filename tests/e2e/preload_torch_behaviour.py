# SPDX-License-Identifier: MIT
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
from torch.utils.data import (BatchSampler, DataLoader, Dataset, DistributedSampler,
                              IterableDataset, RandomSampler, SequentialSampler)
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
                     Join.__exit__, BatchSampler.__iter__,
                     SequentialSampler.__iter__, RandomSampler.__iter__,
                     DistributedSampler.__iter__):
        show(function.__qualname__, inspect.signature(function))
    show("doc", DataLoader.__init__.__doc__ == DataLoader.__init__.__doc__)
    # Read from the class and set back (Lightning's _replace_dunder_methods):
    # it must still bind as a method.
    init = DataLoader.__init__
    DataLoader.__init__ = init
    loader = DataLoader(Squares(), batch_size=5)
    show("set back", DataLoader.__init__ is init, len(loader),
         inspect.signature(loader.__init__))


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


# --- tracebacks through every wrapped entry point ---------------------------

def seen_inside():
    """What code called through a wrapped entry point sees of its callers:
    inspect.stack() and a sys._getframe() walk, from its caller outwards."""
    frame = sys._getframe(1)
    walk = []
    while frame is not None:
        walk.append((frame.f_code.co_filename, frame.f_lineno,
                     frame.f_code.co_name))
        frame = frame.f_back
    stack = [(info.filename, info.lineno, info.function, info.code_context,
              info.index) for info in inspect.stack()[1:]]
    return walk, stack


class Probe(Exception):
    """Raised by the program's own code, deep inside torch's."""


def probe(where):
    """Notes what the code calling it sees, then raises Probe."""
    raise Probe(where, seen_inside())


def through(name, call):
    """Runs call, which raises through an entry point accwatch wraps, and
    prints the exception's whole formatted traceback and what the raising
    code saw of its callers."""
    try:
        call()
    except Exception as error:
        show("traceback of", name)
        show("".join(traceback.format_exception(type(error), error,
                                                error.__traceback__)))
        if isinstance(error, Probe):
            walk, stack = error.args[1]
            show("getframe walk", walk)
            show("inspect.stack", stack)
    else:
        show("no exception through", name)


class SetattrProbe(DataLoader):
    """DataLoader.__init__ sets attributes through __setattr__: the
    program's own code inside torch's __init__."""

    def __setattr__(self, name, value):
        if name == "batch_size":
            probe("DataLoader.__init__")
        super().__setattr__(name, value)


class LenProbe(torch.utils.data.Sampler):
    def __init__(self):
        pass

    def __iter__(self):
        return iter(range(4))

    def __len__(self):
        probe("DataLoader.__len__")


class IterProbe:
    """A batch sampler whose iter() raises at once: inside
    _BaseDataLoaderIter.__init__, under DataLoader.__iter__."""

    def __iter__(self):
        probe("_BaseDataLoaderIter.__init__")

    def __len__(self):
        return 1


class NextProbe:
    """A batch sampler whose iterator raises on its first next(): inside
    _next_index, under __next__."""

    def __iter__(self):
        return self

    def __next__(self):
        probe("_next_index")

    def __len__(self):
        return 1


class ItemProbe(Squares):
    def __getitem__(self, i):
        probe("__next__ / fetch")


class HookProbe(object):
    """A Join hook whose post_hook raises: inside Join.__exit__."""

    def main_hook(self):
        pass

    def post_hook(self, is_last_joiner):
        probe("Join.__exit__")


def rendezvous_probe(url, **kwargs):
    probe("init_process_group")


def tracebacks():
    through("DataLoader.__init__", lambda: SetattrProbe(Squares()))
    through("DataLoader.__init__ (torch raises)",
            lambda: DataLoader(Squares(), batch_size=0))
    through("DataLoader.__len__",
            lambda: len(DataLoader(Squares(), sampler=LenProbe())))
    through("DataLoader.__iter__",
            lambda: iter(DataLoader(Squares(), batch_sampler=IterProbe())))
    through("_next_index",
            lambda: next(iter(DataLoader(Squares(),
                                         batch_sampler=NextProbe()))))
    through("__next__", lambda: next(iter(DataLoader(ItemProbe()))))

    def subclass():
        class Keyworded(DataLoader, flavour="sweet"):
            pass
    through("DataLoader.__init_subclass__", subclass)
    through("init_process_group (bad backend)",
            lambda: torch.distributed.init_process_group(
                backend="no-such-backend", init_method="tcp://127.0.0.1:1",
                rank=0, world_size=1))
    torch.distributed.register_rendezvous_handler("awprobe", rendezvous_probe)
    through("init_process_group (rendezvous)",
            lambda: torch.distributed.init_process_group(
                backend="gloo", init_method="awprobe://here", rank=0,
                world_size=1))
    store = os.path.join(os.getcwd(), "behaviour.store")
    torch.distributed.init_process_group(
        backend="gloo", init_method="file://" + store, rank=0, world_size=1)
    try:
        from torch.distributed.algorithms.join import Joinable

        class Joining(Joinable):
            def __init__(self):
                super().__init__()

            def join_hook(self, **kwargs):
                return HookProbe()

            @property
            def join_device(self):
                return torch.device("cpu")

            @property
            def join_process_group(self):
                return torch.distributed.group.WORLD

        def join():
            with Join([Joining()]):
                pass
        through("Join.__exit__", join)
    finally:
        torch.distributed.destroy_process_group()


def pickling():
    loader = DataLoader(Squares(), batch_size=4, shuffle=True)
    for obj in (loader.dataset, loader.sampler, worker_module._worker_loop,
                DataLoader.__init__, DataLoader.__iter__,
                torch.distributed.init_process_group):
        copy = pickle.loads(pickle.dumps(obj))
        # The wrapped functions' own type is accwatch's C callable, not
        # `function` (README): what they pickle to is compared.
        show("pickle", type(obj).__name__ if not callable(obj)
             or isinstance(obj, Dataset) else obj.__qualname__,
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
    through("Dataset._select_contiguous",
            lambda: full._select_contiguous(30, 20))


if __name__ == "__main__":
    signatures()
    errors()
    tracebacks()
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
