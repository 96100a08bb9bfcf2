/* SPDX-License-Identifier: MIT */
/* An epoch's sums over its cells: counts, the union, what is missing or out
 * of range, and the gaps the ranks' differing index maps leave. */
#include "epoch_sums.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

static int aw_compare_cells(const void *a, const void *b)
{
	const struct aw_cell *x = a, *y = b;
	return (x->rank > y->rank) - (x->rank < y->rank);
}

/* The index map a cell read through, NULL none. */
const struct aw_mapping *aw_model_cell_mapping(const struct aw_model *model,
					       const struct aw_cell *cell)
{
	const struct aw_iteration *it = &model->iterations[cell->iteration];
	const struct aw_mapping *m = model->loaders[it->loader].mapping;
	return m && m->n_levels ? m : NULL;
}

/* What the ranks' index maps leave of the dataset at the bottom when they
 * differ (the epoch's expected samples are the union of their images):
 * each rank holds a part of its own, and no sampler promises the rest. */
static void aw_epoch_gaps(const struct aw_model *model, struct aw_epoch *epoch)
{
	struct aw_map_gaps *g = &epoch->gaps;
	memset(g, 0, sizeof(*g));
	if (epoch->n_cells < 2 || epoch->base_len <= 0)
		return;
	const struct aw_mapping *first =
	    aw_model_cell_mapping(model, &epoch->cells[0]);
	if (!first || aw_mapping_base_len(first) != epoch->base_len)
		return;
	bool differ = false;
	uint32_t parent = first->n_levels;
	for (size_t c = 1; c < epoch->n_cells; c++) {
		const struct aw_mapping *m =
		    aw_model_cell_mapping(model, &epoch->cells[c]);
		/* A rank reading the base itself, or another base: not parts
		 * of one whole. */
		if (!m || aw_mapping_base_len(m) != epoch->base_len)
			return;
		differ |= !aw_mapping_equal(first, m);
		parent = AW_MIN(parent, aw_mapping_common_levels(first, m));
	}
	if (!differ)
		return;
	uint64_t base = (uint64_t)epoch->base_len;
	g->judged = true;
	g->parent = parent;
	if (parent == 0) {
		g->cut_from = base;
		aw_sample_set_lacks(&epoch->expected, NULL, base, &g->holes);
	} else {
		struct aw_sample_set cut;
		aw_sample_set_init(&cut);
		aw_mapping_image_from(first, first->n_levels - parent, &cut);
		g->cut_from = aw_sample_set_unique_below(&cut, base);
		aw_sample_set_lacks(&epoch->expected, &cut, base, &g->holes);
		aw_sample_set_fini(&cut);
	}
	g->outside = base - g->cut_from;
}

void aw_epoch_summarize(struct aw_model *model, const struct aw_loader *desc,
			struct aw_epoch *epoch)
{
	qsort(epoch->cells, epoch->n_cells, sizeof(*epoch->cells),
	      aw_compare_cells);
	aw_sample_set_init(&epoch->all);
	uint64_t unique_sum = 0;
	epoch->complete = epoch->exhausted = epoch->n_cells > 0;
	for (size_t c = 0; c < epoch->n_cells; c++) {
		struct aw_cell *cell = &epoch->cells[c];
		if (cell->n_iterations > 1)
			cell->set = &cell->merged;
		cell->samples = cell->set->samples;
		cell->unique = aw_sample_set_unique(cell->set);
		cell->unrepresentable = cell->set->unrepresentable;
		unique_sum += cell->unique;
		aw_sample_set_merge(&epoch->all, cell->set);
		epoch->max_batch_len =
		    AW_MAX(epoch->max_batch_len, cell->max_batch_len);
		epoch->complete &= cell->complete;
		epoch->exhausted &= cell->exhausted;
		model->index_unrepresentable += cell->unrepresentable;
	}
	epoch->union_count = aw_sample_set_unique(&epoch->all);
	epoch->samples = epoch->all.samples;
	epoch->duplicates = epoch->samples - epoch->union_count;
	epoch->cross_rank_duplicates = unique_sum - epoch->union_count;
	epoch->union_in_range = epoch->union_count;
	if (epoch->mapped) {
		epoch->expected_count = aw_sample_set_unique(&epoch->expected);
		epoch->union_in_range =
		    aw_sample_set_overlap(&epoch->all, &epoch->expected);
		epoch->missing = (int64_t)epoch->expected_count -
				 (int64_t)epoch->union_in_range;
		aw_epoch_gaps(model, epoch);
		if (epoch->gaps.judged)
			epoch->missing =
			    epoch->base_len - (int64_t)epoch->union_in_range;
		if (epoch->base_len >= 0) {
			epoch->out_of_range =
			    epoch->union_count -
			    aw_sample_set_unique_below(
				&epoch->all, (uint64_t)epoch->base_len);
			model->index_out_of_range += epoch->out_of_range;
		}
	} else if (desc->dataset_len >= 0) {
		epoch->union_in_range = aw_sample_set_unique_below(
		    &epoch->all, (uint64_t)desc->dataset_len);
		epoch->missing =
		    desc->dataset_len - (int64_t)epoch->union_in_range;
		epoch->out_of_range =
		    epoch->union_count - epoch->union_in_range;
		model->index_out_of_range += epoch->out_of_range;
	}
}
