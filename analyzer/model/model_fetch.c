/* SPDX-License-Identifier: MIT */
/* The model's DataLoader worker events (worker_start, worker_fetch,
 * item_fetch, worker_fetch_end): what each worker was fetching last, and
 * the fetches told to the observer and the dispatcher's rebuild. */
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "model_events.h"
#include "util.h"

/* Whether a fetch chunk starts a new fetch rather than continuing the one
 * kept: another fetch, or its first chunk again. */
static bool aw_fetch_starts(const struct aw_process *p,
			    const struct aw_event *event)
{
	const struct aw_event_chunk *c = &event->u.chunk;
	return !p->any_fetch || c->offset == 0 ||
	       p->last_fetch_items != (event->kind == AW_EVENT_ITEM_FETCH) ||
	       p->last_fetch_loader != c->loader ||
	       p->last_fetch_iteration != c->iteration ||
	       p->last_fetch.ordinal != c->batch;
}

/* The index maps of the loader a worker fetches for (its loader_pid's, else
 * its parent's), NULL when it has none or they are not known yet. */
static const struct aw_mapping *aw_worker_mapping(const struct aw_model *model,
						  const struct aw_process *p,
						  uint32_t loader_id)
{
	int32_t owner =
	    p->worker_loader_pid > 0 ? p->worker_loader_pid : p->ppid;
	if (owner < 0)
		return NULL;
	uint32_t process = aw_index_map_get(&model->process_index,
					    aw_key2(p->space, (uint32_t)owner));
	if (process == AW_NONE)
		return NULL;
	uint32_t loader =
	    aw_index_map_get(&model->loader_index, aw_key2(process, loader_id));
	if (loader == AW_NONE)
		return NULL;
	const struct aw_mapping *m = model->loaders[loader].mapping;
	return m && m->n_levels ? m : NULL;
}

/* A worker's fetch chunk, to the observer: in dataset indices when its
 * loader maps positions (what it draws) onto them. */
static void aw_model_tell_fetch(struct aw_model *model, uint32_t process,
				const struct aw_event *event)
{
	const struct aw_event_chunk *c = &event->u.chunk;
	bool narrow = event->kind == AW_EVENT_WORKER_FETCH;
	const struct aw_mapping *mapping =
	    narrow ? aw_worker_mapping(model, &model->processes[process],
				       c->loader)
		   : NULL;
	const uint32_t *indices = narrow ? event->values.u32 : NULL;
	const int64_t *wide = narrow ? NULL : event->values.i64;
	uint64_t *mapped = NULL;
	if (mapping) {
		mapped = aw_xcalloc(event->count ? event->count : 1,
				    sizeof(*mapped));
		for (uint32_t i = 0; i < event->count; i++)
			mapped[i] = aw_mapping_apply(mapping, indices[i]);
		/* Mapped indices are <= INT64_MAX, or AW_UNMAPPED (-1). */
		indices = NULL;
		wide = (const int64_t *)mapped;
	}
	struct aw_read read = {.kind = AW_READ_FETCHED,
			       .process = process,
			       .loader = AW_NONE,
			       .loader_id = c->loader,
			       .iteration = AW_NONE,
			       .epoch = c->iteration,
			       .batch = c->batch,
			       .offset = c->offset,
			       .worker_id = c->worker_id,
			       .to_rank = -1,
			       .indices = indices,
			       .wide = wide,
			       .count = event->count};
	model->observer.on_read(model->observer.data, &read);
	free(mapped);
}

/* worker_fetch and item_fetch: what the process read last, whether that
 * fetch is still open; worker fetches to the observer that wants them. */
static void aw_model_on_fetch(struct aw_model *model, uint32_t process,
			      const struct aw_event *event)
{
	struct aw_process *p = &model->processes[process];
	const struct aw_event_chunk *c = &event->u.chunk;
	bool items = event->kind == AW_EVENT_ITEM_FETCH;
	if (aw_fetch_starts(p, event)) {
		aw_index_head_start(&p->last_fetch, c->batch);
		p->fetch_start_ns = model->clock_ns;
		p->last_fetch_ok = -1;
	}
	p->any_fetch = true;
	p->last_fetch_items = items;
	p->last_fetch_loader = c->loader;
	p->last_fetch_iteration = c->iteration;
	/* item_fetch comes after the items were made: nothing stays open. */
	p->fetch_open = !items;
	aw_index_head_add(
	    &p->last_fetch, c,
	    event->kind == AW_EVENT_WORKER_FETCH ? event->values.u32 : NULL,
	    event->kind == AW_EVENT_WORKER_FETCH_WIDE ? event->values.i64
						      : NULL,
	    event->count);
	if (model->observer.wants_fetches && !items)
		aw_model_tell_fetch(model, process, event);
}

static void aw_model_on_fetch_end(struct aw_process *p,
				  const struct aw_event_fetch_end *e)
{
	if (!p->any_fetch || p->last_fetch_items)
		return;
	p->fetch_open = false;
	bool same = p->last_fetch_loader == e->loader &&
		    p->last_fetch_iteration == e->iteration &&
		    p->last_fetch.ordinal == e->batch;
	p->last_fetch_ok = same ? (e->ok ? 1 : 0) : -1;
}

/* A main-process item_fetch of a dispatched IterableDataset: to the
 * dispatcher of its iteration. */
static void aw_model_dispatch_items(struct aw_model *model, uint32_t process,
				    const struct aw_event *event)
{
	const struct aw_event_chunk *c = &event->u.chunk;
	if (c->worker_id >= 0 || c->iteration == ACCWATCH_UNKNOWN)
		return;
	uint32_t loader =
	    aw_index_map_get(&model->loader_index, aw_key2(process, c->loader));
	if (loader == AW_NONE)
		return;
	uint32_t index = aw_model_iteration(model, loader, c->iteration);
	aw_iteration_dispatch_items(&model->iterations[index],
				    &model->item_ordinals, c, event->values.u64,
				    event->count);
}

void aw_take_worker_start(struct aw_model *model, uint32_t process,
			  const struct aw_event *event)
{
	struct aw_process *p = &model->processes[process];
	const struct aw_event_worker_start *e = &event->u.worker_start;
	p->started_worker = true;
	aw_model_set_known(&p->worker_id, e->worker_id);
	aw_model_set_known(&p->worker_count, e->num_workers);
	if (p->worker_loader == ACCWATCH_UNKNOWN) {
		p->worker_loader = e->loader;
		p->worker_iteration = e->iteration;
		p->worker_loader_pid = e->loader_pid;
	}
}

void aw_take_worker_fetch(struct aw_model *model, uint32_t process,
			  const struct aw_event *event)
{
	struct aw_process *p = &model->processes[process];
	p->fetch_events++;
	p->fetched_indices += event->count;
	aw_model_set_known(&p->worker_id, event->u.chunk.worker_id);
	aw_model_on_fetch(model, process, event);
}

void aw_take_item_fetch(struct aw_model *model, uint32_t process,
			const struct aw_event *event)
{
	struct aw_process *p = &model->processes[process];
	p->item_events++;
	if (event->u.chunk.worker_id >= 0)
		aw_model_set_known(&p->worker_id, event->u.chunk.worker_id);
	aw_model_on_fetch(model, process, event);
	aw_model_dispatch_items(model, process, event);
	aw_item_streams_add(&model->items, process, event->u.chunk.loader,
			    event->u.chunk.iteration, event->u.chunk.worker_id,
			    event->u.chunk.batch, event->values.u64,
			    event->count);
}

void aw_take_worker_fetch_end(struct aw_model *model, uint32_t process,
			      const struct aw_event *event)
{
	struct aw_process *p = &model->processes[process];
	aw_model_set_known(&p->worker_id, event->u.fetch_end.worker_id);
	aw_model_on_fetch_end(p, &event->u.fetch_end);
}
