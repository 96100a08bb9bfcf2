# SPDX-License-Identifier: MIT
"""Time from a batch drawn to its live verdict: 4 ranks of live_kinds.py
(a batch every 0.5 s, one mistake per kind) under accwatch-run --live; the
time each live line reached this process, less the time of the batch that
made its verdict certain, from the ranks' own logs (the same wall clock):
for a verdict at the first batches, the last rank's first batch of the
epoch; for uneven-batches, the later of the short rank's end and another
rank's batch beyond the short rank's count. Goal: 2 s. Prints a table."""
import argparse
import os
import re
import shutil
import statistics
import subprocess
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.dirname(HERE)
PYTHON = "/usr/bin/python3"
KINDS = ("unsharded", "order-diverged", "same-order", "uneven")
LINE = re.compile(r"^accwatch live: [0-9.]+ s: ([a-z-]+) \(\w+\).*, epoch (\d+)")


def logs(out, ranks):
    """rank -> epoch -> {"batches": [times], "end": time}."""
    got = {}
    for rank in range(ranks):
        for line in open(os.path.join(out, f"rank-{rank}")):
            epoch, batch, at = line.split()
            e = got.setdefault(rank, {}).setdefault(int(epoch), {"batches": [], "end": None})
            if batch == "end":
                e["end"] = float(at)
            else:
                e["batches"].append(float(at))
    return got


def decided(kind, got, epoch):
    """When the verdict on epoch became certain, from the ranks' logs."""
    ranks = [got[r][epoch] for r in got]
    if kind != "uneven":
        return max(r["batches"][0] for r in ranks)
    short = min(ranks, key=lambda r: len(r["batches"]))
    count = len(short["batches"])
    beyond = min(r["batches"][count] for r in ranks if len(r["batches"]) > count)
    return max(short["end"], beyond)


def run_once(build, kind, ranks, step, work):
    out = tempfile.mkdtemp(dir=work)
    cmd = [os.path.join(build, "bin", "accwatch-run"), "-q", "--live", "--force", "-o",
           os.path.join(out, "trace"), "--", PYTHON, os.path.join(SOURCE, "examples", "launch.py"),
           "--nproc", str(ranks), os.path.join(HERE, "live_kinds.py"), "--kind", kind,
           "--step", str(step), "--out", out]
    job = subprocess.Popen(cmd, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
    arrived = []

    def read():
        for line in job.stderr:
            m = LINE.match(line)
            if m:
                arrived.append((m.group(1), int(m.group(2)), time.time()))

    reader = threading.Thread(target=read)
    reader.start()
    job.wait()
    reader.join()
    got = logs(out, ranks)
    wanted = "uneven-batches" if kind == "uneven" else kind
    epoch = 1 if kind == "same-order" else 0
    came = [at for fid, e, at in arrived if fid == wanted and e == epoch]
    if not came:
        return None
    return came[0] - decided(kind, got, epoch)


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--build", default=os.path.join(SOURCE, "build"))
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--ranks", type=int, default=4)
    parser.add_argument("--step", type=float, default=0.5)
    opts = parser.parse_args()
    work = tempfile.mkdtemp(prefix="accwatch-bench-live-")
    print(f"# {opts.ranks} ranks, a batch every {opts.step} s, {opts.rounds} rounds (kinds interleaved); "
          "seconds from the deciding batch to the live line; goal 2 s")
    print(f"{'verdict':<16} {'median':>7} {'min':>7} {'max':>7} {'missed':>7}")
    try:
        delays = {k: [] for k in KINDS}
        missed = {k: 0 for k in KINDS}
        for _ in range(opts.rounds):
            for kind in KINDS:
                d = run_once(opts.build, kind, opts.ranks, opts.step, work)
                if d is None:
                    missed[kind] += 1
                else:
                    delays[kind].append(d)
        for kind in KINDS:
            d = delays[kind] or [float("nan")]
            print(f"{kind:<16} {statistics.median(d):>7.2f} {min(d):>7.2f} {max(d):>7.2f} {missed[kind]:>7}")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
