# SPDX-License-Identifier: MIT
"""A DeviceMesh whose data-parallel dimension is named "dp", passed to
accelerate's prepare_data_loader(torch_device_mesh=mesh): accelerate reads
the data-parallel size from dimensions named "dp_replicate" and "dp_shard",
finds none, and shards over 1 process. Every rank then reads the whole
dataset, both data-parallel pairs the same data: unsharded (the correct
version is dp_mesh.py; venv only: DeviceMesh needs torch >= 2.2)."""

from torch.utils.data import DataLoader

from scenario_kit import IndexDataset, accelerate, here, make_accelerator

STACKS = ('venv',)
# The exact set of error and warning ids (infos are free).
EXPECT = ["unsharded"]


def run(truth, rank, world):
    from torch.distributed.device_mesh import init_device_mesh
    mesh = init_device_mesh("cpu", (world // 2, 2), mesh_dim_names=("dp", "tp"))
    make_accelerator()
    site = here(); user = DataLoader(IndexDataset(400), batch_size=8, shuffle=True)
    truth.loader(site)  # the user's loader, replaced: never iterated
    psite = here(); prepared = accelerate().data_loader.prepare_data_loader(user, torch_device_mesh=mesh)
    truth.epochs(truth.loader(psite), prepared, 2)
