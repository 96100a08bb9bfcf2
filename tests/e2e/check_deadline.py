"""check.py's own deadline: a run that never ends (hang_ranks.py, through the
real accwatch-run and launcher) must fail well before ctest's TIMEOUT, saying
what each process waited on: the kernel's wchan and the Python stack of the
worker, which names the frame it blocks in; and nothing of the run may be
left alive.

    check_deadline.py --build BUILD [check.py options: --stack, --python, --site]"""
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
DEADLINE = 20


def main():
    args = sys.argv[1:]
    started = time.monotonic()
    run = subprocess.run([sys.executable, os.path.join(HERE, "check.py"), "--case", "unsharded",
                          "--script", "hang_ranks.py", "--nproc", "2", "--timeout", str(DEADLINE)] + args,
                         capture_output=True, text=True, timeout=DEADLINE + 120)
    took = time.monotonic() - started
    out = run.stdout + run.stderr
    problems = []
    if run.returncode != 1:
        problems.append(f"check.py exited {run.returncode}, expected 1 (the run past its deadline)")
    if f"took more than {DEADLINE} s" not in out:
        problems.append("no word of the deadline")
    if not any("Python stacks of pid" in l for l in out.splitlines()):
        problems.append("no Python stacks")
    if not any(" in stuck_in_getitem" in l for l in out.splitlines()):
        problems.append("no Python stack names the blocking frame stuck_in_getitem")
    if "wchan" not in out or "threads waiting in" not in out:
        problems.append("no wchan of the processes")
    left = subprocess.run(["pgrep", "-f", "hang_ranks.py"], capture_output=True, text=True).stdout.split()
    if left:
        problems.append(f"processes of the run left alive: {left}")
    if problems:
        print("FAIL " + "; ".join(problems) + f" (after {took:.0f} s); check.py said:\n{out[-6000:]}")
        sys.exit(1)
    print(f"ok the run was stopped at its deadline ({took:.0f} s in all), the dump names stuck_in_getitem")


if __name__ == "__main__":
    main()
