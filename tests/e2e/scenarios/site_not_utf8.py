# SPDX-License-Identifier: MIT
"""The loader is built in a script whose path holds bytes that are not
UTF-8 (Python names it with surrogateescape): its site is kept, those
bytes escaped (\\udcXX), not lost to "unknown site"."""

import os

from torch.utils.data.distributed import DistributedSampler

from scenario_kit import TRUTH_ENV, IndexDataset

EXPECT = []
OPTIONS = ["--nproc", "2"]

# Line 3 builds the loader.
SCRIPT = b"""from torch.utils.data import DataLoader
def build(dataset, sampler):
    return DataLoader(dataset, batch_size=8, sampler=sampler)
"""


def load_script(rank):
    """The script at <truth dir>/d\\xff/s\\xe9.py, written by every rank
    alike (one path: the ranks' loaders share a site), imported."""
    import importlib.util
    folder = os.fsencode(os.environ[TRUTH_ENV]) + b"/d\xff"
    os.makedirs(folder, exist_ok=True)
    path = folder + b"/s\xe9.py"
    scratch = path + b".%d" % rank
    with open(scratch, "wb") as f:
        f.write(SCRIPT)
    os.replace(scratch, path)
    name = os.fsdecode(path)
    spec = importlib.util.spec_from_file_location("site_not_utf8_script", name)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    escaped = os.path.basename(name).encode("utf-8", "backslashreplace").decode("utf-8")
    return module, f"{escaped}:3"


def run(truth, rank, world):
    module, site = load_script(rank)
    dataset = IndexDataset(64)
    sampler = DistributedSampler(dataset, num_replicas=world, rank=rank, shuffle=False)
    loader = module.build(dataset, sampler)
    truth.epochs(truth.loader(site), loader, 1)
