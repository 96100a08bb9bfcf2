# SPDX-License-Identifier: MIT
"""Recording overhead measured inside one process, epoch against epoch: the
process-level table of overhead.py carries run-to-run noise (address-space
layout, the other core's load) of about +-1 %, as large as the effect. Here
epochs with and without the extra work alternate in the same process, over the
same DataLoader, and the added time per batch is the median of the pairs.

  accwatch: run under accwatch-run; "with" epochs are recorded as usual,
            "without" epochs put torch's own _next_index/__next__ (taken from
            the class before any iteration) back for the epoch, so nothing of
            accwatch runs per batch.
  python tracer: no preload; "with" epochs install bench/pytracer.py (JSON
            lines to a file), "without" epochs remove it.

The per-epoch costs of accwatch (one iter_begin/iter_end, a dict entry) are
in both kinds of epoch and not counted here; overhead.py counts them."""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.dirname(HERE)
PYTHON = "/usr/bin/python3"


def child(opts):
    """Runs in the measured process: prints one JSON line of epoch times."""
    import torch
    from torch.utils.data import DataLoader
    from torch.utils.data import dataloader as dl

    sys.path.insert(0, HERE)
    from loop import RowDataset, first

    torch.set_num_threads(1)
    if opts.raw:
        loader = DataLoader(list(range(opts.samples)), batch_size=64, shuffle=True, collate_fn=first)
    else:
        loader = DataLoader(RowDataset(opts.samples, 8), batch_size=64, shuffle=True)
    if opts.child == "pytracer":
        import pytracer

        def switch(on):
            if on:
                pytracer.install()
            else:
                pytracer.uninstall()
    else:
        base = dl._BaseDataLoaderIter
        names = ("_next_index", "__next__")
        # Before any iteration the class holds torch's own methods: accwatch
        # puts its per-batch methods there only while a recorded one is open.
        torch_methods = {name: base.__dict__[name] for name in names}

        def switch(on):
            pass

    def epoch(on):
        switch(on)
        iterator = iter(loader)
        swapped = {}
        if opts.child == "accwatch" and not on:
            for name in names:
                method = base.__dict__[name]
                if method is not torch_methods[name]:
                    swapped[name] = method
                    setattr(base, name, torch_methods[name])
            if not swapped:
                raise SystemExit("inprocess: accwatch's per-batch methods are not installed (not recording?)")
        batches = 0
        start = time.perf_counter()
        for _ in iterator:
            batches += 1
        seconds = time.perf_counter() - start
        for name, method in swapped.items():
            setattr(base, name, method)
        switch(False)
        return seconds / batches

    epoch(True)  # warm up both paths
    epoch(False)
    pairs = [(epoch(True), epoch(False)) for _ in range(opts.epochs)]
    print(json.dumps(pairs))


def measure(opts, mode, work):
    cmd = [PYTHON, os.path.abspath(__file__), "--child", mode, "--samples", str(opts.samples),
           "--epochs", str(opts.epochs)] + (["--raw"] if opts.raw else [])
    env = dict(os.environ)
    env.pop("LD_PRELOAD", None)
    if mode == "accwatch":
        cmd = [os.path.join(opts.build, "bin", "accwatch-run"), "-q", "--force", "-o",
               tempfile.mkdtemp(dir=work), "--"] + cmd
    else:
        env["BENCH_PYTRACER_DIR"] = tempfile.mkdtemp(dir=work)
    out = subprocess.run(cmd, env=env, check=True, stdout=subprocess.PIPE, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", default=os.path.join(SOURCE, "build"))
    parser.add_argument("--samples", type=int, default=64 * 3000, help="dataset length (batch 64)")
    parser.add_argument("--epochs", type=int, default=15, help="pairs of epochs per process")
    parser.add_argument("--processes", type=int, default=3, help="processes per mode (pairs are pooled)")
    parser.add_argument("--raw", action="store_true", help="no collation (a list of ints per batch)")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    opts = parser.parse_args()
    if opts.child:
        child(opts)
        return
    work = tempfile.mkdtemp(prefix="accwatch-bench-")
    try:
        pairs = {"accwatch": [], "pytracer": []}
        for _ in range(opts.processes):
            for mode in pairs:
                pairs[mode] += measure(opts, mode, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    loop = "list dataset, no collation" if opts.raw else "tensor rows, default collate"
    print(f"# in-process epochs, batch 64, num_workers 0, {loop}; {len(pairs['accwatch'])} pairs of epochs"
          f" per mode ({opts.processes} processes); added = median over pairs of (with - without)")
    print(f"{'mode':<16} {'without us/batch':>16} {'with us/batch':>14} {'added us/batch':>15} {'ratio':>7}")
    added = {}
    for mode, name in (("accwatch", "c accwatch"), ("pytracer", "d python tracer")):
        with_, without = zip(*pairs[mode])
        added[mode] = statistics.median([(w - o) * 1e6 for w, o in pairs[mode]])
        ratio = statistics.median([w / o for w, o in pairs[mode]])
        print(f"{name:<16} {statistics.median(without) * 1e6:>16.2f} {statistics.median(with_) * 1e6:>14.2f}"
              f" {added[mode]:>15.3f} {ratio:>7.4f}")
    if added["accwatch"] > 0:
        print(f"# the python tracer adds {added['pytracer'] / added['accwatch']:.1f}x the time accwatch adds per batch")


if __name__ == "__main__":
    main()
