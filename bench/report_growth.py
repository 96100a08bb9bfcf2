# SPDX-License-Identifier: MIT
"""How accwatch-report's time and memory grow with the number of loaders,
epochs and processes of a run: real CTF traces of two ranks recorded through
an LTTng session from accwatch_trace_gen's `growth` scenario (a new one-batch
DataLoader per epoch over one sampler; one loader with many one-batch
passes; a worker forked per pass; an unsharded one-batch DataLoader per
epoch, every rank reading all), at 1k, 10k, 30k and 100k. Prints seconds
and peak MiB per size and the ratio to the size before: a linear report
grows by about the size's own ratio (10x, 3x, 3.3x). With --real, the
loaders rows come from real recordings instead: two torch ranks under
accwatch-run, building a one-batch DataLoader per epoch over one
DistributedSampler (bench/loader_per_epoch.py)."""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from benchkit import PYTHON, build_tools, ensure_sessiond, record_gen, timed

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.dirname(HERE)






def record_real(opts, trace, n):
    """n DataLoaders in all, over two ranks, recorded by accwatch-run."""
    subprocess.run([os.path.join(opts.build, "bin", "accwatch-run"), "-q", "-o", trace, "--",
                    opts.python, os.path.join(SOURCE, "examples", "launch.py"), "--nproc", "2",
                    os.path.join(HERE, "loader_per_epoch.py"), "--epochs", str(n // 2)],
                   check=True, stdout=subprocess.DEVNULL)




def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--build", default=os.path.join(SOURCE, "build"))
    parser.add_argument("--sizes", default="1000,10000,30000,100000",
                        help="comma-separated counts (default %(default)s)")
    parser.add_argument("--shapes", default="loaders,epochs,processes,unsharded")
    parser.add_argument("--timeout", type=int, default=600,
                        help="ACCWATCH_REPORT_TIMEOUT for each report (default %(default)s)")
    parser.add_argument("--keep", help="keep the traces in this directory")
    parser.add_argument("--real", action="store_true",
                        help="loaders: record real torch ranks (slow: minutes for 100k)")
    parser.add_argument("--python", default=PYTHON, help="the Python of --real (default %(default)s)")
    opts = parser.parse_args()
    gen, report = build_tools(opts.build)
    ensure_sessiond()
    sizes = [int(s) for s in opts.sizes.split(",")]
    work = opts.keep or tempfile.mkdtemp(prefix="accwatch-bench-growth-")
    env = dict(os.environ, ACCWATCH_REPORT_TIMEOUT=str(opts.timeout))
    run = (os.getpid() % 100000) * 100
    try:
        print(f"{'shape':<10} {'n':>7} {'record s':>9} {'trace MiB':>10} {'report s':>9} {'x prev':>7}"
              f" {'peak MiB':>9} {'x prev':>7}")
        for shape in opts.shapes.split(","):
            before = None
            for n in sizes:
                run += 1
                trace = os.path.join(work, f"{shape}-{n}")
                shutil.rmtree(trace, ignore_errors=True)
                start = time.perf_counter()
                if opts.real and shape == "loaders":
                    record_real(opts, trace, n)
                else:
                    record_gen(gen, trace, ["growth", shape, str(n)], run, "growth")
                recorded = time.perf_counter() - start
                size = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(trace) for f in fs)
                seconds, _, mib = timed([report, trace], env)
                ratios = ("", "") if not before else (f"{seconds / before[0]:.1f}", f"{mib / before[1]:.1f}")
                print(f"{shape:<10} {n:>7} {recorded:>9.1f} {size / 2**20:>10.1f} {seconds:>9.2f} {ratios[0]:>7}"
                      f" {mib:>9.1f} {ratios[1]:>7}", flush=True)
                before = (seconds, mib)
                if not opts.keep:
                    shutil.rmtree(trace, ignore_errors=True)
    finally:
        if not opts.keep:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
