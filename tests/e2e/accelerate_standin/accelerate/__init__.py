# TEST STAND-IN for accwatch's end-to-end tests -- not HuggingFace Accelerate.
# A trimmed, CPU-only reproduction of accelerate v1.x's data-loading path, derived
# from accelerate's Apache-2.0 source (https://github.com/huggingface/accelerate):
# same module paths (accelerate, accelerate.accelerator, accelerate.data_loader,
# accelerate.state, accelerate.utils.*), class names, constructor signatures,
# attribute names and sharding/slicing arithmetic. What is left out is listed at
# the top of each module (GPUs/TPUs/XLA, DeepSpeed, FSDP, Megatron, mixed precision,
# checkpointing, trackers, optimizer/scheduler wrappers). Import it by putting
# tests/e2e/accelerate_standin on PYTHONPATH.
__version__ = "1.0.0+accwatch.standin"

# utils first: utils.operations imports .state, which must not be half-initialised.
from .utils import DataLoaderConfiguration, DistributedType, set_seed  # noqa: E402,I001
from .state import AcceleratorState, GradientState, PartialState  # noqa: E402
from .data_loader import skip_first_batches  # noqa: E402
from .accelerator import Accelerator  # noqa: E402
