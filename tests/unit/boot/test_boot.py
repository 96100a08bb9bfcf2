# SPDX-License-Identifier: MIT
"""Unit tests of the bootstrap (recorder/boot/*.py) against the small fakes of
fakes.py: which events each hook sends, with which fields, and that the
wrapped calls behave as before. Run by ctest (boot_pytest) with Debian's
python3 and its pytest."""
import functools
import gc
import inspect
import sys

import pytest

import fakes


@pytest.fixture
def torch_process(monkeypatch):
    """A torch process with the recorder attached: (torch modules, namespace
    of the bootstrap, recorder)."""
    modules = fakes.torch_modules(rank=1, world=2)
    namespace, recorder = fakes.run_bootstrap(monkeypatch, modules)
    return modules, namespace, recorder


def dataloader(modules):
    return modules["torch.utils.data.dataloader"].DataLoader


def line_of(frame_offset=0):
    """This file's path and the caller's line (+ offset)."""
    frame = sys._getframe(1)
    return "%s:%d" % (frame.f_code.co_filename, frame.f_lineno + frame_offset)


def test_attach_sends_the_process(torch_process):
    modules, namespace, recorder = torch_process
    (process,) = recorder.of("process")
    assert process["role"] == ""  # C says rank or other from the environment
    assert process["torch"] == "0.0+fake"
    assert process["python"] == sys.version.split()[0]


def test_loader_new_says_what_the_loader_is_and_where_it_was_built(torch_process):
    modules, namespace, recorder = torch_process
    site = line_of(1)
    dataloader(modules)(list(range(10)), batch_size=4, shuffle=True)
    (new,) = recorder.of("loader_new")
    assert new["loader"] == 0
    assert new["dataset_len"] == 10
    assert new["batch_size"] == 4
    assert new["shuffle"] == 1
    assert new["drop_last"] == 0
    assert new["iterable"] == 0
    assert new["num_workers"] == 0
    assert new["sampler_class"].endswith("RandomSampler")
    assert new["batch_sampler_class"].endswith("BatchSampler")
    assert new["sampler_replicas"] == -1 and new["sampler_rank"] == -1
    assert new["site"] == site
    assert new["stack"].splitlines()[-1].startswith(site)


def test_loader_new_carries_what_the_source_allows_where_it_is_built(torch_process):
    modules, namespace, recorder = torch_process
    DataLoader = dataloader(modules)
    data = list(range(4))
    DataLoader(data)  # accwatch: allow unsharded
    # The validation set is read whole on every rank, on purpose.
    # accwatch: allow uneven-batches ,same-order
    DataLoader(data)  # accwatch: allow unsharded, overlap every rank validates
    DataLoader(data)  # a comment of the user's, no directive

    # accwatch: allow missing (a blank line ends the comment block)

    DataLoader(data)
    DataLoader(data)  # accwatch:allow bad!id , padding
    DataLoader(data, batch_size=2,
               shuffle=False)  # on the call's second line: not its site
    allows = [new["allow"] for new in recorder.of("loader_new")]
    assert allows == ["unsharded", "unsharded,overlap,uneven-batches,same-order", "", "", "bad", ""]


def test_the_allow_field_is_cut_after_a_whole_id(torch_process):
    modules, namespace, recorder = torch_process
    ids = ",".join("id-%03d" % i for i in range(60))  # 419 bytes
    source = "DataLoader(data)  # accwatch: allow " + ids + "\n"
    path = "/nonexistent/accwatch-allow-test.py"
    namespace["linecache"].cache[path] = (len(source), None, [source], path)
    try:
        exec(compile(source, path, "exec"), {"DataLoader": dataloader(modules), "data": [1]})
    finally:
        namespace["linecache"].cache.pop(path, None)
    (new,) = recorder.of("loader_new")
    assert new["site"] == path + ":1"
    assert len(new["allow"]) <= 256 and ids.startswith(new["allow"] + ",")
    assert new["allow"].split(",")[-1] == "id-%03d" % (len(new["allow"].split(",")) - 1)


def test_a_source_the_interpreter_cannot_read_allows_nothing(torch_process):
    modules, namespace, recorder = torch_process
    exec(compile("DataLoader(data)  # accwatch: allow unsharded\n", "<string>", "exec"),
         {"DataLoader": dataloader(modules), "data": [1]})
    (new,) = recorder.of("loader_new")
    assert new["allow"] == ""


def test_an_epoch_is_iter_begin_its_batches_and_iter_end(torch_process):
    modules, namespace, recorder = torch_process
    loader = dataloader(modules)(list(range(10)), batch_size=4)
    got = [batch for batch in loader]
    assert got == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]
    (begin,) = recorder.of("iter_begin")
    assert (begin["loader"], begin["iteration"]) == (0, 0)
    assert [b["indices"] for b in recorder.of("batch")] == got
    assert [b["batch"] for b in recorder.of("batch")] == [0, 1, 2]
    (end,) = recorder.of("iter_end")
    assert end == dict(loader=0, iteration=0, drawn=3, yielded=3, exhausted=1,
                      handed=-1)


def test_iter_begin_carries_the_epoch_the_dataset_holds_of_its_own(torch_process):
    modules, namespace, recorder = torch_process

    class Epochs(list):
        @property
        def epoch(self):  # a property of the user's: never read
            raise AssertionError("read")

    plain, own = Epochs(range(4)), Epochs(range(4))
    own.__dict__["_epoch"] = 7
    for data in (plain, own):
        for _ in dataloader(modules)(data, batch_size=2):
            pass
    assert [b["dataset_epoch"] for b in recorder.of("iter_begin")] == [-1, 7]


def test_a_loop_left_early_ends_its_iteration_unexhausted(torch_process):
    modules, namespace, recorder = torch_process
    loader = dataloader(modules)(list(range(10)), batch_size=2)
    for batch in loader:
        break
    gc.collect()
    (end,) = recorder.of("iter_end")
    assert (end["drawn"], end["yielded"], end["exhausted"]) == (1, 1, 0)
    for _ in loader:  # the next epoch is iteration 1
        pass
    assert [b["iteration"] for b in recorder.of("iter_begin")] == [0, 1]


def test_per_batch_methods_are_on_the_class_only_while_an_epoch_is_recorded(torch_process):
    modules, namespace, recorder = torch_process
    base = modules["torch.utils.data.dataloader"]._BaseDataLoaderIter
    torch_next_index = vars(base)["_next_index"]
    loader = dataloader(modules)(list(range(4)), batch_size=2)
    iterator = iter(loader)
    assert vars(base)["_next_index"] is not torch_next_index
    assert vars(base)["_next_index"].__wrapped__ is torch_next_index
    list(iterator)
    assert vars(base)["_next_index"] is torch_next_index


def test_without_a_session_no_batch_is_recorded(torch_process):
    modules, namespace, recorder = torch_process
    recorder.on = False
    base = modules["torch.utils.data.dataloader"]._BaseDataLoaderIter
    torch_next_index = vars(base)["_next_index"]
    loader = dataloader(modules)(list(range(4)), batch_size=2)
    iterator = iter(loader)
    assert vars(base)["_next_index"] is torch_next_index
    assert list(iterator) == [[0, 1], [2, 3]]
    assert recorder.of("batch") == []


def test_len_is_recorded_once_per_value_and_call_site(torch_process):
    modules, namespace, recorder = torch_process
    loader = dataloader(modules)(list(range(10)), batch_size=4)
    for _ in range(3):
        assert len(loader) == 3
    site = line_of(1)
    assert len(loader) == 3
    lens = recorder.of("loader_len")
    assert [(n["loader"], n["value"]) for n in lens] == [(0, 3), (0, 3)]
    assert lens[1]["site"] == site


def test_wrappers_keep_signatures_and_exceptions(torch_process):
    modules, namespace, recorder = torch_process
    DataLoader = dataloader(modules)
    assert DataLoader.__init__.__wrapped__ is not None
    assert inspect.signature(DataLoader.__init__) == inspect.signature(DataLoader.__init__.__wrapped__)
    failure = KeyError("sample 3 is corrupt")

    class Broken(list):
        def __getitem__(self, index):
            if index == 3:
                raise failure
            return index

    loader = DataLoader(Broken(range(6)), batch_size=2)
    with pytest.raises(KeyError) as raised:
        list(loader)
    assert raised.value is failure
    failure.__traceback__ = None  # its frames hold the iterator
    del raised
    gc.collect()
    (end,) = recorder.of("iter_end")
    assert end["exhausted"] == 0 and end["yielded"] == 1


def test_a_worker_says_what_it_is_and_each_fetch_begins_and_ends(monkeypatch):
    info = fakes.WorkerInfo(id=1, num_workers=2, seed=(1 << 64) - 5)
    modules = fakes.torch_modules(worker=info)
    namespace, recorder = fakes.run_bootstrap(monkeypatch, modules)
    fetch = modules["torch.utils.data._utils.fetch"]
    fetcher = fetch._MapDatasetFetcher(list(range(10, 20)), True, list, False)
    assert [p["role"] for p in recorder.of("process")] == ["", "worker"]
    (start,) = recorder.of("worker_start")
    assert (start["worker_id"], start["num_workers"]) == (1, 2)
    assert start["seed"] == -5  # 64 bits as the recorder's signed field
    assert fetcher.fetch([1, 2]) == [11, 12]
    with pytest.raises(IndexError):
        fetcher.fetch([99])
    assert [(f["batch"], f["indices"]) for f in recorder.of("worker_fetch")] == [(0, [1, 2]), (1, [99])]
    assert [(e["batch"], e["ok"]) for e in recorder.of("worker_fetch_end")] == [(0, 1), (1, 0)]


def test_init_process_group_sends_dist_init(torch_process):
    modules, namespace, recorder = torch_process
    modules["torch.distributed"].init_process_group("gloo")
    assert recorder.of("dist_init") == [dict(rank=1, world_size=2, backend="gloo")]


def test_accelerate_shard_is_a_wrap_with_its_sharding(monkeypatch, torch_process):
    modules, namespace, recorder = torch_process
    DataLoader = dataloader(modules)

    class BatchSamplerShard:
        def __init__(self, batch_sampler, num_processes, process_index):
            self.batch_sampler, self.num_processes = batch_sampler, num_processes
            self.process_index, self.split_batches, self.even_batches = process_index, False, True

        def __iter__(self):
            for i, batch in enumerate(self.batch_sampler):
                if i % self.num_processes == self.process_index:
                    yield batch

    class DataLoaderAdapter:
        def __init__(self, base_dataloader):
            self.base_dataloader = base_dataloader

        def __len__(self):
            return len(self.base_dataloader)

        def __getattr__(self, name):  # accelerate 1.x forwards to the loader
            if name == "base_dataloader":
                raise AttributeError(name)
            return getattr(self.base_dataloader, name)

    class DataLoaderShard(DataLoaderAdapter):
        def __init__(self, base_dataloader, device=None):
            super().__init__(base_dataloader)
            self.device = device

    accelerate = fakes.module("accelerate.data_loader", DataLoaderShard=DataLoaderShard,
                              DataLoaderAdapter=DataLoaderAdapter)
    monkeypatch.setitem(sys.modules, "accelerate.data_loader", accelerate)
    namespace["_on_module"]("accelerate.data_loader")
    user = DataLoader(list(range(8)), batch_size=2)
    inner = DataLoader(list(range(8)), batch_sampler=BatchSamplerShard(user.batch_sampler, 2, 1))
    DataLoaderShard(inner)
    (wrap,) = recorder.of("loader_wrap")
    assert wrap == dict(outer=2, inner=1, kind="shard", split_batches=0, even_batches=1,
                        num_processes=2, process_index=1)
    assert recorder.of("loader_new")[2]["loader_class"].endswith("DataLoaderShard")


def test_the_bootstrap_never_raises_into_the_program(torch_process):
    modules, namespace, recorder = torch_process

    def failing(**fields):
        raise RuntimeError("the recorder failed")

    recorder.loader_new = failing
    loader = dataloader(modules)(list(range(4)), batch_size=2)  # still built
    assert list(loader) == [[0, 1], [2, 3]]
    assert any("DataLoader.__init__" in message for message in recorder.messages)
    functools.reduce(lambda a, b: a, [0])  # functools untouched by the bootstrap



class Unreadable(Exception):
    """An exception class of the program's own."""


class Mute(Exception):
    def __str__(self):
        raise RuntimeError("no message")


def test_an_uncaught_exception_is_sent_with_its_type_message_and_place(torch_process):
    modules, namespace, recorder = torch_process
    text = "sample 17 cannot be decoded: " + "x" * 300
    try:
        raise Unreadable(text)
    except Unreadable as e:
        error, line = e, sys._getframe().f_lineno - 2
    # What C hands over at the "sys.excepthook" audit event.
    namespace["_on_uncaught"]((sys.excepthook, Unreadable, error, error.__traceback__))
    namespace["_on_uncaught"]((sys.excepthook, ValueError, ValueError("bad value"), None))
    namespace["_on_uncaught"]((sys.excepthook, Mute, Mute(), None))
    namespace["_on_uncaught"](())  # malformed: nothing sent, nothing raised
    first, builtin, mute = recorder.of("exception")
    assert first["type_name"] == __name__ + ".Unreadable"
    assert first["message"] == text[:240] + "..."
    assert first["site"] == "%s:%d" % (__file__, line)
    assert builtin == dict(type_name="ValueError", message="bad value", site="")
    assert mute["type_name"] == __name__ + ".Mute" and mute["message"] == ""


class ShardingSampler:
    """DistributedSampler's attributes, and one property that raises."""

    def __init__(self, n):
        self.n, self.num_replicas, self.rank = n, 4, 3
        self.shuffle, self.seed, self.epoch, self.drop_last = True, 7, 0, False
        self.num_samples = (n + 3) // 4
        self.total_size = self.num_samples * 4

    @property
    def replacement(self):
        raise RuntimeError("a property of the user's that fails")

    def __iter__(self):
        return iter(range(self.rank, self.n, self.num_replicas))

    def __len__(self):
        return self.num_samples


class Batches:
    """BatchSampler's attributes over a sampler, dropping a short tail."""

    def __init__(self, sampler, batch_size, drop_last):
        self.sampler, self.batch_size, self.drop_last = sampler, batch_size, drop_last

    def __iter__(self):
        indices = list(self.sampler)
        for start in range(0, len(indices) - self.batch_size + 1, self.batch_size):
            yield indices[start:start + self.batch_size]


def test_the_sampler_chain_is_sent_link_by_link(torch_process):
    modules, namespace, recorder = torch_process
    batches = Batches(ShardingSampler(10), 2, True)
    loader = dataloader(modules)(list(range(10)), batch_sampler=batches)
    (new,) = recorder.of("loader_new")
    links = recorder.of("sampler")
    assert [link["depth"] for link in links] == [0, 1]
    assert all(link["loader"] == new["loader"] for link in links)
    outer, inner = links
    assert outer["class_name"].endswith("test_boot.Batches")
    assert outer["batch_size"] == 2 and outer["drop_last"] == 1
    assert outer["num_replicas"] == -1 and outer["seed"] == -1
    assert inner["class_name"].endswith("test_boot.ShardingSampler")
    assert (inner["num_replicas"], inner["rank"]) == (4, 3)
    assert (inner["shuffle"], inner["seed"], inner["epoch"]) == (1, 7, 0)
    assert inner["drop_last"] == 0 and inner["num_samples"] == 3
    assert inner["total_size"] == 12 and outer["total_size"] == -1
    assert inner["replacement"] == -1  # its property raised: not known
    assert inner["length"] == 3  # asked: a program's sampler states its share by it
    assert outer["length"] == -1  # it has no len()
    assert inner["own_iter"] == 1 and outer["own_iter"] == 1  # the program's __iter__
    assert [b for b in loader] == [[3, 7]]  # the loader works as before


class InferenceShard:
    """A sampler that keeps its share under names of its own (as
    detectron2's InferenceSampler)."""

    def __init__(self, n, rank, world):
        self._rank, self._world_size = rank, world
        size = (n - 1) // world + 1
        self._local_indices = range(size * rank, min(size * (rank + 1), n))

    def __iter__(self):
        return iter(self._local_indices)

    def __bool__(self):  # the fake DataLoader asks `sampler or ...`
        return True

    def __len__(self):
        return len(self._local_indices)


class LengthRaises(InferenceShard):
    def __len__(self):
        raise TypeError("no length")


def test_a_programs_sampler_is_asked_its_share(torch_process):
    modules, namespace, recorder = torch_process
    dataloader(modules)(list(range(50)), batch_size=4, sampler=InferenceShard(50, 3, 4))
    dataloader(modules)(list(range(50)), batch_size=4, sampler=LengthRaises(50, 1, 4))
    _, shard, _, raises = recorder.of("sampler")
    assert (shard["num_replicas"], shard["rank"], shard["length"]) == (4, 3, 11)
    assert shard["own_iter"] == 1
    assert (raises["num_replicas"], raises["rank"], raises["length"]) == (4, 1, -1)
    assert sys.exc_info() == (None, None, None)  # its len()'s error stayed ours


def test_loaders_around_one_sampler_name_its_object_alike(torch_process):
    modules, namespace, recorder = torch_process
    dataset = list(range(10))
    sampler = ShardingSampler(10)
    for _ in range(3):  # a new DataLoader every epoch, as DeepSpeed's loader builds
        dataloader(modules)(dataset, batch_size=2, sampler=sampler)
    links = recorder.of("sampler")
    by_loader = {}
    for link in links:
        by_loader.setdefault(link["loader"], {})[link["depth"]] = link["object_id"]
    assert sorted(by_loader) == [0, 1, 2]
    shared = {chain[1] for chain in by_loader.values()}
    assert len(shared) == 1 and 0 not in shared  # the user's sampler, the same object
    batchers = [chain[0] for chain in by_loader.values()]
    assert len(set(batchers)) == 3 and 0 not in batchers  # each loader made its own


def test_an_object_at_a_freed_samplers_address_is_another_object(torch_process, monkeypatch):
    modules, namespace, recorder = torch_process
    object_id = namespace["_object_id"]
    assert object_id([1, 2]) == 0  # a list takes no weak reference: not known
    # Every object at one address, as CPython gives a freed block to the
    # next object of its size.
    monkeypatch.setitem(namespace, "id", lambda obj: 4096)
    first = ShardingSampler(10)
    number = object_id(first)
    assert number and object_id(first) == number
    del first
    gc.collect()
    second = ShardingSampler(10)
    assert object_id(second) not in (0, number)


class Rows:
    """A dataset that takes weak references, as a program's class does."""

    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return i


def test_a_dataset_at_a_freed_datasets_address_is_another_dataset(torch_process, monkeypatch):
    # k-fold loops build a loader per fold over a new Subset at the line of
    # the one before, which CPython may give the freed one's address.
    modules, namespace, recorder = torch_process
    monkeypatch.setitem(namespace, "id", lambda obj: 4096)
    first = Rows(10)
    dataloader(modules)(first, batch_size=2)
    del first
    gc.collect()
    second = Rows(10)
    dataloader(modules)(second, batch_size=2)
    one, two = recorder.of("loader_new")
    assert one["dataset_id"] and two["dataset_id"]
    assert one["dataset_id"] != two["dataset_id"]
    assert one["base_id"] == one["dataset_id"]  # it maps nothing: its own


def test_index_maps_below_the_dataset_are_sent(torch_process, monkeypatch):
    modules, namespace, recorder = torch_process

    class Subset:
        def __init__(self, dataset, indices):
            self.dataset, self.indices = dataset, indices

        def __len__(self):
            return len(self.indices)

        def __getitem__(self, i):
            return self.dataset[self.indices[i]]

    monkeypatch.setitem(sys.modules, "torch.utils.data.dataset",
                        fakes.module("torch.utils.data.dataset", Subset=Subset))
    base = list(range(100))
    inner = Subset(base, range(10, 30))
    dataloader(modules)(Subset(inner, [0, 2, 4]), batch_size=2)
    maps = recorder.of("dataset_map")
    assert [(m["depth"], m["kind"], m["base_len"]) for m in maps] == [
        (0, "subset", 20), (1, "subset", 100)]
    assert list(maps[0]["indices"]) == [0, 2, 4]
    assert list(maps[1]["indices"]) == list(range(10, 30))
    # A loader over a part of the same bottom dataset names it alike.
    rows = Rows(100)
    dataloader(modules)(rows, batch_size=2)
    dataloader(modules)(Subset(Subset(rows, range(50)), [1, 3]), batch_size=2)
    _, whole, part = recorder.of("loader_new")
    assert part["base_id"] == whole["dataset_id"] == whole["base_id"]
    assert part["dataset_id"] != whole["dataset_id"]


class Partition:
    """A program's dataset that reads the base data through a list of its
    indices; its __getitem__ is never called by the recorder."""

    def __init__(self, data, index, **more):
        self.data, self.index = data, index
        vars(self).update(more)

    def __len__(self):
        return len(self.index)

    def __getitem__(self, i):
        raise AssertionError("the recorder ran the program's __getitem__")


def test_a_programs_dataset_that_keeps_an_index_list_is_read_as_its_map(torch_process):
    modules, namespace, recorder = torch_process
    rows = Rows(100)
    dataloader(modules)(Partition(rows, [5, 3, 9], name="part", scale=2.5), batch_size=2)
    [found] = recorder.of("dataset_map")
    assert (found["kind"], found["base_len"], list(found["indices"])) == (
        "own:test_boot.Partition.index", 100, [5, 3, 9])
    # The list points into rows: a loader over rows names it alike.
    dataloader(modules)(rows, batch_size=2)
    part, whole = recorder.of("loader_new")
    assert part["base_id"] == whole["dataset_id"]


@pytest.mark.parametrize("part", [
    # labels: a list as long as the wrapper, with repeats
    lambda rows: Partition(rows, [1, 1, 2, 2]),
    # indices the dataset below does not have
    lambda rows: Partition(rows, [0, 100]),
    # two datasets it could read from
    lambda rows: Partition(rows, [0, 1], other=Rows(5)),
    # two lists that could be its map
    lambda rows: Partition(rows, [0, 1], order=[1, 0]),
    # a list of floats
    lambda rows: Partition(rows, [0.0, 1.0]),
])
def test_a_programs_dataset_whose_map_is_not_one_list_is_not_mapped(torch_process, part):
    modules, namespace, recorder = torch_process
    dataloader(modules)(part(Rows(100)), batch_size=2)
    assert recorder.of("dataset_map") == []


class Join:
    """torch.distributed.algorithms.Join, reduced: its attributes, and an
    exit that raises with throw_on_early_termination."""

    def __init__(self, joinables, enable=True, throw_on_early_termination=False):
        self._joinables = joinables
        self._enable = enable
        self._throw_on_early_termination = throw_on_early_termination

    def __enter__(self):
        ...

    def __exit__(self, type, value, traceback):
        if not self._enable or type:
            return
        if self._throw_on_early_termination:
            raise RuntimeError("Rank 1 exhausted all inputs.")


def test_join_sends_its_begin_and_end(torch_process, monkeypatch):
    modules, namespace, recorder = torch_process
    original_exit = Join.__exit__
    monkeypatch.setitem(sys.modules, "torch.distributed.algorithms.join",
                        fakes.module("torch.distributed.algorithms.join", Join=Join))
    namespace["_on_module"]("torch.distributed.algorithms.join")
    assert Join.__exit__.__wrapped__ is original_exit
    assert inspect.signature(Join.__exit__) == inspect.signature(original_exit)
    with Join(["model", "optimizer"]) as entered:
        assert recorder.of("join") == [dict(begin=1, joinables=2, enable=1,
                                            throw_on_early_termination=0, raised=-1)]
    assert entered is None  # what Join.__enter__ returns
    assert recorder.of("join")[1] == dict(begin=0, joinables=2, enable=1,
                                          throw_on_early_termination=0, raised=0)
    # An exception of the block passes through unchanged, and is said.
    failure = ValueError("a step failed")
    with pytest.raises(ValueError) as raised:
        with Join(["model"], enable=False):
            raise failure
    assert raised.value is failure
    assert recorder.of("join")[3] == dict(begin=0, joinables=1, enable=0,
                                          throw_on_early_termination=0, raised=1)
    # So does one of Join's exit (throw_on_early_termination).
    with pytest.raises(RuntimeError, match="exhausted all inputs"):
        with Join(["model"], throw_on_early_termination=True):
            pass
    assert recorder.of("join")[5]["raised"] == 1
    assert recorder.of("join")[5]["throw_on_early_termination"] == 1
    namespace["_on_module"]("torch.distributed.algorithms.join")  # patched once
    assert Join.__exit__.__wrapped__ is original_exit


class Stage:
    """A webdataset pipeline stage: a filter function and its arguments."""

    def __init__(self, f, *args, **kw):
        self.f, self.args, self.kw = f, args, kw


def _batched(data, batchsize=20, collation_fn=None, partial=True):
    ...


def _unbatched(data):
    ...


class Pipeline:
    def __init__(self, *stages):
        self.pipeline = list(stages)


def test_a_pipeline_that_batches_yields_whole_batches_of_its_size(torch_process):
    _, namespace, _ = torch_process
    size = namespace["_whole_batch_size"]
    assert size(Pipeline(Stage(_batched, 8))) == (8, False)
    assert size(Pipeline(Stage(_batched, batchsize=4, collation_fn=None))) == (4, True)
    assert size(Pipeline(Stage(_batched))) == (20, False)
    # undone by a later stage, or no stages known
    assert size(Pipeline(Stage(_batched, 8), Stage(_unbatched))) == (0, False)
    assert size(Pipeline(Stage(_unbatched), Stage(_batched, 2))) == (2, False)
    assert size(Rows(4)) == (0, False)


def test_a_whole_batch_is_split_as_the_pipeline_batched_it(torch_process):
    _, namespace, _ = torch_process
    rows = namespace["_batch_rows"]
    assert rows({"index": [3, 4], "__key__": ["a", "b"]}, 8, False) == [
        {"index": 3, "__key__": "a"}, {"index": 4, "__key__": "b"}]
    assert rows(([3, 4], [5, 6]), 8, False) == [(3, 5), (4, 6)]
    assert rows([{"x": 1}, {"x": 2}], 8, True) == [{"x": 1}, {"x": 2}]
    # columns of different lengths, longer than a batch, or not columns
    assert rows({"a": [1, 2], "b": [1]}, 8, False) is None
    assert rows(([1, 2, 3],), 2, False) is None
    assert rows({"text": "abc"}, 8, False) is None
    assert rows(7, 8, False) is None
    assert rows([1, 2, 3], 2, True) is None
