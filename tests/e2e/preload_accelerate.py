# SPDX-License-Identifier: MIT
# accelerate builds outer loaders around
# the user's: run by preload_accelerate.sh, checked by it through the trace.
import torch
from torch.utils.data import DataLoader, Dataset
from accelerate import Accelerator
from accelerate.data_loader import prepare_data_loader, skip_first_batches


class Numbers(Dataset):
    def __len__(self):
        return 402

    def __getitem__(self, i):
        return i


Accelerator(cpu=True)  # accelerate 0.2x's prepare_data_loader needs its state
user = DataLoader(Numbers(), batch_size=8, shuffle=True)
shard = prepare_data_loader(user, num_processes=4, process_index=2)
print(type(shard).__name__, len(shard), sum(1 for _ in shard))
dispatcher = prepare_data_loader(user, num_processes=4, process_index=0,
                                 put_on_device=True, device=torch.device("cpu"),
                                 dispatch_batches=True)
print(type(dispatcher).__name__, len(dispatcher))
skipping = skip_first_batches(shard, 3)
print(type(skipping).__name__, len(skipping), sum(1 for _ in skipping))

# An error of the program's own code raised through accelerate's outer
# loader's __init__ (wrapped by accwatch): the same traceback, and the same
# stack seen inside, as without it.
import inspect  # noqa: E402
import traceback  # noqa: E402
from accelerate.data_loader import DataLoaderShard  # noqa: E402


class ClassProbe(Numbers):
    @property
    def __class__(self):
        seen = [(info.filename, info.lineno, info.function)
                for info in inspect.stack()[1:]]
        raise LookupError("the dataset's class was asked", seen)


try:
    DataLoaderShard(ClassProbe(), batch_size=2)
except LookupError:
    print(traceback.format_exc())
