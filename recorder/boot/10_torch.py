# SPDX-License-Identifier: MIT
# accwatch bootstrap, part 2 (after 00_core.py): what it hooks in torch:
# DataLoader (__init__, __len__, __iter__), its iterators (__init__, _reset,
# the per-batch _next_index and __next__), torch.distributed's
# init_process_group and its Join context (__enter__, __exit__; patched when
# torch.distributed.algorithms.join is imported).

# --- loaders -----------------------------------------------------------------

def _is_iterable(loader):
    return getattr(loader, "_dataset_kind", None) == _dl._DatasetKind.Iterable


# Links of a sampler chain recorded (the analyzer keeps as many).
_CHAIN_MAX = 8


def _sampler_chain(loader):
    """batch_sampler, the samplers below it; or the sampler alone."""
    chain = []
    obj = getattr(loader, "batch_sampler", None)
    while obj is not None and len(chain) < _CHAIN_MAX:
        chain.append(obj)
        below = getattr(obj, "sampler", None)
        if below is None:
            below = getattr(obj, "batch_sampler", None)
        if below is None:
            below = _sampler_in_dataset(obj)
        obj = below
    if not chain:
        sampler = getattr(loader, "sampler", None)
        if sampler is not None:
            chain.append(sampler)
    return chain


def _sampler_in_dataset(obj):
    """The sampler a sampler draws through its dataset: Lightning's
    DistributedSamplerWrapper shards a dataset that lists what the user's
    sampler yields (its _sampler). None otherwise."""
    sampler = getattr(_samplers, "Sampler", None)
    dataset = _attr(obj, "dataset")
    try:
        held = vars(dataset).get("_sampler") if dataset is not None else None
    except TypeError:
        return None
    return held if sampler is not None and isinstance(held, sampler) else None


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


def _stated_flag(obj, name):
    """obj's own bool attribute `name` (its instance dict, else a class's),
    read without running a property or __getattr__; None when it has none."""
    try:
        try:  # object's own lookup: a class's __getattr__ is not asked
            value = object.__getattribute__(obj, "__dict__").get(name)
        except AttributeError:
            value = None
        if value is None:
            for kind in type(obj).__mro__:
                if name in vars(kind):
                    value = vars(kind)[name]
                    break
        return value if isinstance(value, bool) else None
    except Exception:
        return None


def _loader_shuffle(loader, chain):
    """Whether the loader's order is shuffled (1), not (0), unknown (-1):
    its sampler chain's; for an IterableDataset, which has none, what the
    dataset states (a `shuffle` flag of its own: streaming datasets that
    shuffle their shards)."""
    shuffle = _shuffle(chain)
    if shuffle < 0 and _is_iterable(loader):
        flag = _stated_flag(loader.dataset, "shuffle")
        if flag is not None:
            shuffle = int(flag)
    return shuffle


# The names a sharding link keeps its replica count and index under:
# torch's and Lightning's, accelerate's, and those samplers of programs and
# other libraries use (detectron2's InferenceSampler: _world_size, _rank).
_SHARE_NAMES = (("num_replicas", "rank"), ("num_processes", "process_index"),
                ("world_size", "rank"), ("_world_size", "_rank"),
                ("_num_replicas", "_rank"))


def _sharding(chain):
    for obj in chain:
        for count, index in _SHARE_NAMES:
            replicas = _int(_attr(obj, count))
            rank = _int(_attr(obj, index))
            if replicas >= 0 and rank >= 0:
                return replicas, rank
    return -1, -1


def _attr(obj, name):
    """obj.name, None when it has none or reading it raises (a property)."""
    try:
        return getattr(obj, name, None)
    except Exception:
        return None


def _link_int(obj, names):
    for name in names:
        value = _int(_attr(obj, name), None)
        if value is not None:
            return value
    return -1


def _link_shuffle(obj):
    for cls, value in (("RandomSampler", 1), ("SequentialSampler", 0)):
        kind = getattr(_samplers, cls, None)
        if kind is not None and isinstance(obj, kind):
            return value
    return _flag(_attr(obj, "shuffle"))


def _link_length(obj):
    """The link's len(), asked once of any class that has one (a program's
    sampler states its share by it: an inference sampler's uneven shares,
    a repeating sampler's draws), -1 when it has none or asking raised
    (the exception does not reach the program; warnings are left alone, as
    for the dataset's len(): catch_warnings would reset the registry that
    shows each of the program's warnings once). A list or range given as
    sampler is not asked: each rank's is its own subset, no share of one."""
    kind = type(obj)
    if getattr(kind, "__len__", None) is None or kind.__module__ == "builtins":
        return -1
    try:
        return _int(len(obj))
    except Exception:
        return -1


def _own_method(obj, name):
    """Whether obj's method `name` is code outside the frameworks whose
    parts the report models (torch, accelerate, Lightning, torchdata): 1
    when the one its class has is a Python function of such code (the
    program's, or another package's), 0 when it is a framework's or a
    built-in's, -1 unknown."""
    for kind in type(obj).__mro__:
        if name not in vars(kind):
            continue
        code = getattr(vars(kind)[name], "__code__", None)
        if code is None:
            return 0 if kind.__module__ == "builtins" else -1
        return 0 if code.co_filename.startswith(_internal_prefixes()) else 1
    return -1


# id(link) -> the object_id given to that sampler link while it lives (the
# entry goes with it): loaders built around one sampler object name it alike,
# and an object that takes the address of a freed one gets a number of its
# own, where id() alone would make it the same sampler.
_object_ids = {}
_next_object_id = itertools.count(1)


def _object_id(obj):
    """The link's object_id in this process; 0 when it takes no weak
    reference (a list or range given as sampler): its end could not be
    seen."""
    key = id(obj)
    known = _object_ids.get(key)
    if known is not None:
        return known
    try:
        weakref.finalize(obj, _object_ids.pop, key, None).atexit = False
    except TypeError:
        return 0
    number = _object_ids[key] = next(_next_object_id)
    return number


def _identity(obj):
    """A number that names obj in this process while it lives and no other
    object after it (_object_id); id() for an object that takes no weak
    reference (a list given as dataset), which a later object may get."""
    return _object_id(obj) or id(obj)


def _emit_sampler_chain(ordinal, chain):
    """One sampler event per link, outermost first, with the parameters it
    has (attributes read, nothing called) and the identity of its object."""
    for depth, obj in enumerate(chain):
        replicas, rank = _sharding((obj,))
        _aw.sampler(
            loader=ordinal, depth=depth, class_name=_class_name(obj),
            length=_link_length(obj), num_replicas=replicas, rank=rank, shuffle=_link_shuffle(obj),
            seed=_link_int(obj, ("seed", "initial_seed")),
            epoch=_link_int(obj, ("epoch",)),
            drop_last=_flag(_attr(obj, "drop_last")),
            replacement=_flag(_attr(obj, "replacement")),
            num_samples=_link_int(obj, ("num_samples",)),
            batch_size=_link_int(obj, ("batch_size",)),
            skip=_link_int(obj, ("skip_batches",)),
            total_size=_link_int(obj, ("total_size",)),
            object_id=_object_id(obj), own_iter=_own_method(obj, "__iter__"))


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


def _dataset_epoch(dataset):
    """The epoch a dataset holds of its own (an int, or a one-number tensor
    as HF datasets shares with workers), read from its __dict__ so that no
    property of the user's runs; -1 none."""
    try:
        own = vars(dataset)
    except TypeError:
        return -1
    for name in ("epoch", "_epoch"):
        value = own.get(name)
        if isinstance(value, bool):
            continue
        if isinstance(value, int):
            return value
        if _Tensor is not None and isinstance(value, _Tensor) and value.numel() == 1:
            return int(value)
    return -1


def _dataset_len(dataset):
    try:
        return len(dataset)
    except Exception:
        return -1


# Entries of one index map recorded at most; a longer map is not recorded
# (the report then counts the loader's positions as they are).
_MAP_MAX = 1 << 24


# The index maps of other libraries' datasets, which their parts add (HF
# datasets: 35_datasets): functions of a dataset giving _index_map's tuple
# or None; and by a map's kind, a function naming the dataset at the bottom
# of a map with nothing below it (else the mapping dataset itself).
_index_map_finders = []
_map_roots = {}


def _index_map(obj):
    """(kind, indices, base_len, below) when obj maps its positions into
    another dataset: torch's Subset (random_split's too), a ConcatDataset
    over index maps, or a HF datasets.Dataset after shard, select or shuffle
    (an indices mapping, a slice of its table, or both). below is the
    dataset the indices point into, None when they reach the bottom. None
    when obj maps nothing."""
    module = sys.modules.get("torch.utils.data.dataset")
    subset = getattr(module, "Subset", None)
    if subset is not None and isinstance(obj, subset):
        indices = obj.indices
        tolist = getattr(indices, "tolist", None)
        below = obj.dataset
        return ("subset", tolist() if callable(tolist) else indices,
                _base_len(below), below)
    concat = getattr(module, "ConcatDataset", None)
    if concat is not None and isinstance(obj, concat):
        return _concat_map(obj)
    for finder in _index_map_finders:
        found = finder(obj)
        if found is not None:
            return found
    return _own_index_map(obj)


_SEQUENCES = (list, tuple, range)
_NOT_DATASETS = (str, bytes, bytearray, dict)


def _int_sequence(value):
    """value's entries when it is a flat list of ints (a list, tuple or
    range of them, or a 1-D integer ndarray or tensor), else None."""
    if isinstance(value, _SEQUENCES):
        if all(type(v) is int for v in value):
            return value
        return None
    kind = type(value).__module__
    if kind == "numpy" and getattr(value, "ndim", 0) == 1 and \
            getattr(getattr(value, "dtype", None), "kind", "") in "iu":
        return value.tolist()
    if _Tensor is not None and isinstance(value, _Tensor) and \
            value.dim() == 1 and not value.is_floating_point() and \
            not value.is_complex() and str(value.dtype) != "torch.bool":
        return value.tolist()
    return None


def _own_index_map(obj):
    """The map a dataset of the program's own keeps from its positions into
    another dataset (a Partition(data, index) whose __getitem__ reads
    data[index[i]]): asked of a dataset whose __getitem__ is code outside
    the frameworks, read from its __dict__ only (none of its code runs
    but its len()), and taken when it holds exactly one other dataset and
    exactly one list of distinct indices of that dataset, as long as
    itself. That __getitem__ reads through it is assumed: the kind,
    "own:<class>.<attribute>", lets the report say so. None otherwise."""
    if _own_method(obj, "__getitem__") != 1:
        return None
    try:
        own = vars(obj)
    except TypeError:
        return None
    lists, below = [], []
    for name, value in own.items():
        if isinstance(value, _NOT_DATASETS) or value is obj:
            continue
        entries = _int_sequence(value)
        if entries is not None:
            lists.append((name, entries))
        elif getattr(type(value), "__getitem__", None) is not None and \
                getattr(type(value), "__len__", None) is not None:
            below.append(value)
    if len(below) != 1 or not lists:
        return None
    length, base_len = _dataset_len(obj), _base_len(below[0])
    found = [(name, entries) for name, entries in lists
             if len(entries) == length and length <= _MAP_MAX]
    if len(found) != 1 or base_len < 0:
        return None
    name, entries = found[0]
    if entries and (min(entries) < 0 or max(entries) >= base_len or
                    len(set(entries)) != len(entries)):
        return None
    return ("own:%s.%s" % (_class_name(obj), name), list(entries),
            base_len, below[0])


def _base_len(dataset):
    length = _dataset_len(dataset)
    return length if length >= 0 else _int(_attr(dataset, "num_rows"))


def _flat_map(obj, depth):
    """(indices, bottom, base_len): obj's positions as indices of the
    dataset at the bottom of its maps (indices None: the same positions);
    bottom names that dataset, so that two maps onto one are known."""
    found = _index_map(obj) if depth < 4 else None
    if found is None:
        return None, ("dataset", id(obj)), _base_len(obj)
    kind, indices, base_len, below = found
    if below is None:
        root = _map_roots.get(kind)
        bottom = root(obj) if root is not None else ("dataset", id(obj))
        return indices, bottom, base_len
    lower, bottom, bottom_len = _flat_map(below, depth + 1)
    if lower is not None:
        indices = [lower[i] for i in indices]
    return indices, bottom, bottom_len


def _concat_map(obj):
    """A ConcatDataset: each part's positions after its own maps, offset by
    the parts before it when it maps onto another dataset than they do.
    None when no part maps (the concatenation is the dataset then) or a
    part's length is unknown."""
    parts = [_flat_map(part, 1) for part in obj.datasets]
    if all(indices is None for indices, _, _ in parts):
        return None
    offsets, total = {}, 0
    for _, bottom, base_len in parts:
        if bottom not in offsets:
            if base_len < 0:
                return None
            offsets[bottom] = total
            total += base_len
    indices = []
    for rows, bottom, base_len in parts:
        offset = offsets[bottom]
        indices.extend(offset + row
                       for row in (range(base_len) if rows is None else rows))
        if len(indices) > _MAP_MAX:
            break
    return "concat", indices, total, None


def _index_maps(dataset):
    """The index maps below the loader's dataset, outermost first
    (_index_map's tuples, 4 levels at most), and the dataset at the bottom
    of those that name what they point into (Subset's .dataset): loaders
    over parts of one dataset share it. Walked once, for the loader_new
    and the dataset_map events both; a map that raised ends the walk."""
    maps, obj = [], dataset
    try:
        for _ in range(4):
            found = _index_map(obj)
            if found is None:
                break
            maps.append(found)
            if found[3] is None:
                break
            obj = found[3]
    except Exception:
        _debug("dataset_map")
    return maps, obj


def _emit_index_maps(ordinal, maps):
    """One dataset_map event (in parts) per index map of _index_maps, up to
    the first too long to record."""
    try:
        for depth, (kind, indices, base_len, _) in enumerate(maps):
            if len(indices) > _MAP_MAX:
                _debug("dataset_map: %d entries, not recorded" % len(indices))
                return
            _aw.dataset_map(loader=ordinal, depth=depth, kind=kind,
                            base_len=base_len, indices=indices)
    except Exception:
        _debug("dataset_map")


def _stream_shard(obj):
    """(fields, below) of an IterableDataset link that splits its source
    among replicas: accelerate's IterableDatasetShard (every process reads
    the whole source, batch by batch, and keeps its slice), or a HF
    IterableDataset after split_dataset_by_node (each node reads its own
    shards when they divide among the nodes, else every example and keeps
    1 of world_size). None otherwise."""
    shard = getattr(sys.modules.get("accelerate.data_loader"),
                    "IterableDatasetShard", None)
    if shard is not None and isinstance(obj, shard):
        return dict(class_name=_class_name(obj),
                    num_replicas=_int(_attr(obj, "num_processes")),
                    rank=_int(_attr(obj, "process_index")),
                    batch_size=_int(_attr(obj, "batch_size")),
                    split_batches=_flag(_attr(obj, "split_batches")),
                    whole=1), _attr(obj, "dataset")
    hf = getattr(sys.modules.get("datasets.iterable_dataset"),
                 "IterableDataset", None)
    if hf is not None and isinstance(obj, hf):
        config = _attr(obj, "_distributed")
        if config is None:
            return None
        world = _int(_attr(config, "world_size"))
        shards = _int(_attr(_attr(obj, "_ex_iterable"), "num_shards"))
        whole = -1 if shards < 0 or world < 1 else (1 if shards % world else 0)
        return dict(class_name=_class_name(obj), num_replicas=world,
                    rank=_int(_attr(config, "rank")), shards=shards,
                    whole=whole), None
    return None


def _emit_stream_shards(ordinal, dataset):
    """One stream_shard event per splitting link of an IterableDataset,
    outermost first."""
    try:
        obj = dataset
        for depth in range(4):
            found = _stream_shard(obj) if obj is not None else None
            if found is None:
                return
            fields, obj = found
            _aw.stream_shard(loader=ordinal, depth=depth, **fields)
    except Exception:
        _debug("stream_shard")


def _register(loader):
    key = id(loader)
    entry = _Loader(_state.next_loader)
    _state.next_loader += 1
    _loaders[key] = entry
    weakref.finalize(loader, _loaders.pop, key, None).atexit = False
    return entry


# "# accwatch: allow ID[, ID...]": the findings the user says are intended
# for the loader built on that line (or below those comment lines). The ids
# are comma-separated; the list ends at the first id without a comma after
# it, and what follows is the user's own words.
_ALLOW = re.compile(r"#\s*accwatch:\s*allow\b")
_ALLOW_ID = re.compile(r"\s*([A-Za-z0-9_-]+)\s*(,?)")
# Bytes of the allow field at most (cut after a whole id), and comment lines
# above the site read at most.
_ALLOW_MAX = 256
_ALLOW_ABOVE = 16


def _allowed_on(line, ids):
    found = _ALLOW.search(line)
    if found is None:
        return
    at = found.end()
    while True:
        word = _ALLOW_ID.match(line, at)
        if word is None:
            return
        if word.group(1) not in ids:
            ids.append(word.group(1))
        if not word.group(2):
            return
        at = word.end()


def _allowed(path, lineno):
    """The finding ids the source allows for a loader built at path:lineno,
    comma-separated: its line and the comment lines right above it, read
    through linecache (the source the interpreter knows, read once per file;
    nothing when it has none)."""
    try:
        ids = []
        _allowed_on(linecache.getline(path, lineno), ids)
        for above in range(lineno - 1, max(lineno - 1 - _ALLOW_ABOVE, 0), -1):
            line = linecache.getline(path, above).strip()
            if not line.startswith("#"):
                break
            _allowed_on(line, ids)
        allow = ""
        for name in ids:
            longer = name if not allow else allow + "," + name
            if len(longer.encode("utf-8", "replace")) > _ALLOW_MAX:
                break
            allow = longer
        return allow
    except Exception:
        _debug("allow")
        return ""


def _loader_new(loader, frame):
    entry = _register(loader)
    dataset = loader.dataset
    chain = _sampler_chain(loader)
    replicas, rank = _sharding(chain)
    user = _user_frame(frame) if frame is not None else None
    if user is not None:
        site = "%s:%s" % (user.f_code.co_filename, user.f_lineno)
        stack = _format_stack(user, 6)
        allow = _allowed(user.f_code.co_filename, user.f_lineno)
    else:
        site = stack = allow = ""
    batch_size = getattr(loader, "batch_size", None)
    maps, bottom = _index_maps(dataset)
    _aw.loader_new(
        loader=entry.ordinal, dataset_id=_identity(dataset), base_id=_identity(bottom),
        dataset_type=type(dataset).__qualname__,
        dataset_len=_dataset_len(dataset),
        iterable=1 if _is_iterable(loader) else 0,
        loader_class=_class_name(loader),
        sampler_class=_class_name(getattr(loader, "sampler", None)),
        batch_sampler_class=_class_name(getattr(loader, "batch_sampler",
                                                None)),
        batch_size=-1 if batch_size is None else _int(batch_size),
        drop_last=_flag(getattr(loader, "drop_last", None)),
        shuffle=_loader_shuffle(loader, chain),
        num_workers=_int(getattr(loader, "num_workers", None)),
        persistent_workers=_flag(getattr(loader, "persistent_workers",
                                         None)),
        prefetch_factor=_int(getattr(loader, "prefetch_factor", None)),
        start_method=_start_method(loader), sampler_replicas=replicas,
        sampler_rank=rank, site=site, stack=stack, allow=allow)
    _emit_sampler_chain(entry.ordinal, chain)
    _emit_dist_groups()
    _emit_index_maps(entry.ordinal, maps)
    if _is_iterable(loader):
        _emit_stream_shards(entry.ordinal, dataset)
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
    if rec.cycle is not None:
        found = _cycling.pop(rec.cycle, None)
        rec.cycle = None
        # A cycle the loop got whole ran to its end, though the sampler
        # was not asked for more (an iterator kept for many epochs).
        if found is not None and rec.drawn > 0 and rec.yielded >= rec.drawn \
                and rec.drawn == _link_length(found[-1]):
            exhausted = True
    if rec.pid == _state.pid and rec.recorded:
        _aw.iter_end(loader=rec.loader, iteration=rec.iteration,
                     drawn=rec.drawn, yielded=max(rec.yielded, 0),
                     exhausted=1 if exhausted else 0, handed=rec.handed)
    if rec.counted:
        rec.counted = False
        if rec.pid == _state.pid:
            _switch.count(-1)


def _iterator_gone(key):
    try:
        try:
            rec = _iters.pop(key, None)
        finally:
            _aw.hot_forget()  # the C path keeps the last iterator it saw
        if rec is not None:
            _end(rec, 0)
    except Exception:
        _debug("iterator collected")


def _bind(iterator, rec):
    key = id(iterator)
    known = key in _iters
    try:
        _iters[key] = rec
    finally:
        _aw.hot_forget()
    if not known:
        weakref.finalize(iterator, _iterator_gone, key)


def _pass_seed(chain):
    """The seed the pass's order comes from: a link's own (DistributedSampler's
    seed, accelerate's SeedableRandomSampler's initial_seed); else, for a
    shuffling link that draws its permutation from a torch Generator
    (RandomSampler), that generator's initial seed, the process's default
    one when it has none. -1 when nothing shuffles."""
    seed = _first_int(chain, ("seed", "initial_seed"))
    if seed >= 0:
        return seed
    for obj in chain:
        if _link_shuffle(obj) != 1 or not hasattr(obj, "generator"):
            continue
        try:
            generator = obj.generator
            if generator is None:
                return _int(sys.modules["torch"].initial_seed())
            return _int(generator.initial_seed())
        except Exception:
            return -1
    return -1


def _resumed_batches(loader):
    """The batches a pass starting now skips because it resumes from a
    state_dict: torchdata's StatefulDataLoader keeps the state given to
    load_state_dict in next_iter_state until its next iterator restores it
    (the sampler fast-forwarded by the batches it had yielded). -1 none."""
    try:
        state = vars(loader).get("next_iter_state")
    except TypeError:
        return -1
    if not isinstance(state, dict):
        return -1
    return _int(state.get("_sampler_iter_yielded"))


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
    _emit_dist_groups()
    dataset = getattr(loader, "dataset", None)
    _aw.iter_begin(loader=rec.loader, iteration=rec.iteration,
                   sampler_epoch=_first_int(chain, ("epoch",)),
                   seed=_pass_seed(chain),
                   dataset_epoch=_dataset_epoch(dataset),
                   resumed=_resumed_batches(loader))
    link = _cycle_link(chain) if rec.recorded and rec.indexed else None
    if link is not None:
        rec.cycle = id(link)
        _cycling[rec.cycle] = (rec, entry, chain, dataset, link)
    # Persistent workers: the same iterator is _reset inside the original
    # __iter__ and draws this iteration's first batches there. (torchdata
    # keeps its last iterator in _iterator without persistent workers too:
    # that one is about to be replaced, not reused.)
    iterator = getattr(loader, "_iterator", None)
    if (isinstance(iterator, _dl._BaseDataLoaderIter)
            and getattr(loader, "persistent_workers", False)):
        _bind(iterator, rec)
    return rec


# --- sampler cycles ----------------------------------------------------------
# A loader that keeps one iterator for the whole run over a sampler of its
# own that starts torch's sampler over and over (the multi-epoch loader
# pattern, which keeps its workers alive): each start of torch's link is an
# epoch of that one pass. id(link) -> (rec, entry, chain, dataset, link)
# while the pass is open.
_cycling = {}


def _cycle_link(chain):
    """The link whose starts are the pass's cycles, when the chain begins
    with a link that draws with code of its own over one of torch's
    samplers (those whose __iter__ is patched): the first of those; None
    otherwise."""
    if not chain or _own_method(chain[0], "__iter__") != 1:
        return None
    for obj in chain[1:]:
        if getattr(getattr(type(obj), "__iter__", None), "_accwatch_wrapper", False):
            return obj
    return None


def _drawing(rec):
    """Whether the caller runs inside torch's _next_index of the iterator
    of rec (a draw of the pass, not the program iterating the sampler)."""
    frame = sys._getframe(2)
    for _ in range(10):
        if frame is None:
            return False
        if frame.f_code.co_name == "_next_index":
            return _iters.get(id(frame.f_locals.get("self"))) is rec
        frame = frame.f_back
    return False


def _cycle_begins(rec, entry, chain, dataset, link):
    """The pass's cycle link starts over while the pass draws: what it drew
    so far is a pass that ended (iter_end, its batches all the loop's: an
    iterator hands them over before the next cycle's), and what it draws
    now a new one (iter_begin, with the sampler's epoch and seed as they
    are at this start: a prefetch that starts it before set_epoch shows)."""
    if not rec.open or not rec.drawn or rec.pid != _state.pid or \
            not _drawing(rec):
        return
    drawn = rec.drawn
    _aw.iter_end(loader=rec.loader, iteration=rec.iteration, drawn=drawn,
                 yielded=drawn, exhausted=1, handed=-1)
    rec.iteration = entry.iterations
    entry.iterations += 1
    rec.drawn = 0
    rec.yielded -= drawn  # the rest of this cycle's batches come first
    _aw.hot_forget()
    _aw.iter_begin(loader=rec.loader, iteration=rec.iteration,
                   sampler_epoch=_first_int(chain, ("epoch",)),
                   seed=_pass_seed(chain),
                   dataset_epoch=_dataset_epoch(dataset), resumed=-1)


def _wrap_sampler_iter(original):
    def before(self, *args, **kwargs):
        try:
            found = _cycling.get(id(self))
            if found is not None:
                _cycle_begins(*found)
        except Exception:
            _debug("sampler __iter__")
    return _wrap(original, before, None)


# --- wrappers ----------------------------------------------------------------

def _constructor_caller(loader, frame):
    """The frame that built loader: out of the __init__ of its subclasses
    (a loader class of the program's own calls DataLoader's from its own
    __init__), so that its site is the line that made it."""
    for _ in range(8):
        code = frame.f_code if frame is not None else None
        if code is None or code.co_name != "__init__" or not code.co_argcount \
                or frame.f_locals.get(code.co_varnames[0]) is not loader \
                or frame.f_back is None:
            break
        frame = frame.f_back
    return frame


def _wrap_loader_init(original):
    def before(self, *args, **kwargs):
        key = id(self)
        if key in _initing:  # a subclass's __init__ calling ours
            return None
        _initing.add(key)
        return self

    def after(self, result, raised):
        if self is None:
            return result
        key = id(self)
        _initing.discard(key)
        if raised is None:
            try:
                if key not in _loaders:
                    _loader_new(self, _constructor_caller(self, sys._getframe(1)))
            except Exception:
                _debug("DataLoader.__init__")
        return result
    return _wrap(original, before, after)


def _wrap_len(original):
    """len() of a loader (DataLoader, or accelerate's outer loaders): the
    value the caller got, recorded on the object it asked, once per call
    site. A len() nested in another (a dispatcher asking its inner
    DataLoader) is not the user's and is not recorded."""
    def before(self):
        depth = getattr(_len_depth, "depth", 0)
        _len_depth.depth = depth + 1
        return self, depth

    def after(token, value, raised):
        self, depth = token
        _len_depth.depth = depth
        if depth == 0 and raised is None:
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
    return _wrap(original, before, after)


def _wrap_loader_iter(original):
    def before(self):
        saved = getattr(_starting, "rec", None)
        rec = None
        try:
            rec = _current_or_begin(self)
        except Exception:
            _debug("DataLoader.__iter__")
        _starting.rec = rec
        return saved, rec

    def after(token, iterator, raised):
        saved, rec = token
        _starting.rec = saved
        if raised is not None:
            try:
                if rec is not None:
                    _end(rec, 0)
            except Exception:
                _debug("DataLoader.__iter__ raised")
            return None
        try:
            if (rec is not None and id(iterator) not in _iters
                    and isinstance(iterator, _dl._BaseDataLoaderIter)):
                _bind(iterator, rec)
        except Exception:
            _debug("DataLoader.__iter__ bind")
        return iterator
    return _wrap(original, before, after)


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
    def before(self, loader, *args, **kwargs):
        try:
            first = kwargs.get("first_iter", args[0] if args else False)
            if not first and getattr(_starting, "rec", None) is None:
                rec = _begin(loader)
                if rec is not None:
                    _bind(self, rec)
        except Exception:
            _debug("_reset")
    return _wrap(original, before, None)


def _wrap_iterator_init(original):
    def before(self, loader, *args, **kwargs):
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
        return saved

    def after(saved, result, raised):
        _starting.rec = saved
        return result
    return _wrap(original, before, after)


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
    """The per-batch methods where the C ones cannot be made (3.8)."""
    def before(self):
        return self

    def after(self, index, raised):
        if raised is None:
            try:
                _drawn_one(self, index, _iters.get(id(self)))
            except Exception:
                _debug("_next_index")
        return index
    return _wrap(original, before, after)


def _wrap_next(original):
    def before(self):
        return self

    def after(self, data, raised):
        try:
            if raised is not None:
                if _is_raised(raised, StopIteration):
                    _stopped(self)
                return None
            rec = _iters.get(id(self))
            if rec is not None:
                rec.yielded += 1
        except Exception:
            _debug("__next__")
        return data
    return _wrap(original, before, after)


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
        hot = _aw.hot_descriptors(_iters, originals[0], originals[1],
                                  _hot_unknown, _hot_unindexed, _stopped)
        if hot is not None:
            # method descriptors with a __dict__: inspect.signature and
            # __qualname__ read torch's method through __wrapped__.
            methods = [functools.update_wrapper(method, original)
                       for method, original in zip(hot, originals)]
        else:
            hot = _aw.hot_methods(_iters, originals[0], originals[1],
                                  _hot_unknown, _hot_unindexed, _stopped,
                                  iterator.__module__)
        if methods is None and hot is not None:
            # partial: a C callable with a __dict__, so that
            # inspect.signature and __qualname__ read torch's method
            # through __wrapped__ (return annotation included).
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


# --- torch.distributed -------------------------------------------------------

_groups_told = set()  # the member lists of the process groups told


def _emit_dist_groups():
    """The process groups this process is a member of, each told once
    (torch keeps them in _pg_group_ranks: global rank -> group rank): the
    evidence that ranks of one group read the same data on purpose."""
    c10d = sys.modules.get("torch.distributed.distributed_c10d")
    groups = getattr(c10d, "_pg_group_ranks", None)
    if not groups or len(_groups_told) >= len(groups):
        return
    try:
        members = [sorted(int(r) for r in ranks) for ranks in list(groups.values())]
        rank = _int(sys.modules["torch.distributed"].get_rank())
    except Exception:
        _debug("process groups")
        return
    for ranks in members:
        text = ",".join(str(r) for r in ranks)
        if text not in _groups_told:
            _groups_told.add(text)
            _aw.dist_group(rank=rank, ranks=text)


def _wrap_init_process_group(original):
    def after(token, result, raised):
        if raised is None:
            try:
                dist = sys.modules.get("torch.distributed")
                _aw.dist_init(rank=_int(dist.get_rank()),
                              world_size=_int(dist.get_world_size()),
                              backend=str(dist.get_backend()))
            except Exception:
                _debug("init_process_group")
        return result
    return _wrap(original, None, after)


def _patch_distributed():
    c10d = sys.modules.get("torch.distributed.distributed_c10d")
    dist = sys.modules.get("torch.distributed")
    original = getattr(c10d, "init_process_group", None)
    wrapper = _patch(c10d, "init_process_group", _wrap_init_process_group)
    if wrapper is not None and getattr(dist, "init_process_group",
                                       None) is original:
        dist.init_process_group = wrapper


def _join_event(join, begin, raised=-1):
    """A join event of a Join object: its parameters, read from its own
    attributes (torch 1.10 to 2.x keep these names)."""
    try:
        own = vars(join)
        joinables = own.get("_joinables")
        _aw.join(begin=1 if begin else 0,
                 joinables=len(joinables) if isinstance(joinables, (list, tuple)) else -1,
                 enable=_flag(own.get("_enable")),
                 throw_on_early_termination=_flag(own.get("_throw_on_early_termination")),
                 raised=raised)
    except Exception:
        _debug("Join")


def _wrap_join_enter(original):
    def before(self, *args, **kwargs):
        return self

    def after(self, result, raised):
        if raised is None:
            _join_event(self, True)
        return result
    return _wrap(original, before, after)


def _wrap_join_exit(original):
    """Join.__exit__ shadows the collectives of the ranks still going until
    every rank joined: the event comes once it returned (or raised), so a
    rank that never leaves it shows as one."""
    def before(self, *args, **kwargs):
        return self, args[0] if args else kwargs.get("type")

    def after(token, result, raised):
        self, came = token
        if raised is not None:
            _join_event(self, False, 1)
        else:
            _join_event(self, False,
                        1 if came is not None and not result else 0)
        return result
    return _wrap(original, before, after)


_JOIN = "torch.distributed.algorithms.join"


def _patch_join(module):
    """torch.distributed.algorithms.Join (DDP's join() and accelerate's
    join_uneven_inputs() build one): entered and left."""
    join = getattr(module, "Join", None)
    _patch(join, "__enter__", _wrap_join_enter)
    _patch(join, "__exit__", _wrap_join_exit)
