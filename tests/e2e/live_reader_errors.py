# SPDX-License-Identifier: MIT
"""accwatch-report --live on what it cannot read: a session the relay
daemon does not have (a typo in the URL) is an error naming it, exit 2,
not an empty report with exit 0; a peer that accepts the connection and
never answers (not an lttng-relayd) is an error within the query's bound
(15 s), not a reader that waits forever."""
import argparse
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time


def free_ports(count):
    sockets = [socket.socket() for _ in range(count)]
    for s in sockets:
        s.bind(("127.0.0.1", 0))
    ports = [s.getsockname()[1] for s in sockets]
    for s in sockets:
        s.close()
    return ports


def report(opts, url):
    started = time.time()
    run = subprocess.run([os.path.join(opts.build, "bin", "accwatch-report"), "--live", url],
                         capture_output=True, text=True, timeout=120)
    return run.returncode, run.stderr, time.time() - started


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--build", required=True)
    opts = parser.parse_args()
    problems = []
    work = tempfile.mkdtemp(prefix="accwatch-live-reader-")
    control, data, live = free_ports(3)
    relayd = subprocess.Popen(["lttng-relayd", "-C", f"tcp://127.0.0.1:{control}",
                               "-D", f"tcp://127.0.0.1:{data}", "-L", f"tcp://127.0.0.1:{live}",
                               "-o", work], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(50):
            try:
                socket.create_connection(("127.0.0.1", live), timeout=1).close()
                break
            except OSError:
                time.sleep(0.1)
        status, err, _ = report(opts, f"net://127.0.0.1:{live}/host/{socket.gethostname()}/no-such-session")
        if status != 2 or "has no session" not in err or "no-such-session" not in err:
            problems.append(f"a session the relay daemon lacks: status {status}, {err.strip()!r}")
    finally:
        relayd.terminate()
        relayd.wait(timeout=30)
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(4)
    status, err, took = report(opts, f"net://127.0.0.1:{silent.getsockname()[1]}/host/a/b")
    silent.close()
    if status != 2 or "did not answer" not in err or took > 60:
        problems.append(f"a silent peer: status {status} after {took:.1f} s, {err.strip()!r}")
    shutil.rmtree(work, ignore_errors=True)
    for p in problems:
        print(f"FAIL: {p}", file=sys.stderr)
    if problems:
        sys.exit(1)
    print(f"ok: a missing session is exit 2, a silent peer exit 2 after {took:.1f} s")


if __name__ == "__main__":
    main()
