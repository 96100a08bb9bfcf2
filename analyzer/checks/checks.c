/* The checks of DESIGN.md's findings table, run in the order of one table:
 * the rules' shared formulas here, the checks in checks_*.c. */
#include "checks.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "checks_private.h"
#include "util.h"

uint64_t aw_padding_allowance(uint64_t world, uint64_t batch_size)
{
	if (world < 2)
		return 0;
	return world * AW_MAX(batch_size, 1) - 1;
}

uint64_t aw_drop_allowance(const struct aw_loader *desc, uint64_t world,
			   uint64_t batch_size)
{
	if (world == 0)
		return 0;
	/* accelerate's dispatcher with drop_last drops its last partial step:
	 * fewer than W batches of B. */
	if (desc->drop_last != 0 || desc->dispatch_drop_last == 1)
		return world * AW_MAX(batch_size, 1) - 1;
	if (desc->sampler_replicas > 1)
		return (uint64_t)desc->sampler_replicas - 1;
	return 0;
}

bool aw_epoch_unsharded(const struct aw_check_input *in)
{
	const struct aw_epoch *e = in->epoch;
	if (in->world < 2 || e->union_count == 0)
		return false;
	if (e->cross_rank_duplicates <=
	    aw_padding_allowance(in->world, in->batch_size))
		return false;
	for (size_t c = 0; c < e->n_cells; c++)
		if (e->cells[c].unique * 100 <
		    e->union_count * AW_UNSHARDED_PERCENT)
			return false;
	return true;
}

static const struct aw_check aw_checks[] = {
    {"unsharded", AW_CHECK_EPOCH, aw_check_unsharded},
    {"overlap", AW_CHECK_EPOCH, aw_check_overlap},
    {"missing", AW_CHECK_EPOCH, aw_check_missing},
    {"padding", AW_CHECK_EPOCH, aw_check_padding},
    {"uneven-batches", AW_CHECK_EPOCH, aw_check_uneven_batches},
    {"index-range", AW_CHECK_EPOCH, aw_check_index_range},
    {"iterable-duplicate", AW_CHECK_EPOCH, aw_check_iterable_duplicate},
    {"same-order", AW_CHECK_LOADER, aw_check_same_order},
    /* unused-prepared, stale-len, len-mismatch: per process, across the
     * loaders of one dataset. */
    {"unused-prepared", AW_CHECK_TRACE, aw_check_unused_prepared},
    {"len", AW_CHECK_TRACE, aw_check_len},
    /* fork-threads, fork-cuda */
    {"fork", AW_CHECK_TRACE, aw_check_forks},
    {"worker-respawn", AW_CHECK_TRACE, aw_check_worker_respawn},
    {"duplicate-rank", AW_CHECK_TRACE, aw_check_duplicate_rank},
    {"worker-died", AW_CHECK_TRACE, aw_check_worker_died},
    {"worker-stuck", AW_CHECK_TRACE, aw_check_worker_stuck},
    {"rank-died", AW_CHECK_TRACE, aw_check_rank_died},
    {"trace-incomplete", AW_CHECK_TRACE, aw_check_trace_incomplete},
};

static void aw_run_scope(struct aw_check_input *in, enum aw_check_scope scope,
			 struct aw_findings *out)
{
	for (size_t i = 0; i < sizeof(aw_checks) / sizeof(aw_checks[0]); i++)
		if (aw_checks[i].scope == scope)
			aw_checks[i].run(in, out);
}

void aw_checks_run(const struct aw_model *model, struct aw_findings *out)
{
	struct aw_check_input in = {.model = model};
	aw_run_scope(&in, AW_CHECK_TRACE, out);
	for (size_t g = 0; g < model->n_loaders_global; g++) {
		in.loader = &model->loaders_global[g];
		in.loader_index = (uint32_t)g;
		in.desc = aw_model_describe(model, in.loader);
		in.epoch = NULL;
		in.world = in.batch_size = 0;
		aw_run_scope(&in, AW_CHECK_LOADER, out);
		for (size_t e = 0; e < in.loader->n_epochs; e++) {
			in.epoch = &in.loader->epochs[e];
			if (in.epoch->n_cells == 0)
				continue;
			in.world = in.epoch->n_cells;
			in.batch_size =
			    in.desc->batch_size > 0
				? (uint64_t)in.desc->batch_size
				: AW_MAX(in.epoch->max_batch_len, 1);
			aw_run_scope(&in, AW_CHECK_EPOCH, out);
		}
	}
	aw_findings_sort(out);
}
