# SPDX-License-Identifier: MIT
"""How the report grows with the number of indices: shuffled indices (4
ranks, batches of 64, the recorder's `_bits` events; --form packed or
plain for the events of recorders before) made by accwatch_trace_gen's `bench`
scenario and recorded through an LTTng session (with --spread, the
generator moved between the processors so that each one's stream holds
part of the events), at 1e7, 1e8 and 1e9 by default, one size at a time
(a 1e9 trace takes about 4.5 GB: the free disk is checked first, and each
trace is deleted after its row); with --real, one more row from a real
recording: one torch rank drawing --real-epochs epochs of a shuffled
2^24 - 1 samples (bench/loop.py --raw) under accwatch-run. Prints, per
size, the trace's bytes per index, the seconds to record it, then the wall
and CPU seconds and peak MiB of accwatch-report and the wall seconds of
`babeltrace2 ... -c sink.utils.dummy` on it (one run each). Each
trace's report (JSON, run once more, untimed) must count every index drawn,
once."""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from benchkit import PYTHON, build_tools, du, ensure_sessiond, record_gen, timed

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.dirname(HERE)
BYTES_PER_INDEX = 4.5  # a bound on the trace's size, for the disk check






def record_real(opts, trace):
    subprocess.run([os.path.join(opts.build, "bin", "accwatch-run"), "-q", "-o", trace, "--",
                    opts.python, os.path.join(HERE, "loop.py"), "--raw", "--samples", str(2**24 - 1),
                    "--epochs", str(opts.real_epochs)], check=True, stdout=subprocess.DEVNULL)
    return (2**24 - 1) * opts.real_epochs






def reported(trace, report, env):
    """The samples the JSON report counts in all (every rank, loader and
    epoch) and the union of each epoch's, summed: each must be the indices
    drawn, or the row would time a report that lost some."""
    done = subprocess.run([report, "--format", "json", trace], env=env, capture_output=True,
                          text=True)
    if done.returncode not in (0, 1):  # 1: findings
        raise SystemExit(f"bench: {report} --format json exited {done.returncode}: "
                         f"{done.stderr.strip()[:300]}")
    epochs = [e for loader in json.loads(done.stdout)["loaders"] for e in loader["epochs"]]
    return (sum(r["samples"] for e in epochs for r in e["ranks"]),
            sum(e["union"] for e in epochs))


def row(name, indices, recorded, trace, report, env):
    size = du(trace)
    dummy = timed(["babeltrace2", trace, "-c", "sink.utils.dummy"], env)
    wall, cpu, mib = timed([report, trace], env)
    samples, union = reported(trace, report, env)
    if (samples, union) != (indices, indices):
        raise SystemExit(f"bench: the report counts {samples:,} samples, {union:,} distinct, "
                         f"of {indices:,} drawn")
    print(f"{name:<10} {indices:>14,} {size / indices:>11.2f} {recorded:>9.1f} {wall:>9.1f} {cpu:>7.1f}"
          f" {mib:>9.0f} {dummy[0]:>9.1f} {wall / dummy[0]:>9.2f}", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--build", default=os.path.join(SOURCE, "build"))
    parser.add_argument("--sizes", default="10000000,100000000,1000000000")
    parser.add_argument("--work", help="where the traces go (default: a new directory under $TMPDIR)")
    parser.add_argument("--form", default="bits", choices=("bits", "packed", "plain"),
                        help="the generated events (default %(default)s: the recorder's)")
    parser.add_argument("--real", action="store_true", help="add a real recording's row")
    parser.add_argument("--spread", action="store_true",
                        help="move the generator between the processors (streams of even size)")
    parser.add_argument("--real-epochs", type=int, default=6, help="epochs of 2^24 - 1 (default %(default)s)")
    parser.add_argument("--python", default=PYTHON, help="the Python of --real (default %(default)s)")
    opts = parser.parse_args()
    gen, report = build_tools(opts.build)
    ensure_sessiond()
    work = tempfile.mkdtemp(prefix="accwatch-bench-billion-", dir=opts.work)
    env = dict(os.environ, ACCWATCH_REPORT_TIMEOUT="0")
    try:
        print(f"{'trace':<10} {'indices':>14} {'bytes/index':>11} {'record s':>9} {'report s':>9}"
              f" {'CPU s':>7} {'peak MiB':>9} {'dummy s':>9} {'vs dummy':>9}", flush=True)
        for run, indices in enumerate(int(s) for s in opts.sizes.split(",")):
            free = shutil.disk_usage(work).free
            if free < indices * BYTES_PER_INDEX * 1.2:
                print(f"# {indices:,}: {free / 2**30:.1f} GiB free, not enough for the trace")
                continue
            trace = os.path.join(work, f"gen-{indices}")
            start = time.perf_counter()
            record_gen(gen, trace, ["bench", str(indices), opts.form], 4500 + run, "billion", opts.spread)
            row("generated", indices, time.perf_counter() - start, trace, report, env)
            shutil.rmtree(trace)
        if opts.real:
            trace = os.path.join(work, "real")
            start = time.perf_counter()
            indices = record_real(opts, trace)
            row("recorded", indices, time.perf_counter() - start, trace, report, env)
            shutil.rmtree(trace)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
