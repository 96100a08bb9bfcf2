/* SPDX-License-Identifier: MIT */
/* The model's second half, built from the events taken: who each process
 * is (processes.c), which loader objects are one loader across ranks, and
 * each loader's epochs as rank-by-rank sample sets. Built after
 * the last event (aw_model_finish), or at any moment before (a snapshot). */
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "accwatch_events.h"
#include "epoch_sums.h"
#include "groups.h"
#include "lineage.h"
#include "model.h"
#include "processes.h"
#include "util.h"

static const char *aw_site(const struct aw_loader *l)
{
	return l->site ? l->site : "";
}

static bool aw_is_dispatcher(const struct aw_loader *l)
{
	return l->wraps && l->wrap_kind && strstr(l->wrap_kind, "dispatch");
}

/* Picks the description shown for a loader: a described one, of the lowest
 * rank, first seen among equals. */
static void aw_choose_representative(struct aw_model *model,
				     struct aw_global_loader *g)
{
	int32_t best_rank = INT32_MAX;
	bool best_described = false;
	g->representative = AW_NONE;
	for (size_t m = 0; m < g->n_members; m++) {
		const struct aw_loader *l = &model->loaders[g->members[m]];
		const struct aw_process *p = &model->processes[l->process];
		int32_t rank =
		    !p->is_worker && p->rank >= 0 ? p->rank : INT32_MAX;
		if (g->representative == AW_NONE ||
		    (l->described && !best_described) ||
		    (l->described == best_described && rank < best_rank)) {
			g->representative = g->members[m];
			best_rank = rank;
			best_described = l->described;
		}
	}
}

static bool aw_same_text(const char *a, const char *b)
{
	return strcmp(a ? a : "", b ? b : "") == 0;
}

/* Whether two loader objects have a sampler link object in common (the
 * user's sampler or batch sampler given to both). */
static bool aw_share_sampler(const struct aw_loader *a,
			     const struct aw_loader *b)
{
	for (uint32_t i = 0; i < a->n_chain; i++) {
		uint64_t object = a->chain[i].object_id;
		for (uint32_t j = 0;
		     object && a->chain[i].seen && j < b->n_chain; j++)
			if (b->chain[j].seen && b->chain[j].object_id == object)
				return true;
	}
	return false;
}

/* Whether loader object b, built at a's site after it, reads on where a
 * stopped: the same kind of loader around the same sampler object, or over
 * the same dataset object. A train and an eval loader made by one helper
 * over one dataset differ in their sampler (RandomSampler, Sequential). */
static bool aw_continues(const struct aw_loader *a, const struct aw_loader *b)
{
	if (a->iterable != b->iterable ||
	    !aw_same_text(a->loader_class, b->loader_class) ||
	    !aw_same_text(a->sampler_class, b->sampler_class) ||
	    !aw_same_text(a->batch_sampler_class, b->batch_sampler_class))
		return false;
	return aw_share_sampler(a, b) ||
	       (a->dataset_id && a->dataset_id == b->dataset_id);
}

/* A loader object of a process may be part of a stream: it was described
 * where it was built and has passes of its own (an outer loader hands its
 * passes to its inner one). */
static bool aw_stream_candidate(const struct aw_loader *l)
{
	return l->described && l->site && *l->site && l->n_iterations &&
	       !l->wraps;
}

struct aw_site_key {
	uint32_t process;
	const char *site;
	uint32_t id, index;
};

static int aw_compare_site_keys(const void *a, const void *b)
{
	const struct aw_site_key *x = a, *y = b;
	if (x->process != y->process)
		return x->process < y->process ? -1 : 1;
	int site = strcmp(x->site, y->site);
	if (site)
		return site;
	return (x->id > y->id) - (x->id < y->id);
}

/* Loading streams: a program that builds a new DataLoader every epoch
 * (DeepSpeed's loader does, around its one DistributedSampler) has one
 * loader object per epoch, each with one pass; its epochs are those
 * passes. In each process, a loader object built at a site continues the
 * newest one built there before it when it reads on from it (same sampler
 * object, or same dataset; aw_continues) and its first pass began after
 * that one's last (two loaders read in turn every epoch are two streams).
 * Each stream then counts once among the streams of its site
 * (site_ordinal), its passes numbered in order. */
static void aw_link_streams(struct aw_model *model)
{
	size_t n = model->n_loaders;
	uint32_t *first = aw_xcalloc(n + 1, sizeof(*first));
	uint32_t *passes = aw_xcalloc(n + 1, sizeof(*passes));
	struct aw_site_key *keys = aw_xcalloc(n + 1, sizeof(*keys));
	for (size_t i = 0; i < n; i++)
		first[i] = AW_NONE;
	for (size_t i = 0; i < model->n_iterations; i++) {
		const struct aw_iteration *it = &model->iterations[i];
		if (first[it->loader] == AW_NONE)
			first[it->loader] = (uint32_t)i;
		if (it->ordinal != ACCWATCH_UNKNOWN)
			passes[it->loader] =
			    AW_MAX(passes[it->loader], it->ordinal + 1);
	}
	for (size_t i = 0; i < n; i++) {
		const struct aw_loader *l = &model->loaders[i];
		keys[i] = (struct aw_site_key){l->process, aw_site(l), l->id,
					       (uint32_t)i};
	}
	aw_sort(keys, n, sizeof(*keys), aw_compare_site_keys);
	uint32_t streams = 0, newest = AW_NONE;
	for (size_t k = 0; k < n; k++) {
		if (k == 0 || keys[k].process != keys[k - 1].process ||
		    strcmp(keys[k].site, keys[k - 1].site) != 0) {
			streams = 0;
			newest = AW_NONE;
		}
		uint32_t i = keys[k].index;
		struct aw_loader *l = &model->loaders[i];
		if (!aw_stream_candidate(l)) {
			l->site_ordinal = streams++;
			continue;
		}
		const struct aw_loader *prev =
		    newest != AW_NONE ? &model->loaders[newest] : NULL;
		if (prev && prev->last_iteration < first[i] &&
		    aw_continues(prev, l)) {
			l->stream_prev = newest;
			l->stream_head = prev->stream_head;
			l->stream_offset = prev->stream_offset + passes[newest];
			l->site_ordinal = prev->site_ordinal;
		} else {
			l->site_ordinal = streams++;
		}
		newest = i;
	}
	for (size_t i = 0; i < model->n_iterations; i++) {
		struct aw_iteration *it = &model->iterations[i];
		it->epoch = aw_model_epoch(model, it->loader, it->ordinal);
	}
	free(keys);
	free(passes);
	free(first);
}

static void aw_link_loaders(struct aw_model *model)
{
	aw_link_streams(model);

	size_t cap = 0;
	for (size_t i = 0; i < model->n_loaders; i++) {
		struct aw_loader *l = &model->loaders[i];
		uint32_t attempt = model->processes[l->process].attempt;
		size_t g;
		uint32_t lineage = AW_NONE;
		for (g = 0; g < model->n_loaders_global; g++) {
			const struct aw_global_loader *gl =
			    &model->loaders_global[g];
			if (gl->site_ordinal != l->site_ordinal ||
			    strcmp(gl->site, aw_site(l)) != 0)
				continue;
			if (lineage == AW_NONE)
				lineage = gl->lineage;
			if (gl->attempt == attempt)
				break;
		}
		if (g == model->n_loaders_global) {
			AW_GROW(model->loaders_global, cap, g + 1);
			struct aw_global_loader *gl =
			    &model->loaders_global[model->n_loaders_global++];
			memset(gl, 0, sizeof(*gl));
			snprintf(gl->id, sizeof(gl->id), "L%u", (unsigned)g);
			gl->site = aw_site(l);
			gl->site_ordinal = l->site_ordinal;
			gl->attempt = attempt;
			gl->lineage =
			    lineage != AW_NONE ? lineage : (uint32_t)g;
		}
		struct aw_global_loader *gl = &model->loaders_global[g];
		gl->members = aw_xrealloc(
		    gl->members, (gl->n_members + 1) * sizeof(*gl->members));
		gl->members[gl->n_members++] = (uint32_t)i;
		l->global = (uint32_t)g;
	}

	for (size_t g = 0; g < model->n_loaders_global; g++) {
		struct aw_global_loader *gl = &model->loaders_global[g];
		aw_choose_representative(model, gl);
		size_t len_cap = 0;
		for (size_t m = 0; m < gl->n_members; m++) {
			const struct aw_loader *l =
			    &model->loaders[gl->members[m]];
			for (size_t c = 0; c < l->n_len_calls; c++) {
				int64_t value = l->len_calls[c].value;
				bool seen = false;
				for (size_t k = 0;
				     k < gl->n_len_reported && !seen; k++)
					seen = gl->len_reported[k] == value;
				if (seen)
					continue;
				AW_GROW(gl->len_reported, len_cap,
					gl->n_len_reported + 1);
				gl->len_reported[gl->n_len_reported++] = value;
			}
		}
	}

	for (size_t i = 0; i < model->n_loaders; i++) {
		const struct aw_loader *l = &model->loaders[i];
		if (!aw_is_dispatcher(l))
			continue;
		model->loaders_global[l->global].dispatched = true;
		if (l->wrap_inner != AW_NONE)
			model
			    ->loaders_global[model->loaders[l->wrap_inner]
						 .global]
			    .dispatched = true;
	}
}

/* The epoch of a global loader (number global) an iteration adds to, made
 * when new; where: (global, ordinal) -> its place in g->epochs, so that a
 * run of many epochs finds each in constant time. */
static struct aw_epoch *aw_epoch_for(struct aw_global_loader *g, size_t *cap,
				     struct aw_index_map *where,
				     uint32_t global, uint32_t ordinal)
{
	uint32_t at = aw_index_map_get(where, aw_key2(global, ordinal));
	if (at != AW_NONE)
		return &g->epochs[at];
	aw_index_map_put(where, aw_key2(global, ordinal),
			 (uint32_t)g->n_epochs);
	AW_GROW(g->epochs, *cap, g->n_epochs + 1);
	struct aw_epoch *epoch = &g->epochs[g->n_epochs++];
	memset(epoch, 0, sizeof(*epoch));
	epoch->epoch = ordinal;
	epoch->missing = -1;
	return epoch;
}

/* What one pass adds to a rank's cell: a process's own reads, or the share
 * accelerate's dispatcher gave the rank. */
struct aw_contribution {
	uint32_t iteration;
	int32_t pid;
	const struct aw_sample_set *set;
	uint64_t batches, drawn, prefetched_samples, lost_samples;
	uint32_t max_batch_len;
	bool ended, exhausted;
	bool has_order;
	uint64_t order_hash;
	int64_t sampler_epoch;
	uint32_t join; /* the Join it drew inside, AW_NONE */
	bool rebuilt;
};

static void aw_cell_add(struct aw_epoch *epoch, int32_t rank,
			const struct aw_contribution *c)
{
	struct aw_cell *cell = NULL;
	for (size_t i = 0; i < epoch->n_cells && !cell; i++)
		if (epoch->cells[i].rank == rank)
			cell = &epoch->cells[i];
	if (!cell) {
		epoch->cells = aw_xrealloc(
		    epoch->cells, (epoch->n_cells + 1) * sizeof(*epoch->cells));
		cell = &epoch->cells[epoch->n_cells++];
		memset(cell, 0, sizeof(*cell));
		cell->rank = rank;
		cell->pid = c->pid;
		cell->iteration = c->iteration;
		cell->set = c->set;
		cell->complete = true;
		cell->exhausted = true;
		cell->has_order = c->has_order;
		cell->order_hash = c->order_hash;
		cell->sampler_epoch = c->sampler_epoch;
		cell->join = c->join;
		cell->rebuilt = c->rebuilt;
	} else {
		/* Several processes claim this rank (a restart, or a rank
		 * variable copied into a helper process): their reads add up.
		 * `set` points at `merged` once the cells stop moving. */
		if (cell->n_iterations == 1) {
			aw_sample_set_init(&cell->merged);
			aw_sample_set_merge(&cell->merged, cell->set);
		}
		aw_sample_set_merge(&cell->merged, c->set);
		cell->has_order = false;
		if (cell->join != c->join)
			cell->join = AW_NONE;
	}
	cell->n_iterations++;
	cell->batches += c->batches;
	cell->drawn += c->drawn;
	cell->prefetched_samples += c->prefetched_samples;
	cell->lost_samples += c->lost_samples;
	cell->max_batch_len = AW_MAX(cell->max_batch_len, c->max_batch_len);
	cell->complete &= c->ended;
	cell->exhausted &= c->ended && c->exhausted;
}

static void aw_contribution_of(const struct aw_model *model, uint32_t index,
			       struct aw_contribution *c)
{
	const struct aw_iteration *it = &model->iterations[index];
	memset(c, 0, sizeof(*c));
	c->iteration = index;
	c->pid = model->processes[model->loaders[it->loader].process].pid;
	c->set = &it->consumed;
	c->batches = aw_iteration_batches_at_least(it);
	c->drawn =
	    it->ended ? AW_MAX(it->drawn, it->batches_seen) : it->batches_seen;
	c->prefetched_samples = it->prefetched_samples;
	c->lost_samples = it->lost_samples;
	c->max_batch_len = it->max_batch_len;
	c->ended = it->ended;
	c->exhausted = it->ended && it->exhausted;
	c->has_order = it->consumed.samples > 0;
	c->order_hash = aw_iteration_order_hash(it);
	c->sampler_epoch = it->sampler_epoch;
	c->join = it->outside_join ? AW_NONE : it->join;
}

/* The pid of the process that is rank `rank`, or `fallback`. */
static int32_t aw_rank_pid(const struct aw_model *model, int32_t rank,
			   int32_t fallback)
{
	for (size_t i = 0; i < model->n_processes; i++) {
		const struct aw_process *p = &model->processes[i];
		if (!p->is_worker && p->rank == rank)
			return p->pid;
	}
	return fallback;
}

/* The ranks' shares of a dispatched pass, one cell each. */
static void aw_add_dispatched(struct aw_model *model, struct aw_epoch *epoch,
			      uint32_t index)
{
	const struct aw_iteration *it = &model->iterations[index];
	const struct aw_dispatch *d = it->dispatch;
	struct aw_contribution c;
	aw_contribution_of(model, index, &c);
	for (uint32_t r = 0; r < d->world; r++) {
		const struct aw_dispatch_share *share = &d->shares[r];
		c.pid = aw_rank_pid(model, (int32_t)r, r == 0 ? c.pid : -1);
		if (r == 1)
			c.join = AW_NONE; /* rank 0's Join is its own */
		c.set = &share->set;
		c.batches = c.drawn = share->batches;
		c.prefetched_samples = c.lost_samples = 0;
		c.max_batch_len = share->max_batch_len;
		c.has_order = true;
		c.order_hash = XXH64_digest(&share->order);
		c.rebuilt = true;
		aw_cell_add(epoch, (int32_t)r, &c);
	}
}

static int aw_compare_epochs(const void *a, const void *b)
{
	const struct aw_epoch *x = a, *y = b;
	return (x->epoch > y->epoch) - (x->epoch < y->epoch);
}

/* A pass over an index map: what its positions stand for joins the epoch's
 * expected samples. */
static void aw_epoch_map(struct aw_epoch *epoch, const struct aw_loader *l,
			 const struct aw_iteration *it)
{
	if (!l->mapping || !l->mapping->n_levels)
		return;
	if (!epoch->mapped) {
		aw_sample_set_init(&epoch->expected);
		epoch->mapped = true;
		epoch->base_len = -1;
	}
	aw_mapping_image(l->mapping, &epoch->expected);
	epoch->base_len =
	    AW_MAX(epoch->base_len, aw_mapping_base_len(l->mapping));
	epoch->unmapped += it->unmapped;
}

/* Whether an iteration's dispatcher rebuilt the ranks' shares: not when
 * it was to take an IterableDataset's items and none came (a recorder that
 * did not fingerprint them) while batches were read. */
static bool aw_dispatch_rebuilds(const struct aw_iteration *it)
{
	return it->dispatch &&
	       !(it->dispatch_items && it->dispatch->steps == 0 &&
		 it->dispatch->step_batches == 0 &&
		 aw_iteration_batches(it) > 0);
}

/* An iterator made and dropped before the loop got a batch from it (a
 * framework checking a loader it builds anew, Lightning's reloads): it
 * read nothing anyone trained on, so it is no epoch. Its number stays
 * taken: the loader's next pass keeps the epoch the program counts. */
static bool aw_pass_dropped(const struct aw_iteration *it)
{
	return it->ended && !it->exhausted && it->yielded == 0 &&
	       it->resumed <= 0 && !it->dispatch;
}

/* Each epoch's rank_left_trace, in one pass over a loader's epochs in
 * order: per rank, whether it read an earlier epoch, and whether a process
 * of those earlier passes never ended. */
static void aw_mark_ranks_left(const struct aw_model *model,
			       struct aw_global_loader *gl)
{
	/* Per rank seen (a slot: ranks are any int32): whether a process of
	 * its earlier passes never ended, and the last epoch it read (from
	 * 1). The ranks that left are the `waiting` ones (read before, a
	 * process unended) less those this epoch has. */
	struct aw_rank_seen {
		bool unended;
		size_t last;
	} *seen = NULL;
	struct aw_index_map slots;
	aw_index_map_init(&slots);
	size_t n = 0, cap = 0, waiting = 0;
	for (size_t e = 0; e < gl->n_epochs; e++) {
		struct aw_epoch *epoch = &gl->epochs[e];
		size_t back = 0;
		for (size_t c = 0; c < epoch->n_cells; c++) {
			uint32_t slot = aw_index_map_get(
			    &slots, (uint64_t)(uint32_t)epoch->cells[c].rank);
			if (slot == AW_NONE)
				continue;
			back += seen[slot].unended && seen[slot].last != e + 1;
			seen[slot].last = e + 1;
		}
		epoch->rank_left_trace = waiting > back;
		for (size_t c = 0; c < epoch->n_cells; c++) {
			const struct aw_cell *cell = &epoch->cells[c];
			if (cell->rank < 0 ||
			    cell->iteration >= model->n_iterations)
				continue;
			uint64_t key = (uint64_t)(uint32_t)cell->rank;
			uint32_t slot = aw_index_map_get(&slots, key);
			if (slot == AW_NONE) {
				AW_GROW(seen, cap, n + 1);
				slot = (uint32_t)n++;
				seen[slot] =
				    (struct aw_rank_seen){false, e + 1};
				aw_index_map_put(&slots, key, slot);
			}
			bool unended =
			    !aw_model_cell_process(model, cell)->exited;
			waiting += unended && !seen[slot].unended;
			seen[slot].unended |= unended;
		}
	}
	aw_index_map_fini(&slots);
	free(seen);
}

/* model->drop_last_shards and uses_accelerate, anew: facts of every
 * loader the checks ask of the run, found in one pass. */
static void aw_index_loaders(struct aw_model *model)
{
	size_t cap = 0;
	free(model->drop_last_shards);
	model->drop_last_shards = NULL;
	model->n_drop_last_shards = 0;
	model->uses_accelerate = false;
	for (size_t i = 0; i < model->n_loaders; i++) {
		const struct aw_loader *l = &model->loaders[i];
		model->uses_accelerate |= aw_loader_is_accelerate(l);
		bool cuts = false;
		for (uint32_t k = 0; k < l->n_chain && !cuts; k++)
			cuts = aw_link_cuts(&l->chain[k]) &&
			       l->chain[k].drop_last == 1;
		if (!cuts || l->dataset_len < 0)
			continue;
		AW_GROW(model->drop_last_shards, cap,
			model->n_drop_last_shards + 1);
		model->drop_last_shards[model->n_drop_last_shards++] =
		    (uint32_t)i;
	}
}

static void aw_build_epochs(struct aw_model *model)
{
	for (size_t i = 0; i < model->n_iterations; i++) {
		const struct aw_iteration *it = &model->iterations[i];
		if (aw_dispatch_rebuilds(it))
			model->loaders_global[model->loaders[it->loader].global]
			    .rebuilt = true;
	}
	size_t *caps = aw_xcalloc(model->n_loaders_global, sizeof(*caps));
	struct aw_index_map where;
	aw_index_map_init(&where);
	for (size_t i = 0; i < model->n_iterations; i++) {
		const struct aw_iteration *it = &model->iterations[i];
		const struct aw_loader *l = &model->loaders[it->loader];
		const struct aw_process *p = &model->processes[l->process];
		struct aw_global_loader *g = &model->loaders_global[l->global];
		aw_model_progress(model, "passes", i, model->n_iterations);
		if (g->rebuilt && aw_dispatch_rebuilds(it)) {
			aw_add_dispatched(model,
					  aw_epoch_for(g, &caps[l->global],
						       &where, l->global,
						       it->epoch),
					  (uint32_t)i);
			continue;
		}
		if (p->is_worker || p->rank < 0)
			continue;
		if (g->rebuilt) {
			/* Other ranks only primed the inner iterator: what
			 * they got is in rank 0's shares. */
			g->primed_iterations++;
			continue;
		}
		if (aw_pass_dropped(it))
			continue;
		struct aw_contribution c;
		aw_contribution_of(model, (uint32_t)i, &c);
		struct aw_epoch *epoch = aw_epoch_for(
		    g, &caps[l->global], &where, l->global, it->epoch);
		aw_cell_add(epoch, p->rank, &c);
		aw_epoch_map(epoch, l, it);
	}
	aw_index_map_fini(&where);
	free(caps);
	for (size_t g = 0; g < model->n_loaders_global; g++) {
		struct aw_global_loader *gl = &model->loaders_global[g];
		aw_sort(gl->epochs, gl->n_epochs, sizeof(*gl->epochs),
			aw_compare_epochs);
		for (size_t e = 0; e < gl->n_epochs; e++) {
			aw_model_progress(model, "epochs", e, gl->n_epochs);
			aw_epoch_summarize(model, aw_model_describe(model, gl),
					   &gl->epochs[e]);
		}
		aw_mark_ranks_left(model, gl);
	}
	aw_index_loaders(model);
}

/* The dispatcher's last step depends on drop_last, known once lineage is. */
static void aw_finish_dispatches(struct aw_model *model)
{
	for (size_t i = 0; i < model->n_iterations; i++) {
		struct aw_iteration *it = &model->iterations[i];
		if (!it->dispatch)
			continue;
		const struct aw_loader *l = &model->loaders[it->loader];
		aw_dispatch_finish(it->dispatch, l->dispatch_drop_last == 1,
				   it->ended && it->exhausted);
	}
}

/* Where an item stream's reads count: its rank, global loader and epoch. */
static void aw_resolve_item_stream(const struct aw_model *model,
				   struct aw_item_stream *s)
{
	const struct aw_process *p = &model->processes[s->process];
	s->pass = AW_NONE;
	uint32_t owner = aw_model_rank_process(model, s->process);
	if (owner == AW_NONE || p->rank < 0)
		return;
	uint32_t loader = AW_NONE;
	if (s->loader_id != ACCWATCH_UNKNOWN) {
		loader = aw_model_find_loader(model, owner, s->loader_id);
	} else {
		/* spawn workers do not know: the rank's only iterable one */
		for (size_t i = 0; i < model->n_loaders; i++) {
			const struct aw_loader *l = &model->loaders[i];
			if (l->process != owner || !l->iterable ||
			    !l->n_iterations)
				continue;
			if (loader != AW_NONE)
				return;
			loader = (uint32_t)i;
		}
	}
	if (loader == AW_NONE)
		return;
	loader = aw_model_iterated_loader(model, loader);
	uint32_t epoch = aw_model_epoch(model, loader, s->iteration);
	if (epoch == ACCWATCH_UNKNOWN) {
		if (model->loaders[loader].n_iterations != 1)
			return;
		epoch = model->iterations[model->loaders[loader].last_iteration]
			    .epoch;
	}
	s->global = model->loaders[loader].global;
	s->epoch = epoch;
	s->rank = p->rank;
	s->pass = s->iteration == ACCWATCH_UNKNOWN
		      ? model->loaders[loader].last_iteration
		      : aw_index_map_get(&model->iteration_index,
					 aw_key2(loader, s->iteration));
}

/* A stream's place when grouping by pass. */
struct aw_pass_key {
	uint32_t pass, stream;
};

static int aw_compare_pass_keys(const void *a, const void *b)
{
	const struct aw_pass_key *x = a, *y = b;
	if (x->pass != y->pass)
		return x->pass < y->pass ? -1 : 1;
	return (x->stream > y->stream) - (x->stream < y->stream);
}

/* A pass the loop left early (max_steps, a break) counts the items of the
 * batches it got, not those its workers had fetched ahead. */
static void aw_count_consumed_items(struct aw_model *model)
{
	struct aw_item_streams *items = &model->items;
	struct aw_pass_key *keys =
	    aw_xcalloc(items->n ? items->n : 1, sizeof(*keys));
	uint32_t *group = aw_xcalloc(items->n ? items->n : 1, sizeof(*group));
	size_t n = 0;
	for (size_t i = 0; i < items->n; i++) {
		items->streams[i].counted = items->streams[i].n;
		if (items->streams[i].pass != AW_NONE)
			keys[n++] = (struct aw_pass_key){items->streams[i].pass,
							 (uint32_t)i};
	}
	qsort(keys, n, sizeof(*keys), aw_compare_pass_keys);
	for (size_t i = 0; i < n;) {
		size_t j = i;
		for (; j < n && keys[j].pass == keys[i].pass; j++)
			group[j - i] = keys[j].stream;
		const struct aw_iteration *it =
		    &model->iterations[keys[i].pass];
		if (it->ended && !it->exhausted && !it->dispatch)
			aw_item_streams_keep_consumed(items, group, j - i,
						      it->yielded);
		i = j;
	}
	free(group);
	free(keys);
}

/* A stream's place when grouping by (global loader, epoch). */
struct aw_stream_key {
	uint32_t global, epoch, stream;
};

static int aw_compare_stream_keys(const void *a, const void *b)
{
	const struct aw_stream_key *x = a, *y = b;
	if (x->global != y->global)
		return x->global < y->global ? -1 : 1;
	if (x->epoch != y->epoch)
		return x->epoch < y->epoch ? -1 : 1;
	return (x->stream > y->stream) - (x->stream < y->stream);
}

/* Iterable datasets have no indices: their rows count item fingerprints. */
static void aw_apply_items(struct aw_model *model, struct aw_epoch *epoch,
			   const uint32_t *streams, size_t n)
{
	int32_t *pids = aw_xcalloc(n, sizeof(*pids));
	struct aw_item_rank_counts *counts = aw_xcalloc(n, sizeof(*counts));
	for (size_t i = 0; i < n; i++)
		pids[i] =
		    model->processes[model->items.streams[streams[i]].process]
			.pid;
	epoch->items = aw_xcalloc(1, sizeof(*epoch->items));
	size_t n_ranks = aw_item_epoch_build(&model->items, streams, pids, n,
					     epoch->items, counts);
	uint64_t unique_sum = 0;
	for (size_t r = 0; r < n_ranks; r++) {
		for (size_t c = 0; c < epoch->n_cells; c++) {
			struct aw_cell *cell = &epoch->cells[c];
			if (cell->rank != counts[r].rank || cell->samples)
				continue;
			cell->samples = counts[r].reads;
			cell->unique = counts[r].distinct;
			cell->repeated_items = counts[r].repeated;
			cell->from_items = true;
			unique_sum += cell->unique;
		}
	}
	if (epoch->samples == 0) {
		epoch->samples = epoch->items->reads;
		epoch->union_count = epoch->items->distinct;
		epoch->union_in_range = epoch->union_count;
		epoch->duplicates = epoch->samples - epoch->union_count;
		epoch->cross_rank_duplicates =
		    unique_sum > epoch->union_count
			? unique_sum - epoch->union_count
			: 0;
	}
	free(counts);
	free(pids);
}

static void aw_build_items(struct aw_model *model)
{
	struct aw_item_streams *items = &model->items;
	if (items->n == 0)
		return;
	struct aw_stream_key *keys = aw_xcalloc(items->n, sizeof(*keys));
	uint32_t *group = aw_xcalloc(items->n, sizeof(*group));
	size_t n = 0;
	for (size_t i = 0; i < items->n; i++) {
		struct aw_item_stream *s = &items->streams[i];
		aw_resolve_item_stream(model, s);
		if (s->global != AW_NONE)
			keys[n++] = (struct aw_stream_key){s->global, s->epoch,
							   (uint32_t)i};
	}
	aw_count_consumed_items(model);
	qsort(keys, n, sizeof(*keys), aw_compare_stream_keys);
	for (size_t i = 0; i < n;) {
		size_t j = i;
		for (; j < n && keys[j].global == keys[i].global &&
		       keys[j].epoch == keys[i].epoch;
		     j++)
			group[j - i] = keys[j].stream;
		struct aw_epoch *epoch = aw_model_find_epoch(
		    &model->loaders_global[keys[i].global], keys[i].epoch);
		if (epoch) {
			aw_apply_items(model, epoch, group, j - i);
			epoch->item_streams =
			    aw_xcalloc(j - i, sizeof(*epoch->item_streams));
			memcpy(epoch->item_streams, group,
			       (j - i) * sizeof(*group));
			epoch->n_item_streams = j - i;
		}
		i = j;
	}
	free(group);
	free(keys);
}

static int aw_compare_uint32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

static void aw_list_runs(struct aw_model *model)
{
	model->runs = aw_xcalloc(model->n_processes, sizeof(*model->runs));
	for (size_t i = 0; i < model->n_processes; i++)
		model->runs[i] = model->processes[i].run;
	qsort(model->runs, model->n_processes, sizeof(*model->runs),
	      aw_compare_uint32);
	for (size_t i = 0; i < model->n_processes; i++)
		if (i == 0 || model->runs[i] != model->runs[model->n_runs - 1])
			model->runs[model->n_runs++] = model->runs[i];
}

/* Everything the checks read, from the events taken so far: forgotten and
 * built again each time. With `last`, the dispatchers' held steps are cut
 * too (they are only known to be last now). */
static void aw_model_derive(struct aw_model *model, bool last)
{
	aw_model_progress(model, "linking", 0, model->n_loaders);
	aw_model_forget_derived(model);
	aw_list_runs(model);
	aw_resolve_processes(model);
	aw_link_loaders(model);
	aw_lineage_resolve(model);
	if (last)
		aw_finish_dispatches(model);
	aw_build_epochs(model);
	aw_build_groups(model);
	aw_build_items(model);
}

void aw_model_snapshot(struct aw_model *model)
{
	if (!model->finished)
		aw_model_derive(model, false);
}

void aw_model_finish(struct aw_model *model)
{
	if (model->finished)
		return;
	model->finished = true;
	for (size_t i = 0; i < model->n_iterations; i++) {
		if (!model->iterations[i].ended) {
			aw_iteration_flush(&model->iterations[i]);
			model->incomplete_iterations++;
		}
	}
	aw_model_derive(model, true);
}

const char *aw_global_loader_label(const struct aw_model *model,
				   const struct aw_global_loader *g, char *buf,
				   size_t size)
{
	const char *site = *g->site ? g->site : "unknown site";
	if (model->n_attempts > 1)
		snprintf(buf, size, "%s (%s, attempt %u)", g->id, site,
			 (unsigned)g->attempt);
	else
		snprintf(buf, size, "%s (%s)", g->id, site);
	return buf;
}

uint32_t aw_model_rank_process(const struct aw_model *model, uint32_t process)
{
	if (process >= model->n_processes)
		return AW_NONE;
	const struct aw_process *p = &model->processes[process];
	return p->is_worker ? p->owner : process;
}
