/* SPDX-License-Identifier: MIT */
/* Loader lineage: which loader accelerate (or the user, with a sharding
 * sampler) built from which, over the same dataset object in one process. */
#ifndef AW_LINEAGE_H
#define AW_LINEAGE_H

#include <stdbool.h>

#include "model.h"
#include "util.h"

/* Fills built_from, sharded and dispatch_drop_last of every loader object.
 * Called by aw_model_finish. */
void aw_lineage_resolve(struct aw_model *model);

/* Built by accelerate: the outer loader or the DataLoader inside it. */
bool aw_loader_is_accelerate(const struct aw_loader *loader);
/* Its sampler, batch sampler, dataset or accelerate wrap shards the data. */
bool aw_loader_shards(const struct aw_model *model,
		      const struct aw_loader *loader);
/* The accelerate wrap of a loader that came out of prepare(): the loader
 * itself when it is the outer one, else the one wrapping it; NULL for a
 * loader nothing wraps. */
const struct aw_loader *aw_loader_wrap(const struct aw_model *model,
				       const struct aw_loader *loader);
/* "prepare() (DataLoaderShard)" style name of what built a loader. */
const char *aw_loader_wrap_kind(const struct aw_model *model,
				const struct aw_loader *loader);
/* "BatchSampler(batch_size=8, drop_last=False) over DistributedSampler(
 * num_replicas=4, rank=0, ...)": each link by the last part of its class
 * name with the parameters it has; nothing for a loader without a chain. */
void aw_sampler_chain_text(const struct aw_loader *loader, struct aw_text *out);
/* Appends ", name=value" (no comma while *first) for a number a link
 * has, nothing for -1. */
void aw_chain_number(struct aw_text *out, const char *name, int64_t value,
		     bool *first);

#endif
