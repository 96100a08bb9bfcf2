# Test stand-in derived from HuggingFace Accelerate (Apache-2.0),
# src/accelerate/utils/imports.py, v1.x. Only the checks data_loader.py needs;
# accelerators that do not exist on a CPU-only test machine always answer False.
# `is_torch_version` is reimplemented without `packaging` (not installed here).
import importlib.util
import re

import torch


def _version_tuple(text):
    parts = []
    for piece in re.split(r"[.+]", str(text))[:3]:
        digits = re.match(r"\d+", piece)
        parts.append(int(digits.group(0)) if digits else 0)
    while len(parts) < 3:
        parts.append(0)
    return tuple(parts)


_OPS = {
    "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b,
    "==": lambda a, b: a == b,
    "!=": lambda a, b: a != b,
    ">=": lambda a, b: a >= b,
    ">": lambda a, b: a > b,
}


def is_torch_version(operation: str, version: str):
    """Compares the current torch version (release part only) to `version`."""
    return _OPS[operation](_version_tuple(torch.__version__), _version_tuple(version))


def is_torch_xla_available(check_is_tpu=False, check_is_gpu=False):
    return False


def is_torchdata_stateful_dataloader_available():
    return importlib.util.find_spec("torchdata") is not None and (
        importlib.util.find_spec("torchdata.stateful_dataloader") is not None
    )


def is_datasets_available():
    return importlib.util.find_spec("datasets") is not None
