# SPDX-License-Identifier: MIT
"""Small stand-ins for what the bootstrap (recorder/boot/*.py) meets in a torch
process, for its unit tests: the recorder module `_aw` (it keeps the events
instead of emitting them, and refuses a field the catalogue does not have),
and the few torch modules the bootstrap patches, reduced to what it reads.
Behaviour with the real torch, accelerate and torchdata is the e2e suite's."""
import glob
import importlib.util
import os
import re
import sys
import types

import catalogue

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
BOOT = os.path.join(SOURCE, "recorder", "boot")
CATALOGUE = os.path.join(SOURCE, "tracepoints", "accwatch_catalogue.def")
RECORD_H = os.path.join(SOURCE, "recorder", "accwatch_record.h")
UNKNOWN = (1 << 32) - 1


def hot_slots():
    """The names of the recorder's ACCWATCH_HOT_SLOTS, as _aw.HOT_SLOTS."""
    text = open(RECORD_H).read()
    block = re.search(r"#define ACCWATCH_HOT_SLOTS\(S\)((?:[^\n]*\\\n)*[^\n]*)", text).group(1)
    return " ".join(re.findall(r"S\(\w+, (\w+)\)", block))


class Recorder(types.ModuleType):
    """The module `_aw`: events land in .events as (name, fields)."""
    UNKNOWN = UNKNOWN
    BOOT_PREFIX = "<accwatch_boot/"
    DEBUG = 1
    HOT_SLOTS = hot_slots()

    def __init__(self):
        super().__init__("accwatch_record")
        self.events = []
        self.messages = []
        self.on = True
        lists, events = catalogue.read(CATALOGUE)
        for name, (fields, sequence) in events.items():
            if sequence == "none":
                setattr(self, name, self._event(name, lists[fields], ()))
        for name, (fields, extra) in catalogue.SEQUENCE_CALLS.items():
            setattr(self, name, self._event(name, lists[fields], extra))

    def _event(self, name, fields, extra):
        allowed = set(fields) | set(extra)

        def emit(*args, **kwargs):
            assert not args, f"{name} called with positional arguments {args}"
            unknown = set(kwargs) - allowed
            assert not unknown, f"{name} has no field {sorted(unknown)}"
            if name in ("batch", "worker_fetch") and "indices" in kwargs:
                kwargs["indices"] = list(kwargs["indices"])
            self.events.append((name, kwargs))
        return emit

    def of(self, name):
        return [fields for event, fields in self.events if event == name]

    def recording(self):
        return self.on

    def hot_methods(self, *args):
        return None  # the Python per-batch wrappers serve

    def hot_descriptors(self, *args):
        return None

    def hot_forget(self):
        return None

    def instancemethod(self, function):
        return _InstanceMethod(function)

    def around(self, target, before, after):
        # The real one is C: no frame between the caller and target. This
        # one's frame is named as the bootstrap's, which the bootstrap
        # leaves out when it looks for the user's frame.
        namespace = {}
        exec(compile(_AROUND, self.BOOT_PREFIX + "fake_around>", "exec"), namespace)
        return namespace["make"](target, before, after)

    def call_before(self, target, before):
        def call(*args, **kwargs):
            before(*args, **kwargs)
            return target(*args, **kwargs)
        return call

    def call_around(self, target, before):
        def call(*args, **kwargs):
            token = before(*args, **kwargs)
            ok = 0
            try:
                result = target(*args, **kwargs)
                ok = 1
                return result
            finally:
                if token is not None:  # worker_fetch_end's fields by name
                    self.worker_fetch_end(**token, ok=ok)
        return call

    def debug(self, message):
        self.messages.append(message)


def module(name, **attributes):
    result = types.ModuleType(name)
    result.__file__ = "/fake/%s/__init__.py" % name.replace(".", "/")
    result.__dict__.update(attributes)
    return result


# --- torch.utils.data, reduced ----------------------------------------------

# The samplers of the stand-in torch the Python-versions test uses.
_SAMPLERS = os.path.join(SOURCE, "tests", "e2e", "preload_fake_torch", "torch", "utils", "data", "sampler.py")
_spec = importlib.util.spec_from_file_location("fake_torch_sampler", _SAMPLERS)
samplers = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(samplers)


class WorkerInfo:
    def __init__(self, id, num_workers, seed):
        self.id, self.num_workers, self.seed = id, num_workers, seed


class Distributed:
    """torch.distributed's process group, reduced: init_process_group(backend)."""
    def __init__(self, rank, world):
        self.rank, self.world, self.backend = rank, world, None

    def init_process_group(self, backend, **kwargs):
        self.backend = backend

    def get_rank(self):
        return self.rank

    def get_world_size(self):
        return self.world

    def get_backend(self):
        return self.backend


def torch_modules(worker=None, rank=0, world=1):
    """sys.modules entries of a torch process, its classes made anew (the
    bootstrap patches them in place); worker: the WorkerInfo a DataLoader
    worker process would have."""

    class _DatasetKind:
        Map = 0
        Iterable = 1


    class _BaseDataLoaderIter:
        def __init__(self, loader):
            self._dataset = loader.dataset
            self._sampler_iter = iter(loader.batch_sampler)

        def __iter__(self):
            return self

        def _reset(self, loader, first_iter=False):
            self._sampler_iter = iter(loader.batch_sampler)

        def _next_index(self):
            return next(self._sampler_iter)

        def __next__(self):
            return [self._dataset[i] for i in self._next_index()]


    class _SingleProcessDataLoaderIter(_BaseDataLoaderIter):
        pass


    class DataLoader:
        def __init__(self, dataset, batch_size=1, shuffle=False, sampler=None, batch_sampler=None,
                     num_workers=0, drop_last=False, persistent_workers=False):
            self.dataset = dataset
            self.batch_size = batch_size
            self.drop_last = drop_last
            self.num_workers = num_workers
            self.persistent_workers = persistent_workers
            self.prefetch_factor = None
            self.multiprocessing_context = None
            self._dataset_kind = _DatasetKind.Map
            self.sampler = sampler or (samplers.RandomSampler(dataset) if shuffle
                                           else samplers.SequentialSampler(dataset))
            self.batch_sampler = batch_sampler or samplers.BatchSampler(self.sampler, batch_size, drop_last)

        def __len__(self):
            return len(self.batch_sampler)

        def __iter__(self):
            return _SingleProcessDataLoaderIter(self)


    class _BaseDatasetFetcher:
        def __init__(self, dataset, auto_collation, collate_fn, drop_last):
            self.dataset, self.auto_collation = dataset, auto_collation
            self.collate_fn, self.drop_last = collate_fn, drop_last


    class _MapDatasetFetcher(_BaseDatasetFetcher):
        def fetch(self, possibly_batched_index):
            return self.collate_fn([self.dataset[i] for i in possibly_batched_index])


    class _IterableDatasetFetcher(_BaseDatasetFetcher):
        pass

    group = Distributed(rank, world)
    c10d = module("torch.distributed.distributed_c10d", init_process_group=group.init_process_group,
                  get_rank=group.get_rank, get_world_size=group.get_world_size,
                  get_backend=group.get_backend)
    dist = module("torch.distributed", **{name: getattr(c10d, name) for name in (
        "init_process_group", "get_rank", "get_world_size", "get_backend")})
    return {
        "torch": module("torch", __version__="0.0+fake", Tensor=None),
        "torch.utils.data.dataloader": module(
            "torch.utils.data.dataloader", DataLoader=DataLoader, _DatasetKind=_DatasetKind,
            _BaseDataLoaderIter=_BaseDataLoaderIter, _SingleProcessDataLoaderIter=_SingleProcessDataLoaderIter),
        "torch.utils.data.sampler": module("torch.utils.data.sampler",
                                           SequentialSampler=samplers.SequentialSampler,
                                           RandomSampler=samplers.RandomSampler,
                                           BatchSampler=samplers.BatchSampler),
        "torch.utils.data._utils.fetch": module(
            "torch.utils.data._utils.fetch", _BaseDatasetFetcher=_BaseDatasetFetcher,
            _MapDatasetFetcher=_MapDatasetFetcher, _IterableDatasetFetcher=_IterableDatasetFetcher),
        "torch.utils.data._utils.worker": module("torch.utils.data._utils.worker",
                                                 get_worker_info=lambda: worker),
        "torch.distributed": dist,
        "torch.distributed.distributed_c10d": c10d,
    }


def run_bootstrap(monkeypatch, modules):
    """Runs the bootstrap's parts as libaccwatch-record.so does (in name
    order, one namespace, `_aw` injected) over the given sys.modules
    entries; (namespace, recorder)."""
    for name, value in modules.items():
        monkeypatch.setitem(sys.modules, name, value)
    recorder = Recorder()
    namespace = {"__name__": "accwatch_boot", "_aw": recorder, "__builtins__": __builtins__}
    for part in sorted(glob.glob(os.path.join(BOOT, "*.py"))):
        code = compile(open(part).read(), Recorder.BOOT_PREFIX + os.path.basename(part) + ">", "exec")
        exec(code, namespace)
    return namespace, recorder


class _InstanceMethod:
    """types.InstanceMethod's behaviour (what _aw.instancemethod makes): a
    callable bound as a method, its attributes those of the callable."""

    def __init__(self, function):
        self.__func__ = function

    def __get__(self, obj, owner=None):
        return self.__func__ if obj is None else types.MethodType(self.__func__, obj)

    def __call__(self, *args, **kwargs):
        return self.__func__(*args, **kwargs)

    def __getattr__(self, name):
        return getattr(self.__func__, name)


_AROUND = """
def make(target, before, after):
    def call(*args, **kwargs):
        token = before(*args, **kwargs) if before is not None else None
        try:
            if target is None:
                result = token(*args[1:], **kwargs)
            else:
                result = target(*args, **kwargs)
        except BaseException as raised:
            if after is not None:
                after(token, None, raised)
            raise
        return after(token, result, None) if after is not None else result
    return call
"""
