# SPDX-License-Identifier: MIT
"""The report with its streams decoded by one babeltrace2 process and by
several (ACCWATCH_REPORT_READERS), paired with `babeltrace2 ... -c
sink.utils.dummy` (the decoding floor) on the same trace: N shuffled indices
(4 ranks, batches of 64, packed events) made by accwatch_trace_gen's `bench`
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
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.dirname(HERE)
PYTHON = "/usr/bin/python3"


def lttng(*args):
    subprocess.run(["lttng", *args], check=True, stdout=subprocess.DEVNULL)


def record(gen, trace, indices, run):
    session = f"accwatch_parallel_{os.getpid()}_{run}"
    lttng("create", session, f"--output={trace}")
    try:
        lttng("enable-channel", "-u", "-s", session, "--subbuf-size=4M", "--num-subbuf=8",
              "--blocking-timeout=inf", "bench")
        lttng("enable-event", "-u", "accwatch:*", "-s", session, "-c", "bench", "--filter", f"run == {run}")
        lttng("start", session)
        env = dict(os.environ, LTTNG_UST_ALLOW_BLOCKING="1")
        gen_process = subprocess.Popen([gen, str(run), "bench", str(indices), "packed"], env=env)
        # One process writes the trace: moved from processor to processor
        # every 5 ms, it fills each processor's stream (per-CPU buffers)
        # as a job's ranks spread over the machine would.
        cpus = sorted(os.sched_getaffinity(0))
        turn = 0
        while gen_process.poll() is None:
            try:
                os.sched_setaffinity(gen_process.pid, {cpus[turn % len(cpus)]})
            except ProcessLookupError:
                break
            turn += 1
            time.sleep(0.005)
        if gen_process.wait():
            raise SystemExit(f"bench: {gen} exited {gen_process.returncode}")
        lttng("stop", session)
    finally:
        subprocess.run(["lttng", "destroy", session], stdout=subprocess.DEVNULL)


def timed(cmd, env):
    """Wall seconds, CPU seconds and peak RSS (MiB) of one run, in a fresh child."""
    probe = [PYTHON, "-c",
             "import resource,subprocess,sys,time;t=time.perf_counter();"
             "r=subprocess.run(sys.argv[1:],stdout=subprocess.DEVNULL);"
             "u=resource.getrusage(resource.RUSAGE_CHILDREN);"
             "print(time.perf_counter()-t, u.ru_utime+u.ru_stime, u.ru_maxrss, r.returncode)",
             *cmd]
    wall, cpu, rss_kib, status = subprocess.run(probe, capture_output=True, text=True, check=True,
                                                env=env).stdout.split()
    if int(status) not in (0, 1):
        raise SystemExit(f"bench: {' '.join(cmd)} exited {status}")
    return float(wall), float(cpu), int(rss_kib) / 1024


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
    opts = parser.parse_args()
    gen = os.path.join(opts.build, "bin", "accwatch_trace_gen")
    report = os.path.join(opts.build, "bin", "accwatch-report")
    if subprocess.run(["lttng", "list"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode:
        subprocess.run(["lttng-sessiond", "--daemonize", "--quiet"], check=True)
    work = tempfile.mkdtemp(prefix="accwatch-bench-parallel-")
    try:
        trace = os.path.join(work, "trace")
        record(gen, trace, opts.indices, 4400)
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
        print(f"# {opts.indices:,} shuffled indices, 4 ranks, batches of 64; {len(sizes)} streams "
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
            record(gen, trace, opts.callgrind, 4401)
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
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
