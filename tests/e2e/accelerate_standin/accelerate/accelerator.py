# Test stand-in derived from HuggingFace Accelerate (Apache-2.0), src/accelerate/accelerator.py, v1.x.
# Kept: the data-loading path as in accelerate -- Accelerator(dataloader_config=...)
# with the split_batches / dispatch_batches / even_batches / use_seedable_sampler /
# data_seed / non_blocking / use_stateful_dataloader properties, prepare() with its
# two passes and the `_is_accelerate_prepared` marking, prepare_data_loader() with
# the exact call into accelerate.data_loader.prepare_data_loader, skip_first_batches,
# gather, wait_for_everyone, backward, and DDP wrapping of models on MULTI_CPU.
# Left out: mixed precision/autocast, gradient accumulation, DeepSpeed, FSDP,
# Megatron-LM, TP, FP8, dynamo, trackers, checkpointing (save_state/load_state),
# the optimizer/scheduler wrappers (prepare() returns optimizers and schedulers
# unchanged), kwargs handlers. In accelerate v1.x the data-loader options are
# passed only through `DataLoaderConfiguration` (the old Accelerator(split_batches=...)
# style arguments were deprecated in 0.28); that is all this stand-in accepts.
import torch

from .data_loader import prepare_data_loader, skip_first_batches
from .state import AcceleratorState, GradientState, PartialState
from .utils import DataLoaderConfiguration, DistributedType, gather, gather_object

try:
    from torch.optim.lr_scheduler import LRScheduler
except ImportError:
    from torch.optim.lr_scheduler import _LRScheduler as LRScheduler


class Accelerator:
    def __init__(
        self,
        device_placement: bool = True,
        mixed_precision=None,
        gradient_accumulation_steps: int = 1,
        cpu: bool = False,
        dataloader_config: DataLoaderConfiguration = None,
        rng_types=None,
        step_scheduler_with_optimizer: bool = True,
    ):
        self.state = AcceleratorState(mixed_precision=mixed_precision, cpu=cpu, _from_accelerator=True)
        self.gradient_state = GradientState()
        self.device_placement = device_placement
        if dataloader_config is None:
            dataloader_config = DataLoaderConfiguration()
        self.dataloader_config = dataloader_config
        self.step_scheduler_with_optimizer = step_scheduler_with_optimizer

        self.step = 0
        # Internal references to the training objects
        self._optimizers = []
        self._models = []
        self._schedulers = []
        self._dataloaders = []
        self._custom_objects = []

        # RNG Types
        self.rng_types = rng_types
        if self.rng_types is None:
            self.rng_types = ["generator"]

    @property
    def use_distributed(self):
        return self.state.use_distributed

    @property
    def distributed_type(self):
        return self.state.distributed_type

    @property
    def num_processes(self):
        return self.state.num_processes

    @property
    def process_index(self):
        return self.state.process_index

    @property
    def local_process_index(self):
        return self.state.local_process_index

    @property
    def device(self):
        return self.state.device

    @property
    def split_batches(self):
        return self.dataloader_config.split_batches

    @property
    def dispatch_batches(self):
        return self.dataloader_config.dispatch_batches

    @property
    def even_batches(self):
        return self.dataloader_config.even_batches

    @even_batches.setter
    def even_batches(self, value: bool):
        self.dataloader_config.even_batches = value

    @property
    def use_seedable_sampler(self):
        return self.dataloader_config.use_seedable_sampler

    @property
    def non_blocking(self):
        return self.dataloader_config.non_blocking

    @property
    def use_stateful_dataloader(self):
        if hasattr(self.dataloader_config, "use_stateful_dataloader"):
            return self.dataloader_config.use_stateful_dataloader
        return False

    @property
    def is_main_process(self):
        return self.state.is_main_process

    @property
    def is_local_main_process(self):
        return self.state.local_process_index == 0

    @property
    def is_last_process(self):
        return self.process_index == self.num_processes - 1

    @property
    def mixed_precision(self):
        return self.state.mixed_precision

    def print(self, *args, **kwargs):
        if self.is_local_main_process:
            print(*args, **kwargs)

    def wait_for_everyone(self):
        PartialState().wait_for_everyone()

    def _prepare_one(self, obj, first_pass=False, device_placement=None):
        # First pass of preparation: DataLoader, model, optimizer
        if first_pass:
            if isinstance(obj, torch.utils.data.DataLoader):
                return self.prepare_data_loader(obj, device_placement=device_placement)
            elif isinstance(obj, torch.nn.Module):
                return self.prepare_model(obj, device_placement=device_placement)
            elif isinstance(obj, torch.optim.Optimizer):
                optimizer = self.prepare_optimizer(obj, device_placement=device_placement)
                return optimizer
        # Second pass of preparation: LR scheduler (which need the full list of optimizers)
        elif isinstance(obj, LRScheduler):
            scheduler = self.prepare_scheduler(obj)
            return scheduler
        # Return the unprocessed object if previous criteria was not met
        return obj

    def prepare(self, *args, device_placement=None):
        if device_placement is None:
            device_placement = [None for _ in args]
        elif len(device_placement) != len(args):
            raise ValueError(
                f"`device_placement` should be a list with {len(args)} elements (the number of objects passed)."
            )
        result = tuple(
            self._prepare_one(obj, first_pass=True, device_placement=d) for obj, d in zip(args, device_placement)
        )
        result = tuple(self._prepare_one(obj, device_placement=d) for obj, d in zip(result, device_placement))

        for item in result:
            if any(
                item in container
                for container in (self._dataloaders, self._models, self._optimizers, self._schedulers)
            ):
                item._is_accelerate_prepared = True

        return result if len(result) > 1 else result[0]

    def prepare_model(self, model: torch.nn.Module, device_placement: bool = None, evaluation_mode: bool = False):
        if device_placement is None:
            device_placement = self.device_placement
        self._models.append(model)
        if device_placement:
            model = model.to(self.device)
        if not evaluation_mode and self.distributed_type == DistributedType.MULTI_CPU:
            if any(p.requires_grad for p in model.parameters()):
                model = torch.nn.parallel.DistributedDataParallel(model)
        # Now we can apply the dynamo/compile steps in accelerate -- left out
        self._models[-1] = model
        return model

    def prepare_optimizer(self, optimizer: torch.optim.Optimizer, device_placement=None):
        # accelerate wraps it in AcceleratedOptimizer -- left out
        self._optimizers.append(optimizer)
        return optimizer

    def prepare_scheduler(self, scheduler):
        # accelerate wraps it in AcceleratedScheduler -- left out
        self._schedulers.append(scheduler)
        return scheduler

    def prepare_data_loader(
        self, data_loader: torch.utils.data.DataLoader, device_placement=None, slice_fn_for_dispatch=None
    ):
        # Ensure we can't double wrap a DataLoader due to `find_batch_size`
        if getattr(data_loader, "_is_accelerate_prepared", False):
            if data_loader not in self._dataloaders:
                self._dataloaders.append(data_loader)
            return data_loader
        if device_placement is None:
            device_placement = self.device_placement if self.distributed_type != DistributedType.XLA else False
        prepared_data_loader = prepare_data_loader(
            data_loader,
            self.device,
            num_processes=self.num_processes,
            process_index=self.process_index,
            split_batches=self.split_batches,
            put_on_device=device_placement,
            rng_types=self.rng_types.copy(),
            dispatch_batches=self.dispatch_batches,
            even_batches=self.even_batches,
            slice_fn_for_dispatch=slice_fn_for_dispatch,
            use_seedable_sampler=self.use_seedable_sampler,
            data_seed=self.dataloader_config.data_seed,
            non_blocking=self.non_blocking,
            use_stateful_dataloader=self.use_stateful_dataloader,
            torch_device_mesh=None,
        )
        self._dataloaders.append(prepared_data_loader)
        return prepared_data_loader

    def skip_first_batches(self, dataloader, num_batches: int = 0):
        return skip_first_batches(dataloader, num_batches=num_batches)

    def backward(self, loss, **kwargs):
        loss.backward(**kwargs)

    def gather(self, tensor):
        return gather(tensor)

    def gather_for_metrics(self, input_data):
        # accelerate also drops the samples duplicated by even_batches on the last batch -- left out
        return gather(input_data)

    def end_training(self):
        pass

    def free_memory(self, *objects):
        self._schedulers = []
        self._optimizers = []
        self._models = []
        self._dataloaders = []
        return objects
