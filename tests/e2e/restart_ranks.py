# SPDX-License-Identifier: MIT
"""One rank of a scenario of a job that torchrun restarts: runs the
scenario's run(truth, rank, world) with the rank and world size torchrun
gives (RANK, WORLD_SIZE) and no process group: gloo does not reconnect
reliably in a restarted group (torch 2.13: the new processes may be sent
to an address of the attempt before, with or without accwatch), and the
scenarios need no collective. Writes the truth as ranks.py does, one file
per attempt (scenario_kit.Truth.write)."""
import argparse
import os

from scenario_kit import Truth, load_scenario, rank_options


def main():
    opts = rank_options(argparse.ArgumentParser())
    rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
    truth = Truth()
    load_scenario(opts.case).run(truth, rank, world)
    truth.write(opts.truth, rank, world)


if __name__ == "__main__":
    main()
