# SPDX-License-Identifier: MIT
"""Starts N local ranks of a training script the way torchrun does (env://:
RANK, LOCAL_RANK, WORLD_SIZE, LOCAL_WORLD_SIZE, MASTER_ADDR, MASTER_PORT).
Debian's torchrun 1.13 does not run on Python 3.11, so the examples bring this."""
import argparse
import os
import signal
import socket
import subprocess
import sys
import time


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--nproc", type=int, default=4, help="ranks to start (default 4)")
    parser.add_argument("--master-port", type=int, default=0, help="rendezvous port (default: a free one)")
    parser.add_argument("script")
    parser.add_argument("args", nargs=argparse.REMAINDER)
    opts = parser.parse_args()
    if not 1 <= opts.nproc <= 256:
        parser.error("--nproc must be between 1 and 256")

    port = opts.master_port or free_port()
    # Debian's torch 2.x is built without libuv, the TCPStore default since
    # torch 2.4: init_process_group fails there unless told; the older store
    # works with every build.
    store = {} if "USE_LIBUV" in os.environ else {"USE_LIBUV": "0"}
    procs = []
    for rank in range(opts.nproc):
        env = dict(os.environ, **store, RANK=str(rank), LOCAL_RANK=str(rank),
                   WORLD_SIZE=str(opts.nproc), LOCAL_WORLD_SIZE=str(opts.nproc),
                   GROUP_RANK="0", MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
        procs.append(subprocess.Popen([sys.executable, opts.script, *opts.args], env=env))

    status = 0
    try:
        pending = list(procs)
        while pending:
            for p in list(pending):
                code = p.poll()
                if code is None:
                    continue
                pending.remove(p)
                if code != 0 and status == 0:
                    status = code if code > 0 else 128 - code
                    for other in pending:  # one rank failed: the others would hang
                        other.send_signal(signal.SIGTERM)
            time.sleep(0.05)
    except KeyboardInterrupt:
        for p in procs:
            p.send_signal(signal.SIGINT)
        for p in procs:
            p.wait()
        status = 130
    sys.exit(status)


if __name__ == "__main__":
    main()
