# SPDX-License-Identifier: MIT
"""The report with its streams decoded by one babeltrace2 process and by
several (ACCWATCH_REPORT_READERS), paired with `babeltrace2 ... -c
sink.utils.dummy` (the decoding floor) on the same trace: N shuffled indices
(4 ranks, batches of 64, packed events; --form bits: the recorder's `_bits`
events) made by accwatch_trace_gen's `bench`
scenario and recorded through an LTTng session, the generator moved between
the processors so that each one's stream holds part of the events.
Interleaved rounds; prints the medians of wall and CPU seconds (user +
system, the report's babeltrace2 processes included) and peak MiB (the
largest process), then, with --callgrind N, the instructions of each
process of one run on a trace of N indices (valgrind's callgrind: a count
that other jobs on the machine do not change), the analyzer's and the
readers' apart."""
import argparse
import glob
import os
import shutil
import statistics
import subprocess
import tempfile
from benchkit import build_tools, ensure_sessiond, record_gen, timed

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.dirname(HERE)








def streams(trace):
    """The sizes of the trace's stream files, largest first."""
    sizes = [os.path.getsize(os.path.join(d, f)) for d, _, files in os.walk(trace) for f in files
             if f != "metadata" and not f.endswith(".idx")]
    return sorted(sizes, reverse=True)


def instructions(cmd, env, work):
    """Instructions of each process of one run (callgrind), the first
    process (the analyzer) first."""
    out = os.path.join(work, "callgrind.%p")
    status = subprocess.run(["valgrind", "--tool=callgrind", "--trace-children=yes",
                             f"--callgrind-out-file={out}", *cmd], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
    if status not in (0, 1):
        raise SystemExit(f"bench: callgrind on {' '.join(cmd)} exited {status}")
    counts = []
    for path in sorted(glob.glob(os.path.join(work, "callgrind.*")),
                       key=lambda p: int(p.rsplit(".", 1)[1])):
        with open(path) as f:
            counts += [int(line.split()[1]) for line in f if line.startswith("summary:")][:1]
        os.remove(path)
    return counts


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--build", default=os.path.join(SOURCE, "build"))
    parser.add_argument("--indices", type=int, default=24_000_000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--readers", default="1,2", help="reader counts to pair (default %(default)s)")
    parser.add_argument("--callgrind", type=int, default=0, metavar="N",
                        help="also count instructions on a trace of N indices")
    parser.add_argument("--form", default="packed", choices=("packed", "bits", "plain"),
                        help="the events of the trace (default %(default)s, the tables of the README)")
    opts = parser.parse_args()
    gen, report = build_tools(opts.build)
    ensure_sessiond()
    with tempfile.TemporaryDirectory(prefix="accwatch-bench-parallel-") as work:
        trace = os.path.join(work, "trace")
        record_gen(gen, trace, ["bench", str(opts.indices), opts.form], 4400, "parallel", spread=True)
        tools = {"babeltrace2 dummy": (["babeltrace2", trace, "-c", "sink.utils.dummy"], {})}
        for n in opts.readers.split(","):
            tools[f"accwatch-report, {n} reader{'s' if n != '1' else ''}"] = (
                [report, trace], {"ACCWATCH_REPORT_READERS": n})
        results = {tool: [] for tool in tools}
        for _ in range(opts.rounds):
            for tool, (cmd, extra) in tools.items():
                results[tool].append(timed(cmd, dict(os.environ, **extra)))
        sizes = streams(trace)
        share = " / ".join(f"{100 * s / sum(sizes):.0f}%" for s in sizes)
        print(f"# {opts.indices:,} shuffled indices ({opts.form} events), 4 ranks, batches of 64; {len(sizes)} streams "
              f"({share} of the bytes); medians of {opts.rounds} interleaved rounds")
        print(f"{'tool':<28} {'wall s':>7} {'CPU s':>7} {'peak MiB':>9} {'wall vs dummy':>13} "
              f"{'CPU vs dummy':>12}")
        floor = [statistics.median(r[i] for r in results["babeltrace2 dummy"]) for i in range(2)]
        for tool in tools:
            wall, cpu, rss = (statistics.median(r[i] for r in results[tool]) for i in range(3))
            print(f"{tool:<28} {wall:>7.2f} {cpu:>7.2f} {rss:>9.0f} {wall / floor[0]:>13.2f} "
                  f"{cpu / floor[1]:>12.2f}")
        if opts.callgrind:
            shutil.rmtree(trace)
            record_gen(gen, trace, ["bench", str(opts.callgrind), opts.form], 4401, "parallel", spread=True)
            print(f"\n# instructions (millions) on {opts.callgrind:,} indices, one run under callgrind")
            print(f"{'tool':<28} {'analyzer':>9} {'readers':>17} {'all':>8} {'all vs dummy':>12}")
            dummy = None
            for tool, (cmd, extra) in tools.items():
                counts = instructions(cmd, dict(os.environ, **extra), work)
                if dummy is None:
                    dummy = sum(counts)
                    print(f"{tool:<28} {'':>9} {sum(counts) / 1e6:>17.0f} {sum(counts) / 1e6:>8.0f} "
                          f"{1:>12.2f}")
                    continue
                readers = " + ".join(f"{c / 1e6:.0f}" for c in counts[1:])
                print(f"{tool:<28} {counts[0] / 1e6:>9.0f} {readers:>17} {sum(counts) / 1e6:>8.0f} "
                      f"{sum(counts) / dummy:>12.2f}")


if __name__ == "__main__":
    main()
