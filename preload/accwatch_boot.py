# accwatch bootstrap: run once per torch process by libaccwatch-record.so; it
# wraps the DataLoader methods whose calls become accwatch trace events.
#
# Defined by C before this runs: the module _aw (accwatch_record.c) with one
# function per event, called by keyword with the event's fields
# (tracepoints/accwatch_catalogue.def; a field not given is absent in the
# trace), the helpers (batch, worker_fetch, item_fetch, hot_methods,
# call_before, ...; they never raise) and UNKNOWN, BOOT_FILE, DEBUG.
#
# Rules every wrapper keeps: the wrapped call behaves as before (same result,
# same exception object, StopIteration above all); functools.wraps keeps
# __wrapped__ so inspect.signature still works; nothing is stored on user
# objects (dicts keyed by id(), cleaned by weakref.finalize); everything of our
# own runs inside try/except Exception. Objects that spawn/forkserver pickle by
# reference (_worker_loop, datasets) are never replaced. One exception to "no
# attribute": inside DataLoader workers only, torch's own dataset fetcher gets
# an instance attribute `fetch`, a C trampoline, so that no frame of ours sits
# between the worker loop and __getitem__ (torch copies that traceback into
# the message of the error it re-raises in the main process). The per-batch
# methods are C too on 3.9+ (accwatch_record_hot.c), so no frame of ours shows
# in a traceback through __next__ either; on 3.8 their Python fallbacks do.
#
# Events and what they mean (the analyzer's side of the contract):
# - process: at attach (role "" -> C picks "rank" when a rank variable
#   answered, else "other"; "other" in a spawn/forkserver child), again in
#   every forked child (role "other"), and again with role "worker" when the
#   process turns out to be a DataLoader worker (just before worker_start).
#   The last process event of a pid wins.
# - loader_new: once per DataLoader object, when DataLoader.__init__ returns
#   (a subclass calling super().__init__ gives one); loader ids count from 0
#   per pid (a forked child continues its parent's count).
# - loader_wrap: when accelerate builds an outer loader (DataLoaderShard,
#   DataLoaderDispatcher, SkipDataLoader). v1.x adapters are not DataLoaders:
#   the outer gets its own loader_new (loader_class = its real type) and inner
#   is its base_dataloader, the DataLoader that is iterated (iter_begin, batch
#   and iter_end carry the inner's id). v0.2x subclasses: inner == outer.
#   kind "shard", "dispatcher" or "skip"; fields from the BatchSamplerShard or
#   IterableDatasetShard below the inner loader, or the dispatcher's own.
# - loader_len: once per distinct (loader, value, call site), on the object
#   len() was called on, with the value the caller got; a len() nested in
#   another loader's len() (an adapter asking its inner loader) is not sent.
# - iter_begin: every DataLoader.__iter__ (an epoch), before the original
#   runs; iteration counts from 0 per loader. An iterator made without
#   DataLoader.__iter__ (subclasses overriding it) begins one as well, and
#   so does a persistent iterator _reset outside it (torchdata's
#   StatefulDataLoader, whose __init__ and __iter__ are patched too).
# - batch: every _next_index of the main process (drawn, including the
#   prefetch of workers); batch = draw ordinal within the iteration.
#   Not sent for IterableDataset loaders (their indices are placeholders).
# - iter_end: exactly once per iteration: exhausted=1 on StopIteration;
#   exhausted=0 when abandoned (iterator collected, e.g. after a loop break;
#   next __iter__ of the same loader; __iter__ raising; interpreter exit).
#   drawn = batches drawn, yielded = batches __next__ returned.
# - Recorded iterations: an iteration (and a worker's fetcher) is recorded
#   when a session has our events enabled as it begins (_aw.recording()).
#   Only then do the per-batch methods (_next_index, __next__) sit on the
#   class (_Switch): without a session batches run torch's own methods. A
#   session started mid-epoch sees the next epoch on.
# - worker_start / worker_fetch / worker_fetch_end: in DataLoader workers
#   only (map-style datasets for worker_fetch); worker_start when the worker
#   builds its first dataset fetcher, before any fetch.
#   loader/iteration are ids of loader_pid, the process that started the
#   worker, at its start (+1 per later epoch of a persistent worker): through
#   fork, or through multiprocessing's process config (_MP_BASE_KEY) for
#   spawn and forkserver; ACCWATCH_UNKNOWN (loader_pid -1) when unknown.
#   worker_fetch.batch counts fetches per worker and epoch; worker_fetch is
#   emitted before the dataset is read, worker_fetch_end (same worker_id,
#   loader, iteration, batch; ok 0 if the fetch raised) after it: a fetch
#   without an end was running when the worker died or the trace ended.
# - item_fetch: IterableDataset loaders, in workers (worker_id, batch = the
#   worker's fetch ordinal, like worker_fetch) and in the main process
#   (worker_id -1, batch = the iteration's draw ordinal); one xxh64 per item
#   handed to collate_fn, in order (C: accwatch_fingerprint.c: buffer bytes,
#   tensors through _item_view, containers element-wise, repr otherwise).
#   Items an IterableDataset produced but drop_last discarded are not sent.
# - dist_init: after torch.distributed.init_process_group returns.
# - exit / exec come from C (libaccwatch.so interposers; their fields in
#   tracepoints/accwatch_catalogue.def).

import functools
import os
import sys
import threading
import weakref

_UNKNOWN = _aw.UNKNOWN
_SEED_MASK = (1 << 64) - 1

_dl = sys.modules.get("torch.utils.data.dataloader")
_fetch = sys.modules.get("torch.utils.data._utils.fetch")
_workers = sys.modules.get("torch.utils.data._utils.worker")
_samplers = sys.modules.get("torch.utils.data.sampler")

_pid = os.getpid()
_next_loader = 0
_loaders = {}  # id(DataLoader) -> _Loader
# id() is the address: the C per-batch path (accwatch_record_hot.c) looks
# iterators up by address too.
_iters = {}  # id(_BaseDataLoaderIter) -> _Iteration
_initing = set()  # id(DataLoader) inside DataLoader.__init__
_lens = set()  # (loader, value, site) already emitted
_len_depth = threading.local()  # len() calls of loaders in progress
# rec: the _Iteration this thread is starting (DataLoader.__iter__ or iterator
# __init__ running); last: the last one it began, what a worker forked or
# spawned after belongs to (subclasses start workers after our wrappers
# returned).
_starting = threading.local()
# rec: the IterableDataset iteration whose batch this thread drew last (the
# main-process fetch that follows hashes its items).
_drawn = threading.local()
# Key of multiprocessing's per-process config that carries (loader,
# iteration) into spawn and forkserver workers: a Process copies its
# creator's config and pickles it to the child.
_MP_BASE_KEY = "accwatch_base"
_fork_base = (_UNKNOWN, _UNKNOWN, -1)  # (loader, iteration, pid) at our fork
_worker = None  # _Worker, in a DataLoader worker process
# Packages that build DataLoaders on the user's behalf (accelerate's
# prepare(), Lightning's sampler injection, torchdata): a loader's creation
# site is the first frame outside them, i.e. the user's call.
_FRAMEWORKS = ("torch", "accelerate", "lightning", "pytorch_lightning",
               "torchdata")
_prefixes = None  # directories of the _FRAMEWORKS imported so far
_prefixes_loaded = None  # which of them that was
_Tensor = getattr(sys.modules.get("torch"), "Tensor", None)
_ITERABLE_FETCHER = getattr(_fetch, "_IterableDatasetFetcher", ())


class _Loader(object):
    __slots__ = ("ordinal", "iterations", "current")

    def __init__(self, ordinal):
        self.ordinal = ordinal
        self.iterations = 0
        self.current = None


def _slot(index):
    return property(lambda self: self[index],
                    lambda self, value: self.__setitem__(index, value))


class _Iteration(list):
    """One pass over a loader. A list, so that the C per-batch path
    (accwatch_record_hot.c: ACCWATCH_HOT_*) reads and counts its first six
    slots without attribute lookups; Python uses the names."""
    __slots__ = ()
    loader = _slot(0)
    iteration = _slot(1)
    drawn = _slot(2)
    yielded = _slot(3)
    recorded = _slot(4)  # a session had our events on at its start
    indexed = _slot(5)
    open = _slot(6)
    pid = _slot(7)
    counted = _slot(8)  # holds the per-batch methods in place

    def __init__(self, loader, iteration, indexed, recorded):
        list.__init__(self, (loader, iteration, 0, 0, bool(recorded),
                             bool(indexed), True, _pid, False))


class _Switch(object):
    """The per-batch wrappers (_next_index, __next__) sit on the class only
    while a recorded iteration is open: without a session, batches run
    torch's own methods at no cost. Re-applied in a loop: a GC callback
    (_iterator_gone) may change the count while we set attributes."""
    __slots__ = ("methods", "open", "installed", "lock")

    def __init__(self):
        self.methods = []  # (owner, name, original, wrapper)
        self.open = 0
        self.installed = False
        self.lock = threading.RLock()

    def add(self, owner, name, original, wrapper):
        self.methods.append((owner, name, original, wrapper))

    def count(self, delta):
        with self.lock:
            self.open += delta
            while (self.open > 0) != self.installed:
                self.installed = not self.installed
                for owner, name, original, wrapper in self.methods:
                    setattr(owner, name,
                            wrapper if self.installed else original)


_switch = _Switch()


class _Worker(object):
    __slots__ = ("id", "loader", "base", "iteration", "fetchers", "fetches",
                 "loader_pid")


def _debug(what):
    if _aw.DEBUG:
        try:
            _aw.debug("%s: %r" % (what, sys.exc_info()[1]))
        except Exception:
            pass


def _int(value, default=-1):
    try:
        return value.__index__()
    except Exception:
        return default


def _flag(value):
    return int(value) if isinstance(value, bool) else -1


def _class_name(obj):
    if obj is None:
        return ""
    kind = type(obj)
    return "%s.%s" % (getattr(kind, "__module__", "?"),
                      getattr(kind, "__qualname__", kind.__name__))


# --- Python stacks -----------------------------------------------------------

def _internal_prefixes():
    global _prefixes, _prefixes_loaded
    modules = sys.modules
    loaded = tuple(name in modules for name in _FRAMEWORKS)
    if loaded != _prefixes_loaded:
        dirs = []
        for name in _FRAMEWORKS:
            path = getattr(modules.get(name), "__file__", None)
            if path:
                dirs.append(os.path.dirname(path) + os.sep)
        _prefixes = tuple(dirs)
        _prefixes_loaded = loaded
    return _prefixes


def _user_frame(frame):
    prefixes = _internal_prefixes()
    while frame is not None:
        path = frame.f_code.co_filename
        if path != _aw.BOOT_FILE and not path.startswith(prefixes):
            return frame
        frame = frame.f_back
    return None


def _site_of(frame):
    frame = _user_frame(frame)
    if frame is None:
        return ""
    return "%s:%s" % (frame.f_code.co_filename, frame.f_lineno)


def _format_stack(frame, limit):
    """"file:line function" per frame, innermost last, ours left out."""
    lines = []
    while frame is not None and len(lines) < limit:
        code = frame.f_code
        if code.co_filename != _aw.BOOT_FILE:
            lines.append("%s:%s %s" % (code.co_filename, frame.f_lineno,
                                       code.co_name))
        frame = frame.f_back
    lines.reverse()
    return "\n".join(lines)


def _thread_module(thread):
    """The module of the code a thread runs: its target's, or its class's
    run() where that is overridden."""
    code = getattr(thread, "_target", None)
    if code is None:
        code = type(thread).run
    code = getattr(code, "func", code)  # functools.partial
    module = getattr(code, "__module__", None)
    return module if isinstance(module, str) and module else "?"


def _fork_threads():
    """The Python threads alive besides this one and the main thread,
    "native_id module name" per line (Python < 3.14 does not give the OS
    thread its name; the module says whose code it runs). The main thread
    is the first of the native list; threads that threading only saw from
    outside (_DummyThread: native threads that called into Python) are left
    to their native names."""
    threading_ = sys.modules.get("threading")
    if threading_ is None:
        return ""
    skip = (threading_.get_ident(), threading_.main_thread().ident)
    dummy = getattr(threading_, "_DummyThread", ())
    lines = []
    plain_run = threading_.Thread.run
    for thread in threading_.enumerate():
        native = getattr(thread, "native_id", None)  # 3.8+
        if thread.ident in skip or native is None or isinstance(thread, dummy):
            continue
        if not hasattr(thread, "_target") and type(thread).run is plain_run:
            continue  # Thread.run() returned (it deletes _target): ending
        name = str(thread.name).replace("\n", " ")
        lines.append("%d %s %s%s" % (native, _thread_module(thread).replace(" ", "_"), name,
                                     " (daemon)" if thread.daemon else ""))
    return "\n".join(lines)


# Python 3.12+ warns (DeprecationWarning) at os.fork() in a process with
# more than one OS thread; LTTng-UST's listener threads are ours, not the
# program's. At every os.fork audit event the recorder says whether they are
# the only other threads, and _fork_quiet() keeps a filter for exactly that
# warning in warnings.filters while they are (the warning comes after the
# fork, after the at-fork hooks on 3.13+, so the filter stays until the next
# fork decides again). A program whose own threads make it warn still sees
# the warning, -W error included.
_FORK_WARNING = r"This process \(pid=\d+\) is multi-threaded, use of fork\(\)"
_fork_filter = []  # the filter _fork_quiet() put in warnings.filters


def _fork_quiet(quiet):
    warnings = sys.modules.get("warnings")
    if sys.version_info < (3, 12) or warnings is None:
        return
    filters = warnings.filters
    present = bool(_fork_filter) and any(f is _fork_filter[0] for f in filters)
    if bool(quiet) == present:
        return
    if quiet:
        before = list(filters)
        warnings.filterwarnings("ignore", message=_FORK_WARNING, category=DeprecationWarning)
        del _fork_filter[:]
        if warnings.filters[0] not in before:  # not a filter of the program's own
            _fork_filter.append(warnings.filters[0])
        return
    filters.remove(_fork_filter.pop())
    mutated = getattr(warnings, "_filters_mutated", None)  # the version caches
    if mutated is not None:
        mutated()


def _fork_stack():
    """Called by C at the os.fork audit event: the forking Python stack and
    the other Python threads alive (_fork_threads)."""
    try:
        stack = _format_stack(sys._getframe(1), 16)
    except Exception:
        stack = ""
    try:
        threads = _fork_threads()
    except Exception:
        threads = ""
    return stack, threads


# --- process -------------------------------------------------------------------

def _emit_process(role):
    argv = " ".join(str(arg) for arg in (getattr(sys, "argv", None) or ()))
    try:
        host = os.uname().nodename
    except Exception:
        host = ""
    torch = sys.modules.get("torch")
    _aw.process(role=role, argv=argv, host=host,
                python=sys.version.split()[0],
                torch=str(getattr(torch, "__version__", "")))


def _after_in_child():
    global _pid, _worker, _fork_base
    try:
        _pid = os.getpid()
        _worker = None
        rec = getattr(_starting, "rec", None)  # the forking thread's
        if rec is None:
            rec = getattr(_starting, "last", None)
        if rec is not None:
            _fork_base = (rec.loader, rec.iteration, rec.pid)
        else:
            _fork_base = (_UNKNOWN, _UNKNOWN, -1)
        _emit_process("other")
    except Exception:
        _debug("after fork")


# --- loaders -----------------------------------------------------------------

def _is_iterable(loader):
    return getattr(loader, "_dataset_kind", None) == _dl._DatasetKind.Iterable


def _sampler_chain(loader):
    """batch_sampler, the samplers below it; or the sampler alone."""
    chain = []
    obj = getattr(loader, "batch_sampler", None)
    while obj is not None and len(chain) < 4:
        chain.append(obj)
        below = getattr(obj, "sampler", None)
        if below is None:
            below = getattr(obj, "batch_sampler", None)
        obj = below
    if not chain:
        sampler = getattr(loader, "sampler", None)
        if sampler is not None:
            chain.append(sampler)
    return chain


def _shuffle(chain):
    random = getattr(_samplers, "RandomSampler", None)
    sequential = getattr(_samplers, "SequentialSampler", None)
    for obj in chain:
        if random is not None and isinstance(obj, random):
            return 1
        if sequential is not None and isinstance(obj, sequential):
            return 0
        flag = getattr(obj, "shuffle", None)
        if isinstance(flag, bool):
            return int(flag)
    return -1


def _sharding(chain):
    for obj in chain:
        for count, index in (("num_replicas", "rank"),
                             ("num_processes", "process_index")):
            replicas = _int(getattr(obj, count, None))
            rank = _int(getattr(obj, index, None))
            if replicas >= 0 and rank >= 0:
                return replicas, rank
    return -1, -1


def _first_int(chain, names):
    for obj in chain:
        for name in names:
            value = _int(getattr(obj, name, None), None)
            if value is not None:
                return value
    return -1


def _start_method(loader):
    context = getattr(loader, "multiprocessing_context", None)
    if context is not None:
        name = getattr(context, "_name", None)
        return name if isinstance(name, str) else str(context)
    mp = sys.modules.get("multiprocessing")
    if mp is None:
        return ""
    name = mp.get_start_method(allow_none=True)
    if name is None:  # not fixed yet: the default it would take
        default = getattr(getattr(mp, "context", None), "_default_context",
                          None)
        name = getattr(getattr(default, "_default_context", None), "_name",
                       None)
    return name if isinstance(name, str) else ""


def _dataset_len(dataset):
    try:
        return len(dataset)
    except Exception:
        return -1


def _register(loader):
    global _next_loader
    key = id(loader)
    entry = _Loader(_next_loader)
    _next_loader += 1
    _loaders[key] = entry
    weakref.finalize(loader, _loaders.pop, key, None).atexit = False
    return entry


def _loader_new(loader, frame):
    entry = _register(loader)
    dataset = loader.dataset
    chain = _sampler_chain(loader)
    replicas, rank = _sharding(chain)
    user = _user_frame(frame) if frame is not None else None
    if user is not None:
        site = "%s:%s" % (user.f_code.co_filename, user.f_lineno)
        stack = _format_stack(user, 6)
    else:
        site = stack = ""
    batch_size = getattr(loader, "batch_size", None)
    _aw.loader_new(
        loader=entry.ordinal, dataset_id=id(dataset),
        dataset_type=type(dataset).__qualname__,
        dataset_len=_dataset_len(dataset),
        iterable=1 if _is_iterable(loader) else 0,
        loader_class=_class_name(loader),
        sampler_class=_class_name(getattr(loader, "sampler", None)),
        batch_sampler_class=_class_name(getattr(loader, "batch_sampler",
                                                None)),
        batch_size=-1 if batch_size is None else _int(batch_size),
        drop_last=_flag(getattr(loader, "drop_last", None)),
        shuffle=_shuffle(chain),
        num_workers=_int(getattr(loader, "num_workers", None)),
        persistent_workers=_flag(getattr(loader, "persistent_workers",
                                         None)),
        prefetch_factor=_int(getattr(loader, "prefetch_factor", None)),
        start_method=_start_method(loader), sampler_replicas=replicas,
        sampler_rank=rank, site=site, stack=stack)
    return entry


def _loader_of(loader):
    """The loader's entry; registered (loader_new without a site) when it
    was built before we patched. None while its __init__ runs."""
    entry = _loaders.get(id(loader))
    if entry is None and id(loader) not in _initing:
        entry = _loader_new(loader, None)
    return entry


# --- iterations --------------------------------------------------------------

def _end(rec, exhausted):
    if not rec.open:
        return
    rec.open = False
    if rec.pid == _pid and rec.recorded:
        _aw.iter_end(loader=rec.loader, iteration=rec.iteration,
                     drawn=rec.drawn, yielded=rec.yielded,
                     exhausted=1 if exhausted else 0)
    if rec.counted:
        rec.counted = False
        if rec.pid == _pid:
            _switch.count(-1)


def _iterator_gone(key):
    try:
        rec = _iters.pop(key, None)
        if rec is not None:
            _end(rec, 0)
    except Exception:
        _debug("iterator collected")


def _bind(iterator, rec):
    key = id(iterator)
    known = key in _iters
    _iters[key] = rec
    if not known:
        weakref.finalize(iterator, _iterator_gone, key)


def _begin(loader):
    entry = _loader_of(loader)
    if entry is None:
        return None
    if entry.current is not None and entry.current.open:
        _end(entry.current, 0)
    rec = _Iteration(entry.ordinal, entry.iterations, not _is_iterable(loader),
                     bool(_aw.recording()))
    entry.iterations += 1
    entry.current = rec
    if rec.recorded:
        rec.counted = True
        _switch.count(1)
    _starting.last = rec
    if _int(getattr(loader, "num_workers", 0), 0) > 0:
        try:
            config = sys.modules["multiprocessing"].current_process()._config
            config[_MP_BASE_KEY] = (rec.loader, rec.iteration, rec.pid)
        except Exception:
            _debug("multiprocessing config")
    chain = _sampler_chain(loader)
    _aw.iter_begin(loader=rec.loader, iteration=rec.iteration,
                   sampler_epoch=_first_int(chain, ("epoch",)),
                   seed=_first_int(chain, ("seed", "initial_seed")))
    # Persistent workers: the same iterator is _reset inside the original
    # __iter__ and draws this iteration's first batches there. (torchdata
    # keeps its last iterator in _iterator without persistent workers too:
    # that one is about to be replaced, not reused.)
    iterator = getattr(loader, "_iterator", None)
    if (isinstance(iterator, _dl._BaseDataLoaderIter)
            and getattr(loader, "persistent_workers", False)):
        _bind(iterator, rec)
    return rec


# --- wrappers ----------------------------------------------------------------

def _wrap_loader_init(original):
    @functools.wraps(original)
    def __init__(self, *args, **kwargs):
        key = id(self)
        if key in _initing:
            return original(self, *args, **kwargs)
        _initing.add(key)
        try:
            result = original(self, *args, **kwargs)
        finally:
            _initing.discard(key)
        try:
            if key not in _loaders:
                _loader_new(self, sys._getframe(1))
        except Exception:
            _debug("DataLoader.__init__")
        return result
    return __init__


def _wrap_len(original):
    """len() of a loader (DataLoader, or accelerate's outer loaders): the
    value the caller got, recorded on the object it asked, once per call
    site. A len() nested in another (a dispatcher asking its inner
    DataLoader) is not the user's and is not recorded."""
    @functools.wraps(original)
    def __len__(self):
        depth = getattr(_len_depth, "depth", 0)
        _len_depth.depth = depth + 1
        try:
            value = original(self)
        finally:
            _len_depth.depth = depth
        if depth == 0:
            try:
                entry = _loader_of(self)
                if entry is not None:
                    site = _site_of(sys._getframe(1))
                    key = (entry.ordinal, value, site)
                    if key not in _lens:
                        _lens.add(key)
                        _aw.loader_len(loader=entry.ordinal,
                                       value=_int(value), site=site)
            except Exception:
                _debug("__len__")
        return value
    return __len__


def _wrap_loader_iter(original):
    @functools.wraps(original)
    def __iter__(self):
        saved = getattr(_starting, "rec", None)
        rec = None
        try:
            rec = _current_or_begin(self)
        except Exception:
            _debug("DataLoader.__iter__")
        _starting.rec = rec
        try:
            iterator = original(self)
        except BaseException:
            _starting.rec = saved
            try:
                if rec is not None:
                    _end(rec, 0)
            except Exception:
                _debug("DataLoader.__iter__ raised")
            raise
        _starting.rec = saved
        try:
            if (rec is not None and id(iterator) not in _iters
                    and isinstance(iterator, _dl._BaseDataLoaderIter)):
                _bind(iterator, rec)
        except Exception:
            _debug("DataLoader.__iter__ bind")
        return iterator
    return __iter__


def _current_or_begin(loader):
    """torchdata's StatefulDataLoader: state_dict() before __iter__ made the
    iterator __iter__ then returns; that iteration goes on."""
    if getattr(loader, "_initial_iter_for_state_dict", False) is True:
        entry = _loaders.get(id(loader))
        if entry is not None and entry.current is not None \
                and entry.current.open:
            return entry.current
    return _begin(loader)


def _wrap_reset(original):
    """A persistent iterator reset outside DataLoader.__iter__ (torchdata's
    StatefulDataLoader.__iter__) starts an iteration too."""
    @functools.wraps(original)
    def _reset(self, loader, *args, **kwargs):
        first = kwargs.get("first_iter", args[0] if args else False)
        if not first and getattr(_starting, "rec", None) is None:
            try:
                rec = _begin(loader)
                if rec is not None:
                    _bind(self, rec)
            except Exception:
                _debug("_reset")
        return original(self, loader, *args, **kwargs)
    return _reset


def _wrap_iterator_init(original):
    @functools.wraps(original)
    def __init__(self, loader, *args, **kwargs):
        saved = getattr(_starting, "rec", None)
        rec = saved
        try:
            if rec is None:  # not made by DataLoader.__iter__
                rec = _begin(loader)
            if rec is not None:
                _bind(self, rec)
        except Exception:
            _debug("_BaseDataLoaderIter.__init__")
        _starting.rec = rec
        try:
            return original(self, loader, *args, **kwargs)
        finally:
            _starting.rec = saved
    return __init__


def _drawn_one(iterator, index, rec):
    """A draw of iterator that returned index; rec: its _Iteration or None."""
    if rec is None:  # an iterator older than our patches
        rec = _Iteration(_UNKNOWN, _UNKNOWN, True, True)
        _bind(iterator, rec)
    if rec.recorded:
        if rec.indexed:
            _aw.batch(loader=rec.loader, iteration=rec.iteration,
                      batch=rec.drawn, indices=index)
        else:
            _drawn.rec = rec
        rec.drawn += 1


def _stopped(iterator):
    """iterator's __next__ raised StopIteration: the epoch is over."""
    try:
        rec = _iters.get(id(iterator))
        if rec is not None:
            _end(rec, 1)
    except Exception:
        _debug("__next__ end")


# The per-batch methods are C (accwatch_record_hot.c) where the interpreter
# allows (3.9+); these callbacks take its rare cases. The Python wrappers
# below serve otherwise. Either is on the class only while _switch says so.

def _hot_unknown(iterator, index):
    try:
        _drawn_one(iterator, index, None)
    except Exception:
        _debug("_next_index")


def _hot_unindexed(rec):
    try:
        _drawn.rec = rec
    except Exception:
        _debug("_next_index")


def _wrap_next_index(original):
    @functools.wraps(original)
    def _next_index(self, _get=_iters.get, _id=id):
        index = original(self)
        try:
            _drawn_one(self, index, _get(_id(self)))
        except Exception:
            _debug("_next_index")
        return index
    return _next_index


def _wrap_next(original):
    @functools.wraps(original)
    def __next__(self, _get=_iters.get, _id=id):
        try:
            data = original(self)
        except StopIteration:
            _stopped(self)
            raise
        rec = _get(_id(self))
        if rec is not None:
            rec.yielded += 1
        return data
    return __next__


def _add_per_batch_methods(iterator):
    """Gives _switch the (_next_index, __next__) to put on
    _BaseDataLoaderIter while a recorded iteration is open: C methods, else
    Python wrappers."""
    names = ("_next_index", "__next__")
    if iterator is None:
        return
    originals = [vars(iterator).get(name) for name in names]
    if None in originals:
        return
    methods = None
    try:
        hot = _aw.hot_methods(_iters, originals[0], originals[1],
                             _hot_unknown, _hot_unindexed, _stopped,
                             iterator.__module__)
        if hot is not None:
            # partial: a C callable with a __dict__, so that
            # inspect.signature and __qualname__ read torch's method through
            # __wrapped__ (return annotation included).
            methods = [_aw.instancemethod(functools.update_wrapper(
                functools.partial(function), original))
                for function, original in zip(hot, originals)]
    except Exception:
        _debug("C per-batch methods")
    if methods is None or None in methods:
        methods = [make(original) for original, make in
                   zip(originals, (_wrap_next_index, _wrap_next))]
    for name, original, method in zip(names, originals, methods):
        _switch.add(iterator, name, original, method)


# --- workers -----------------------------------------------------------------

def _worker_state():
    """This process's _Worker; None outside DataLoader workers."""
    global _worker
    worker = _worker
    if worker is not None:
        return worker
    info = _workers.get_worker_info()
    if info is None:
        return None
    worker = _Worker()
    worker.id = _int(info.id)
    worker.loader, worker.base, worker.loader_pid = _fork_base
    if worker.loader == _UNKNOWN:  # spawn, forkserver: from our config key
        try:
            config = sys.modules["multiprocessing"].current_process()._config
            loader, base, pid = config[_MP_BASE_KEY]
            worker.loader = _int(loader, _UNKNOWN)
            worker.base = _int(base, _UNKNOWN)
            worker.loader_pid = _int(pid)
        except Exception:
            pass
    worker.iteration = worker.base
    worker.fetchers = 0
    worker.fetches = 0
    _worker = worker
    _emit_process("worker")
    seed = _int(getattr(info, "seed", None), 0) & _SEED_MASK
    if seed >= 1 << 63:
        seed -= 1 << 64
    _aw.worker_start(worker_id=worker.id,
                     num_workers=_int(info.num_workers), seed=seed,
                     loader=worker.loader, iteration=worker.iteration,
                     loader_pid=worker.loader_pid)
    return worker


def _on_fetch(possibly_batched_index):
    """Before a worker's fetch: worker_fetch; returns the token C needs to
    emit worker_fetch_end after it (None: nothing to end)."""
    try:
        worker = _worker
        if worker is not None:
            batch = worker.fetches
            worker.fetches += 1
            _aw.worker_fetch(worker_id=worker.id, loader=worker.loader,
                             iteration=worker.iteration, batch=batch,
                             indices=possibly_batched_index)
            return (worker.id, worker.loader, worker.iteration, batch)
    except Exception:
        _debug("fetch")
    return None


def _item_view(item):
    """Called by C for an item it cannot hash directly: an object whose
    buffer holds the item's content (tensors, non-contiguous arrays), or
    None (C hashes its repr)."""
    try:
        if _Tensor is not None and isinstance(item, _Tensor):
            try:
                return item.contiguous().numpy()
            except Exception:  # requires grad, another device
                return item.detach().cpu().contiguous().numpy()
        numpy = sys.modules.get("numpy")
        if numpy is not None and isinstance(item, numpy.ndarray):
            return numpy.ascontiguousarray(item)
    except Exception:
        pass
    return None


def _items_before(batched):
    """Runs before an IterableDataset fetcher's collate_fn(data): item_fetch
    with the fingerprints of data (a list of items when batched)."""
    def before(*args, **kwargs):
        try:
            if len(args) != 1 or kwargs:
                return
            worker = _worker
            if worker is not None:
                batch = worker.fetches
                worker.fetches += 1
                _aw.item_fetch(worker_id=worker.id, loader=worker.loader,
                               iteration=worker.iteration, batch=batch,
                               data=args[0], batched=batched)
                return
            rec = getattr(_drawn, "rec", None)
            if rec is not None and rec.pid == _pid:
                _aw.item_fetch(worker_id=-1, loader=rec.loader,
                               iteration=rec.iteration, batch=rec.drawn - 1,
                               data=args[0], batched=batched)
            else:
                _aw.item_fetch(worker_id=-1, data=args[0], batched=batched)
        except Exception:
            _debug("items")
    return before


def _wrap_fetcher_init(original):
    # Runs no user code (iter(dataset) comes after it in subclasses), so its
    # frame never shows in a traceback of the user's.
    @functools.wraps(original)
    def __init__(self, *args, **kwargs):
        result = original(self, *args, **kwargs)
        try:
            worker = _worker_state()
            if worker is not None:
                worker.fetchers += 1
                if worker.fetchers > 1:  # next epoch, persistent workers
                    worker.fetches = 0
                    if worker.base != _UNKNOWN:
                        worker.iteration = worker.base + worker.fetchers - 1
                if (isinstance(self, _fetch._MapDatasetFetcher)
                        and _aw.recording()):
                    # Per instance and in C: no frame of ours between the
                    # worker loop and __getitem__ (torch copies the worker's
                    # traceback into the message of the re-raised error).
                    fetch = _aw.call_around(self.fetch, _on_fetch)
                    if fetch is not None:
                        self.fetch = fetch
            if isinstance(self, _ITERABLE_FETCHER) and _aw.recording():
                # Items exist only here, before collation; the C trampoline
                # keeps collate errors' tracebacks as they were.
                collate = _aw.call_before(
                    self.collate_fn, _items_before(bool(self.auto_collation)))
                if collate is not None:
                    self.collate_fn = collate
        except Exception:
            _debug("fetcher __init__")
        return result
    return __init__


# --- accelerate --------------------------------------------------------------

# Classes whose __init__ builds an outer loader (v1.x: adapters holding the
# real DataLoader as base_dataloader; v0.2x: DataLoader subclasses).
_ACCELERATE_OUTER = (("DataLoaderShard", "shard"),
                     ("DataLoaderDispatcher", "dispatcher"),
                     ("SkipDataLoader", "skip"))


def _wrap_fields(outer, inner, kind):
    """The loader_wrap fields of accelerate's sharding parameters (none
    when no object below outer has them)."""
    fields = {}
    for obj in _sampler_chain(inner) + [getattr(inner, "dataset", None)]:
        if (obj is not None and hasattr(obj, "num_processes")
                and hasattr(obj, "process_index")):
            fields = dict(
                split_batches=_flag(getattr(obj, "split_batches", None)),
                even_batches=_flag(getattr(obj, "even_batches", None)),
                num_processes=_int(obj.num_processes),
                process_index=_int(obj.process_index))
            break
    if kind == "dispatcher":
        state = vars(outer).get("state")
        fields = dict(
            split_batches=_flag(vars(outer).get("split_batches")),
            num_processes=_int(getattr(state, "num_processes", None)),
            process_index=_int(getattr(state, "process_index", None)))
    return fields


def _loader_wrap(outer, kind, frame):
    entry = _loaders.get(id(outer))
    if entry is None:  # an adapter, not a DataLoader: described here
        entry = _loader_new(outer, frame)
    inner = vars(outer).get("base_dataloader", outer)
    inner_entry = _loader_of(inner)
    if inner_entry is None:
        return
    _aw.loader_wrap(outer=entry.ordinal, inner=inner_entry.ordinal,
                    kind=kind, **_wrap_fields(outer, inner, kind))


def _wrap_accelerate_init(kind):
    def make(original):
        @functools.wraps(original)
        def __init__(self, *args, **kwargs):
            result = original(self, *args, **kwargs)
            try:
                _loader_wrap(self, kind, sys._getframe(1))
            except Exception:
                _debug("accelerate %s" % kind)
            return result
        return __init__
    return make


def _patch_accelerate(module):
    for name, kind in _ACCELERATE_OUTER:
        _patch(getattr(module, name, None), "__init__",
               _wrap_accelerate_init(kind))
    for name in ("DataLoaderAdapter", "DataLoaderShard",
                 "DataLoaderDispatcher", "SkipDataLoader"):
        _patch(getattr(module, name, None), "__len__", _wrap_len)


def _patch_torchdata(module):
    """torchdata's StatefulDataLoader: its own __init__ (no super) and
    __iter__ (no super, resets persistent iterators itself: see _reset); its
    iterators are _BaseDataLoaderIter subclasses that call super."""
    loader = getattr(module, "StatefulDataLoader", None)
    _patch(loader, "__init__", _wrap_loader_init)
    _patch(loader, "__iter__", _wrap_loader_iter)


_TORCHDATA = "torchdata.stateful_dataloader.stateful_dataloader"


def _wrap_init_subclass(original):
    """DataLoader.__init_subclass__: patches torchdata's StatefulDataLoader
    as its class is made (an import audit event may not follow its module's
    import, so the watched-module path alone can be late). Other subclasses
    are left alone."""
    def __init_subclass__(cls, **kwargs):
        if original is not None:
            original.__get__(None, cls)(**kwargs)
        else:
            super(_dl.DataLoader, cls).__init_subclass__(**kwargs)
        try:
            if (cls.__module__ == _TORCHDATA
                    and cls.__name__ == "StatefulDataLoader"):
                _patch(cls, "__init__", _wrap_loader_init)
                _patch(cls, "__iter__", _wrap_loader_iter)
        except Exception:
            _debug("__init_subclass__")
    return classmethod(__init_subclass__)


def _on_module(name):
    """Called by C when a module it watches for us finished importing."""
    try:
        if name == _TORCHDATA:
            _patch_torchdata(sys.modules.get(name))
        elif name == "accelerate.data_loader":
            _patch_accelerate(sys.modules.get(name))
    except Exception:
        _debug("patching %s" % name)


# --- torch.distributed -------------------------------------------------------

def _wrap_init_process_group(original):
    @functools.wraps(original)
    def init_process_group(*args, **kwargs):
        result = original(*args, **kwargs)
        try:
            dist = sys.modules.get("torch.distributed")
            _aw.dist_init(rank=_int(dist.get_rank()),
                          world_size=_int(dist.get_world_size()),
                          backend=str(dist.get_backend()))
        except Exception:
            _debug("init_process_group")
        return result
    return init_process_group


# --- installation ------------------------------------------------------------

def _patch(owner, name, make):
    """Replaces owner.name (its own attribute) by make(original)."""
    try:
        if owner is None:
            return None
        if isinstance(owner, type):
            original = owner.__dict__.get(name)
        else:
            original = getattr(owner, name, None)
        if original is None or getattr(original, "_accwatch_wrapper", False):
            return None
        wrapper = make(original)
        wrapper._accwatch_wrapper = True
        setattr(owner, name, wrapper)
        return wrapper
    except Exception:
        _debug("patching %s" % name)
        return None


def _patch_distributed():
    c10d = sys.modules.get("torch.distributed.distributed_c10d")
    dist = sys.modules.get("torch.distributed")
    original = getattr(c10d, "init_process_group", None)
    wrapper = _patch(c10d, "init_process_group", _wrap_init_process_group)
    if wrapper is not None and getattr(dist, "init_process_group",
                                       None) is original:
        dist.init_process_group = wrapper


def _started_by_multiprocessing():
    """True in spawn/forkserver children: rank variables there are the
    parent's (DataLoader workers, mp.spawn ranks learn theirs in dist_init)."""
    try:
        mp = sys.modules.get("multiprocessing")
        # _inheriting: while the child unpickles what its parent sent,
        # which is when torch gets imported there.
        return mp is not None and (
            mp.parent_process() is not None
            or getattr(mp.current_process(), "_inheriting", False))
    except Exception:
        return False


def _install():
    _emit_process("other" if _started_by_multiprocessing() else "")
    os.register_at_fork(after_in_child=_after_in_child)
    loader = getattr(_dl, "DataLoader", None)
    iterator = getattr(_dl, "_BaseDataLoaderIter", None)
    _patch(loader, "__init__", _wrap_loader_init)
    _patch(loader, "__len__", _wrap_len)
    _patch(loader, "__iter__", _wrap_loader_iter)
    try:
        if loader is not None and "__init_subclass__" not in vars(loader):
            loader.__init_subclass__ = _wrap_init_subclass(None)
    except Exception:
        _debug("__init_subclass__")
    _patch(iterator, "__init__", _wrap_iterator_init)
    _add_per_batch_methods(iterator)
    _patch(iterator, "_reset", _wrap_reset)
    _patch(getattr(_fetch, "_BaseDatasetFetcher", None), "__init__",
           _wrap_fetcher_init)
    try:
        _patch_distributed()
    except Exception:
        _debug("torch.distributed")


try:
    _install()
except Exception:
    _debug("install")
