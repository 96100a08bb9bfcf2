# Test stand-in derived from HuggingFace Accelerate (Apache-2.0), src/accelerate/state.py, v1.x.
# Kept: the Borg-style shared states PartialState / AcceleratorState / GradientState
# with the attributes the dataloaders read, and accelerate's MULTI_CPU set-up:
# world size from PMI_SIZE / OMPI_COMM_WORLD_SIZE / MV2_COMM_WORLD_SIZE / WORLD_SIZE,
# rank from RANK / PMI_RANK / ..., init_process_group("gloo") unless torch.distributed
# is already initialised (then its rank and world size are used).
# Left out: GPU/NPU/XPU/XLA/DeepSpeed/FSDP/Megatron detection, mixed precision,
# ccl/mpi backends, split_between_processes, on_main_process decorators.
import os

import torch

from .utils.dataclasses import DistributedType


def get_int_from_env(env_keys, default):
    """Returns the first positive env value found in the `env_keys` list or the default."""
    for e in env_keys:
        val = int(os.environ.get(e, -1))
        if val >= 0:
            return val
    return default


def parse_flag_from_env(key, default=False):
    value = os.environ.get(key, str(default))
    return value.lower() in ("1", "true", "yes", "y", "on")


class PartialState:
    """Singleton-like state of the distributed environment, shared by every instance."""

    _shared_state = {}

    def __init__(self, cpu: bool = False, **kwargs):
        self.__dict__ = self._shared_state
        if not self.initialized:
            self._cpu = cpu
            self.backend = None
            self.debug = parse_flag_from_env("ACCELERATE_DEBUG_MODE")
            dist = torch.distributed
            if dist.is_available() and dist.is_initialized():
                size = dist.get_world_size()
            else:
                size = get_int_from_env(["WORLD_SIZE", "PMI_SIZE", "OMPI_COMM_WORLD_SIZE", "MV2_COMM_WORLD_SIZE"], 1)
            if size > 1:
                self.distributed_type = DistributedType.MULTI_CPU
                rank = get_int_from_env(["RANK", "PMI_RANK", "OMPI_COMM_WORLD_RANK", "MV2_COMM_WORLD_RANK"], 0)
                local_rank = get_int_from_env(
                    ["LOCAL_RANK", "MPI_LOCALRANKID", "OMPI_COMM_WORLD_LOCAL_RANK", "MV2_COMM_WORLD_LOCAL_RANK"], 0
                )
                if not dist.is_initialized():
                    os.environ.setdefault("MASTER_PORT", "29500")
                    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
                    dist.init_process_group("gloo", rank=rank, world_size=size, **kwargs)
                self.backend = dist.get_backend()
                self.num_processes = dist.get_world_size()
                self.process_index = dist.get_rank()
                self.local_process_index = local_rank
            else:
                self.distributed_type = DistributedType.NO
                self.num_processes = 1
                self.process_index = self.local_process_index = 0
            self.device = torch.device("cpu")

    @property
    def initialized(self) -> bool:
        return self._shared_state != {}

    @property
    def use_distributed(self):
        return self.distributed_type != DistributedType.NO and self.num_processes > 1

    @property
    def is_main_process(self) -> bool:
        return self.process_index == 0

    @property
    def is_local_main_process(self) -> bool:
        return self.local_process_index == 0

    @property
    def is_last_process(self) -> bool:
        return self.process_index == self.num_processes - 1

    def wait_for_everyone(self):
        if self.distributed_type == DistributedType.MULTI_CPU:
            torch.distributed.barrier()

    def print(self, *args, **kwargs):
        if self.is_local_main_process:
            print(*args, **kwargs)

    @staticmethod
    def _reset_state():
        PartialState._shared_state.clear()


class AcceleratorState:
    """Shares PartialState's attributes plus what Accelerator adds (here: nothing beyond mixed_precision)."""

    _shared_state = {}

    def __init__(self, mixed_precision: str = None, cpu: bool = False, _from_accelerator: bool = False, **kwargs):
        self.__dict__ = self._shared_state
        if not self._shared_state.get("initialized_accelerator", False):
            PartialState(cpu, **kwargs)
            self.__dict__.update(PartialState._shared_state)
            self.mixed_precision = "no" if mixed_precision is None else str(mixed_precision)
            self.initialized_accelerator = True

    @property
    def initialized(self) -> bool:
        return self._shared_state != {}

    @property
    def is_main_process(self) -> bool:
        return self.process_index == 0

    @property
    def use_distributed(self):
        return self.distributed_type != DistributedType.NO and self.num_processes > 1

    @staticmethod
    def _reset_state(reset_partial_state: bool = False):
        AcceleratorState._shared_state.clear()
        if reset_partial_state:
            PartialState._reset_state()


class GradientState:
    """Tracks the dataloader being iterated (end_of_dataloader / remainder), as accelerate's GradientState."""

    _shared_state = {}

    def __init__(self, gradient_accumulation_plugin=None):
        self.__dict__ = self._shared_state
        if not self.initialized:
            self.sync_gradients = True
            self.active_dataloader = None
            self.dataloader_references = [None]
            self.plugin_kwargs = {}

    @property
    def initialized(self) -> bool:
        return GradientState._shared_state != {}

    @property
    def end_of_dataloader(self) -> bool:
        if not self.in_dataloader:
            return False
        return self.active_dataloader.end_of_dataloader

    @property
    def remainder(self) -> int:
        if not self.in_dataloader:
            return -1
        return self.active_dataloader.remainder

    def _add_dataloader(self, dataloader):
        self.active_dataloader = dataloader
        self.dataloader_references.append(self.active_dataloader)

    def _remove_dataloader(self, dataloader):
        self.dataloader_references.remove(dataloader)
        self.active_dataloader = self.dataloader_references[-1]

    @property
    def in_dataloader(self) -> bool:
        return self.active_dataloader is not None

    @staticmethod
    def _reset_state():
        GradientState._shared_state.clear()
