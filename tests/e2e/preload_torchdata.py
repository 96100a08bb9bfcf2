# SPDX-License-Identifier: MIT
# torchdata's StatefulDataLoader:
# epochs by its own __iter__ and _reset, the iterator made by state_dict().
# Run by preload_torchdata.sh, which checks the trace.
import torch
from torch.utils.data import Dataset
from torchdata.stateful_dataloader import StatefulDataLoader


class Squares(Dataset):
    def __len__(self):
        return 20

    def __getitem__(self, i):
        return i * i


if __name__ == "__main__":
    torch.manual_seed(0)  # state_dict() shows the loader's random base seed
    loader = StatefulDataLoader(Squares(), batch_size=4)  # SITE 0
    for epoch in range(2):
        print(0, epoch, [b.tolist() for b in loader])
    loader = StatefulDataLoader(  # SITE 1
        Squares(), batch_size=4, num_workers=2, persistent_workers=True)
    print(loader.state_dict())
    for epoch in range(3):
        print(1, epoch, sum(x for b in loader for x in b.tolist()))
