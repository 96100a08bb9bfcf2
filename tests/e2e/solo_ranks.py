# SPDX-License-Identifier: MIT
"""Processes that each train alone: started as N ranks by a launcher (RANK
0..N-1 of WORLD_SIZE N in their environment), each then joins a process
group of its own, as rank 0 of a world of 1 (what accelerate does on CPU
when it picks a backend that does not span the processes, or a script that
overwrites the launcher's variables). Each writes what it read as rank 0 to
TRUTH_DIR/rank-0-<launch rank>.json: they all claim rank 0.

    python3 examples/launch.py --nproc 2 tests/e2e/solo_ranks.py --case duplicate_rank --truth /tmp/t"""
import argparse
import os
import socket

import torch
import torch.distributed as dist

from scenario_kit import Truth, load_scenario, rank_options, wait_file


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main():
    opts = rank_options(argparse.ArgumentParser())
    launched_as = int(os.environ["RANK"])
    # torchrun's agent store would join every process to the launcher's
    # rendezvous whatever init_method says.
    os.environ.pop("TORCHELASTIC_USE_AGENT_STORE", None)
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{free_port()}", rank=0, world_size=1)
    torch.manual_seed(launched_as)
    # Every process is alive before any reads: they run at the same time
    # (what the report sees as one attempt), however slowly a loaded
    # machine starts them.
    open(os.path.join(opts.truth, f"started-{launched_as}"), "w").close()
    for other in range(int(os.environ["WORLD_SIZE"])):
        wait_file(os.path.join(opts.truth, f"started-{other}"))
    truth = Truth()
    load_scenario(opts.case).run(truth, 0, 1)
    truth.write(opts.truth, 0, 1, name=f"rank-0-{launched_as}")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
