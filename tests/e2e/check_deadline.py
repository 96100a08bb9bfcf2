# SPDX-License-Identifier: MIT
"""check.py's own deadline: a run that never ends (hang_ranks.py, through the
real accwatch-run and launcher) must fail well before ctest's TIMEOUT, saying
what each process waited on: the kernel's wchan and the Python stack of the
worker, which names the frame it blocks in; and nothing of the run may be
left alive.

    check_deadline.py --build BUILD [check.py options: --stack, --python, --site]"""
import os
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
DEADLINE = 20


def left_alive():
    """Processes of hang_ranks.py still running (by its full path)."""
    found = subprocess.run(["pgrep", "-f", os.path.join(HERE, "hang_ranks.py")], capture_output=True, text=True)
    return [int(p) for p in found.stdout.split()]


def main():
    args = sys.argv[1:]
    started = time.monotonic()
    problems = []
    # A file, not a pipe: processes check.py left behind would hold a pipe.
    with tempfile.TemporaryFile("w+") as said:
        check = subprocess.Popen([sys.executable, os.path.join(HERE, "check.py"), "--case", "unsharded",
                                  "--script", "hang_ranks.py", "--nproc", "2", "--timeout", str(DEADLINE)] + args,
                                 stdout=said, stderr=subprocess.STDOUT)
        try:
            status = check.wait(timeout=DEADLINE + 120)
        except subprocess.TimeoutExpired:
            check.kill()
            status = check.wait()
            problems.append(f"check.py did not end within {DEADLINE + 120} s")
        said.seek(0)
        out = said.read()
    took = time.monotonic() - started
    if status != 1:
        problems.append(f"check.py exited {status}, expected 1 (the run past its deadline)")
    if f"took more than {DEADLINE} s" not in out:
        problems.append("no word of the deadline")
    if not any("Python stacks of pid" in l for l in out.splitlines()):
        problems.append("no Python stacks")
    if not any(" in stuck_in_getitem" in l for l in out.splitlines()):
        problems.append("no Python stack names the blocking frame stuck_in_getitem")
    if "wchan" not in out or "threads waiting in" not in out:
        problems.append("no wchan of the processes")
    left = left_alive()
    if left:
        problems.append(f"processes of the run left alive: {left}")
        for pid in left:  # ours: this test started them
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
    if problems:
        print("FAIL " + "; ".join(problems) + f" (after {took:.0f} s); check.py said:\n{out[-6000:]}")
        sys.exit(1)
    print(f"ok the run was stopped at its deadline ({took:.0f} s in all), the dump names stuck_in_getitem")


if __name__ == "__main__":
    main()
