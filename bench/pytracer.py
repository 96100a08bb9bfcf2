# SPDX-License-Identifier: MIT
"""What a user writes when no tool exists: monkeypatch the DataLoader methods
accwatch watches and append every batch of indices as a JSON line to a file.
Imported by loop.py in the benchmark's mode (d), which installs it; inprocess.py
installs and removes it between epochs."""
import atexit
import functools
import json
import os

from torch.utils.data import dataloader
from torch.utils.data._utils import fetch

_out = {"pid": None, "file": None}


def _file():
    if _out["pid"] != os.getpid():  # a forked worker opens its own file
        _out["pid"] = os.getpid()
        directory = os.environ.get("BENCH_PYTRACER_DIR", "/tmp")
        _out["file"] = open(os.path.join(directory, f"pytracer-{os.getpid()}.jsonl"), "a")
        atexit.register(_out["file"].flush)
    return _out["file"]


_installed = []  # (class, name, original)


def _wrap(cls, name, make):
    original = cls.__dict__[name]
    _installed.append((cls, name, original))
    setattr(cls, name, functools.wraps(original)(make(original)))


def _next_index(original):
    def wrapper(self):
        indices = original(self)
        _file().write(json.dumps({"pid": os.getpid(), "event": "batch", "loader": id(self), "indices": indices}) + "\n")
        return indices
    return wrapper


def _next(original):
    def wrapper(self):
        try:
            return original(self)
        except StopIteration:
            _file().write(json.dumps({"pid": os.getpid(), "event": "end", "loader": id(self)}) + "\n")
            raise
    return wrapper


def _fetch(original):
    def wrapper(self, index):
        if dataloader.get_worker_info() is not None:
            _file().write(json.dumps({"pid": os.getpid(), "event": "fetch", "indices": index}) + "\n")
        return original(self, index)
    return wrapper


def install():
    _wrap(dataloader._BaseDataLoaderIter, "_next_index", _next_index)
    _wrap(dataloader._BaseDataLoaderIter, "__next__", _next)
    _wrap(fetch._MapDatasetFetcher, "fetch", _fetch)


def uninstall():
    while _installed:
        cls, name, original = _installed.pop()
        setattr(cls, name, original)


if os.environ.get("BENCH_PYTRACER"):
    install()
