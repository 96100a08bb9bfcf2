/* SPDX-License-Identifier: MIT */
/* Resolving what the watch kept for the questions: hits and sequences name
 * loader objects and processes; the answers name global loaders and ranks. */
#include "answers.h"

#include <stdlib.h>
#include <string.h>

#include "accwatch_events.h"
#include "util.h"

bool aw_answers_loader_shown(const struct aw_model *model,
			     const struct aw_query_watch *watch,
			     uint32_t global)
{
	const char *wanted = watch ? watch->query.loader : NULL;
	if (!wanted || !*wanted)
		return true;
	if (global >= model->n_loaders_global)
		return false;
	const struct aw_global_loader *g = &model->loaders_global[global];
	return aw_query_loader_matches(wanted, g->id, g->site);
}

size_t aw_answers_loaders_shown(const struct aw_model *model,
				const struct aw_query_watch *watch)
{
	size_t n = 0;
	for (size_t g = 0; g < model->n_loaders_global; g++)
		n += aw_answers_loader_shown(model, watch, (uint32_t)g);
	return n;
}

void aw_answers_filter_findings(const struct aw_model *model,
				const struct aw_query_watch *watch,
				struct aw_findings *findings)
{
	if (!watch || !watch->query.loader || !*watch->query.loader)
		return;
	size_t kept = 0;
	for (size_t i = 0; i < findings->n; i++) {
		struct aw_finding *f = &findings->items[i];
		if (f->loader == AW_NONE ||
		    aw_answers_loader_shown(model, watch, f->loader)) {
			findings->items[kept++] = *f;
			continue;
		}
		aw_finding_fini(f);
	}
	findings->n = kept;
}

const char *aw_read_kind_name(enum aw_read_kind kind)
{
	switch (kind) {
	case AW_READ_CONSUMED:
		return "consumed";
	case AW_READ_PREFETCHED:
		return "prefetched";
	case AW_READ_FETCHED:
		return "fetched";
	case AW_READ_DISPATCHED:
		return "dispatched";
	}
	return "?";
}

/* The loader object whose pass a hit is part of, AW_NONE. */
static uint32_t aw_hit_loader(const struct aw_model *model,
			      const struct aw_hit *hit)
{
	uint32_t loader = hit->loader;
	if (loader == AW_NONE && hit->loader_id != ACCWATCH_UNKNOWN) {
		uint32_t owner = aw_model_rank_process(model, hit->process);
		if (owner != AW_NONE)
			loader =
			    aw_model_find_loader(model, owner, hit->loader_id);
	}
	return loader == AW_NONE ? AW_NONE
				 : aw_model_iterated_loader(model, loader);
}

static int aw_compare_reads(const void *a, const void *b)
{
	const struct aw_answer_read *x = a, *y = b;
	if (x->global != y->global)
		return x->global < y->global ? -1 : 1;
	if (x->epoch != y->epoch)
		return x->epoch < y->epoch ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	if (x->hit->kind != y->hit->kind)
		return x->hit->kind < y->hit->kind ? -1 : 1;
	return (x->hit->batch > y->hit->batch) -
	       (x->hit->batch < y->hit->batch);
}

struct aw_answer_read *
aw_answers_sample_reads(const struct aw_model *model,
			const struct aw_query_watch *watch, size_t *n)
{
	const struct aw_query_results *r = &watch->hits;
	struct aw_answer_read *reads =
	    aw_xcalloc(r->n_hits + 1, sizeof(*reads));
	*n = 0;
	for (size_t i = 0; i < r->n_hits; i++) {
		const struct aw_hit *hit = &r->hits[i];
		const struct aw_process *p = &model->processes[hit->process];
		uint32_t loader = aw_hit_loader(model, hit);
		uint32_t global =
		    loader != AW_NONE ? model->loaders[loader].global : AW_NONE;
		if (watch->query.loader &&
		    !aw_answers_loader_shown(model, watch, global))
			continue;
		/* A dispatched loader: rank 0's own draws are not what it got.
		 */
		if (global != AW_NONE && hit->kind != AW_READ_DISPATCHED &&
		    hit->kind != AW_READ_FETCHED &&
		    model->loaders_global[global].rebuilt)
			continue;
		reads[*n] = (struct aw_answer_read){
		    .hit = hit,
		    .global = global,
		    /* A loader object built for one epoch of a stream: its
		     * pass is that epoch. */
		    .epoch = loader != AW_NONE
				 ? aw_model_epoch(model, loader, hit->iteration)
				 : hit->iteration,
		    .rank = hit->kind == AW_READ_DISPATCHED ? hit->to_rank
							    : p->rank,
		    .pid = p->pid};
		(*n)++;
	}
	qsort(reads, *n, sizeof(*reads), aw_compare_reads);
	return reads;
}

struct aw_answer_sequence *
aw_answers_sequences(const struct aw_model *model,
		     const struct aw_query_watch *watch, size_t *n)
{
	struct aw_answer_sequence *out =
	    aw_xcalloc(watch->n_kept + 1, sizeof(*out));
	*n = 0;
	for (size_t i = 0; i < watch->n_kept; i++) {
		const struct aw_kept_sequence *kept = &watch->kept[i];
		const struct aw_iteration *it =
		    &model->iterations[kept->iteration];
		const struct aw_loader *l = &model->loaders[it->loader];
		const struct aw_process *p = &model->processes[l->process];
		const struct aw_global_loader *g =
		    &model->loaders_global[l->global];
		int32_t rank = it->dispatch ? watch->query.rank : p->rank;
		if (rank != watch->query.rank || p->is_worker ||
		    !aw_answers_loader_shown(model, watch, l->global))
			continue;
		/* Ranks other than 0 only primed a dispatched loader. */
		if (g->rebuilt && !it->dispatch)
			continue;
		out[(*n)++] = (struct aw_answer_sequence){
		    .sequence = &kept->sequence,
		    .global = l->global,
		    .rank = rank,
		    .pid = p->pid,
		    .rebuilt = it->dispatch != NULL};
	}
	return out;
}
