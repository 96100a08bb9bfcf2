# SPDX-License-Identifier: MIT
"""Instructions per batch, counted by callgrind: a load-independent measure of
what recording adds to a DataLoader loop (batch 64, num_workers 0, tensor rows,
default collate). Only the measured loop is instrumented (callgrind_control
turns instrumentation on and off around it), so start-up does not count, and
only the main thread is counted: the loop runs there and so does the recording
(LTTng-UST writes an event in the thread that emits it), while LTTng-UST's
listener threads register with the session daemon at times of their own, which
would otherwise land in the measured epoch of one run and not another.

  a  untraced (no preload)
  c  recorded by accwatch-run
  c0 recorded by accwatch-run, torch's own _next_index/__next__ put back for
     the measured epoch (the control for c: same process, nothing per batch;
     the methods are taken from the class before any iteration, when
     accwatch's are not on it)
  d  untraced + the hand-written Python tracer of bench/pytracer.py

Instruction counts are not time: cache misses and the consumer daemon on the
other core are not in them (overhead.py and inprocess.py measure time). Needs
valgrind."""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.dirname(HERE)
PYTHON = "/usr/bin/python3"


def child(mode, batches, items):
    import torch
    from torch.utils.data import DataLoader
    from torch.utils.data import dataloader as dl

    sys.path.insert(0, HERE)
    from loop import RowDataset

    torch.set_num_threads(1)
    dataset = list(range(64 * batches)) if items == "int" else RowDataset(64 * batches, 8)
    loader = DataLoader(dataset, batch_size=64, shuffle=True)
    base = dl._BaseDataLoaderIter
    names = ("_next_index", "__next__")
    torch_methods = {name: base.__dict__[name] for name in names}  # no iteration open yet
    if mode == "d":
        import pytracer
        pytracer.install()
    for _ in loader:  # warm up: first-epoch costs stay out of the count
        pass
    iterator = iter(loader)
    if mode == "c0":
        for name in names:
            if base.__dict__[name] is torch_methods[name]:
                raise SystemExit("instructions: accwatch's per-batch methods are not installed")
            setattr(base, name, torch_methods[name])
    control = ["callgrind_control", "-i"]
    subprocess.run(control + ["on", str(os.getpid())], check=True, capture_output=True)
    for _ in iterator:
        pass
    subprocess.run(control + ["off", str(os.getpid())], check=True, capture_output=True)


def count(opts, mode, work):
    out = os.path.join(work, f"callgrind.{mode}")
    cmd = ["valgrind", "--tool=callgrind", "--instr-atstart=no", "--separate-threads=yes",
           f"--callgrind-out-file={out}",
           PYTHON, os.path.abspath(__file__), "--child", mode, "--batches", str(opts.batches),
           "--items", opts.items]
    env = dict(os.environ)
    env.pop("LD_PRELOAD", None)
    if mode in ("c", "c0"):
        cmd = [os.path.join(opts.build, "bin", "accwatch-run"), "-q", "--force", "-o",
               os.path.join(work, f"trace.{mode}"), "--"] + cmd
    else:
        env["BENCH_PYTRACER_DIR"] = work
    subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    out += "-01"  # the main thread: the loop and the events it writes
    with open(out) as f:
        totals = re.search(r"^totals:\s*(\d+)", f.read(), re.M)
    if not totals:
        raise SystemExit(f"instructions: no totals in {out}")
    return int(totals.group(1))


# Where recording's instructions go, from the recorded run's profile
# (inclusive counts of the recorder's functions, per batch).
PARTS = (("batch event in all (record_batch)", "accwatch_record_py.c:accwatch_record_batch"),
         ("  indices walk (its event included)", "accwatch_indices.c:accwatch_indices_walk"),
         ("  the event (emit: stall bound + LTTng)", "accwatch_record_py.c:accwatch_emit_batch"),
         ("    indices packed (accwatch_packed.h)", "accwatch_record_py.c:accwatch_pack",
          "accwatch_packed.h:accwatch_pack"),
         ("    LTTng-UST tracepoint probe", "accwatch_tp.h:lttng_ust__event_probe__accwatch___batch",
          "accwatch_tp.h:lttng_ust__event_probe__accwatch___batch_packed",
          "accwatch_tp.h:lttng_ust__event_probe__accwatch___batch_bits"),
         ("    stall bound: clock reads", "accwatch_record_stall.c:accwatch_stall_begin",
          "accwatch_record_stall.c:accwatch_stall_end"))


def parts(path, batches):
    """{function substring: inclusive instructions per batch} of a callgrind file."""
    out = subprocess.run(["callgrind_annotate", "--inclusive=yes", "--threshold=100", path],
                         check=True, capture_output=True, text=True).stdout
    found = {}
    for line in out.splitlines():
        # a function of a library ("file:function [object]"), not a line
        # inlined from another file
        m = re.match(r"\s*([\d,]+)\s+\([^)]*\)\s+\S*/([\w.]+:\w+) \[", line)
        if not m:
            continue
        for label, *names in PARTS:
            if m.group(2) in names:
                found[label] = found.get(label, 0) + int(m.group(1).replace(",", "")) / batches
    return found


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", default=os.path.join(SOURCE, "build"))
    parser.add_argument("--batches", type=int, default=500, help="batches in the measured epoch")
    parser.add_argument("--items", choices=("rows", "int"), default="rows",
                        help="dataset items: tensor rows, or ints (the cheapest loop)")
    parser.add_argument("--keep", help="keep the callgrind files in this directory (callgrind_annotate)")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    opts = parser.parse_args()
    if opts.child:
        child(opts.child, opts.batches, opts.items)
        return
    if not shutil.which("valgrind"):
        raise SystemExit("instructions: valgrind is needed (apt-get install valgrind)")
    work = tempfile.mkdtemp(prefix="accwatch-bench-")
    if opts.keep:
        os.makedirs(opts.keep, exist_ok=True)
    try:
        ir = {mode: count(opts, mode, work) / opts.batches for mode in ("a", "c", "c0", "d")}
        split = parts(os.path.join(work, "callgrind.c-01"), opts.batches)
        if opts.keep:
            for mode in ir:
                shutil.copy(os.path.join(work, f"callgrind.{mode}-01"), opts.keep)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"# instructions per batch (callgrind), {opts.items} items, batch 64, num_workers 0, "
          f"{opts.batches} batches; "
          "added = against the mode named")
    print(f"{'mode':<32} {'instr/batch':>12} {'added':>10} {'ratio':>7}")
    rows = (("a untraced", "a", None), ("c0 control (accwatch-run, off)", "c0", "a"),
            ("c recorded by accwatch-run", "c", "c0"), ("d python tracer", "d", "a"))
    for name, mode, against in rows:
        added = ir[mode] - ir[against] if against else 0
        ratio = ir[mode] / ir[against] if against else 1
        print(f"{name:<32} {ir[mode]:>12,.0f} {added:>10,.0f} {ratio:>7.4f}  (vs {against or '-'})")
    added = ir["c"] - ir["c0"]
    print(f"# where the {added:,.0f} instructions added per batch go (inclusive, recorded run)")
    for label, *_ in PARTS:
        print(f"{label:<44} {split.get(label, 0):>8,.0f}")
    walk, emit = (split.get(PARTS[i][0], 0) for i in (1, 2))
    print(f"{'  indices read from Python (walk - event)':<44} {walk - emit:>8,.0f}")
    print(f"{'per-batch methods, lookups, counts (rest)':<44} "
          f"{added - split.get(PARTS[0][0], 0):>8,.0f}")
    accwatch, python = ir["c"] - ir["c0"], ir["d"] - ir["a"]
    if accwatch > 0:
        print(f"# the python tracer adds {python / accwatch:.1f}x the instructions accwatch adds per batch")


if __name__ == "__main__":
    main()
