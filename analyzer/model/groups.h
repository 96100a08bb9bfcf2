/* SPDX-License-Identifier: MIT */
/* Data-parallel groups. With tensor or context parallelism the ranks of one
 * model-parallel group read the same batches on purpose: their samplers
 * shard over fewer replicas than there are ranks (accelerate passes the
 * data-parallel size and rank when given a DeviceMesh; users of DeviceMesh
 * pass mesh["dp"]'s). When every rank's chain says so, the groups are
 * equal in size, and the process groups the ranks are members of (a
 * DeviceMesh's, new_group's: dist_group events) bind the ranks of each
 * replica, an epoch is also seen one cell per group (its lowest rank's),
 * which is what sharding is judged on; the ranks of a group are compared
 * with each other (group-diverged). A chain alone is no evidence: a
 * sampler given rank=rank % R is a mistake as often as a design. */
#ifndef AW_GROUPS_H
#define AW_GROUPS_H

#include "model.h"

/* Finds the groups of every epoch (after aw_build_epochs). */
void aw_build_groups(struct aw_model *model);
/* The replica index and count a loader's chain shards it by (-1 none). */
int32_t aw_loader_replicas(const struct aw_loader *l, int32_t *replica);

#endif
