/* SPDX-License-Identifier: MIT */
/* Data-parallel groups of an epoch's ranks, from their sampler chains. */
#include <stdlib.h>
#include <string.h>

#include "epoch_sums.h"
#include "groups.h"
#include "util.h"

int32_t aw_loader_replicas(const struct aw_loader *l, int32_t *replica)
{
	for (uint32_t i = 0; i < l->n_chain; i++) {
		const struct aw_sampler_link *link = &l->chain[i];
		if (link->seen && link->num_replicas >= 1 && link->rank >= 0) {
			*replica = link->rank;
			return link->num_replicas;
		}
	}
	*replica = l->sampler_rank;
	return l->sampler_replicas >= 1 && l->sampler_rank >= 0
		   ? l->sampler_replicas
		   : -1;
}

static uint32_t aw_root(uint32_t *parent, uint32_t c)
{
	while (parent[c] != c)
		c = parent[c] = parent[parent[c]];
	return c;
}

/* The cell of `rank` (cells are sorted by rank), AW_NONE. */
static uint32_t aw_cell_of_rank(const struct aw_epoch *e, int32_t rank)
{
	size_t lo = 0, hi = e->n_cells;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (e->cells[mid].rank < rank)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < e->n_cells && e->cells[lo].rank == rank ? (uint32_t)lo
							    : AW_NONE;
}

/* Joins, in parent, the cells of the epoch that one process group of cell
 * c's process holds, unless it holds all of them (the world's group says
 * nothing of who reads alike). */
static void aw_join_group(const struct aw_epoch *e,
			  const struct aw_rank_group *g, uint32_t *parent,
			  uint32_t *members)
{
	uint32_t n = 0;
	for (uint32_t i = 0; i < g->n; i++) {
		uint32_t cell = aw_cell_of_rank(e, g->ranks[i]);
		if (cell != AW_NONE)
			members[n++] = cell;
	}
	if (n < 2 || n >= e->n_cells)
		return;
	for (uint32_t i = 1; i < n; i++)
		parent[aw_root(parent, members[i])] =
		    aw_root(parent, members[0]);
}

/* Whether the ranks that share each replica are bound by process groups the
 * program built (a DeviceMesh's tensor or context parallel groups,
 * new_group): the evidence that they read alike on purpose. Without it,
 * ranks sharing a replica are an error of the sampler's arguments
 * (rank=rank % R), judged as any overlap. */
static bool aw_replicas_grouped(const struct aw_model *model,
				const struct aw_epoch *e,
				const uint32_t *group_of)
{
	uint32_t *parent = aw_xcalloc(e->n_cells, sizeof(*parent));
	uint32_t *members = aw_xcalloc(e->n_cells, sizeof(*members));
	uint32_t *first = aw_xcalloc(e->n_cells, sizeof(*first));
	bool grouped = true;
	for (size_t c = 0; c < e->n_cells; c++)
		parent[c] = (uint32_t)c;
	for (size_t c = 0; c < e->n_cells; c++) {
		const struct aw_iteration *it =
		    &model->iterations[e->cells[c].iteration];
		const struct aw_process *p =
		    &model->processes[model->loaders[it->loader].process];
		for (uint32_t g = 0; g < p->n_groups; g++)
			aw_join_group(e, &p->groups[g], parent, members);
	}
	for (size_t c = 0; c < e->n_cells; c++)
		first[c] = AW_NONE;
	for (size_t c = 0; c < e->n_cells && grouped; c++) {
		uint32_t *seen = &first[group_of[c]];
		if (*seen == AW_NONE)
			*seen = (uint32_t)c;
		else
			grouped = aw_root(parent, *seen) ==
				  aw_root(parent, (uint32_t)c);
	}
	free(first);
	free(members);
	free(parent);
	return grouped;
}

/* Each cell's replica index when the chains of all agree on R replicas,
 * 2 <= R < cells, and every replica has as many ranks, bound by process
 * groups of the program's; else false. */
static bool aw_epoch_replicas(const struct aw_model *model,
			      const struct aw_epoch *e, uint32_t *group_of,
			      uint32_t *replicas)
{
	int32_t r = -1;
	uint32_t members[256] = {0};
	for (size_t c = 0; c < e->n_cells; c++) {
		const struct aw_iteration *it =
		    &model->iterations[e->cells[c].iteration];
		int32_t replica;
		int32_t n =
		    aw_loader_replicas(&model->loaders[it->loader], &replica);
		if (n < 2 || n > 256 || (r >= 0 && n != r) || replica >= n ||
		    e->cells[c].rebuilt)
			return false;
		r = n;
		group_of[c] = (uint32_t)replica;
		members[replica]++;
	}
	if (r < 2 || (size_t)r >= e->n_cells)
		return false;
	for (int32_t g = 0; g < r; g++)
		if (members[g] != members[0])
			return false;
	*replicas = (uint32_t)r;
	return aw_replicas_grouped(model, e, group_of);
}

static void aw_epoch_group(struct aw_model *model, const struct aw_loader *desc,
			   struct aw_epoch *e)
{
	uint32_t *group_of = aw_xcalloc(e->n_cells, sizeof(*group_of));
	uint32_t replicas;
	if (!aw_epoch_replicas(model, e, group_of, &replicas)) {
		free(group_of);
		return;
	}
	struct aw_epoch *view = aw_xcalloc(1, sizeof(*view));
	view->epoch = e->epoch;
	view->cells = aw_xcalloc(replicas, sizeof(*view->cells));
	/* Cells are sorted by rank: a group's first is its lowest rank. */
	for (size_t c = 0; c < e->n_cells; c++) {
		struct aw_cell *cell = &view->cells[group_of[c]];
		if (cell->set)
			continue;
		*cell = e->cells[c];
		cell->n_iterations = 1; /* the set is the member's */
		memset(&cell->merged, 0, sizeof(cell->merged));
		view->n_cells++;
	}
	view->mapped = e->mapped;
	view->expected = e->expected; /* shared: the epoch frees it */
	view->base_len = e->base_len;
	view->unmapped = e->unmapped;
	/* The epoch counted its cells' odd indices for the model already. */
	uint64_t unrepresentable = model->index_unrepresentable,
		 out_of_range = model->index_out_of_range;
	aw_epoch_summarize(model, desc, view);
	model->index_unrepresentable = unrepresentable;
	model->index_out_of_range = out_of_range;
	e->by_group = view;
	e->group_of = group_of;
}

void aw_build_groups(struct aw_model *model)
{
	for (size_t g = 0; g < model->n_loaders_global; g++) {
		struct aw_global_loader *gl = &model->loaders_global[g];
		if (gl->rebuilt)
			continue;
		for (size_t e = 0; e < gl->n_epochs; e++)
			aw_epoch_group(model, aw_model_describe(model, gl),
				       &gl->epochs[e]);
	}
}
