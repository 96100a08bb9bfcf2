# SPDX-License-Identifier: MIT
"""The report on packed indices against the same indices as 32-bit
integers (the events before packing): three real CTF traces of one shuffle
of N indices (4 ranks, batches of 64) recorded through an LTTng session
from accwatch_trace_gen's `bench` scenario, one per form (plain, packed:
fields and packed indices, bits: the recorder's, fields in the packed
words). Interleaved
rounds of accwatch-report and of `babeltrace2 ... -c sink.utils.dummy` (the
decoding floor) on each; prints the medians of wall and CPU seconds (user +
system, the report's babeltrace2 child included), peak MiB and the trace's
bytes per index."""
import argparse
import os
import statistics
import tempfile
from benchkit import build_tools, du, record_gen, timed

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.dirname(HERE)
FORMS = ("plain", "packed", "bits")










def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--build", default=os.path.join(SOURCE, "build"))
    parser.add_argument("--indices", type=int, default=24_000_000)
    parser.add_argument("--rounds", type=int, default=5)
    opts = parser.parse_args()
    gen, report = build_tools(opts.build)
    with tempfile.TemporaryDirectory(prefix="accwatch-bench-packed-") as work:
        traces = {}
        for number, form in enumerate(FORMS):
            traces[form] = os.path.join(work, form)
            record_gen(gen, traces[form], ["bench", str(opts.indices), form], 4200 + number, "packed")
        tools = {"babeltrace2 dummy": lambda t: ["babeltrace2", t, "-c", "sink.utils.dummy"],
                 "accwatch-report": lambda t: [report, t]}
        results = {(form, tool): [] for form in FORMS for tool in tools}
        for _ in range(opts.rounds):
            for form in FORMS:
                for tool, cmd in tools.items():
                    results[(form, tool)].append(timed(cmd(traces[form])))
        print(f"# {opts.indices:,} shuffled indices, 4 ranks, batches of 64; medians of "
              f"{opts.rounds} interleaved rounds")
        print(f"{'events':<8} {'bytes/index':>11} {'tool':<18} {'wall s':>7} {'CPU s':>7} {'peak MiB':>9} "
              f"{'CPU vs dummy':>12}")
        for form in FORMS:
            per_index = du(traces[form]) / opts.indices
            floor = statistics.median(c for _, c, _ in results[(form, "babeltrace2 dummy")])
            for tool in tools:
                runs = results[(form, tool)]
                wall, cpu, rss = (statistics.median(r[i] for r in runs) for i in range(3))
                print(f"{form:<8} {per_index:>11.2f} {tool:<18} {wall:>7.2f} {cpu:>7.2f} {rss:>9.0f} "
                      f"{cpu / floor:>12.2f}")


if __name__ == "__main__":
    main()
