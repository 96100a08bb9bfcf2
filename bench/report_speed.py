# SPDX-License-Identifier: MIT
"""Report speed and trace size on a large real trace: 8 ranks each reading
1,000,000 samples for 3 epochs from a fast loop, recorded by accwatch-run.
Compares accwatch-report (text, JSON, HTML) with babeltrace2's dummy sink
(the decoding floor): wall time and peak memory, medians of interleaved
runs; bytes per index, and the HTML report's size."""
import argparse
import os
import statistics
import subprocess
import tempfile
import time
from benchkit import PYTHON, du, timed

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.dirname(HERE)






def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--build", default=os.path.join(SOURCE, "build"))
    parser.add_argument("--ranks", type=int, default=8)
    parser.add_argument("--samples", type=int, default=1_000_000)
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--trace", help="reuse this trace instead of recording one")
    opts = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="accwatch-bench-report-") as work:
        trace = opts.trace
        if not trace:
            trace = os.path.join(work, "trace")
            start = time.perf_counter()
            subprocess.run([os.path.join(opts.build, "bin", "accwatch-run"), "-q", "-o", trace, "--",
                            PYTHON, os.path.join(SOURCE, "examples", "launch.py"), "--nproc", str(opts.ranks),
                            os.path.join(HERE, "loop.py"), "--raw", "--samples", str(opts.samples),
                            "--epochs", str(opts.epochs)], check=True, stdout=subprocess.DEVNULL)
            print(f"# recorded {opts.ranks} ranks x {opts.samples} samples x {opts.epochs} epochs"
                  f" in {time.perf_counter() - start:.1f} s")
        indices = opts.ranks * opts.samples * opts.epochs
        size = du(trace)
        print(f"# trace: {size / 2**20:.1f} MiB for {indices} indices = {size / indices:.2f} bytes per index")

        tools = {"babeltrace2 dummy": ["babeltrace2", trace, "-c", "sink.utils.dummy"],
                 "accwatch-report text": [os.path.join(opts.build, "bin", "accwatch-report"), trace],
                 "accwatch-report json": [os.path.join(opts.build, "bin", "accwatch-report"), "--format", "json", trace],
                 "accwatch-report html": [os.path.join(opts.build, "bin", "accwatch-report"), "--format", "html",
                                          "-o", os.path.join(work, "report.html"), trace]}
        results = {name: [] for name in tools}
        for _ in range(opts.rounds):
            for name, cmd in tools.items():
                results[name].append(timed(cmd))
        floor = [s for s, _, _ in results["babeltrace2 dummy"]]
        print(f"{'tool':<22} {'seconds':>8} {'min-max':>13} {'peak MiB':>9} {'x dummy':>8}")
        for name, rows in results.items():
            seconds = [s for s, _, _ in rows]
            ratio = statistics.median([s / f for s, f in zip(seconds, floor)])
            print(f"{name:<22} {statistics.median(seconds):>8.2f} {min(seconds):>6.2f}-{max(seconds):<6.2f}"
                  f" {max(m for _, _, m in rows):>9.1f} {ratio:>8.2f}")
        print(f"# HTML report: {os.path.getsize(os.path.join(work, 'report.html')) / 2**10:.0f} KiB")


if __name__ == "__main__":
    main()
