# SPDX-License-Identifier: MIT
"""DeepSpeed's own training loader read for 3 epochs, the program calling
loader.data_sampler.set_epoch(epoch) before each: a new DataLoader per
epoch around one DistributedSampler whose order moves on: no same-order;
each DataLoader forks its 2 workers anew (worker-respawn, DeepSpeed's
loader's own cost). The same without set_epoch: deepspeed_loader.py."""

from scenario_kit import deepspeed_epochs

STACKS = ("venv",)
# The exact set of error and warning ids (infos are free).
EXPECT = ["worker-respawn"]
# check.py options beside --expect.
OPTIONS = ["--launcher", "torchrun", "--mention", "worker-respawn=when a library builds one on every iter()"]


def run(truth, rank, world):
    deepspeed_epochs(truth, length=160, epochs=3, set_epoch=True)
