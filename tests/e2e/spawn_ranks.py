# SPDX-License-Identifier: MIT
"""Ranks started by torch.multiprocessing.spawn: the program the launcher
starts (torchrun --nproc-per-node 1, or examples/launch.py --nproc 1: it
carries RANK=0) spawns --nproc ranks that do not join a process group; each
shards by the rank spawn hands it and writes what it read to
TRUTH_DIR/rank-<r>.json (format in scenario_kit.py). The launched process
itself never reads: it is a launcher, not rank 0.

    python3 examples/launch.py --nproc 1 tests/e2e/spawn_ranks.py --case spawn_sharded --ranks 2 --truth /tmp/t"""
import argparse
import os

import torch
import torch.multiprocessing as mp

from scenario_kit import TRUTH_ENV, Truth, load_scenario, rank_options


def rank_main(rank, case, world, truth_dir):
    os.environ[TRUTH_ENV] = truth_dir
    torch.manual_seed(rank)
    truth = Truth()
    load_scenario(case).run(truth, rank, world)
    truth.write(truth_dir, rank, world)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--ranks", type=int, required=True, help="ranks to spawn")
    opts = rank_options(parser)
    mp.spawn(rank_main, args=(opts.case, opts.ranks, opts.truth), nprocs=opts.ranks)


if __name__ == "__main__":
    main()
