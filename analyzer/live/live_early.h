/* SPDX-License-Identifier: MIT */
/* Live verdicts at a loader's first batches: what the sampler chains and the
 * first batch of every rank make certain before the epoch is read. */
#ifndef AW_LIVE_EARLY_H
#define AW_LIVE_EARLY_H

#include "findings.h"
#include "model.h"

/* Adds to `out` (id, severity, loader, epoch, ranks: no text) the findings
 * of epochs every rank has drawn the first batch of that the final report
 * is sure to give: every rank reading one sequence of a chain that does
 * not split the data (unsharded), sharding samplers shuffling with
 * different seeds or epochs whose first batches already overlap
 * (order-diverged), an epoch whose sampler repeats the previous one's seed,
 * epoch and first batch (same-order). `snapshot`: the findings of the same
 * snapshot. */
void aw_live_early(const struct aw_model *model,
		   const struct aw_findings *snapshot, struct aw_findings *out);

#endif
