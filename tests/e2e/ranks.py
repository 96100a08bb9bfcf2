# SPDX-License-Identifier: MIT
"""One rank of an end-to-end scenario: runs the run(truth, rank, world) of
scenarios/<case>.py, which builds the DataLoader(s) and iterates them the way
the scenario says, and writes what the rank really read (the truth the
report is checked against) to TRUTH_DIR/rank-<r>.json. Started by
examples/launch.py, e.g. without accwatch:

    /usr/bin/python3 examples/launch.py --nproc 4 tests/e2e/ranks.py --case sharded --truth /tmp/t

The truth's format is in scenario_kit.py."""
import argparse

import torch
import torch.distributed as dist

from scenario_kit import Truth, end_process_group, load_scenario, rank_options


def main():
    opts = rank_options(argparse.ArgumentParser())
    scenario = load_scenario(opts.case)

    dist.init_process_group("gloo")
    rank, world = dist.get_rank(), dist.get_world_size()
    torch.manual_seed(rank)
    truth = Truth()
    scenario.run(truth, rank, world)
    dist.barrier()

    truth.write(opts.truth, rank, world)
    end_process_group()


if __name__ == "__main__":
    main()
