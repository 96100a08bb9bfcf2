# SPDX-License-Identifier: MIT
# Stand-in samplers.
class SequentialSampler(object):
    def __init__(self, data):
        self.data = data

    def __iter__(self):
        return iter(range(len(self.data)))

    def __len__(self):
        return len(self.data)


class RandomSampler(SequentialSampler):
    pass


class BatchSampler(object):
    def __init__(self, sampler, batch_size, drop_last):
        self.sampler, self.batch_size = sampler, batch_size

    def __iter__(self):
        batch = []
        for index in self.sampler:
            batch.append(index)
            if len(batch) == self.batch_size:
                yield batch
                batch = []
        if batch:
            yield batch

    def __len__(self):
        return (len(self.sampler) + self.batch_size - 1) // self.batch_size
