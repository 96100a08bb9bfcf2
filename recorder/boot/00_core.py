# SPDX-License-Identifier: MIT
# accwatch bootstrap, part 1: run once per torch process by
# libaccwatch-record.so; with the parts after it (boot/*.py, run in name
# order in one namespace: 10_torch, 20_workers, 30_accelerate, 40_torchdata,
# 90_install) it wraps the methods whose calls become accwatch trace events.
# This part: the state, the records the per-batch path shares with C,
# helpers, Python stacks, fork and process events, patching.
#
# Defined by C before this runs: the module _aw (accwatch_record.c) with one
# function per event, called by keyword with the event's fields
# (tracepoints/accwatch_catalogue.def; a field not given is absent in the
# trace), the helpers (batch, worker_fetch, item_fetch, hot_methods,
# call_before, ...; they never raise) and UNKNOWN, BOOT_PREFIX, DEBUG.
#
# Rules every wrapper keeps: the wrapped call behaves as before (same result,
# same exception object, StopIteration above all); a wrapper is C (_wrap:
# _aw.around's trampoline in a functools.partial), so tracebacks,
# inspect.stack() and sys._getframe() walks through it are as without
# accwatch; functools.update_wrapper keeps __wrapped__ so inspect.signature
# still works; nothing is stored on user
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
# - join: begin=1 after torch.distributed.algorithms.Join.__enter__
#   returned, begin=0 after its __exit__ returned or raised (raised=1 when
#   an exception left the block or the exit); the passes whose batches
#   were drawn in between ran inside it.
# - exception: an exception no handler caught is about to be printed by
#   sys.excepthook (C calls _on_uncaught at that audit event): its type,
#   str() cut to _MESSAGE_MAX characters, and where it was raised.
# - exit / exec come from C (libaccwatch.so interposers; their fields in
#   tracepoints/accwatch_catalogue.def).

import functools
import itertools
import linecache
import os
import re
import sys
import threading
import types
import weakref

_UNKNOWN = _aw.UNKNOWN
_SEED_MASK = (1 << 64) - 1

_dl = sys.modules.get("torch.utils.data.dataloader")
_fetch = sys.modules.get("torch.utils.data._utils.fetch")
_workers = sys.modules.get("torch.utils.data._utils.worker")
_samplers = sys.modules.get("torch.utils.data.sampler")

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
# Packages that build DataLoaders on the user's behalf (accelerate's
# prepare(), Lightning's sampler injection, torchdata): a loader's creation
# site is the first frame outside them, i.e. the user's call.
_FRAMEWORKS = ("torch", "accelerate", "lightning", "pytorch_lightning",
               "torchdata")
_Tensor = getattr(sys.modules.get("torch"), "Tensor", None)
_ITERABLE_FETCHER = getattr(_fetch, "_IterableDatasetFetcher", ())
_WORKER_LOOP = getattr(getattr(sys.modules.get("torch.utils.data._utils.worker"),
                               "_worker_loop", None), "__code__", None)


class _State(object):
    """What the bootstrap rebinds as the process goes on; its other
    module-level names are bound once (tables filled in place)."""
    __slots__ = ("pid", "next_loader", "fork_base", "worker", "prefixes",
                 "prefixes_loaded")

    def __init__(self):
        self.pid = os.getpid()  # refreshed in forked children
        self.next_loader = 0  # the next loader ordinal of this process
        # (loader, iteration, pid) of the iteration that forked this worker
        self.fork_base = (_UNKNOWN, _UNKNOWN, -1)
        self.worker = None  # _Worker, in a DataLoader worker process
        self.prefixes = None  # directories of the _FRAMEWORKS imported so far
        self.prefixes_loaded = None  # which of them that was


_state = _State()


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
    (accwatch_record_hot.c) reads and counts its slots without attribute
    lookups: the first are C's (_aw.HOT_SLOTS, in C's order: loader,
    iteration, drawn, yielded, recorded: a session had our events on at its
    start, indexed), then Python's own (open; pid; counted: holds the
    per-batch methods in place; handed: what a wrapper reading ahead gave
    the loop; cycle: the id of the link whose __iter__ starts a new cycle
    of the pass, None). Python uses the names."""
    __slots__ = ()
    FIELDS = tuple(_aw.HOT_SLOTS.split()) + ("open", "pid", "counted",
                                             "handed", "cycle")

    def __init__(self, loader, iteration, indexed, recorded):
        list.__init__(self, [None] * len(self.FIELDS))
        self.loader, self.iteration = loader, iteration
        self.drawn = self.yielded = 0
        self.recorded, self.indexed = bool(recorded), bool(indexed)
        self.open, self.pid, self.counted = True, _state.pid, False
        self.handed = -1  # batches a read-ahead wrapper gave the loop
        self.cycle = None


for _index, _name in enumerate(_Iteration.FIELDS):
    setattr(_Iteration, _name, _slot(_index))


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

    def next_fetch(self):
        """The ordinal of the fetch that starts (per epoch of the worker)."""
        self.fetches += 1
        return self.fetches - 1


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

def _library_dirs():
    """Directories whose code is not the program's own, known at boot: the
    standard library (where os lives) and the interpreter's installed
    packages (site's own list; nothing is imported for it)."""
    dirs = [os.path.dirname(os.__file__)]
    site = sys.modules.get("site")
    for name in ("getsitepackages", "getusersitepackages"):
        try:
            found = getattr(site, name)()
        except Exception:
            continue
        dirs.extend([found] if isinstance(found, str) else found)
    return tuple(os.path.join(d, "") for d in dirs if d)


_LIBRARY_DIRS = _library_dirs() + ("<frozen ",)
# An installed package's file, wherever its tree is on the path (a venv, a
# conda env, another interpreter's packages on PYTHONPATH).
_INSTALLED = (os.sep + "site-packages" + os.sep, os.sep + "dist-packages" + os.sep)


def _is_library(path):
    return path.startswith(_LIBRARY_DIRS) or any(part in path for part in _INSTALLED)


def _internal_prefixes():
    """The boot's prefix and the directories of the _FRAMEWORKS imported so
    far (wherever they are: a source tree on PYTHONPATH too)."""
    modules = sys.modules
    loaded = tuple(name in modules for name in _FRAMEWORKS)
    if loaded != _state.prefixes_loaded:
        dirs = [_aw.BOOT_PREFIX]
        for name in _FRAMEWORKS:
            path = getattr(modules.get(name), "__file__", None)
            if path:
                dirs.append(os.path.dirname(path) + os.sep)
        _state.prefixes = tuple(dirs)
        _state.prefixes_loaded = loaded
    return _state.prefixes


def _user_frame(frame):
    """The innermost frame of the program's own code: the first outside the
    frameworks, the standard library and installed packages (the user's
    line that asked HF's Trainer or a WebLoader for a loader, not the
    library's line that built it). When every frame is a library's (a
    program that is an installed package), the innermost outside the
    frameworks; None when there is none."""
    prefixes = _internal_prefixes()
    fallback = None
    while frame is not None:
        path = frame.f_code.co_filename
        if not path.startswith(prefixes):
            if not _is_library(path):
                return frame
            if fallback is None:
                fallback = frame
        frame = frame.f_back
    return fallback


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
        if not code.co_filename.startswith(_aw.BOOT_PREFIX):
            lines.append("%s:%s %s" % (code.co_filename, frame.f_lineno,
                                       code.co_name))
        frame = frame.f_back
    lines.reverse()
    return "\n".join(lines)


def _thread_module(thread):
    """The module of the code a thread runs: its target's, or its class's
    run() where that is overridden; "pkg:" before it when that code is an
    installed package's or the standard library's, not the program's."""
    code = getattr(thread, "_target", None)
    if code is None:
        code = type(thread).run
    code = getattr(code, "func", code)  # functools.partial
    module = getattr(code, "__module__", None)
    if not isinstance(module, str) or not module:
        return "?"
    path = getattr(getattr(code, "__code__", None), "co_filename", "")
    return "pkg:" + module if path and _is_library(path) else module


def _fork_threads():
    """The Python threads alive besides this one and the main thread,
    "native_id module name" per line (Python < 3.14 does not give the OS
    thread its name; the module says whose code it runs, _thread_module). The main thread
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


# An exception's message is cut to this many characters ("..." appended).
_MESSAGE_MAX = 240


def _raised_where(tb):
    """"file:line" of a traceback's innermost frame: where it was raised."""
    for _ in range(100000):  # a chain is finite; the bound makes it certain
        if tb.tb_next is None:
            break
        tb = tb.tb_next
    return "%s:%s" % (tb.tb_frame.f_code.co_filename, tb.tb_lineno)


def _on_uncaught(args):
    """Called by C at the "sys.excepthook" audit event, args (hook, type,
    value, traceback): the exception that is about to end the process, as
    the hook will print it. str(value) runs no code of the program that the
    hook's own printing does not run."""
    try:
        kind, value, tb = args[1], args[2], args[3]
        module = getattr(kind, "__module__", None)
        name = getattr(kind, "__qualname__", None) or getattr(kind, "__name__", "?")
        if module and module != "builtins":
            name = "%s.%s" % (module, name)
        try:
            message = str(value)
        except Exception:
            message = ""
        if len(message) > _MESSAGE_MAX:
            message = message[:_MESSAGE_MAX] + "..."
        site = _raised_where(tb) if tb is not None else ""
        _aw.exception(type_name=str(name), message=message, site=site)
    except Exception:
        _debug("uncaught exception")


def _after_in_child():
    try:
        _state.pid = os.getpid()
        _state.worker = None
        rec = getattr(_starting, "rec", None)  # the forking thread's
        if rec is None:
            rec = getattr(_starting, "last", None)
        if rec is not None:
            _state.fork_base = (rec.loader, rec.iteration, rec.pid)
        else:
            _state.fork_base = (_UNKNOWN, _UNKNOWN, -1)
        _emit_process("other")
    except Exception:
        _debug("after fork")


# --- patching -----------------------------------------------------------------

class _Wrapped(functools.partial):
    """What a wrapper of ours is: a C callable (functools.partial over
    _aw.around's trampoline) carrying the original's __wrapped__,
    __name__, __qualname__, __doc__ and __module__ (functools.
    update_wrapper), so that no frame of ours stands between the caller and
    the original in a traceback, an inspect.stack() or a sys._getframe()
    walk, while inspect.signature still reads the original. Like the
    function it replaces, it binds as a method (__get__: its frame is gone
    before the method runs), so that cls.__init__ read and set back (as
    Lightning's _replace_dunder_methods does) still binds; it pickles by
    reference (its qualified name) and is repr'd as a function."""
    __slots__ = ()

    def __get__(self, obj, owner=None):
        if obj is None:
            return self
        return types.MethodType(self, obj)

    def __reduce_ex__(self, protocol):
        return self.__qualname__

    def __reduce__(self):
        return self.__qualname__

    def __repr__(self):
        return "<function %s at 0x%x>" % (
            getattr(self, "__qualname__", "?"), id(self))


def _is_raised(raised, kind):
    """Whether what _aw.around told after (an exception, or its class when
    C raised it without a value) is of kind."""
    return isinstance(raised, kind) or (
        isinstance(raised, type) and issubclass(raised, kind))


def _wrap(original, before, after):
    """original wrapped in C: token = before(*args, **kwargs) (None: no
    before), then original(*args, **kwargs); after(token, result, None) is
    what the call returns, and after(token, None, raised) is told of an
    exception, which goes on unchanged. before and after catch their own
    errors; sys._getframe(1) in them is the caller's frame."""
    call = _aw.around(original, before, after)
    if call is None:
        return _wrap_in_python(original, before, after)
    wrapper = functools.update_wrapper(_Wrapped(call), original)
    wrapper._accwatch_wrapper = True
    return wrapper


def _wrap_in_python(original, before, after):
    """The same in Python, should the trampoline not be made: a frame of
    ours then shows, and sys._getframe(1) in before/after is that frame."""
    @functools.wraps(original)
    def wrapper(*args, **kwargs):
        token = before(*args, **kwargs) if before is not None else None
        try:
            result = original(*args, **kwargs)
        except BaseException as raised:
            if after is not None:
                after(token, None, raised)
            raise
        return after(token, result, None) if after is not None else result
    return wrapper


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
        if not getattr(wrapper, "_accwatch_wrapper", False):
            wrapper._accwatch_wrapper = True
        setattr(owner, name, wrapper)
        return wrapper
    except Exception:
        _debug("patching %s" % name)
        return None
