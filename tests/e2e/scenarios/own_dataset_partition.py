# SPDX-License-Identifier: MIT
"""A dataset wrapper of the program's own that maps its positions into
the base data, the pattern of the distributed tutorial's data
partitioner: one seeded shuffle of the 400 indices, cut in `world` equal
lists, and each rank reads Partition(data, its list) shuffled through a
plain DataLoader. Every rank reads its wrapper's positions 0..99, which
are disjoint samples of the base. The recorder reads the map from the
wrapper's __dict__ (one dataset, one list of distinct indices of it as
long as the wrapper) and the report judges the base samples: nothing to
say. Before, `unsharded` (every rank read the same positions)."""
from torch.utils.data import DataLoader

from scenario_kit import here, partition

# The exact set of error and warning ids (infos are free).
EXPECT = []


def run(truth, rank, world):
    part = partition(400, rank, world)
    site = here(); loader = DataLoader(part, batch_size=25, shuffle=True)
    truth.epochs(truth.loader(site), loader, 2)
