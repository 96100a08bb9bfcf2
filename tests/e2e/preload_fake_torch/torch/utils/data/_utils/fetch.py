# SPDX-License-Identifier: MIT
# Stand-in for torch's fetchers, same names and signatures.
class _BaseDatasetFetcher(object):
    def __init__(self, dataset, auto_collation, collate_fn, drop_last):
        self.dataset = dataset
        self.auto_collation = auto_collation
        self.collate_fn = collate_fn
        self.drop_last = drop_last


class _MapDatasetFetcher(_BaseDatasetFetcher):
    def fetch(self, possibly_batched_index):
        return self.collate_fn([self.dataset[i] for i in possibly_batched_index])
