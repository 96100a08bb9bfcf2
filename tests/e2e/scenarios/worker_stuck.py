# SPDX-License-Identifier: MIT
"""Rank 1's worker 0 blocks forever in __getitem__(19); DataLoader(timeout=3)
gives up, its shutdown SIGTERMs the worker. worker-stuck on rank 1 only,
quoting exactly the indices of that fetch; no worker-died (SIGTERM is how
the DataLoader stops workers), no uneven-batches (rank 1's loop stopped)."""

from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler

from scenario_kit import HangingDataset, collate_list, here, note_worker_pid

# The exact set of error and warning ids (infos are free).
EXPECT = ["worker-stuck"]
# check.py options beside --expect.
OPTIONS = ["--nproc", "2", "--workers", "--finding-ranks", "worker-stuck=1"]


# A worker stuck in __getitem__; the loader's timeout= gives up on it.
HANG_RANK = 1


def run(truth, rank, world):
    # 64 samples, 2 ranks, no shuffle: rank 1 reads 1, 3, 5, ... in batches
    # of 4, its batch 2 is [17, 19, 21, 23] (worker 0's second fetch), and
    # reading 19 blocks forever. After 3 s without a batch the DataLoader
    # raises "DataLoader timed out"; dropping the iterator shuts the workers
    # down, the stuck one by SIGTERM after a join timeout (shortened here
    # from 5 s so that the scenario stays short), which torch's worker
    # answers with _exit(0). Its fetch was open for >= 3.5 s.
    from torch.utils.data import _utils
    dataset = HangingDataset(64, rank, hang_rank=HANG_RANK, hang_index=19)
    sampler = DistributedSampler(dataset, shuffle=False)
    site = here(); loader = DataLoader(dataset, batch_size=4, sampler=sampler, num_workers=2, timeout=3, worker_init_fn=note_worker_pid, collate_fn=collate_list)
    join_timeout, _utils.MP_STATUS_CHECK_INTERVAL = _utils.MP_STATUS_CHECK_INTERVAL, 0.5
    try:
        done = truth.read(truth.loader(site), loader, tolerate="DataLoader timed out")
    finally:
        _utils.MP_STATUS_CHECK_INTERVAL = join_timeout
    assert done == (rank != HANG_RANK), f"rank {rank}: loop exhausted={done}"
    if rank == HANG_RANK:
        batches = [list(sampler)[i:i + 4] for i in range(0, len(sampler), 4)]
        truth.stuck_workers.append({"index": 19, "indices": next(b for b in batches if 19 in b)})
