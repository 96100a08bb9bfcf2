# SPDX-License-Identifier: MIT
"""Data parallel by tensor parallel, from a real DeviceMesh:
init_device_mesh("cpu", (world // 2, 2), mesh_dim_names=("dp_replicate",
"tp")), named as accelerate reads a mesh. One loader's DistributedSampler
takes mesh["dp_replicate"]'s rank and size; another
loader goes through accelerate's prepare_data_loader(torch_device_mesh=mesh,
rng_types=["generator"]), which gives its BatchSamplerShard the
data-parallel rank and size and every rank's RandomSampler one generator
state (without rng_types, as Accelerator.prepare passes it, each rank
shuffles its own way: group-diverged, overlap and missing). Both
chains shard over 2 replicas on 4 ranks: the ranks of each tensor-parallel
pair read the same batches, and the pairs split the data. No finding (venv
only: DeviceMesh needs torch >= 2.2)."""

from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler

from scenario_kit import IndexDataset, accelerate, here, make_accelerator

STACKS = ('venv',)
# The exact set of error and warning ids (infos are free).
EXPECT = []


def run(truth, rank, world):
    from torch.distributed.device_mesh import init_device_mesh
    mesh = init_device_mesh("cpu", (world // 2, 2), mesh_dim_names=("dp_replicate", "tp"))
    dataset = IndexDataset(400)
    dp = mesh["dp_replicate"]
    sampler = DistributedSampler(dataset, num_replicas=dp.size(), rank=dp.get_local_rank(), shuffle=True, seed=3)
    site = here(); loader = DataLoader(dataset, batch_size=8, sampler=sampler)
    truth.epochs(truth.loader(site), loader, 2, sampler=sampler)
    make_accelerator()
    site = here(); user = DataLoader(IndexDataset(400), batch_size=8, shuffle=True)
    truth.loader(site)  # the user's loader, replaced: never iterated
    psite = here(); prepared = accelerate().data_loader.prepare_data_loader(user, torch_device_mesh=mesh, rng_types=["generator"])
    truth.epochs(truth.loader(psite), prepared, 2)
