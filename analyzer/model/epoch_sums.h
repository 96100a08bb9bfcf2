/* SPDX-License-Identifier: MIT */
/* An epoch's sums over its cells (epoch_sums.c): the epochs finish.c
 * builds and the data-parallel views groups.c makes of them. */
#ifndef AW_EPOCH_SUMS_H
#define AW_EPOCH_SUMS_H

#include "model.h"

/* Sorts the epoch's cells by rank and sums them: counts, the union over
 * ranks, missing and out-of-range samples of desc's dataset (or of the
 * index maps' base), unrepresentable and out-of-range totals of model. */
void aw_epoch_summarize(struct aw_model *model, const struct aw_loader *desc,
			struct aw_epoch *epoch);

#endif
