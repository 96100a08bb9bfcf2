# SPDX-License-Identifier: MIT
# accwatch bootstrap, part 3: what it hooks in DataLoader worker processes:
# the dataset fetchers (worker_start, worker_fetch, worker_fetch_end,
# item_fetch).

# --- workers -----------------------------------------------------------------

def _worker_state():
    """This process's _Worker; None outside DataLoader workers."""
    worker = _state.worker
    if worker is not None:
        return worker
    info = _workers.get_worker_info()
    if info is None:
        return None
    worker = _Worker()
    worker.id = _int(info.id)
    worker.loader, worker.base, worker.loader_pid = _state.fork_base
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
    _state.worker = worker
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
    """Before a worker's fetch: worker_fetch; returns worker_fetch_end's
    fields by name, for C to emit it after the fetch (None: nothing to
    end)."""
    try:
        worker = _state.worker
        if worker is not None:
            batch = worker.next_fetch()
            _aw.worker_fetch(worker_id=worker.id, loader=worker.loader,
                             iteration=worker.iteration, batch=batch,
                             indices=possibly_batched_index)
            return dict(worker_id=worker.id, loader=worker.loader,
                        iteration=worker.iteration, batch=batch)
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


def _task_of(frame):
    """The number of the task a worker runs (torch's _worker_loop's idx: the
    order the main process yields the batches in, from 0 each pass), read
    from the worker loop's frame above the fetcher's; the worker's own
    fetch count when the loop is not found."""
    for _ in range(4):
        if frame is None:
            break
        if frame.f_code is _WORKER_LOOP:
            idx = frame.f_locals.get("idx")
            if type(idx) is int and idx >= 0:
                return idx
            break
        frame = frame.f_back
    return None


def _whole_batch_size(dataset):
    """(n, listed) for the batches of n an IterableDataset yields whole: a
    webdataset pipeline whose last batching stage (batched(n), not undone
    by a later unbatched or unlisted) makes them, listed when it collates
    nothing (a batch is the list of its samples); (0, False) when it yields
    samples or its stages are not known."""
    found = (0, False)
    for stage in getattr(dataset, "pipeline", None) or ():
        name = getattr(getattr(stage, "f", None), "__name__", "")
        if name == "_batched":
            args, kw = getattr(stage, "args", ()), getattr(stage, "kw", {})
            size = _int(args[0] if args else kw.get("batchsize", 20), 0)
            listed = (args[1] if len(args) > 1
                      else kw.get("collation_fn", True)) is None
            found = (max(size, 0), listed)
        elif name in ("_unbatched", "_unlisted"):
            found = (0, False)
    return found


def _batch_rows(batch, size, listed):
    """The samples of a batch of at most size that a dataset yielded whole:
    the list itself when listed, else as webdataset's unbatched splits it
    (the columns of a tuple, list or dict, all of one length); None when it
    does not split so."""
    if listed:
        return batch if isinstance(batch, list) and len(batch) <= size else None
    if isinstance(batch, dict):
        columns = list(batch.values())
    elif isinstance(batch, (list, tuple)):
        columns = list(batch)
    else:
        return None
    if any(isinstance(c, (str, bytes)) for c in columns):
        return None
    lengths = {_dataset_len(c) for c in columns}
    if len(lengths) != 1 or not 0 < min(lengths) <= size:
        return None
    n = lengths.pop()
    if isinstance(batch, dict):
        return [{k: v[i] for k, v in batch.items()} for i in range(n)]
    return [tuple(c[i] for c in columns) for i in range(n)]


def _items_before(batched, whole=(0, False)):
    """Runs before an IterableDataset fetcher's collate_fn(data): item_fetch
    with the fingerprints of data (a list of items when batched; a batch
    the dataset yielded whole, read with batch_size=None, is sent as its
    samples when it splits as its pipeline's batches do)."""
    def before(*args, **kwargs):
        try:
            if len(args) != 1 or kwargs:
                return
            data, batched_now = args[0], batched
            if whole[0] and not batched:
                rows = _batch_rows(data, *whole)
                if rows is not None:
                    data, batched_now = rows, True
            worker = _state.worker
            if worker is not None:
                fetch = worker.next_fetch()
                task = _task_of(sys._getframe(1))
                _aw.item_fetch(worker_id=worker.id, loader=worker.loader,
                               iteration=worker.iteration,
                               batch=fetch if task is None else task,
                               data=data, batched=batched_now)
                return
            rec = getattr(_drawn, "rec", None)
            if rec is not None and rec.pid == _state.pid:
                _aw.item_fetch(worker_id=-1, loader=rec.loader,
                               iteration=rec.iteration, batch=rec.drawn - 1,
                               data=data, batched=batched_now)
            else:
                _aw.item_fetch(worker_id=-1, data=data, batched=batched_now)
        except Exception:
            _debug("items")
    return before


def _wrap_fetcher_init(original):
    def before(self, *args, **kwargs):
        return self

    def after(self, result, raised):
        if raised is not None:
            return None
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
                    self.collate_fn,
                    _items_before(bool(self.auto_collation),
                                  _whole_batch_size(self.dataset)))
                if collate is not None:
                    self.collate_fn = collate
        except Exception:
            _debug("fetcher __init__")
        return result
    return _wrap(original, before, after)
