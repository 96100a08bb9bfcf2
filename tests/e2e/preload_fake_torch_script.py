# SPDX-License-Identifier: MIT
# Drives the stand-in torch of preload_fake_torch/: one loader, a full and a
# left epoch, a forked "worker" that fetches, and an exception that no
# handler catches (exit status 1). Run by preload_pyversions.sh.
import os

import torch  # noqa: F401
from torch.utils.data import DataLoader
from torch.utils.data._utils import fetch, worker

loader = DataLoader(list(range(10)), batch_size=4)
print(len(loader), [batch for batch in loader])
iterator = iter(loader)
print(next(iterator))
del iterator
pid = os.fork()
if pid == 0:
    worker._worker_info = worker.WorkerInfo(id=0, num_workers=1, seed=123)
    fetcher = fetch._MapDatasetFetcher(list(range(10)), True, list, False)
    print(fetcher.fetch([1, 2, 3]))
    os._exit(0)
os.waitpid(pid, 0)
print("ok")
raise LookupError("no sample %d" % 17)
