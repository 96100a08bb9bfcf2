# SPDX-License-Identifier: MIT
# accwatch bootstrap, part 4: what it hooks in accelerate (patched when
# accelerate.data_loader and accelerate.scheduler are imported): the outer
# loaders prepare() builds, and the schedulers it wraps.

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
        def before(self, *args, **kwargs):
            return self

        def after(self, result, raised):
            if raised is None:
                try:
                    _loader_wrap(self, kind, sys._getframe(1))
                except Exception:
                    _debug("accelerate %s" % kind)
            return result
        return _wrap(original, before, after)
    return make


def _hand_over(entry, batch):
    """map()'s function over DataLoaderShard's iterator: counts a batch the
    loop is handed in the current pass of the loader it reads (which
    yielded one more: the shard fetches the next batch first, to know
    which is last)."""
    try:
        rec = entry.current
        if rec is not None and rec.open:
            rec.handed = max(rec.handed, 0) + 1
    except Exception:
        _debug("handed")
    return batch


def _wrap_shard_iter(original):
    """DataLoaderShard.__iter__, its generator seen through map() while a
    session records (a C iterator: no frame of ours stands in a traceback
    of the loop); without one, or for a loader we never saw built, its own
    generator."""
    def before(self):
        return self

    def after(self, iterator, raised):
        if raised is not None:
            return None
        try:
            entry = _loader_of(vars(self).get("base_dataloader", self))
            if entry is not None and _aw.recording():
                return map(functools.partial(_hand_over, entry), iterator)
        except Exception:
            _debug("DataLoaderShard.__iter__")
        return iterator
    return _wrap(original, before, after)


def _patch_accelerate(module):
    for name, kind in _ACCELERATE_OUTER:
        _patch(getattr(module, name, None), "__init__",
               _wrap_accelerate_init(kind))
    _patch(getattr(module, "DataLoaderShard", None), "__iter__",
           _wrap_shard_iter)
    for name in ("DataLoaderAdapter", "DataLoaderShard",
                 "DataLoaderDispatcher", "SkipDataLoader"):
        _patch(getattr(module, name, None), "__len__", _wrap_len)


def _scheduler_processes():
    """The processes accelerate's state counts (its shared state, read
    without making one), -1 unknown."""
    state = getattr(sys.modules.get("accelerate.state"), "PartialState", None)
    shared = getattr(state, "_shared_state", None)
    return _int(shared.get("num_processes")) if isinstance(shared, dict) else -1


def _wrap_scheduler_init(original):
    """AcceleratedScheduler.__init__: the scheduler event, at the program's
    line that prepared it."""
    def before(self, *args, **kwargs):
        return self

    def after(self, result, raised):
        if raised is None:
            try:
                own = vars(self)
                _aw.scheduler(
                    class_name=_class_name(own.get("scheduler")),
                    step_with_optimizer=_flag(own.get("step_with_optimizer")),
                    split_batches=_flag(own.get("split_batches")),
                    num_processes=_scheduler_processes(),
                    site=_site_of(sys._getframe(1)))
            except Exception:
                _debug("AcceleratedScheduler")
        return result
    return _wrap(original, before, after)


def _patch_accelerate_scheduler(module):
    _patch(getattr(module, "AcceleratedScheduler", None), "__init__",
           _wrap_scheduler_init)
