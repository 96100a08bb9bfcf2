# SPDX-License-Identifier: MIT
"""DeepSpeed's own training loader (deepspeed.initialize(training_data=...))
read for 3 epochs without set_epoch: it builds a new torch DataLoader on
every iter() around one DistributedSampler, so the 3 loader objects are the
3 epochs of one loading stream, each in the first epoch's order
(same-order). Its 2 workers (DeepSpeed's num_local_io_workers) are
forked anew with every DataLoader (worker-respawn, true for DeepSpeed's
loader whatever the program does). With set_epoch: deepspeed_loader_set.py."""

from scenario_kit import deepspeed_epochs

STACKS = ("venv",)
# The exact set of error and warning ids (infos are free).
EXPECT = ["same-order", "worker-respawn"]
# check.py options beside --expect.
OPTIONS = ["--launcher", "torchrun", "--finding-ranks", "same-order=0,1,2,3",
           "--mention", "same-order=set_epoch() was not called"]


def run(truth, rank, world):
    deepspeed_epochs(truth, length=160, epochs=3, set_epoch=False)
