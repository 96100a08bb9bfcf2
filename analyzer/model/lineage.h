/* Loader lineage: which loader accelerate (or the user, with a sharding
 * sampler) built from which, over the same dataset object in one process. */
#ifndef AW_LINEAGE_H
#define AW_LINEAGE_H

#include <stdbool.h>

#include "model.h"

/* Fills built_from, sharded and dispatch_drop_last of every loader object.
 * Called by aw_model_finish. */
void aw_lineage_resolve(struct aw_model *model);

/* Built by accelerate: the outer loader or the DataLoader inside it. */
bool aw_loader_is_accelerate(const struct aw_loader *loader);
/* Its sampler, batch sampler, dataset or accelerate wrap shards the data. */
bool aw_loader_shards(const struct aw_model *model,
		      const struct aw_loader *loader);
/* "prepare() (DataLoaderShard)" style name of what built a loader. */
const char *aw_loader_wrap_kind(const struct aw_model *model,
				const struct aw_loader *loader);

#endif
