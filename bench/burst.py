# SPDX-License-Identifier: MIT
"""A burst of draws: a DataLoader loop drawing about --rate indices a second
(batches of --batch ints from a batch sampler over a shuffled range, each
batch followed by a fixed step of CPU work sized so that the untraced loop
draws at that rate) for about --seconds, run untraced and recorded by
accwatch-run in interleaved rounds (a c a c ...). Prints, per mode, the
loop's seconds, the indices drawn a second, the ratio to the untraced run of
the same round, and what the trace holds: the indices the report counts
against those drawn, the events LTTng discarded and the processes that
stopped recording at the stall bound, so that a fast recording that lost
data shows as such."""
import argparse
import glob
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.dirname(HERE)
PYTHON = "/work/main/.venv/bin/python"
MM = 64  # the step's work: products of MM x MM matrices


def loop(opts):
    """The traced program: prints one JSON line (drawn, seconds)."""
    import torch
    from torch.utils.data import DataLoader, Dataset

    torch.set_num_threads(1)

    class Indices(Dataset):
        def __len__(self):
            return opts.samples * opts.stride

        def __getitem__(self, index):
            return index

        def __getitems__(self, indices):
            return indices

    class Slices:
        """A batch sampler: the slices of one shuffled permutation."""

        def __init__(self):
            order = torch.randperm(opts.samples, generator=torch.Generator().manual_seed(0))
            order = (order * opts.stride).tolist()
            self.batches = [order[i:i + opts.batch] for i in range(0, opts.samples, opts.batch)]

        def __iter__(self):
            return iter(self.batches)

        def __len__(self):
            return len(self.batches)

    loader = DataLoader(Indices(), batch_sampler=Slices(), collate_fn=lambda batch: batch)
    weights = torch.rand(MM, MM)
    drawn = 0
    start = time.perf_counter()
    for _ in range(opts.epochs):
        for batch in loader:
            drawn += len(batch)
            for _ in range(opts.step):
                torch.mm(weights, weights)
    seconds = time.perf_counter() - start
    print(json.dumps({"drawn": drawn, "seconds": seconds}), flush=True)


def loop_cmd(opts, step):
    return [PYTHON, os.path.abspath(__file__), "--loop", "--samples", str(opts.samples),
            "--batch", str(opts.batch), "--stride", str(opts.stride), "--epochs", str(opts.epochs), "--step", str(step)]


def calibrate(opts):
    """Products a step needs for the untraced loop to draw about opts.rate:
    the loop timed without work and with 64 products a batch."""
    def rate(step):
        out = subprocess.run(loop_cmd(opts, step), capture_output=True, text=True, check=True).stdout
        row = json.loads(out)
        return row["seconds"] / row["drawn"] * opts.batch  # seconds a batch
    bare = min(rate(0) for _ in range(3))
    per_product = (min(rate(64) for _ in range(3)) - bare) / 64
    target = opts.batch / opts.rate
    return max(0, round((target - bare) / per_product))


def recorded(build, opts, step, work, extra):
    """One recorded run: (seconds, drawn, indices in the trace, events
    discarded, processes stalled)."""
    trace = tempfile.mkdtemp(dir=work)
    run = subprocess.run([os.path.join(build, "bin", "accwatch-run"), *extra, "--force", "-o", trace, "--",
                          *loop_cmd(opts, step)], capture_output=True, text=True)
    if run.returncode:
        raise SystemExit(f"bench: accwatch-run exited {run.returncode}: {run.stderr}")
    row = json.loads(run.stdout.strip().splitlines()[-1])
    match = re.search(r"(\d+) events? (?:were|was) discarded", run.stderr)
    discarded = int(match.group(1)) if match else 0
    stalled = len(glob.glob(os.path.join(trace, "accwatch-stalled.*")))
    report = subprocess.run([os.path.join(build, "bin", "accwatch-report"), "--format", "json", trace],
                            capture_output=True, text=True)
    in_trace = 0
    if report.stdout:
        for loader in json.loads(report.stdout).get("loaders", []):
            for epoch in loader.get("epochs", []):
                in_trace += sum(rank.get("samples", 0) for rank in epoch.get("ranks", []))
    shutil.rmtree(trace, ignore_errors=True)
    return row["seconds"], row["drawn"], in_trace, discarded, stalled


def untraced(opts, step):
    row = json.loads(subprocess.run(loop_cmd(opts, step), capture_output=True, text=True, check=True).stdout)
    return row["seconds"], row["drawn"]


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--build", default=os.path.join(SOURCE, "build"))
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--rate", type=float, default=20e6, help="indices a second the untraced loop aims at")
    parser.add_argument("--seconds", type=float, default=3.0, help="about how long the untraced loop runs")
    parser.add_argument("--samples", type=int, default=1 << 21, help="the dataset's length (an epoch)")
    parser.add_argument("--batch", type=int, default=4096)
    parser.add_argument("--stride", type=int, default=1,
                        help="indices are those of a permutation times STRIDE (wider indices, more bytes)")
    parser.add_argument("--modes", default="defaults=",
                        help="recorded modes, ';'-separated NAME=accwatch-run options (e.g. "
                             "'defaults=;8x4M=--subbuf-size 4M --num-subbuf 8')")
    parser.add_argument("--busy", type=int, default=0,
                        help="processes spinning meanwhile (a busy node: the consumer waits for a CPU)")
    parser.add_argument("--step", type=int, default=-1, help="products a batch (default: calibrated)")
    parser.add_argument("--loop", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--epochs", type=int, default=0, help=argparse.SUPPRESS)
    opts = parser.parse_args()
    if opts.loop:
        loop(opts)
        return
    opts.epochs = 1
    step = opts.step if opts.step >= 0 else calibrate(opts)
    opts.epochs = max(1, round(opts.rate * opts.seconds / opts.samples))
    modes = [(name, extra.split()) for name, _, extra in (m.partition("=") for m in opts.modes.split(";"))]
    work = tempfile.mkdtemp(prefix="accwatch-bench-")
    busy = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(opts.busy)]
    rows = {name: [] for name in ["untraced"] + [m[0] for m in modes]}
    try:
        for _ in range(opts.rounds):
            rows["untraced"].append(untraced(opts, step) + (None, 0, 0))
            for name, extra in modes:
                rows[name].append(recorded(opts.build, opts, step, work, ["-q", *extra]))
    finally:
        for process in busy:
            process.kill()
            process.wait()
        shutil.rmtree(work, ignore_errors=True)
    print(f"# burst: batches of {opts.batch} indices of {opts.samples} (x{opts.stride}), {opts.epochs} epochs, {step} products"
          f" of {MM}x{MM} a batch; {opts.busy} busy processes; {opts.rounds} interleaved rounds; medians; ratio = median over rounds of"
          " (mode / untraced of the same round)")
    print(f"{'mode':<12} {'seconds':>8} {'min-max':>13} {'M idx/s':>8} {'ratio':>6} {'in trace':>9}"
          f" {'of drawn':>9} {'discarded':>9} {'stalled':>7}")
    base = [r[0] for r in rows["untraced"]]
    for name, runs in rows.items():
        seconds = [r[0] for r in runs]
        ratio = statistics.median(s / b for s, b in zip(seconds, base))
        drawn = runs[0][1]
        if name == "untraced":
            kept = share = discarded = stalled = "-"
        else:
            kept = f"{min(r[2] for r in runs):,}"
            share = f"{min(r[2] for r in runs) / drawn:.4f}"
            discarded = str(max(r[3] for r in runs))
            stalled = str(max(r[4] for r in runs))
        print(f"{name:<12} {statistics.median(seconds):>8.3f} {min(seconds):>6.2f}-{max(seconds):<6.2f}"
              f" {drawn / statistics.median(seconds) / 1e6:>8.2f} {ratio:>6.3f} {kept:>9} {share:>9}"
              f" {discarded:>9} {stalled:>7}")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
