# SPDX-License-Identifier: MIT
"""accelerate's dispatcher (scenarios/dispatcher.py) read to its end on
every rank, then rank 1 aborts in destroy_process_group and the launcher
stops the others there (rank_abort_at_exit): the data was read, no error,
no warning; rank-ended-after-data (an info) names the four ranks. Before,
rank 1's own draws (its iterator only primed) were compared with rank 0's
13 steps: a false rank-died "before its first batch"."""

from scenario_kit import abort_in_destroy, dispatcher

# The exact set of error and warning ids (infos are free).
EXPECT = []
# check.py options beside --expect, per stack (see rank_abort_at_exit).
OPTIONS = {"venv": ["--accelerate", "--status", "1", "--finding-ranks", "rank-ended-after-data=0,1,2,3"],
           "debian": ["--accelerate", "--status", "134", "--launcher", "launch-torch",
                      "--finding-ranks", "rank-ended-after-data=0,1,2,3"]}


def run(truth, rank, world):
    dispatcher(truth, rank, world)
    abort_in_destroy(rank)
