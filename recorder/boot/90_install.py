# SPDX-License-Identifier: MIT
# accwatch bootstrap, part 7 (last): the modules watched by C, and the
# installation that runs when the recorder attaches.

# --- installation ------------------------------------------------------------

# The modules libaccwatch.so watches for us (the one list: the recorder
# hands their names to it), each with what patches it once imported.
_WATCHED = {
    "accelerate.data_loader": _patch_accelerate,
    "accelerate.scheduler": _patch_accelerate_scheduler,
    _TORCHDATA: _patch_torchdata,
    "datasets.arrow_dataset": _patch_datasets,
    _JOIN: _patch_join,
}


def _on_module(name):
    """Called by C when a module of _WATCHED finished importing."""
    try:
        _WATCHED[name](sys.modules.get(name))
    except Exception:
        _debug("patching %s" % name)


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
    for name in ("BatchSampler", "SequentialSampler", "RandomSampler"):
        _patch(getattr(_samplers, name, None), "__iter__", _wrap_sampler_iter)
    _patch(getattr(sys.modules.get("torch.utils.data.distributed"),
                   "DistributedSampler", None), "__iter__", _wrap_sampler_iter)
    try:
        _patch_distributed()
    except Exception:
        _debug("torch.distributed")


try:
    _install()
except Exception:
    _debug("install")
