# SPDX-License-Identifier: MIT
"""Recording overhead: the DataLoader-bound loop of loop.py run (a) untraced,
(b) under LD_PRELOAD without a session, (c) recorded by accwatch-run, (d) with a
hand-written Python tracer, (e) recorded by accwatch-run --live (the findings
read and checked while the job runs: against (c), the cost of --live), plus a
second untraced run (a') as a control: its
ratio to (a) is the run-to-run noise floor of this machine, against which the
other ratios must be read. Runs are interleaved (a a' b c d, a a' b c d, ...);
ratios are computed round by round, then summarised (--modes picks some:
"a,c,e" pairs plain recording with --live; column "vs c" is each mode's
ratio to c in the same round). Prints a table.
bench/inprocess.py isolates the per-batch cost of (c) and (d) from that noise."""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.dirname(HERE)
PYTHON = "/usr/bin/python3"
MODES = ("a untraced", "a' untraced again", "b dormant", "c accwatch-run", "d python tracer",
         "e accwatch-run --live")
DORMANT, RECORDED, PYTRACER, LIVE = 2, 3, 4, 5


def run_once(build, mode, ranks, workers, samples, work):
    loop = [PYTHON, os.path.join(HERE, "loop.py"), "--workers", str(workers), "--samples", str(samples)]
    if ranks > 1:
        loop = [PYTHON, os.path.join(SOURCE, "examples", "launch.py"), "--nproc", str(ranks), *loop[1:]]
    env = dict(os.environ)
    env.pop("LD_PRELOAD", None)
    cmd = loop
    if mode == DORMANT:
        env["LD_PRELOAD"] = os.path.join(build, "lib", "libaccwatch.so")
    elif mode in (RECORDED, LIVE):
        trace = tempfile.mkdtemp(dir=work)
        live = ["--live"] if mode == LIVE else []
        cmd = [os.path.join(build, "bin", "accwatch-run"), "-q", *live, "--force", "-o", trace, "--", *loop]
    elif mode == PYTRACER:
        env["BENCH_PYTRACER"] = "1"
        env["BENCH_PYTRACER_DIR"] = tempfile.mkdtemp(dir=work)
        env["PYTHONPATH"] = HERE + os.pathsep + env.get("PYTHONPATH", "")
    env["BENCH_OUT"] = tempfile.mkdtemp(dir=work)
    subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL)
    rows = [json.load(open(os.path.join(env["BENCH_OUT"], name))) for name in os.listdir(env["BENCH_OUT"])]
    if len(rows) != ranks:
        raise SystemExit(f"bench: expected {ranks} results, got {len(rows)}")
    # The slowest rank sets the pace of a synchronous job.
    slowest = max(rows, key=lambda r: r["seconds"])
    return slowest["seconds"] / slowest["batches"], slowest["seconds"] / slowest["indices"]


def vs_recorded(per_batch, mode):
    """Median over rounds of (mode / c accwatch-run): the cost of --live
    against plain recording, run by run; "-" when c was not run."""
    if not per_batch[RECORDED]:
        return "-"
    return f"{statistics.median(m / c for m, c in zip(per_batch[mode], per_batch[RECORDED])):.3f}"


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--build", default=os.path.join(SOURCE, "build"))
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--samples", type=int, default=64 * 3000)
    parser.add_argument("--configs", default="0x1,0x4,2x1,2x4", help="workers x ranks, comma-separated")
    parser.add_argument("--modes", default="a,a',b,c,d,e", help="the modes run, comma-separated (a is always)")
    opts = parser.parse_args()
    chosen = {m.split()[0] for m in opts.modes.split(",")} | {"a"}
    modes = [i for i, name in enumerate(MODES) if name.split()[0] in chosen]
    work = tempfile.mkdtemp(prefix="accwatch-bench-")
    print(f"# DataLoader loop, batch 64, {opts.samples} samples per rank, {opts.rounds} interleaved rounds;"
          " per-batch time of the slowest rank; ratio = median over rounds of (mode / untraced)")
    print(f"{'workers':>7} {'ranks':>5} {'mode':<22} {'us/batch':>9} {'min-max':>15} {'ns/index':>9}"
          f" {'ratio':>7} {'added us/batch':>14} {'vs c':>6}")
    try:
        for config in opts.configs.split(","):
            workers, ranks = (int(x) for x in config.split("x"))
            per_batch = [[] for _ in MODES]
            per_index = [[] for _ in MODES]
            for _ in range(opts.rounds):
                for mode in modes:
                    b, i = run_once(opts.build, mode, ranks, workers, opts.samples, work)
                    per_batch[mode].append(b)
                    per_index[mode].append(i)
            for mode in modes:
                name = MODES[mode]
                ratios = [m / a for m, a in zip(per_batch[mode], per_batch[0])]
                added = [(m - a) * 1e6 for m, a in zip(per_batch[mode], per_batch[0])]
                print(f"{workers:>7} {ranks:>5} {name:<22} {statistics.median(per_batch[mode]) * 1e6:>9.2f}"
                      f" {min(per_batch[mode]) * 1e6:>7.2f}-{max(per_batch[mode]) * 1e6:<7.2f}"
                      f" {statistics.median(per_index[mode]) * 1e9:>9.1f} {statistics.median(ratios):>7.3f}"
                      f" {statistics.median(added):>14.2f} {vs_recorded(per_batch, mode):>6}")
            sys.stdout.flush()
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
