# SPDX-License-Identifier: MIT
"""Soak: a long recording, to see that nothing grows and nothing is lost.
4 ranks (examples/launch.py) train for --minutes under accwatch-run; every
epoch forks 2 new DataLoader workers (persistent_workers=False) over a
DistributedSampler. Each rank samples its own RSS every --every seconds and,
in its workers, their RSS at the end of each epoch; at the end it writes
the samples and the number of samples it consumed. Then accwatch-report
reads the trace (its peak RSS from wait4) and its per-rank counts are
compared with what the ranks consumed. The same is done for a short run
(--short-minutes) to compare the report's peak RSS on a small and a large
trace. Prints a table; not a test (it takes as long as asked).

    python3 bench/soak.py --build build --minutes 30
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.dirname(HERE)

RANK_PROGRAM = r'''
import json, os, sys, time
import torch, torch.distributed as dist
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler

def rss_kib():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return -1

class Numbers(Dataset):
    def __len__(self):
        return 20000
    def __getitem__(self, i):
        return torch.tensor(i)

dist.init_process_group("gloo")
rank, seconds, every, out = dist.get_rank(), float(sys.argv[1]), float(sys.argv[2]), sys.argv[3]
dataset = Numbers()
sampler = DistributedSampler(dataset, shuffle=True, seed=1)
start = last = time.monotonic()
samples, consumed, epochs, worker_peaks = [], 0, 0, []
while time.monotonic() - start < seconds:
    sampler.set_epoch(epochs)
    loader = DataLoader(dataset, batch_size=16, sampler=sampler, num_workers=2)
    it = iter(loader)
    for batch in it:
        consumed += len(batch)
        now = time.monotonic()
        if now - last >= every:
            samples.append([round(now - start), rss_kib()])
            for w in getattr(it, "_workers", []):  # this epoch's workers
                try:
                    with open("/proc/%d/status" % w.pid) as f:
                        worker_peaks.append(int(f.read().split("VmRSS:")[1].split()[0]))
                except (OSError, IndexError, ValueError):
                    pass
            last = now
    epochs += 1
    del it, loader
    dist.barrier()
samples.append([round(time.monotonic() - start), rss_kib()])
with open(os.path.join(out, "rank-%d.json" % rank), "w") as f:
    json.dump({"rss": samples, "consumed": consumed, "epochs": epochs, "workers": worker_peaks}, f)
dist.destroy_process_group()
'''


def run(build, python, minutes, every, work):
    out = tempfile.mkdtemp(dir=work)
    trace = os.path.join(out, "trace")
    program = os.path.join(out, "rank.py")
    with open(program, "w") as f:
        f.write(RANK_PROGRAM)
    cmd = [os.path.join(build, "bin", "accwatch-run"), "-q", "-o", trace, "--",
           python, os.path.join(SOURCE, "examples", "launch.py"), "--nproc", "4",
           program, str(minutes * 60), str(every), out]
    begin = time.monotonic()
    subprocess.run(cmd, check=True)
    recorded = time.monotonic() - begin
    # The report's peak RSS (its reader child's included), from wait4.
    binary = os.path.join(build, "bin", "accwatch-report")
    read_end, write_end = os.pipe()
    pid = os.posix_spawn(binary, [binary, "--format", "json", trace], os.environ,
                         file_actions=[(os.POSIX_SPAWN_DUP2, write_end, 1), (os.POSIX_SPAWN_CLOSE, read_end)])
    os.close(write_end)
    with os.fdopen(read_end, "rb") as f:
        text = f.read()
    _, _, usage = os.wait4(pid, 0)
    peak = usage.ru_maxrss
    doc = json.loads(text)
    ranks = [json.load(open(os.path.join(out, "rank-%d.json" % r))) for r in range(4)]
    trace_bytes = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(trace) for f in fs)
    return doc, ranks, peak, trace_bytes, recorded


def reported_samples(doc, rank):
    total = 0
    for loader in doc["loaders"]:
        for epoch in loader.get("epochs") or []:
            for cell in epoch["ranks"]:
                if cell["rank"] == rank:
                    total += cell["samples"]
    return total


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", default=os.path.join(SOURCE, "build"))
    parser.add_argument("--python", default="/usr/bin/python3")
    parser.add_argument("--minutes", type=float, default=30)
    parser.add_argument("--short-minutes", type=float, default=3)
    parser.add_argument("--every", type=float, default=30, help="seconds between RSS samples (default 30)")
    opts = parser.parse_args()
    work = tempfile.mkdtemp(prefix="accwatch-soak-")
    try:
        rows = []
        for minutes in (opts.short_minutes, opts.minutes):
            doc, ranks, peak, size, took = run(opts.build, opts.python, minutes, opts.every, work)
            lost = [r for r in range(4) if reported_samples(doc, r) != ranks[r]["consumed"]]
            incomplete = [f["id"] for f in doc["findings"] if f["id"] == "trace-incomplete"]
            rss = [[kib for _, kib in ranks[r]["rss"]] for r in range(4)]
            first = max(row[min(1, len(row) - 1)] for row in rss)  # after the first epochs
            last = max(row[-1] for row in rss)
            workers = [w for r in ranks for w in r["workers"] if w > 0]
            rows.append((minutes, took, sum(r["epochs"] for r in ranks) // 4, size, first, last,
                         min(workers or [-1]), max(workers or [-1]), peak, sum(r["consumed"] for r in ranks),
                         "none" if not lost and not incomplete else "ranks %s %s" % (lost, incomplete)))
        print("| minutes | wall s | epochs | trace MiB | rank RSS early (KiB) | rank RSS at end (KiB) "
              "| worker RSS min-max (KiB) | report peak RSS (KiB) | samples consumed | lost |")
        print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
        for m, took, epochs, size, first, last, wmin, wmax, peak, consumed, lost in rows:
            print("| %g | %.0f | %d | %.1f | %d | %d | %d-%d | %d | %d | %s |" % (
                m, took, epochs, size / 2**20, first, last, wmin, wmax, peak, consumed, lost))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
