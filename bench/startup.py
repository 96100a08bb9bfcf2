# SPDX-License-Identifier: MIT
"""Start-up cost of the preload: a non-Python process (/bin/true) and
`import torch`, each with and without LD_PRELOAD=libaccwatch.so, interleaved.
Prints a table of per-start times and the time added by the preload."""
import argparse
import os
import statistics
import subprocess
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.dirname(HERE)


def timed(cmd, env):
    start = time.perf_counter()
    subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def measure(name, cmd, runs, preload):
    plain = dict(os.environ)
    plain.pop("LD_PRELOAD", None)
    loaded = dict(plain, LD_PRELOAD=preload)
    without, with_ = [], []
    for _ in range(runs):
        without.append(timed(cmd, plain))
        with_.append(timed(cmd, loaded))
    added = [(w - p) * 1e3 for w, p in zip(with_, without)]
    print(f"{name:<22} {runs:>6} {statistics.median(without) * 1e3:>10.3f} {statistics.median(with_) * 1e3:>10.3f}"
          f" {statistics.median(added):>10.3f} {min(added):>8.3f}..{max(added):<8.3f}")


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--build", default=os.path.join(SOURCE, "build"))
    parser.add_argument("--runs", type=int, default=1000)
    parser.add_argument("--torch-runs", type=int, default=10)
    opts = parser.parse_args()
    preload = os.path.join(opts.build, "lib", "libaccwatch.so")
    print("# medians of interleaved runs, milliseconds per start; added = median of (with - without) pairs")
    print(f"{'command':<22} {'runs':>6} {'without':>10} {'with':>10} {'added':>10} {'added min..max':>18}")
    measure("/bin/true", ["/bin/true"], opts.runs, preload)
    measure("python3 -c pass", ["/usr/bin/python3", "-c", "pass"], max(opts.runs // 10, 10), preload)
    measure("python3 import torch", ["/usr/bin/python3", "-c", "import torch.utils.data"], opts.torch_runs, preload)


if __name__ == "__main__":
    main()
