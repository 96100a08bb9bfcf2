# Test stand-in derived from HuggingFace Accelerate (Apache-2.0),
# src/accelerate/utils/random.py, v1.x. Kept: set_seed and the RNG-state
# synchronisation the dataloaders run at every epoch start (broadcast of the
# generator state from process 0, the MULTI_CPU branch). Left out: CUDA/XLA/NPU/
# MLU/XPU/MUSA generators.
import random
from typing import List, Optional, Union

import torch

from ..state import AcceleratorState
from .dataclasses import DistributedType, RNGType


def set_seed(seed: int, device_specific: bool = False, deterministic: bool = False):
    if device_specific:
        seed += AcceleratorState().process_index
    random.seed(seed)
    try:
        import numpy as np

        np.random.seed(seed)
    except ImportError:
        pass
    torch.manual_seed(seed)
    if deterministic:
        torch.use_deterministic_algorithms(True)


def synchronize_rng_state(rng_type: Optional[RNGType] = None, generator: Optional[torch.Generator] = None):
    # Get the proper rng state
    if rng_type == RNGType.TORCH:
        rng_state = torch.get_rng_state()
    elif rng_type == RNGType.GENERATOR:
        assert generator is not None, "Need a generator to synchronize its seed."
        rng_state = generator.get_state()
    else:
        raise ValueError(f"the CPU-only accelerate stand-in cannot synchronize {rng_type}")

    # Broadcast the rng state from device 0 to other devices
    state = AcceleratorState()
    if state.distributed_type == DistributedType.MULTI_CPU:
        torch.distributed.broadcast(rng_state, 0)

    # Set the broadcast rng state
    if rng_type == RNGType.TORCH:
        torch.set_rng_state(rng_state)
    elif rng_type == RNGType.GENERATOR:
        generator.set_state(rng_state)


def synchronize_rng_states(rng_types: List[Union[str, RNGType]], generator: Optional[torch.Generator] = None):
    for rng_type in rng_types:
        synchronize_rng_state(RNGType(rng_type), generator=generator)
