# SPDX-License-Identifier: MIT
"""What the report benches share: the lttng CLI, a session recording one
run of accwatch_trace_gen, a command timed in a fresh child (wall, CPU and
peak RSS), and the size of a trace."""
import os
import subprocess
import time

PYTHON = "/usr/bin/python3"


def lttng(*args):
    subprocess.run(["lttng", *args], check=True, stdout=subprocess.DEVNULL)


def record_gen(gen, trace, gen_args, run, name, spread=False):
    """Records `gen RUN GEN_ARGS...` into trace, its own session keeping the
    run's events only. The channel blocks the generator instead of
    discarding events when the consumer falls behind. spread: the one
    process is moved from processor to processor every 5 ms, so that it
    fills each processor's stream (per-CPU buffers) as a job's ranks spread
    over the machine would."""
    session = f"accwatch_{name}_{os.getpid()}_{run}"
    lttng("create", session, f"--output={trace}")
    try:
        lttng("enable-channel", "-u", "-s", session, "--subbuf-size=4M", "--num-subbuf=8",
              "--blocking-timeout=inf", "bench")
        lttng("enable-event", "-u", "accwatch:*", "-s", session, "-c", "bench", "--filter", f"run == {run}")
        lttng("start", session)
        env = dict(os.environ, LTTNG_UST_ALLOW_BLOCKING="1")
        gen_process = subprocess.Popen([gen, str(run), *gen_args], env=env)
        cpus = sorted(os.sched_getaffinity(0))
        turn = 0
        while spread and gen_process.poll() is None:
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


def timed(cmd, env=None):
    """Wall seconds, CPU seconds and peak RSS (MiB) of one run, in a fresh
    child; a status other than 0 or 1 (findings) stops the bench."""
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
    """The bytes of every file below path."""
    return sum(os.path.getsize(os.path.join(d, f)) for d, _, files in os.walk(path) for f in files)


def build_tools(build):
    """accwatch_trace_gen and accwatch-report of a build directory."""
    return (os.path.join(build, "bin", "accwatch_trace_gen"),
            os.path.join(build, "bin", "accwatch-report"))


def ensure_sessiond():
    """Starts a session daemon unless one answers."""
    if subprocess.run(["lttng", "list"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode:
        subprocess.run(["lttng-sessiond", "--daemonize", "--quiet"], check=True)
