# Test stand-in derived from HuggingFace Accelerate (Apache-2.0),
# src/accelerate/utils/dataclasses.py, v1.x. Only the enums and dataclasses the
# data-loading path uses. Left out: every plugin (DeepSpeed, FSDP, Megatron-LM,
# TP, FP8, dynamo), kwargs handlers, ProjectConfiguration.
import enum
from dataclasses import dataclass, field

import torch


class DistributedType(str, enum.Enum):
    # Same values as accelerate; a CPU-only stand-in only ever uses NO and MULTI_CPU.
    NO = "NO"
    MULTI_CPU = "MULTI_CPU"
    MULTI_GPU = "MULTI_GPU"
    MULTI_NPU = "MULTI_NPU"
    MULTI_MLU = "MULTI_MLU"
    MULTI_MUSA = "MULTI_MUSA"
    MULTI_XPU = "MULTI_XPU"
    DEEPSPEED = "DEEPSPEED"
    FSDP = "FSDP"
    XLA = "XLA"
    MEGATRON_LM = "MEGATRON_LM"


class RNGType(str, enum.Enum):
    TORCH = "torch"
    CUDA = "cuda"
    NPU = "npu"
    MLU = "mlu"
    MUSA = "musa"
    XLA = "xla"
    XPU = "xpu"
    GENERATOR = "generator"


@dataclass
class TensorInformation:
    shape: torch.Size
    dtype: torch.dtype


@dataclass
class DataLoaderConfiguration:
    """Configuration for dataloader-related items when calling `accelerator.prepare` (accelerate v1.x)."""

    split_batches: bool = field(default=False)
    dispatch_batches: bool = field(default=None)
    even_batches: bool = field(default=True)
    use_seedable_sampler: bool = field(default=False)
    data_seed: int = field(default=None)
    non_blocking: bool = field(default=False)
    use_stateful_dataloader: bool = field(default=False)
