# Stand-in for torchdata.stateful_dataloader.stateful_dataloader: the shape
# of StatefulDataLoader that accwatch patches (see ../../README.md).
from torch.utils.data import (BatchSampler, DataLoader, IterableDataset,
                              RandomSampler, SequentialSampler, _utils)
from torch.utils.data.dataloader import (_DatasetKind,
                                         _InfiniteConstantSampler,
                                         _MultiProcessingDataLoaderIter,
                                         _SingleProcessDataLoaderIter)


class StatefulDataLoader(DataLoader):
    def __init__(self, dataset, batch_size=1, shuffle=None, num_workers=0,
                 collate_fn=None, drop_last=False, persistent_workers=False,
                 prefetch_factor=None, multiprocessing_context=None):
        # No super().__init__(), as torchdata's.
        if num_workers > 0 and prefetch_factor is None:
            prefetch_factor = 2
        self.dataset = dataset
        self.num_workers = num_workers
        self.prefetch_factor = prefetch_factor
        self.pin_memory = False
        self.pin_memory_device = ""
        self.timeout = 0
        self.worker_init_fn = None
        self.multiprocessing_context = multiprocessing_context
        if isinstance(dataset, IterableDataset):
            self._dataset_kind = _DatasetKind.Iterable
            sampler = _InfiniteConstantSampler()
        else:
            self._dataset_kind = _DatasetKind.Map
            sampler = (RandomSampler(dataset) if shuffle
                       else SequentialSampler(dataset))
        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = (BatchSampler(sampler, batch_size, drop_last)
                              if batch_size is not None else None)
        self.generator = None
        if collate_fn is None:
            collate_fn = (_utils.collate.default_collate
                          if batch_size is not None
                          else _utils.collate.default_convert)
        self.collate_fn = collate_fn
        self.persistent_workers = persistent_workers
        self._DataLoader__initialized = True
        self._IterableDataset_len_called = None
        self._iterator = None
        self.next_iter_state = None
        self._initial_iter_for_state_dict = False

    def _get_iterator(self):
        if self.num_workers == 0:
            return _StatefulSingleProcessDataLoaderIter(self)
        return _StatefulMultiProcessingDataLoaderIter(self)

    def __iter__(self):
        # torchdata's, without super().__iter__().
        if self._initial_iter_for_state_dict:
            self._initial_iter_for_state_dict = False
        elif self.persistent_workers and self.num_workers > 0:
            if self._iterator is None:
                self._iterator = self._get_iterator()
            else:
                self._iterator._reset(self)
        else:
            self._iterator = self._get_iterator()
        if self._iterator._finished:
            if self.persistent_workers:
                self._iterator._reset(self)
            else:
                self._iterator = self._get_iterator()
        return self._iterator

    def state_dict(self):
        if self._iterator is None:
            self._iterator = self._get_iterator()
            self._initial_iter_for_state_dict = True
        return {"num_yielded": self._iterator._num_yielded}


class _Stateful(object):
    """What torchdata's _StatefulBaseDataLoaderIter adds, through super()."""

    def _reset(self, loader, first_iter=False):
        super()._reset(loader, first_iter)
        self._finished = False

    def __next__(self):
        try:
            return super().__next__()
        except StopIteration:
            self._finished = True
            raise


class _StatefulSingleProcessDataLoaderIter(_Stateful,
                                           _SingleProcessDataLoaderIter):
    def __init__(self, loader):
        self._finished = False
        super().__init__(loader)


class _StatefulMultiProcessingDataLoaderIter(_Stateful,
                                             _MultiProcessingDataLoaderIter):
    def __init__(self, loader):
        self._finished = False
        super().__init__(loader)
