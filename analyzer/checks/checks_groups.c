/* SPDX-License-Identifier: MIT */
/* The ranks of one data-parallel group, per loader and epoch: ranks that
 * share a replica index must read the same data (group-diverged). */
#include <inttypes.h>

#include "checks_private.h"
#include "util.h"

/* --- group-diverged ------------------------------------------------------ */

/* The first (lowest-rank) cell of a cell's data-parallel group. */
static const struct aw_cell *aw_group_first(const struct aw_epoch *e,
					    size_t cell)
{
	for (size_t c = 0; c < cell; c++)
		if (e->group_of[c] == e->group_of[cell])
			return &e->cells[c];
	return &e->cells[cell];
}

/* How a member of a group read other data than its first: a line of
 * evidence; false when it read the same samples in the same order. */
static bool aw_group_difference(const struct aw_check_input *in,
				const struct aw_cell *first,
				const struct aw_cell *cell, uint32_t group,
				struct aw_finding *f)
{
	uint64_t common = aw_sample_set_overlap(first->set, cell->set);
	bool same_set = common == first->unique && common == cell->unique;
	bool same_order = !first->has_order || !cell->has_order ||
			  first->order_hash == cell->order_hash;
	if (same_set && same_order && first->batches == cell->batches)
		return false;
	if (!f)
		return true;
	const struct aw_iteration *a = &in->model->iterations[first->iteration];
	const struct aw_iteration *b = &in->model->iterations[cell->iteration];
	struct aw_text why = {0};
	if (a->seed >= 0 && b->seed >= 0 && a->seed != b->seed)
		aw_text_add(&why,
			    "; their samplers' seeds: %" PRId64 " and %" PRId64,
			    a->seed, b->seed);
	else if (a->sampler_epoch >= 0 && b->sampler_epoch >= 0 &&
		 a->sampler_epoch != b->sampler_epoch)
		aw_text_add(&why,
			    "; their samplers' set_epoch values: %" PRId64
			    " and %" PRId64,
			    a->sampler_epoch, b->sampler_epoch);
	if (!same_set)
		aw_finding_add_evidence(
		    f,
		    "group %u: ranks %d and %d have only %" PRIu64
		    " samples in common (of %" PRIu64 " and %" PRIu64 ")%s",
		    group, first->rank, cell->rank, common, first->unique,
		    cell->unique, aw_text_str(&why));
	else
		aw_finding_add_evidence(
		    f,
		    "group %u: ranks %d and %d read the same %" PRIu64
		    " samples in another order or batching%s",
		    group, first->rank, cell->rank, common, aw_text_str(&why));
	aw_text_fini(&why);
	return true;
}

void aw_check_group_diverged(const struct aw_check_input *in,
			     struct aw_findings *out)
{
	const struct aw_epoch *e = in->epoch;
	if (!e->by_group)
		return;
	struct aw_finding *f = NULL;
	size_t pairs = 0;
	for (size_t c = 0; c < e->n_cells; c++) {
		const struct aw_cell *first = aw_group_first(e, c);
		if (first == &e->cells[c] ||
		    !aw_group_difference(in, first, &e->cells[c],
					 e->group_of[c], NULL))
			continue;
		if (!f)
			f = aw_epoch_finding(in, out, "group-diverged",
					     AW_SEVERITY_ERROR);
		aw_finding_add_rank(f, first->rank);
		aw_finding_add_rank(f, e->cells[c].rank);
		if (pairs++ < AW_EVIDENCE_RANKS)
			aw_group_difference(in, first, &e->cells[c],
					    e->group_of[c], f);
	}
	if (!f)
		return;
	aw_finding_add_integer(f, "groups", (int64_t)e->by_group->n_cells);
	aw_finding_add_integer(f, "diverged_ranks", (int64_t)pairs);
	aw_finding_set_message(
	    f,
	    "in epoch %u, %zu rank%s read other data than the rest of %s "
	    "data-parallel group: the samplers shard over %zu replicas, and "
	    "the ranks given one replica index (the ranks of one tensor or "
	    "context parallel group) are meant to get the same batches",
	    e->epoch, pairs, pairs == 1 ? "" : "s",
	    pairs == 1 ? "its" : "their", e->by_group->n_cells);
	aw_finding_set_fix(
	    f, "build the ranks of one group the same loader: the same "
	       "dataset and index maps, the same sampler seed and shuffle, and "
	       "the same set_epoch(epoch) on each; or give every sampler the "
	       "data-parallel rank and size (get_local_rank() and size() of "
	       "the DeviceMesh's data-parallel dimension)");
}
