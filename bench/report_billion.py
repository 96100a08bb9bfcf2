# SPDX-License-Identifier: MIT
"""How the report grows with the number of indices: shuffled indices (4
ranks, batches of 64, packed events) made by accwatch_trace_gen's `bench`
scenario and recorded through an LTTng session (with --spread, the
generator moved between the processors so that each one's stream holds
part of the events), at 1e7, 1e8 and 1e9 by default, one size at a time
(a 1e9 trace takes about 4.5 GB: the free disk is checked first, and each
trace is deleted after its row); with --real, one more row from a real
recording: one torch rank drawing --real-epochs epochs of a shuffled
2^24 - 1 samples (bench/loop.py --raw) under accwatch-run. Prints, per
size, the trace's bytes per index, the seconds to record it, then the wall
and CPU seconds and peak MiB of accwatch-report and the wall seconds of
`babeltrace2 ... -c sink.utils.dummy` on it (one run each)."""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.dirname(HERE)
PYTHON = "/usr/bin/python3"
BYTES_PER_INDEX = 4.5  # a bound on the trace's size, for the disk check


def lttng(*args):
    subprocess.run(["lttng", *args], check=True, stdout=subprocess.DEVNULL)


def record(gen, trace, indices, run, spread):
    session = f"accwatch_billion_{os.getpid()}_{run}"
    lttng("create", session, f"--output={trace}")
    try:
        lttng("enable-channel", "-u", "-s", session, "--subbuf-size=4M", "--num-subbuf=8",
              "--blocking-timeout=inf", "bench")
        lttng("enable-event", "-u", "accwatch:*", "-s", session, "-c", "bench", "--filter", f"run == {run}")
        lttng("start", session)
        env = dict(os.environ, LTTNG_UST_ALLOW_BLOCKING="1")
        gen_process = subprocess.Popen([gen, str(run), "bench", str(indices), "packed"], env=env)
        if spread:
            # Moved from processor to processor every 5 ms, the one
            # process fills each processor's stream as a job's ranks
            # spread over the machine would (report_parallel.py).
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


def record_real(opts, trace):
    subprocess.run([os.path.join(opts.build, "bin", "accwatch-run"), "-q", "-o", trace, "--",
                    opts.python, os.path.join(HERE, "loop.py"), "--raw", "--samples", str(2**24 - 1),
                    "--epochs", str(opts.real_epochs)], check=True, stdout=subprocess.DEVNULL)
    return (2**24 - 1) * opts.real_epochs


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


def du(path):
    return sum(os.path.getsize(os.path.join(d, f)) for d, _, files in os.walk(path) for f in files)


def row(name, indices, recorded, trace, report, env):
    size = du(trace)
    dummy = timed(["babeltrace2", trace, "-c", "sink.utils.dummy"], env)
    wall, cpu, mib = timed([report, trace], env)
    print(f"{name:<10} {indices:>14,} {size / indices:>11.2f} {recorded:>9.1f} {wall:>9.1f} {cpu:>7.1f}"
          f" {mib:>9.0f} {dummy[0]:>9.1f} {wall / dummy[0]:>9.2f}", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--build", default=os.path.join(SOURCE, "build"))
    parser.add_argument("--sizes", default="10000000,100000000,1000000000")
    parser.add_argument("--work", help="where the traces go (default: a new directory under $TMPDIR)")
    parser.add_argument("--real", action="store_true", help="add a real recording's row")
    parser.add_argument("--spread", action="store_true",
                        help="move the generator between the processors (streams of even size)")
    parser.add_argument("--real-epochs", type=int, default=6, help="epochs of 2^24 - 1 (default %(default)s)")
    parser.add_argument("--python", default=PYTHON, help="the Python of --real (default %(default)s)")
    opts = parser.parse_args()
    gen = os.path.join(opts.build, "bin", "accwatch_trace_gen")
    report = os.path.join(opts.build, "bin", "accwatch-report")
    if subprocess.run(["lttng", "list"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode:
        subprocess.run(["lttng-sessiond", "--daemonize", "--quiet"], check=True)
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
            record(gen, trace, indices, 4500 + run, opts.spread)
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
