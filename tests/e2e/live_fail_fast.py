# SPDX-License-Identifier: MIT
"""accwatch-run --fail-fast on real torchrun ranks: a 4-rank unsharded job of
many epochs is stopped at its first error (epoch 0's unsharded, printed live
at the ranks' first batches) long before its last epoch, with accwatch-run's
own status 123, its trace still whole for accwatch-report; the same job with
epochs of 30 s is stopped inside its first epoch, the live line within 15 s
of the first batch (the figure is printed), also when each rank shuffles
its own way (no shared first batch: the ranks' shared reads say it); a training job whose ranks
hold different numbers of batches, hanging in an all-reduce once rank 0 ran
out, is stopped at uneven-batches; a sharded job under --fail-fast prints
nothing live and runs to its end with its own status; a job whose script
path holds " (error)" and a newline is not stopped for a warning, and no
recorded path forges a line of the live output or the text report; ranks
that left the launcher's process group and ignore SIGINT and SIGTERM are
ended too; a live reader killed while the job runs is said, and the
succeeding job's accwatch-run exits 125."""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
EXIT_FAIL_FAST = 123
EPOCHS = 40


EPOCH_SECONDS = 30
STOP_WITHIN = 15
LIVE_TIME = re.compile(r"^accwatch live: ([0-9.]+) s: ")


def run(opts, work, name, epochs, shard, sleep=0.05, extra=(), script=None):
    out, trace = os.path.join(work, f"{name}.epochs"), os.path.join(work, name)
    first = os.path.join(work, f"{name}.first")
    cmd = [os.path.join(opts.build, "bin", "accwatch-run"), "-q", "--fail-fast", "-o", trace, "--",
           os.path.join(os.path.dirname(opts.python), "torchrun"), "--nproc-per-node", "4",
           script or os.path.join(HERE, "live_job.py"), "--epochs", str(epochs), "--sleep", str(sleep),
           "--out", out, "--first", first]
    if shard:
        cmd.append("--shard")
    cmd += extra
    started = time.time()
    job = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    job.started = started
    job.first = [float(l.split()[1]) for l in open(first)] if os.path.exists(first) else []
    done = open(out).read().split("\n")[:-1] if os.path.exists(out) else []
    return job, done, trace


def check_slow(opts, work, problems, name="slow", extra=()):
    """Epochs of 30 s (16 batches): the live line comes, and the job stops,
    inside epoch 0; the line's time after the first batch is printed."""
    job, done, _ = run(opts, work, name, 3, shard=False, sleep=EPOCH_SECONDS / 16, extra=extra)
    live = [LIVE_TIME.match(l) for l in job.stderr.splitlines()]
    live = [float(m.group(1)) for m in live if m]
    if job.returncode != EXIT_FAIL_FAST or not live or not job.first:
        problems.append(f"{name}: 30 s epochs: status {job.returncode}, live lines {live}, "
                        f"first batches {job.first}")
        return None
    after = job.started + live[0] - min(job.first)
    if after >= STOP_WITHIN or done:
        problems.append(f"{name}: 30 s epochs: the live line came {after:.1f} s after the first batch, "
                        f"rank epochs done before the stop: {done}")
    return after


def report(opts, trace):
    run = subprocess.run([os.path.join(opts.build, "bin", "accwatch-report"), trace], capture_output=True,
                         text=True, timeout=300)
    return run.returncode, run.stdout + run.stderr


def check_hang(opts, work, problems):
    """The uneven training job hangs once rank 0 ran out: --fail-fast stops
    it at uneven-batches, which the final report gives too."""
    job, done, trace = run(opts, work, "hang", 1, shard=False, sleep=0.3, extra=["--uneven"])
    live = [l for l in job.stderr.splitlines() if l.startswith("accwatch live:")]
    if job.returncode != EXIT_FAIL_FAST or not live or ": uneven-batches (error)" not in live[0]:
        problems.append(f"the hanging job: status {job.returncode}, live lines {live}")
    status, text = report(opts, trace)
    if "ERROR uneven-batches" not in text:
        problems.append(f"accwatch-report on the hanging job's trace exited {status}:\n{text[:2000]}")
    return live[0].split(": ")[1] if live else None


def check_forged(opts, work, problems):
    """The job's script in a directory whose name holds " (error)" and a
    newline with a forged finding line: a sharded job without set_epoch
    (same-order, a warning, printed live) is not stopped, and neither the
    live lines nor the text report hold the forged line."""
    where = os.path.join(work, "a (error)\nERROR unsharded  L9 (forged)")
    os.makedirs(where)
    script = os.path.join(where, "live_job.py")
    shutil.copy(os.path.join(HERE, "live_job.py"), script)
    job, done, trace = run(opts, work, "forged", 2, shard=True, extra=["--no-set-epoch"], script=script)
    live = [l for l in job.stderr.splitlines() if l.startswith("accwatch live:")]
    if job.returncode != 0 or len(done) != 4 * 2 or not any(": same-order (warning)" in l for l in live):
        problems.append(f"the job whose path holds \" (error)\": status {job.returncode}, {len(done)} of 8 "
                        f"rank epochs, live lines {live}")
    forged = [l for l in job.stderr.splitlines() + report(opts, trace)[1].splitlines()
              if l.startswith("ERROR")]
    if forged:
        problems.append(f"a recorded path forged report lines: {forged}")


def alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] not in "ZX"
    except OSError:
        return False


def check_stubborn(opts, work, problems):
    """An unsharded job whose launcher's 4 ranks left its process group
    and ignore SIGINT and SIGTERM: --fail-fast ends them all (SIGKILL after
    the grace) and says so, not only the launcher."""
    out, trace, pids = (os.path.join(work, f"stubborn.{x}") for x in ("epochs", "trace", "pids"))
    cmd = [os.path.join(opts.build, "bin", "accwatch-run"), "-q", "--fail-fast", "-o", trace, "--",
           opts.python, os.path.join(HERE, "live_job.py"), "--spawn", "4", "--epochs", str(EPOCHS),
           "--sleep", "0.05", "--out", out, "--stubborn", "--pids", pids]
    # Files, not pipes: the ranks inherit them, and a pipe would hold
    # subprocess.run until the last rank ended.
    with open(trace + ".err", "w+") as err:
        job = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=err, timeout=600)
        left = [p for p in (int(l) for l in open(pids)) if alive(p)] if os.path.exists(pids) else []
        err.seek(0)
        job.stderr = err.read()
    ranks = [int(l) for l in open(pids)] if os.path.exists(pids) else []
    for p in left:
        os.kill(p, 9)
    if job.returncode != EXIT_FAIL_FAST or len(ranks) != 4 or left or \
            "4 processes of the job outlived" not in job.stderr:
        problems.append(f"the stubborn ranks: status {job.returncode}, {len(ranks)} ranks, still alive {left}, "
                        f"stderr {job.stderr[-1500:]}")


def check_reader_killed(opts, work, problems):
    """The live reader killed while a sharded job runs: accwatch-run says
    so and, the job having succeeded, exits 125, not 0 (under --fail-fast
    the job's errors would have gone unseen)."""
    out, trace = os.path.join(work, "reader.epochs"), os.path.join(work, "reader")
    cmd = [os.path.join(opts.build, "bin", "accwatch-run"), "-q", "--fail-fast", "-o", trace, "--",
           os.path.join(os.path.dirname(opts.python), "torchrun"), "--nproc-per-node", "2",
           os.path.join(HERE, "live_job.py"), "--epochs", "3", "--sleep", "0.3", "--out", out, "--shard"]
    job = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    killed = None
    for _ in range(300):
        time.sleep(0.1)
        for pid in os.listdir("/proc"):
            try:
                with open(f"/proc/{pid}/stat") as f:
                    parent = int(f.read().rsplit(")", 1)[1].split()[1])
                with open(f"/proc/{pid}/cmdline", "rb") as f:
                    line = f.read().split(b"\0")
            except (OSError, ValueError, IndexError):
                continue
            if parent == job.pid and line[0].endswith(b"accwatch-report") and b"--live" in line:
                os.kill(int(pid), 9)
                killed = int(pid)
                break
        if killed:
            break
    _, err = job.communicate(timeout=600)
    if not killed or job.returncode != 125 or "the live reader (accwatch-report --live) ended while" not in err \
            or "killed by signal 9" not in err:
        problems.append(f"the live reader killed: reader {killed}, status {job.returncode}, stderr {err[-1500:]}")


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--build", required=True)
    parser.add_argument("--python", required=True, help="the venv's interpreter (its torchrun starts the ranks)")
    opts = parser.parse_args()
    work = tempfile.mkdtemp(prefix="accwatch-live-fail-fast-")
    problems = []

    job, done, trace = run(opts, work, "unsharded", EPOCHS, shard=False)
    live = [l for l in job.stderr.splitlines() if l.startswith("accwatch live:")]
    if job.returncode != EXIT_FAIL_FAST:
        problems.append(f"unsharded job under --fail-fast exited {job.returncode}, not {EXIT_FAIL_FAST}")
    if not live or not re.search(r": unsharded \(error\), L0 \(.*live_job\.py:\d+\), epoch 0, ranks 0-3$", live[0]):
        problems.append(f"the first live line is not epoch 0's unsharded of ranks 0-3: {live[:1]}")
    if not re.search(r"--fail-fast stopped .* at: accwatch live: .* unsharded \(error\)", job.stderr):
        problems.append("accwatch-run did not say which finding stopped the job")
    if len({int(l.split()[1]) for l in done}) >= EPOCHS // 4:
        problems.append(f"the ranks read {len(done)} epochs of {4 * EPOCHS} before being stopped")
    status, text = report(opts, trace)
    if status != 1 or "ERROR unsharded" not in text:
        problems.append(f"accwatch-report on the stopped job's trace exited {status}:\n{text[:2000]}")

    slow = check_slow(opts, work, problems)
    # Each rank its own permutation: no shared first batch, but the ranks
    # share samples after a batch or two, and nothing splits the data.
    own = check_slow(opts, work, problems, "per-rank-orders", ["--seed-per-rank"])
    hang = check_hang(opts, work, problems)
    check_forged(opts, work, problems)
    check_stubborn(opts, work, problems)
    check_reader_killed(opts, work, problems)

    job2, done2, _ = run(opts, work, "sharded", 3, shard=True)
    live2 = [l for l in job2.stderr.splitlines() if l.startswith("accwatch live:")]
    if job2.returncode != 0 or len(done2) != 4 * 3 or live2:
        problems.append(f"sharded job under --fail-fast: status {job2.returncode}, {len(done2)} of 12 rank "
                        f"epochs, live lines {live2}")

    for p in problems:
        print(f"FAIL: {p}", file=sys.stderr)
    if problems:
        print(f"stderr of the unsharded job:\n{job.stderr[-3000:]}\nkept: {work}", file=sys.stderr)
        sys.exit(1)
    shutil.rmtree(work, ignore_errors=True)
    print(f"ok: stopped after {len(done)} rank epochs of {4 * EPOCHS} (status {job.returncode}); with "
          f"{EPOCH_SECONDS} s epochs the live line came {slow:.1f} s after the first batch, inside epoch 0 "
          f"({own:.1f} s with each rank its own order); "
          f"the hanging job was stopped at {hang}; "
          f"the sharded job ran its {len(done2)} rank epochs")


if __name__ == "__main__":
    main()
