/* SPDX-License-Identifier: MIT */
/* Live verdicts at a loader's first batches, from the sampler chains and the
 * first batch every rank drew: findings the final report's rules are sure
 * to give for the epoch, before the epoch's data is read (docs/live.md). */
#include "live_early.h"

#include <stdlib.h>
#include <string.h>

#include "checks.h"
#include "checks_private.h"
#include "live.h"
#include "util.h"

/* The epoch's pass of a cell. */
static const struct aw_iteration *aw_early_pass(const struct aw_model *model,
						const struct aw_cell *cell)
{
	return &model->iterations[cell->iteration];
}

/* Every rank of the world has one pass in the epoch, of one process, not
 * rebuilt, with its first batch drawn whole. */
static bool aw_early_world_drew(const struct aw_model *model,
				const struct aw_global_loader *g,
				const struct aw_epoch *e)
{
	if (aw_live_world(model) < 2 ||
	    e->n_cells != (size_t)model->world_size || e->by_group ||
	    e->mapped || g->dispatched || g->rebuilt)
		return false;
	for (size_t c = 0; c < e->n_cells; c++) {
		const struct aw_cell *cell = &e->cells[c];
		if (cell->n_iterations != 1 || cell->rebuilt ||
		    cell->from_items ||
		    !aw_first_batch_complete(
			&aw_early_pass(model, cell)->first))
			return false;
	}
	return true;
}

static bool aw_early_same_batch(const struct aw_first_batch *a,
				const struct aw_first_batch *b)
{
	return a->total == b->total &&
	       memcmp(a->indices, b->indices, a->total * sizeof(*a->indices)) ==
		   0;
}

static struct aw_finding *aw_early_add(struct aw_findings *out, const char *id,
				       uint32_t loader,
				       const struct aw_epoch *e)
{
	struct aw_finding *f =
	    aw_findings_add(out, id, AW_SEVERITY_ERROR, loader, e->epoch);
	for (size_t c = 0; c < e->n_cells; c++)
		aw_finding_add_rank(f, e->cells[c].rank);
	return f;
}

/* The ranks' chains do not split the data, and what they drew so far
 * (aw_iteration_drawn: the batches the loop is sure to get too, not only
 * those the model counted) holds more samples in common than the padding:
 * aw_epoch_unsplit_sharing as soon as the draws show it. */
static bool aw_early_drawn_sharing(const struct aw_check_input *in)
{
	const struct aw_epoch *e = in->epoch;
	if (!aw_epoch_unsplit(in))
		return false;
	struct aw_sample_set all, mine;
	aw_sample_set_init(&all);
	uint64_t distinct_sum = 0;
	for (size_t c = 0; c < e->n_cells; c++) {
		aw_sample_set_init(&mine);
		aw_iteration_drawn(aw_early_pass(in->model, &e->cells[c]),
				   &mine);
		distinct_sum += aw_sample_set_unique(&mine);
		aw_sample_set_merge(&all, &mine);
		aw_sample_set_fini(&mine);
	}
	uint64_t shared = distinct_sum - aw_sample_set_unique(&all);
	aw_sample_set_fini(&all);
	return shared > aw_epoch_padding(in).samples;
}

/* unsharded: the ranks go through one sequence of a chain that does not
 * split the data: each reads what every other reads, the whole epoch or,
 * when the trace ends inside it, as far as they got; or, each in its own
 * order, they already share samples through such chains (checks.h). */
static void aw_early_unsharded(const struct aw_check_input *in,
			       struct aw_findings *out)
{
	if (aw_epoch_one_sequence(in) || aw_early_drawn_sharing(in))
		aw_early_add(out, "unsharded", in->loader_index, in->epoch);
}

static int aw_early_compare_index(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

/* Sum over ranks of the distinct indices of their first batches, less
 * those of all of them together: samples two ranks both drew. */
static uint64_t aw_early_first_shared(const struct aw_model *model,
				      const struct aw_epoch *e,
				      uint64_t *union_count)
{
	size_t n = 0, total = 0;
	for (size_t c = 0; c < e->n_cells; c++)
		total += aw_early_pass(model, &e->cells[c])->first.total;
	int64_t *all = aw_xcalloc(total ? total : 1, sizeof(*all));
	uint64_t distinct_sum = 0;
	for (size_t c = 0; c < e->n_cells; c++) {
		const struct aw_first_batch *fb =
		    &aw_early_pass(model, &e->cells[c])->first;
		int64_t *mine = all + n;
		memcpy(mine, fb->indices, fb->total * sizeof(*mine));
		qsort(mine, fb->total, sizeof(*mine), aw_early_compare_index);
		for (size_t i = 0; i < fb->total; i++)
			distinct_sum += i == 0 || mine[i] != mine[i - 1];
		n += fb->total;
	}
	qsort(all, n, sizeof(*all), aw_early_compare_index);
	*union_count = 0;
	for (size_t i = 0; i < n; i++)
		*union_count += i == 0 || all[i] != all[i - 1];
	free(all);
	return distinct_sum - *union_count;
}

/* order-diverged: the ranks' sharding samplers shuffle with different seeds
 * or epochs, two ranks' first batches already share samples beyond the
 * padding (shared reads only grow), and no rank's stated share can reach
 * the 90% of everything read that unsharded would take instead. */
static void aw_early_order_diverged(const struct aw_model *model,
				    const struct aw_check_input *in,
				    struct aw_findings *out)
{
	const struct aw_epoch *e = in->epoch;
	if (in->desc->iterable || !aw_shuffling_link(in->desc))
		return;
	const struct aw_iteration *a = NULL;
	bool differ = false;
	int64_t share = 0;
	for (size_t c = 0; c < e->n_cells; c++) {
		const struct aw_iteration *it =
		    aw_early_pass(model, &e->cells[c]);
		const struct aw_sampler_link *s =
		    aw_shard_link(&model->loaders[it->loader]);
		if (!s || s->num_replicas != model->world_size ||
		    s->num_samples < 1)
			return;
		share = AW_MAX(share, s->num_samples);
		if (it->seed < 0)
			continue;
		if (!a)
			a = it;
		else
			differ |= it->seed != a->seed ||
				  it->sampler_epoch != a->sampler_epoch;
	}
	uint64_t union_count = 0;
	if (!differ ||
	    aw_early_first_shared(model, e, &union_count) <=
		aw_epoch_padding(in).samples ||
	    (uint64_t)share * 100 >= union_count * AW_UNSHARDED_PERCENT)
		return;
	aw_early_add(out, "order-diverged", in->loader_index, e);
}

/* same-order: on every rank, this epoch's sampler has the seed and epoch
 * of the previous one, which it read to its end, and drew the same first
 * batch: its permutation is the previous one again. Only for the first
 * epoch that repeats (the final report names that one). */
static void aw_early_same_order(const struct aw_model *model,
				const struct aw_check_input *in, size_t index,
				const struct aw_findings *snapshot,
				struct aw_findings *out)
{
	const struct aw_global_loader *g = in->loader;
	const struct aw_epoch *e = in->epoch;
	if (index == 0 || in->desc->shuffle != 1 || in->desc->iterable)
		return;
	for (size_t i = 0; i < snapshot->n; i++)
		if (snapshot->items[i].loader == in->loader_index &&
		    strcmp(snapshot->items[i].id, "same-order") == 0)
			return;
	for (size_t p = 0; p < index; p++)
		if (!g->epochs[p].complete)
			return;
	const struct aw_epoch *before = &g->epochs[index - 1];
	for (size_t c = 0; c < e->n_cells; c++) {
		const struct aw_cell *later = &e->cells[c];
		const struct aw_cell *earlier =
		    aw_model_cell(g, before->epoch, later->rank);
		const struct aw_iteration *it = aw_early_pass(model, later);
		if (!earlier || !earlier->exhausted || !earlier->has_order ||
		    earlier->samples < 2 || earlier->n_iterations != 1)
			return;
		const struct aw_iteration *was = aw_early_pass(model, earlier);
		if (it->seed < 0 || it->sampler_epoch < 0 ||
		    it->seed != was->seed ||
		    it->sampler_epoch != was->sampler_epoch ||
		    !aw_first_batch_complete(&was->first) ||
		    !aw_early_same_batch(&was->first, &it->first))
			return;
	}
	struct aw_finding *f =
	    aw_early_add(out, "same-order", in->loader_index, e);
	f->severity = AW_SEVERITY_WARNING;
}

void aw_live_early(const struct aw_model *model,
		   const struct aw_findings *snapshot, struct aw_findings *out)
{
	for (size_t g = 0; g < model->n_loaders_global; g++) {
		const struct aw_global_loader *loader =
		    &model->loaders_global[g];
		struct aw_check_input in = {
		    .model = model,
		    .loader = loader,
		    .loader_index = (uint32_t)g,
		    .desc = aw_model_describe(model, loader)};
		for (size_t i = 0; i < loader->n_epochs; i++) {
			const struct aw_epoch *e = &loader->epochs[i];
			if (!aw_early_world_drew(model, loader, e))
				continue;
			in.epoch = e;
			in.world = e->n_cells;
			in.batch_size = in.desc->batch_size > 0
					    ? (uint64_t)in.desc->batch_size
					    : AW_MAX(e->max_batch_len, 1);
			aw_early_unsharded(&in, out);
			aw_early_order_diverged(model, &in, out);
			aw_early_same_order(model, &in, i, snapshot, out);
		}
	}
}
