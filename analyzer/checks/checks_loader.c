/* SPDX-License-Identifier: MIT */
/* The loader checks: the loader accelerate prepared never iterated
 * (unused-prepared), len() answers that do not match what the loop ran
 * (stale-len, len-mismatch), epochs that all stopped early (never-read),
 * streams read whole for a part (read-amplification). The orders of the
 * epochs are checks_order.c's. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks_private.h"
#include "lineage.h"
#include "util.h"

/* --- per rank process, loaders of one dataset ----------------------------- */

/* What a rank read of a global loader, for the checks that ask it of every
 * loader object of a lineage: asked per object, a walk over the lineage's
 * epochs each time would make a run of N one-pass loaders cost N^2. */
#define AW_FULL_COUNTS 8
struct aw_rank_reads {
	bool iterates;                   /* a cell in some epoch */
	uint64_t counts[AW_FULL_COUNTS]; /* batches per full epoch, distinct */
	size_t n_counts;
	uint32_t first_epoch; /* of counts[0] */
};

/* (global loader, rank) -> its aw_rank_reads, filled on first use. */
struct aw_reads_cache {
	struct aw_index_map where;
	struct aw_rank_reads *items;
	size_t n, cap;
};

static void aw_reads_cache_fini(struct aw_reads_cache *cache)
{
	aw_index_map_fini(&cache->where);
	free(cache->items);
	memset(cache, 0, sizeof(*cache));
}

/* What the rank read of the global loader of a loader object (or of the one
 * its passes go to); NULL when it has none. */
static const struct aw_rank_reads *aw_rank_reads(const struct aw_model *model,
						 struct aw_reads_cache *cache,
						 uint32_t loader, int32_t rank)
{
	const struct aw_loader *l =
	    &model->loaders[aw_model_iterated_loader(model, loader)];
	if (l->global >= model->n_loaders_global)
		return NULL;
	uint64_t key = aw_key2(l->global, (uint32_t)rank);
	uint32_t at = aw_index_map_get(&cache->where, key);
	if (at != AW_NONE)
		return &cache->items[at];
	AW_GROW(cache->items, cache->cap, cache->n + 1);
	struct aw_rank_reads *r = &cache->items[cache->n];
	memset(r, 0, sizeof(*r));
	aw_index_map_put(&cache->where, key, (uint32_t)cache->n++);
	const struct aw_global_loader *g = &model->loaders_global[l->global];
	for (size_t e = 0; e < g->n_epochs; e++) {
		const struct aw_cell *cell = NULL;
		for (size_t c = 0; c < g->epochs[e].n_cells && !cell; c++)
			if (g->epochs[e].cells[c].rank == rank)
				cell = &g->epochs[e].cells[c];
		if (!cell)
			continue;
		r->iterates = true;
		if (!cell->exhausted)
			continue;
		bool known = false;
		for (size_t i = 0; i < r->n_counts && !known; i++)
			known = r->counts[i] == cell->batches;
		if (known || r->n_counts == AW_FULL_COUNTS)
			continue;
		if (r->n_counts == 0)
			r->first_epoch = g->epochs[e].epoch;
		r->counts[r->n_counts++] = cell->batches;
	}
	return r;
}

/* Whether a loader object (or the one its passes go to) has a row for the
 * rank: its own passes, or the share accelerate's dispatcher gave it. */
static bool aw_rank_iterates(const struct aw_model *model,
			     struct aw_reads_cache *cache, uint32_t loader,
			     int32_t rank)
{
	const struct aw_rank_reads *r =
	    aw_rank_reads(model, cache, loader, rank);
	return r && r->iterates;
}

/* Batches per full epoch the rank ran over a loader; how many distinct
 * counts are written to counts (at most max), 0 when no full epoch. */
static size_t aw_full_epoch_batches(const struct aw_model *model,
				    struct aw_reads_cache *cache,
				    uint32_t loader, int32_t rank,
				    uint64_t *counts, size_t max,
				    uint32_t *first_epoch)
{
	const struct aw_rank_reads *r =
	    aw_rank_reads(model, cache, loader, rank);
	if (!r)
		return 0;
	size_t n = r->n_counts < max ? r->n_counts : max;
	memcpy(counts, r->counts, n * sizeof(*counts));
	if (n > 0 && first_epoch)
		*first_epoch = r->first_epoch;
	return n;
}

static bool aw_same_dataset(const struct aw_model *model, uint32_t a,
			    uint32_t b)
{
	const struct aw_loader *x = &model->loaders[a], *y = &model->loaders[b];
	if (x->process != y->process)
		return false;
	if (x->built_from == b || y->built_from == a ||
	    (x->built_from != AW_NONE && x->built_from == y->built_from))
		return true;
	return x->dataset_id && x->dataset_id == y->dataset_id;
}

/* One finding per (id, loader, other loader, value), gathering ranks. */
struct aw_loader_hit {
	const char *id;
	uint32_t loader, other; /* loader objects (one representative) */
	uint32_t global, other_global;
	int64_t value;
	uint64_t batches;
	uint32_t epoch;
	const char *site; /* where len() was called */
	int32_t rank;
	uint32_t process; /* of the loader: the order hits are found in */
};

struct aw_loader_hits {
	struct aw_loader_hit *items;
	size_t n, cap;
};

static void aw_hits_add(struct aw_loader_hits *hits,
			const struct aw_loader_hit *hit)
{
	AW_GROW(hits->items, hits->cap, hits->n + 1);
	hits->items[hits->n++] = *hit;
}

static int aw_compare_hit_ranks(const void *a, const void *b)
{
	const struct aw_loader_hit *x = a, *y = b;
	return (x->rank > y->rank) - (x->rank < y->rank);
}

static bool aw_same_group(const struct aw_loader_hit *a,
			  const struct aw_loader_hit *b)
{
	return strcmp(a->id, b->id) == 0 && a->global == b->global &&
	       a->other_global == b->other_global && a->value == b->value;
}

typedef void aw_emit_group_fn(const struct aw_check_input *in,
			      const struct aw_loader_hit *hit,
			      const struct aw_loader_hit *group, size_t n,
			      struct aw_findings *out);

/* The order of hits that groups alike ones, each group in the order the
 * hits came (order: their place in the list). */
struct aw_hit_place {
	const struct aw_loader_hit *hit;
	size_t order;
};

static int aw_compare_hit_places(const void *a, const void *b)
{
	const struct aw_hit_place *x = a, *y = b;
	const struct aw_loader_hit *p = x->hit, *q = y->hit;
	int by = strcmp(p->id, q->id);
	if (by)
		return by;
	if (p->global != q->global)
		return p->global < q->global ? -1 : 1;
	if (p->other_global != q->other_global)
		return p->other_global < q->other_global ? -1 : 1;
	if (p->value != q->value)
		return p->value < q->value ? -1 : 1;
	return (x->order > y->order) - (x->order < y->order);
}

/* A group: where its hits start among the sorted places, how many, and the
 * place of its first hit in the list (the groups go out in that order). */
struct aw_hit_group {
	size_t start, n, first;
};

static int aw_compare_hit_groups(const void *a, const void *b)
{
	const struct aw_hit_group *x = a, *y = b;
	return (x->first > y->first) - (x->first < y->first);
}

/* Emits one finding per group of hits with the same loader, other loader and
 * value, ranks in order, the groups in the order of their first hit; frees
 * the hits. Sorted, not compared pairwise: a run of many loaders may give
 * a hit for each. */
static void aw_emit_hit_groups(const struct aw_check_input *in,
			       struct aw_loader_hits *hits,
			       aw_emit_group_fn *emit, struct aw_findings *out)
{
	struct aw_hit_place *places = aw_xcalloc(hits->n + 1, sizeof(*places));
	struct aw_hit_group *groups = aw_xcalloc(hits->n + 1, sizeof(*groups));
	struct aw_loader_hit *group = aw_xcalloc(hits->n + 1, sizeof(*group));
	size_t n_groups = 0;
	for (size_t i = 0; i < hits->n; i++)
		places[i] = (struct aw_hit_place){&hits->items[i], i};
	aw_sort(places, hits->n, sizeof(*places), aw_compare_hit_places);
	for (size_t i = 0; i < hits->n; i++) {
		if (i > 0 && aw_same_group(places[i - 1].hit, places[i].hit)) {
			groups[n_groups - 1].n++;
			continue;
		}
		groups[n_groups++] = (struct aw_hit_group){
		    .start = i, .n = 1, .first = places[i].order};
	}
	aw_sort(groups, n_groups, sizeof(*groups), aw_compare_hit_groups);
	for (size_t g = 0; g < n_groups; g++) {
		for (size_t k = 0; k < groups[g].n; k++)
			group[k] = *places[groups[g].start + k].hit;
		qsort(group, groups[g].n, sizeof(*group), aw_compare_hit_ranks);
		emit(in, &group[0], group, groups[g].n, out);
	}
	free(group);
	free(groups);
	free(places);
	free(hits->items);
	hits->items = NULL;
	hits->n = hits->cap = 0;
}

/* The finding of a group of hits (one per rank), with the group's ranks. */
static struct aw_finding *aw_group_finding(struct aw_findings *out,
					   const struct aw_loader_hit *hit,
					   const struct aw_loader_hit *group,
					   size_t n, enum aw_severity severity,
					   int64_t epoch)
{
	struct aw_finding *f =
	    aw_findings_add(out, hit->id, severity, hit->global, epoch);
	for (size_t i = 0; i < n; i++)
		aw_finding_add_rank(f, group[i].rank);
	return f;
}

/* --- unused-prepared ------------------------------------------------------ */

/* The loader a user would have been handed for loader object s: accelerate's
 * outer loader when s is the DataLoader inside it. */
static uint32_t aw_returned_loader(const struct aw_model *model, uint32_t s)
{
	const struct aw_loader *l = &model->loaders[s];
	return l->wrapper != AW_NONE ? l->wrapper : s;
}

/* A user loader u of a rank process that it iterated unsharded, and the
 * sharded loaders of its process (candidates, built at or after it) that
 * nobody iterated. */
/* Process, then loader, then other loader. */
static int aw_compare_hit_processes(const void *a, const void *b)
{
	const struct aw_loader_hit *x = a, *y = b;
	if (x->process != y->process)
		return x->process < y->process ? -1 : 1;
	if (x->loader != y->loader)
		return x->loader < y->loader ? -1 : 1;
	return (x->other > y->other) - (x->other < y->other);
}

static void aw_unused_prepared_pair(const struct aw_model *model,
				    struct aw_reads_cache *cache, uint32_t u,
				    uint32_t s, struct aw_loader_hits *hits)
{
	const struct aw_loader *user = &model->loaders[u];
	const struct aw_loader *sh = &model->loaders[s];
	int32_t rank = model->processes[user->process].rank;
	if (s == u || sh->id < user->id || !aw_same_dataset(model, u, s) ||
	    aw_rank_iterates(model, cache, s, rank))
		return;
	uint64_t batches[1] = {0};
	uint32_t epoch = 0;
	aw_full_epoch_batches(model, cache, u, rank, batches, 1, &epoch);
	struct aw_loader_hit hit = {.id = "unused-prepared",
				    .loader = u,
				    .other = s,
				    .global = user->global,
				    .other_global = sh->global,
				    .batches = batches[0],
				    .rank = rank,
				    .process = user->process};
	aw_hits_add(hits, &hit);
}

static void aw_emit_unused_prepared(const struct aw_check_input *in,
				    const struct aw_loader_hit *hit,
				    const struct aw_loader_hit *group, size_t n,
				    struct aw_findings *out)
{
	const struct aw_model *model = in->model;
	const struct aw_loader *user = &model->loaders[hit->loader];
	const struct aw_loader *sh = &model->loaders[hit->other];
	const struct aw_global_loader *ug = &model->loaders_global[hit->global];
	const struct aw_global_loader *sg =
	    &model->loaders_global[hit->other_global];
	struct aw_finding *f =
	    aw_group_finding(out, hit, group, n, AW_SEVERITY_ERROR, -1);
	struct aw_text ranks = {0};
	aw_format_ranks(f->ranks, f->n_ranks, &ranks);
	bool by_accelerate = aw_loader_is_accelerate(sh);
	const char *kind = aw_loader_wrap_kind(model, sh);
	if (by_accelerate)
		aw_finding_set_message(
		    f,
		    "%s: you iterate the loader created at %s (%s); "
		    "prepare() returned a sharded one (%s, %s, built at %s) "
		    "that was never iterated: use its return value",
		    aw_text_str(&ranks), ug->site, ug->id, sg->id,
		    aw_short_class(sh->loader_class), sg->site);
	else
		aw_finding_set_message(
		    f,
		    "%s: you iterate the loader created at %s (%s); a "
		    "sharded loader over the same dataset (%s, sampler %s, "
		    "built at %s) was never iterated",
		    aw_text_str(&ranks), ug->site, ug->id, sg->id,
		    aw_short_class(sh->sampler_class), sg->site);
	aw_text_fini(&ranks);
	aw_finding_add_evidence(f, "iterated: %s, %s with sampler %s", ug->id,
				aw_short_class(user->loader_class),
				aw_short_class(user->sampler_class));
	if (hit->batches)
		aw_finding_add_evidence(
		    f, "%s ran %" PRIu64 " batches per full epoch on rank %d",
		    ug->id, hit->batches, hit->rank);
	aw_finding_add_evidence(
	    f, "never iterated: %s, %s with batch sampler %s%s%s%s", sg->id,
	    aw_short_class(sh->loader_class),
	    aw_short_class(sh->batch_sampler_class),
	    kind ? " (accelerate kind \"" : "", kind ? kind : "",
	    kind ? "\")" : "");
	if (sh->dataset_id && sh->dataset_id == user->dataset_id)
		aw_finding_add_evidence(f,
					"both read the same dataset object "
					"(id %#" PRIx64 ", %s)",
					user->dataset_id,
					aw_or_unknown(user->dataset_type));
	if (by_accelerate)
		aw_finding_set_fix(
		    f, "iterate what prepare() returns: `loader = "
		       "accelerator.prepare(loader)` (or unpack it from "
		       "`model, optimizer, loader = accelerator.prepare(model, "
		       "optimizer, loader)`)");
	else
		aw_finding_set_fix(f,
				   "iterate the sharded loader (the one with "
				   "the DistributedSampler) instead of the "
				   "plain one");
}

void aw_check_unused_prepared(const struct aw_check_input *in,
			      struct aw_findings *out)
{
	const struct aw_model *model = in->model;
	struct aw_loader_hits hits = {0};
	struct aw_reads_cache cache = {0};
	/* The never-iterated sharded loaders of each process, in one pass:
	 * few, so pairing them with the process's iterated loaders stays
	 * linear in loaders. */
	uint32_t *next = aw_xcalloc(model->n_loaders + 1, sizeof(*next));
	uint32_t *first = aw_xcalloc(model->n_processes + 1, sizeof(*first));
	for (size_t p = 0; p < model->n_processes; p++)
		first[p] = AW_NONE;
	for (size_t i = model->n_loaders; i-- > 0;) {
		const struct aw_loader *sh = &model->loaders[i];
		const struct aw_process *proc = &model->processes[sh->process];
		if (proc->is_worker || proc->rank < 0 || !sh->sharded ||
		    aw_returned_loader(model, (uint32_t)i) != i ||
		    sh->n_iterations ||
		    model->loaders[aw_model_iterated_loader(model, (uint32_t)i)]
			.n_iterations)
			continue;
		next[i] = first[sh->process];
		first[sh->process] = (uint32_t)i;
	}
	for (size_t u = 0; u < model->n_loaders; u++) {
		const struct aw_loader *user = &model->loaders[u];
		const struct aw_process *proc =
		    &model->processes[user->process];
		if (proc->is_worker || proc->rank < 0 ||
		    aw_loader_is_accelerate(user) || !user->n_iterations ||
		    user->sharded)
			continue;
		for (uint32_t s = first[user->process]; s != AW_NONE;
		     s = next[s])
			aw_unused_prepared_pair(model, &cache, (uint32_t)u, s,
						&hits);
	}
	free(first);
	free(next);
	aw_reads_cache_fini(&cache);
	/* Process by process, as one walk over each process would find
	 * them. */
	aw_sort(hits.items, hits.n, sizeof(*hits.items),
		aw_compare_hit_processes);
	aw_emit_hit_groups(in, &hits, aw_emit_unused_prepared, out);
}

/* --- stale-len and len-mismatch ------------------------------------------ */

/* The wrap of a loader object's family: accelerate's split_batches without
 * even_batches makes len() count a batch that ranks past the first lack. */
static bool aw_split_without_even(const struct aw_model *model, uint32_t loader)
{
	const struct aw_loader *l = &model->loaders[loader];
	const struct aw_loader *outer = aw_loader_wrap(model, l);
	return outer && outer->split_batches == 1 && outer->even_batches == 0;
}

static bool aw_is_dispatcher_inner(const struct aw_model *model,
				   const struct aw_loader *l)
{
	if (l->wraps || l->wrapper == AW_NONE)
		return false;
	const char *kind = aw_loader_wrap_kind(model, l);
	return kind && strstr(kind, "dispatch");
}

/* The loader over the same dataset that the rank iterated instead, or
 * AW_NONE; lineage first, then the same dataset object. */
static uint32_t aw_iterated_instead(const struct aw_model *model,
				    struct aw_reads_cache *cache,
				    uint32_t loader, int32_t rank)
{
	const struct aw_loader *l = &model->loaders[loader];
	uint32_t found = AW_NONE;
	for (size_t i = 0; i < model->n_loaders; i++) {
		const struct aw_loader *o = &model->loaders[i];
		if (i == loader || o->process != l->process ||
		    aw_returned_loader(model, (uint32_t)i) != i ||
		    !aw_same_dataset(model, loader, (uint32_t)i) ||
		    !aw_rank_iterates(model, cache, (uint32_t)i, rank))
			continue;
		bool linked = o->built_from == loader || l->built_from == i;
		if (found == AW_NONE || linked)
			found = (uint32_t)i;
		if (linked)
			break;
	}
	return found;
}

/* The batches a loader's chain skips at the start of every pass (accelerate's
 * SkipBatchSampler: skip_first_batches when a run resumes). */
static int64_t aw_chain_skipped_batches(const struct aw_loader *l)
{
	int64_t skipped = 0;
	for (uint32_t i = 0; i < l->n_chain; i++) {
		const struct aw_sampler_link *link = &l->chain[i];
		if (link->seen && link->skip > 0 && link->batch_size < 0)
			skipped += link->skip;
	}
	return skipped;
}

/* Whether `value` batches divided among `per` processes make `batches`
 * each (accelerate pads the last round: batches = ceil(value / per)),
 * the skipped ones of a resumed pass counted. */
static bool aw_len_of_divided(int64_t value, uint64_t batches, int64_t skipped,
			      int32_t per)
{
	int64_t ran = (int64_t)batches + skipped;
	return ran > 0 && value > (ran - 1) * per && value <= ran * per;
}

static void aw_len_in(const struct aw_model *model,
		      struct aw_reads_cache *cache, uint32_t loader,
		      struct aw_loader_hits *hits)
{
	const struct aw_loader *l = &model->loaders[loader];
	const struct aw_process *p = &model->processes[l->process];
	if (!l->n_len_calls || aw_is_dispatcher_inner(model, l))
		return;
	uint64_t counts[AW_FULL_COUNTS];
	uint32_t epoch = 0;
	const char *id = "len-mismatch";
	uint32_t other = loader;
	if (!aw_rank_iterates(model, cache, loader, p->rank)) {
		id = "stale-len";
		other = aw_iterated_instead(model, cache, loader, p->rank);
		if (other == AW_NONE)
			return;
	}
	size_t n = aw_full_epoch_batches(model, cache, other, p->rank, counts,
					 AW_FULL_COUNTS, &epoch);
	if (n == 0)
		return;
	/* A loader that resumes an epoch (skip_first_batches of the one
	 * len() was taken of) runs the rest of it: len() counted the whole,
	 * the skipped batches too, as a schedule must. */
	int64_t skipped =
	    other == loader ? 0
			    : aw_chain_skipped_batches(&model->loaders[other]);
	/* A scheduler prepare() wrapped steps `per` times for each step of
	 * a loop over a loader it divided among `per` processes: len() of
	 * the loader before prepare() is what such a schedule needs. */
	int32_t per =
	    other != loader && aw_loader_is_accelerate(&model->loaders[other])
		? p->scheduler_steps
		: -1;
	for (size_t c = 0; c < l->n_len_calls; c++) {
		const struct aw_len_call *call = &l->len_calls[c];
		bool matches = false;
		for (size_t i = 0; i < n && !matches; i++)
			matches = (int64_t)counts[i] == call->value ||
				  (int64_t)counts[i] + skipped == call->value ||
				  (per > 1 &&
				   aw_len_of_divided(call->value, counts[i],
						     skipped, per));
		if (matches)
			continue;
		struct aw_loader_hit hit = {.id = id,
					    .loader = loader,
					    .other = other,
					    .global = l->global,
					    .other_global =
						model->loaders[other].global,
					    .value = call->value,
					    .batches = counts[0],
					    .epoch = epoch,
					    .site = call->site,
					    .rank = p->rank};
		aw_hits_add(hits, &hit);
	}
}

static void aw_emit_len(const struct aw_check_input *in,
			const struct aw_loader_hit *hit,
			const struct aw_loader_hit *group, size_t n,
			struct aw_findings *out)
{
	const struct aw_model *model = in->model;
	const struct aw_global_loader *g = &model->loaders_global[hit->global];
	const struct aw_global_loader *og =
	    &model->loaders_global[hit->other_global];
	bool stale = strcmp(hit->id, "stale-len") == 0;
	struct aw_finding *f =
	    aw_group_finding(out, hit, group, n, AW_SEVERITY_WARNING,
			     stale ? -1 : (int64_t)hit->epoch);
	aw_finding_add_integer(f, "len", hit->value);
	aw_finding_add_integer(f, "batches", (int64_t)hit->batches);
	const char *site = hit->site && *hit->site ? hit->site : "?";
	if (stale) {
		const struct aw_loader *o = &model->loaders[hit->other];
		aw_finding_set_message(
		    f,
		    "len() of the loader built at %s (%s) answered %" PRId64
		    " at %s, but that loader is never iterated: the loop "
		    "runs over %s (%s, built at %s), %" PRIu64
		    " batches per epoch",
		    g->site, g->id, hit->value, site, og->id,
		    aw_short_class(o->loader_class), og->site, hit->batches);
		for (size_t i = 0; i < n && i < AW_EVIDENCE_RANKS; i++)
			aw_finding_add_evidence(
			    f,
			    "rank %d: len() = %" PRId64
			    " at %s; %s ran %" PRIu64 " batches in epoch %u",
			    group[i].rank, group[i].value,
			    group[i].site && *group[i].site ? group[i].site
							    : "?",
			    og->id, group[i].batches, group[i].epoch);
		if (aw_loader_is_accelerate(o))
			aw_finding_set_fix(
			    f,
			    "take len() of the loader you iterate, after "
			    "prepare(): `loader = accelerator.prepare(loader)` "
			    "first, then `steps = epochs * len(loader)` (or "
			    "multiply by the world size if the schedule "
			    "really is global)");
		else
			aw_finding_set_fix(
			    f,
			    "take len() of the loader you iterate (%s, "
			    "built at %s)",
			    og->id, og->site);
		return;
	}
	bool accelerate_does_it = aw_split_without_even(model, hit->loader);
	aw_finding_set_message(
	    f,
	    "len() of %s (built at %s) answered %" PRId64
	    " at %s, but the loop over it yielded %" PRIu64
	    " batches in a full epoch (epoch %u)%s",
	    g->id, g->site, hit->value, site, hit->batches, hit->epoch,
	    accelerate_does_it
		? "; accelerate itself does this with split_batches=True and "
		  "even_batches=False: len() counts the last, short batch "
		  "that the ranks past the first do not get"
		: "");
	for (size_t i = 0; i < n && i < AW_EVIDENCE_RANKS; i++)
		aw_finding_add_evidence(f,
					"rank %d: len() = %" PRId64 ", %" PRIu64
					" batches yielded in epoch %u",
					group[i].rank, group[i].value,
					group[i].batches, group[i].epoch);
	const struct aw_loader *d = aw_model_describe(model, g);
	if (accelerate_does_it)
		aw_finding_set_fix(
		    f, "count the steps the loop really runs (or keep "
		       "even_batches=True) before sizing schedules from "
		       "len()");
	else if (d->iterable && g->dispatched)
		aw_finding_set_fix(
		    f, "under accelerate's dispatcher rank 0 alone reads the "
		       "IterableDataset and cuts every step among the ranks: "
		       "let the stream yield all its items (not only this "
		       "rank's, get_rank() is 0 there), or prepare with "
		       "dispatch_batches=False and keep the stream's own "
		       "sharding");
	else if (d->iterable)
		aw_finding_set_fix(
		    f, "make the IterableDataset's __len__ say how many items "
		       "it yields in this process (its share of the stream, "
		       "for each rank and worker), or count the steps instead "
		       "of trusting len()");
	else
		aw_finding_set_fix(
		    f, "make the sampler's __len__ say how many batches it "
		       "yields (or count the steps instead of trusting "
		       "len()) before sizing schedules from it");
}

void aw_check_len(const struct aw_check_input *in, struct aw_findings *out)
{
	const struct aw_model *model = in->model;
	struct aw_loader_hits hits = {0};
	struct aw_reads_cache cache = {0};
	for (size_t i = 0; i < model->n_loaders; i++) {
		const struct aw_process *p =
		    &model->processes[model->loaders[i].process];
		if (!p->is_worker && p->rank >= 0)
			aw_len_in(model, &cache, (uint32_t)i, &hits);
	}
	aw_reads_cache_fini(&cache);
	aw_emit_hit_groups(in, &hits, aw_emit_len, out);
}

/* --- never-read ------------------------------------------------------------
 */

/* Every epoch stopped early (max_steps, a break) and re-read the very
 * samples of the one before, so that the rest of the data is never read in
 * the whole run: the same prefix every time. */
void aw_check_never_read(const struct aw_check_input *in,
			 struct aw_findings *out)
{
	const struct aw_global_loader *g = in->loader;
	const struct aw_loader *d = in->desc;
	if (g->n_epochs < 2 || d->dataset_len <= 0 || d->iterable || g->rebuilt)
		return;
	uint64_t widest = 0;
	struct aw_sample_set all;
	aw_sample_set_init(&all);
	bool partial = true;
	for (size_t e = 0; e < g->n_epochs && partial; e++) {
		const struct aw_epoch *epoch = &g->epochs[e];
		partial = !epoch->exhausted && epoch->union_in_range > 0;
		widest = AW_MAX(widest, epoch->union_in_range);
		aw_sample_set_merge(&all, &epoch->all);
	}
	/* Over index maps: of the samples they cover, in the dataset's
	 * indices (made once per loader object: every epoch's are alike). */
	const struct aw_epoch *first = &g->epochs[0];
	uint64_t n =
	    first->mapped ? first->expected_count : (uint64_t)d->dataset_len;
	uint64_t read = first->mapped
			    ? aw_sample_set_overlap(&all, &first->expected)
			    : aw_sample_set_unique_below(&all, n);
	aw_sample_set_fini(&all);
	if (!partial || read != widest || read >= n)
		return;
	struct aw_finding *f = aw_findings_add(
	    out, "never-read", AW_SEVERITY_WARNING, in->loader_index, -1);
	aw_finding_add_integer(f, "never_read", (int64_t)(n - read));
	aw_finding_add_integer(f, "epochs", (int64_t)g->n_epochs);
	for (size_t c = 0; c < g->epochs[0].n_cells; c++)
		aw_finding_add_rank(f, g->epochs[0].cells[c].rank);
	aw_finding_set_message(
	    f,
	    "%" PRIu64 " of the %" PRIu64 " samples of %s (%s) were never read "
	    "in the %zu epochs of the run: each epoch stopped early and read "
	    "again the same %" PRIu64 " samples as the one before",
	    n - read, n, g->id, g->site, g->n_epochs, read);
	aw_finding_set_fix(
	    f, d->shuffle == 1
		   ? "call sampler.set_epoch(epoch) before each epoch, so that "
		     "every epoch draws another order"
		   : "shuffle (shuffle=True, or DistributedSampler with "
		     "set_epoch) or let epochs run to the end, so that the "
		     "rest of the data is read too");
}

/* --- read-amplification ----------------------------------------------------
 */

/* The link of a loader's IterableDataset that makes every replica read the
 * whole source to keep its part, NULL when none does. */
static const struct aw_stream_link *aw_whole_reader(const struct aw_loader *d)
{
	for (uint32_t i = 0; i < d->n_stream; i++)
		if (d->stream[i].seen && d->stream[i].whole == 1 &&
		    d->stream[i].num_replicas >= 2)
			return &d->stream[i];
	return NULL;
}

void aw_check_read_amplification(const struct aw_check_input *in,
				 struct aw_findings *out)
{
	const struct aw_global_loader *g = in->loader;
	const struct aw_stream_link *link = aw_whole_reader(in->desc);
	if (!link || g->n_epochs == 0 || g->epochs[0].n_cells == 0)
		return;
	const struct aw_epoch *e = &g->epochs[0];
	/* A source whose shards could be split among the ranks: warning. */
	bool shards = link->shards >= 1;
	struct aw_finding *f =
	    aw_findings_add(out, "read-amplification",
			    shards ? AW_SEVERITY_WARNING : AW_SEVERITY_INFO,
			    in->loader_index, e->epoch);
	int32_t w = link->num_replicas;
	aw_finding_add_integer(f, "num_replicas", w);
	aw_finding_add_integer(f, "shards", link->shards);
	for (size_t c = 0; c < e->n_cells; c++) {
		const struct aw_cell *cell = &e->cells[c];
		aw_finding_add_rank(f, cell->rank);
		if (c < AW_EVIDENCE_RANKS)
			aw_finding_add_evidence(
			    f,
			    "rank %d: yielded %" PRIu64 " items in epoch %u, "
			    "so read %d x %" PRIu64 " = %" PRIu64,
			    cell->rank, cell->samples, e->epoch, w,
			    cell->samples, cell->samples * (uint64_t)w);
	}
	if (shards) {
		aw_finding_set_message(
		    f,
		    "every rank reads the whole stream and keeps 1 example in "
		    "%d: %s was split among %d ranks (split_dataset_by_node), "
		    "but its source has %" PRId64
		    " shards, which do not divide "
		    "among them, so each rank reads %d times what it yields",
		    w, aw_short_class(link->class_name), w, link->shards, w);
		aw_finding_set_fix(
		    f,
		    "give the source a number of shards that is a multiple of "
		    "%d (more data files, or to_iterable_dataset(num_shards="
		    "%d)): each rank then reads only its own shards",
		    w, w);
		return;
	}
	aw_finding_set_message(
	    f,
	    "every rank reads the whole stream and keeps its slice of each "
	    "step (%s over %d processes%s): each reads %d times what it "
	    "yields",
	    aw_short_class(link->class_name), w,
	    link->split_batches == 1 ? ", split_batches" : "", w);
	aw_finding_set_fix(
	    f, "when reading the source is what limits training, let rank 0 "
	       "read for all (accelerate's dispatch_batches=True), or give "
	       "each rank a source of its own shards before prepare() and "
	       "keep accelerate from slicing it again");
}
