# SPDX-License-Identifier: MIT
# Stand-in for torch.utils.data.dataloader: the structure accwatch patches.
from . import sampler
from ._utils import fetch


class _DatasetKind(object):
    Map = 0
    Iterable = 1


class DataLoader(object):
    def __init__(self, dataset, batch_size=1, shuffle=False):
        self.dataset = dataset
        self.batch_size = batch_size
        self.num_workers = 0
        self.persistent_workers = False
        self.drop_last = False
        self.prefetch_factor = 2
        self.multiprocessing_context = None
        self._dataset_kind = _DatasetKind.Map
        kind = sampler.RandomSampler if shuffle else sampler.SequentialSampler
        self.sampler = kind(dataset)
        self.batch_sampler = sampler.BatchSampler(self.sampler, batch_size,
                                                  False)
        self._iterator = None

    def __len__(self):
        return len(self.batch_sampler)

    def __iter__(self):
        return _SingleProcessDataLoaderIter(self)


class _BaseDataLoaderIter(object):
    def __init__(self, loader):
        self._sampler_iter = iter(loader.batch_sampler)
        self._fetcher = fetch._MapDatasetFetcher(loader.dataset, True, list,
                                                 False)
        self._num_yielded = 0

    def __iter__(self):
        return self

    def _next_index(self):
        return next(self._sampler_iter)

    def __next__(self):
        data = self._fetcher.fetch(self._next_index())
        self._num_yielded += 1
        return data


class _SingleProcessDataLoaderIter(_BaseDataLoaderIter):
    pass
