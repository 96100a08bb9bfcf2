# Test stand-in derived from HuggingFace Accelerate (Apache-2.0), src/accelerate/utils/__init__.py, v1.x.
# Order matters as in accelerate: dataclasses/imports before operations (which imports ..state).
from .dataclasses import DataLoaderConfiguration, DistributedType, RNGType, TensorInformation
from .imports import (
    is_datasets_available,
    is_torch_version,
    is_torch_xla_available,
    is_torchdata_stateful_dataloader_available,
)
from .operations import (
    broadcast,
    broadcast_object_list,
    concatenate,
    find_batch_size,
    gather,
    gather_object,
    get_data_structure,
    honor_type,
    initialize_tensors,
    recursively_apply,
    send_to_device,
    slice_tensors,
)
from .random import set_seed, synchronize_rng_state, synchronize_rng_states
