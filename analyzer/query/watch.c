/* SPDX-License-Identifier: MIT */
/* The watch's side of the model's observer: which iterations are told, and
 * what is kept of each read. */
#include "watch.h"

#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "util.h"

void aw_query_watch_init(struct aw_query_watch *watch,
			 const struct aw_query *query)
{
	memset(watch, 0, sizeof(*watch));
	watch->query = *query;
}

void aw_query_watch_fini(struct aw_query_watch *watch)
{
	aw_query_results_fini(&watch->hits);
	for (size_t i = 0; i < watch->n_kept; i++)
		aw_sequence_fini(&watch->kept[i].sequence);
	free(watch->kept);
	memset(watch, 0, sizeof(*watch));
}

/* --rank/--epoch: whether this iteration may be the rank's pass over the
 * epoch. A dispatched one keeps the share of the rank, when the world has
 * it; another one is kept unless it is known to be another rank's or a
 * worker's (the rank is settled once the model is finished). */
static bool aw_watch_keeps_sequence(const struct aw_query *q,
				    const struct aw_model *model,
				    const struct aw_iteration *it)
{
	if (!q->by_sequence || it->ordinal != q->epoch)
		return false;
	if (it->dispatch)
		return (uint32_t)q->rank < it->dispatch->world;
	const struct aw_process *p =
	    &model->processes[model->loaders[it->loader].process];
	int32_t rank = aw_process_rank_so_far(p);
	return (rank < 0 || rank == q->rank) && !p->started_worker;
}

static bool aw_watch_wants_iteration(void *data, const struct aw_model *model,
				     uint32_t iteration)
{
	struct aw_query_watch *watch = data;
	const struct aw_iteration *it = &model->iterations[iteration];
	bool keep = aw_watch_keeps_sequence(&watch->query, model, it);
	if (keep) {
		AW_GROW(watch->kept, watch->kept_cap, watch->n_kept + 1);
		watch->kept[watch->n_kept++] =
		    (struct aw_kept_sequence){.iteration = iteration};
	}
	return watch->query.by_sample || keep;
}

static struct aw_sequence *aw_watch_kept(struct aw_query_watch *watch,
					 uint32_t iteration)
{
	if (watch->last_kept < watch->n_kept &&
	    watch->kept[watch->last_kept].iteration == iteration)
		return &watch->kept[watch->last_kept].sequence;
	for (size_t i = 0; i < watch->n_kept; i++) {
		if (watch->kept[i].iteration == iteration) {
			watch->last_kept = i;
			return &watch->kept[i].sequence;
		}
	}
	return NULL;
}

static int64_t aw_read_index(const struct aw_read *read, size_t i)
{
	return read->wide ? read->wide[i] : (int64_t)read->indices[i];
}

static void aw_watch_hits(struct aw_query_watch *watch,
			  const struct aw_read *read)
{
	for (size_t i = 0; i < read->count; i++) {
		if (aw_read_index(read, i) != (int64_t)watch->query.sample)
			continue;
		struct aw_hit hit = {.kind = read->kind,
				     .process = read->process,
				     .loader = read->loader,
				     .loader_id = read->loader_id,
				     .iteration = read->epoch,
				     .batch = read->batch,
				     .position = read->offset + (uint32_t)i,
				     .worker_id = read->worker_id,
				     .to_rank = read->to_rank};
		aw_query_results_add(&watch->hits, &hit);
	}
}

static void aw_watch_on_read(void *data, const struct aw_read *read)
{
	struct aw_query_watch *watch = data;
	if (watch->query.by_sample)
		aw_watch_hits(watch, read);
	bool consumed = read->kind == AW_READ_CONSUMED ||
			(read->kind == AW_READ_DISPATCHED &&
			 read->to_rank == watch->query.rank);
	if (!consumed || read->iteration == AW_NONE)
		return;
	struct aw_sequence *sequence = aw_watch_kept(watch, read->iteration);
	if (sequence)
		aw_sequence_add_batch(sequence, read->indices, read->wide,
				      read->count);
}

struct aw_model_observer aw_query_watch_observer(struct aw_query_watch *watch)
{
	return (struct aw_model_observer){
	    .data = watch,
	    .wants_iteration = aw_watch_wants_iteration,
	    .wants_fetches = watch->query.by_sample,
	    .on_read = aw_watch_on_read};
}
