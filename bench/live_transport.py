# SPDX-License-Identifier: MIT
"""Live transport: how soon a reader sees a batch the traced program drew, and
what it costs the program, for LTTng's live mode (a lttng-relayd on loopback,
babeltrace2's lttng-live source) and for session rotation (each closed chunk
read with babeltrace2 as it appears). The program draws one batch every
--period seconds and notes the wall time of each draw; the reader notes when
each batch event reached it. Also times a fast loop (loop.py --raw) recorded
plainly, live, and with rotation. Prints tables; run as root or as the user
whose session daemon runs (it starts one when none answers)."""
import argparse
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.dirname(HERE)
PYTHON = "/work/main/.venv/bin/python"

DRAWER = r"""
import sys, time
import torch
from torch.utils.data import DataLoader
n, period, out = int(sys.argv[1]), float(sys.argv[2]), sys.argv[3]
loader = DataLoader(list(range(n)), batch_size=1)
with open(out, "w") as f:
    it = iter(loader)
    for i in range(n):
        t = time.time()
        next(it)
        f.write(f"{i} {t}\n")
        f.flush()
        time.sleep(period)
"""

BATCH = re.compile(r"accwatch:batch(?:_packed)?:.*?\bpid = (\d+),.*?\bbatch = (\d+)")
# batch_bits: the batch ordinal leads the packed words (tests/e2e/packed.py)
BATCH_BITS = re.compile(r"accwatch:batch_bits:.*?\bpid = (\d+),.*?\bpacked = \[ (.*?) \]")
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tests", "e2e"))
from packed import unpack_bits  # noqa: E402


def batch_of(line):
    """(pid, batch ordinal) of a batch event's line of babeltrace2's text,
    or None."""
    m = BATCH.search(line)
    if m:
        return int(m.group(1)), int(m.group(2))
    m = BATCH_BITS.search(line)
    if m:
        words = [int(w) for w in re.findall(r"\[\d+\] = (\d+)", m.group(2))]
        return int(m.group(1)), unpack_bits("batch", words)[0]["batch"]
    return None


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def lttng(*args, check=True):
    return subprocess.run(["lttng", *args], check=check, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def watch_lines(proc, seen):
    for line in proc.stdout:
        note(seen, batch_of(line))


def note(seen, batch):
    """Other processes of the user may record too (per-UID buffers): only
    the drawing program's batches count."""
    if batch and batch[0] == seen.get("pid") and batch[1] not in seen:
        seen[batch[1]] = time.time()


def env_for(build):
    env = dict(os.environ, LD_PRELOAD=os.path.join(build, "lib", "libaccwatch.so"), LTTNG_UST_ALLOW_BLOCKING="1",
               LTTNG_UST_WITHOUT_BADDR_STATEDUMP="1", LTTNG_UST_WITHOUT_PROCNAME_STATEDUMP="1")
    return env


class Live:
    def __init__(self, work, timer_us):
        self.ports = [free_port() for _ in range(3)]
        self.out = os.path.join(work, "relayd")
        c, d, l = self.ports
        self.relayd = subprocess.Popen(["lttng-relayd", "-C", f"tcp://127.0.0.1:{c}", "-D", f"tcp://127.0.0.1:{d}",
                                        "-L", f"tcp://127.0.0.1:{l}", "-o", self.out],
                                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(0.5)
        self.name = f"bench-live-{os.getpid()}-{timer_us}"
        lttng("create", self.name, f"--live={timer_us}", f"--set-url=net://127.0.0.1:{c}:{d}")
        lttng("enable-event", "-u", "accwatch:*", "-s", self.name)
        lttng("start", self.name)

    def reader(self):
        url = f"net://127.0.0.1:{self.ports[2]}/host/{socket.gethostname()}/{self.name}"
        return subprocess.Popen(["babeltrace2", "--input-format=lttng-live", url], stdout=subprocess.PIPE,
                                stderr=subprocess.DEVNULL, text=True)

    def close(self):
        lttng("destroy", self.name, check=False)
        self.relayd.terminate()
        self.relayd.wait()


class Rotation:
    def __init__(self, work, timer_us):
        self.out = os.path.join(work, "rot")
        self.name = f"bench-rot-{os.getpid()}-{timer_us}"
        lttng("create", self.name, f"--output={self.out}")
        lttng("enable-event", "-u", "accwatch:*", "-s", self.name)
        lttng("enable-rotation", "-s", self.name, f"--timer={timer_us}")
        lttng("start", self.name)
        self.stop = False

    def poll(self, seen):
        done = set()
        archives = os.path.join(self.out, "archives")
        while not self.stop:
            for chunk in sorted(os.listdir(archives)) if os.path.isdir(archives) else []:
                if chunk in done:
                    continue
                done.add(chunk)
                out = subprocess.run(["babeltrace2", os.path.join(archives, chunk)], capture_output=True,
                                     text=True).stdout
                for line in out.splitlines():
                    note(seen, batch_of(line))
            time.sleep(0.05)

    def close(self):
        self.stop = True
        lttng("destroy", self.name, check=False)


def latency(build, work, kind, timer_us, batches, period):
    session = (Live if kind == "live" else Rotation)(work, timer_us)
    seen = {}
    if kind == "live":
        reader = session.reader()
        thread = threading.Thread(target=watch_lines, args=(reader, seen), daemon=True)
    else:
        thread = threading.Thread(target=session.poll, args=(seen,), daemon=True)
    thread.start()
    drawn_file = os.path.join(work, f"drawn-{kind}-{timer_us}")
    drawer = subprocess.Popen([PYTHON, "-c", DRAWER, str(batches), str(period), drawn_file], env=env_for(build))
    seen["pid"] = drawer.pid
    drawer.wait()
    deadline = time.time() + 3 * timer_us / 1e6 + 5
    while len(seen) < batches + 1 and time.time() < deadline:
        time.sleep(0.05)
    session.close()
    if kind == "live":
        reader.terminate()
    drawn = {int(i): float(t) for i, t in (line.split() for line in open(drawn_file))}
    lat = [seen[i] - drawn[i] for i in sorted(drawn) if i in seen]
    return lat, len(seen) - 1


def loop_cost(build, work, kind, timer_us, samples):
    session = None
    if kind == "live":
        session = Live(work, timer_us)
    elif kind == "rotation":
        session = Rotation(work, timer_us)
    else:
        name = f"bench-plain-{os.getpid()}"
        lttng("create", name, f"--output={os.path.join(work, 'plain')}")
        lttng("enable-event", "-u", "accwatch:*", "-s", name)
        lttng("start", name)
    out = subprocess.run([PYTHON, os.path.join(HERE, "loop.py"), "--raw", "--samples", str(samples), "--batch", "4"],
                         env=env_for(build), check=True, capture_output=True, text=True).stdout
    if session:
        session.close()
    else:
        lttng("destroy", name, check=False)
    return float(re.search(r'"seconds": ([0-9.]+)', out).group(1))


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--build", default=os.path.join(SOURCE, "build"))
    parser.add_argument("--batches", type=int, default=20)
    parser.add_argument("--period", type=float, default=0.25)
    parser.add_argument("--samples", type=int, default=4 * 20000)
    parser.add_argument("--rounds", type=int, default=3)
    opts = parser.parse_args()
    subprocess.run(["lttng-sessiond", "--daemonize"], stderr=subprocess.DEVNULL, check=False)
    work = tempfile.mkdtemp(prefix="accwatch-live-bench-")
    configs = [("live", 100000), ("live", 1000000), ("rotation", 1000000)]
    print(f"# latency from a batch drawn to its event read; {opts.batches} batches, one per {opts.period} s")
    print(f"{'transport':<10} {'timer':>8} {'read':>5} {'first s':>8} {'median s':>9} {'max s':>6}")
    for kind, timer in configs:
        lat, n = latency(opts.build, work, kind, timer, opts.batches, opts.period)
        if lat:
            print(f"{kind:<10} {timer / 1e6:>7.1f}s {n:>5} {lat[0]:>8.2f} {statistics.median(lat):>9.2f}"
                  f" {max(lat):>6.2f}", flush=True)
        else:
            print(f"{kind:<10} {timer / 1e6:>7.1f}s {n:>5} {'-':>8}", flush=True)
    print(f"\n# fast loop (loop.py --raw, batch 4, {opts.samples} samples): seconds, median of {opts.rounds}")
    print(f"{'transport':<10} {'timer':>8} {'seconds':>8} {'ratio':>6}")
    base = None
    for kind, timer in [("plain", 0)] + configs:
        secs = statistics.median(loop_cost(opts.build, work, kind, timer, opts.samples) for _ in range(opts.rounds))
        base = base or secs
        print(f"{kind:<10} {timer / 1e6:>7.1f}s {secs:>8.2f} {secs / base:>6.2f}", flush=True)
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
