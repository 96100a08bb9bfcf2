/* SPDX-License-Identifier: MIT */
/* Event intake of the model: each event updates the process, loader object or
 * iteration it names. No event is trusted to come complete or in order. */
#include "model.h"
#include "model_events.h"

#include <stdlib.h>
#include <string.h>

#include "accwatch_events.h"
#include "util.h"

/* A catalogue field the model keeps (AW_OWNED_MEMBER), with X the struct
 * pointer holding it: freed, set to its absent value, and copied from an
 * event `e` of the field's list (strings duplicated). */
#define AW_OWNED_FREE_u8(field)
#define AW_OWNED_FREE_i8(field)
#define AW_OWNED_FREE_u32(field)
#define AW_OWNED_FREE_i32(field)
#define AW_OWNED_FREE_u64(field)
#define AW_OWNED_FREE_i64(field)
#define AW_OWNED_FREE_str(field) free(field);
#define AW_OWNED_FREE(X, kind, name, absent) AW_OWNED_FREE_##kind((X)->name)
#define AW_OWNED_ABSENT_NUMBER(field, absent) (field) = (absent);
#define AW_OWNED_ABSENT_u8 AW_OWNED_ABSENT_NUMBER
#define AW_OWNED_ABSENT_i8 AW_OWNED_ABSENT_NUMBER
#define AW_OWNED_ABSENT_u32 AW_OWNED_ABSENT_NUMBER
#define AW_OWNED_ABSENT_i32 AW_OWNED_ABSENT_NUMBER
#define AW_OWNED_ABSENT_u64 AW_OWNED_ABSENT_NUMBER
#define AW_OWNED_ABSENT_i64 AW_OWNED_ABSENT_NUMBER
#define AW_OWNED_ABSENT_str(field, absent) (field) = NULL;
#define AW_OWNED_ABSENT(X, kind, name, absent)                                 \
	AW_OWNED_ABSENT_##kind((X)->name, absent)
#define AW_OWNED_COPY_NUMBER(field, value) (field) = (value);
#define AW_OWNED_COPY_u8 AW_OWNED_COPY_NUMBER
#define AW_OWNED_COPY_i8 AW_OWNED_COPY_NUMBER
#define AW_OWNED_COPY_u32 AW_OWNED_COPY_NUMBER
#define AW_OWNED_COPY_i32 AW_OWNED_COPY_NUMBER
#define AW_OWNED_COPY_u64 AW_OWNED_COPY_NUMBER
#define AW_OWNED_COPY_i64 AW_OWNED_COPY_NUMBER
#define AW_OWNED_COPY_str(field, value) aw_set_string(&(field), (value));
#define AW_OWNED_COPY(X, kind, name, absent)                                   \
	AW_OWNED_COPY_##kind((X)->name, e->name)

struct aw_model *aw_model_create(void)
{
	struct aw_model *model = aw_xcalloc(1, sizeof(*model));
	aw_index_map_init(&model->space_index);
	aw_index_map_init(&model->process_index);
	aw_index_map_init(&model->loader_index);
	aw_index_map_init(&model->item_ordinals);
	aw_index_map_init(&model->iteration_index);
	aw_item_streams_init(&model->items);
	model->world_size = -1;
	model->clock_ns = -1;
	model->mapping_budget = AW_MAPPING_ENTRIES_MAX;
	return model;
}

void aw_model_take_runs(struct aw_model *model,
			const struct aw_run_choice *runs)
{
	model->runs_taken = *runs;
}

void aw_model_observe(struct aw_model *model,
		      const struct aw_model_observer *observer)
{
	model->observer = *observer;
}

void aw_model_forget_derived(struct aw_model *model)
{
	for (size_t i = 0; i < model->n_loaders_global; i++) {
		struct aw_global_loader *g = &model->loaders_global[i];
		for (size_t e = 0; e < g->n_epochs; e++)
			aw_epoch_fini(&g->epochs[e]);
		free(g->epochs);
		free(g->members);
		free(g->len_reported);
	}
	free(model->loaders_global);
	model->loaders_global = NULL;
	model->n_loaders_global = 0;
	free(model->ranks);
	model->ranks = NULL;
	model->n_ranks = 0;
	free(model->runs);
	model->runs = NULL;
	model->n_runs = 0;
	model->world_size = -1;
	model->ranks_inferred = model->ranks_from_samplers = false;
	model->unranked_processes = 0;
	model->index_out_of_range = model->index_unrepresentable = 0;
	for (size_t i = 0; i < model->n_processes; i++) {
		struct aw_process *p = &model->processes[i];
		p->parent = AW_NONE;
		p->owner = AW_NONE;
		p->is_worker = p->rank_inferred = false;
		p->rank = -1;
		p->iterations = 0;
		p->attempt = 0;
	}
	model->n_attempts = 1;
	for (size_t i = 0; i < model->n_loaders; i++) {
		struct aw_loader *l = &model->loaders[i];
		l->global = AW_NONE;
		l->stream_prev = AW_NONE;
		l->stream_head = (uint32_t)i;
		l->stream_offset = 0;
	}
	for (size_t i = 0; i < model->n_iterations; i++)
		model->iterations[i].epoch = model->iterations[i].ordinal;
	for (size_t i = 0; i < model->items.n; i++) {
		model->items.streams[i].global = AW_NONE;
		model->items.streams[i].rank = -1;
	}
}

void aw_model_destroy(struct aw_model *model)
{
	if (!model)
		return;
	aw_model_forget_derived(model);
	free(model->cut_event);
	free(model->cut_field);
	for (size_t i = 0; i < model->n_iterations; i++)
		aw_iteration_fini(&model->iterations[i]);
	free(model->iterations);
	for (size_t i = 0; i < model->n_loaders; i++) {
		struct aw_loader *l = &model->loaders[i];
		ACCWATCH_FIELDS_loader_new(AW_OWNED_FREE, l);
		free(l->wrap_kind);
		for (size_t c = 0; c < l->n_len_calls; c++)
			free(l->len_calls[c].site);
		for (size_t c = 0; c < AW_SAMPLER_CHAIN_MAX; c++)
			free(l->chain[c].class_name);
		for (size_t c = 0; c < AW_STREAM_LINKS_MAX; c++)
			free(l->stream[c].class_name);
		aw_mapping_free(l->mapping);
		free(l->len_calls);
	}
	free(model->loaders);
	free(model->drop_last_shards);
	for (size_t i = 0; i < model->n_processes; i++) {
		struct aw_process *p = &model->processes[i];
		free(p->rank_source);
		free(p->host);
		free(p->role);
		free(p->argv);
		for (uint32_t g = 0; g < p->n_groups; g++)
			free(p->groups[g].ranks);
		free(p->groups);
		free(p->exception_type);
		free(p->exception_message);
		free(p->exception_site);
	}
	free(model->processes);
	for (size_t i = 0; i < model->n_forks; i++) {
		free(model->forks[i].thread_names);
		free(model->forks[i].py_stack);
		free(model->forks[i].native_stack);
		free(model->forks[i].py_threads);
	}
	free(model->forks);
	free(model->joins);
	aw_item_streams_fini(&model->items);
	for (size_t i = 0; i < model->stats.n_discards; i++)
		free(model->stats.discards[i].stream);
	free(model->stats.discards);
	free(model->stats.stalls);
	free(model->stats.unregistered);
	for (size_t i = 0; i < model->stats.n_trace_runs; i++)
		free(model->stats.trace_runs[i].dir);
	free(model->stats.trace_runs);
	aw_index_map_fini(&model->space_index);
	aw_index_map_fini(&model->process_index);
	aw_index_map_fini(&model->loader_index);
	aw_index_map_fini(&model->item_ordinals);
	aw_index_map_fini(&model->iteration_index);
	free(model);
}

static void aw_set_string(char **field, const char *value)
{
	free(*field);
	*field = aw_xstrdup(value);
}

/* Keeps a known value: later events may know less than earlier ones. */
void aw_model_set_known(int32_t *field, int32_t value)
{
	if (value >= 0)
		*field = value;
}

/* pids are unique per host and run: (source, run) names the namespace. */
static uint32_t aw_model_space(struct aw_model *model, uint32_t source,
			       uint32_t run)
{
	uint64_t key = aw_key2(source, run);
	uint32_t space = aw_index_map_get(&model->space_index, key);
	if (space == AW_NONE) {
		space = (uint32_t)model->space_index.count;
		aw_index_map_put(&model->space_index, key, space);
	}
	return space;
}

static uint32_t aw_model_process(struct aw_model *model, uint32_t source,
				 uint32_t run, int32_t pid)
{
	uint32_t space = aw_model_space(model, source, run);
	uint64_t key = aw_key2(space, (uint32_t)pid);
	uint32_t index = aw_index_map_get(&model->process_index, key);
	if (index != AW_NONE)
		return index;
	AW_GROW(model->processes, model->processes_cap, model->n_processes + 1);
	index = (uint32_t)model->n_processes++;
	struct aw_process *p = &model->processes[index];
	memset(p, 0, sizeof(*p));
	p->space = space;
	p->source = source;
	p->run = run;
	p->pid = pid;
	p->ppid = -1;
	p->parent = AW_NONE;
	p->env_rank = p->dist_rank = p->local_rank = -1;
	p->world_size = p->dist_world_size = -1;
	p->worker_id = -1;
	p->exit_status = p->exit_signal = -1;
	p->rank = -1;
	p->worker_loader = p->worker_iteration = ACCWATCH_UNKNOWN;
	p->worker_loader_pid = -1;
	p->worker_count = -1;
	p->owner = AW_NONE;
	p->last_fetch_ok = -1;
	p->fetch_start_ns = p->exit_ns = -1;
	p->first_ns = p->last_ns = -1;
	p->open_join = AW_NONE;
	p->scheduler_steps = -1;
	aw_index_map_put(&model->process_index, key, index);
	return index;
}

static uint32_t aw_model_loader(struct aw_model *model, uint32_t process,
				uint32_t id)
{
	uint64_t key = aw_key2(process, id);
	uint32_t index = aw_index_map_get(&model->loader_index, key);
	if (index != AW_NONE)
		return index;
	AW_GROW(model->loaders, model->loaders_cap, model->n_loaders + 1);
	index = (uint32_t)model->n_loaders++;
	struct aw_loader *l = &model->loaders[index];
	memset(l, 0, sizeof(*l));
	l->process = process;
	l->id = id;
	ACCWATCH_FIELDS_loader_new(AW_OWNED_ABSENT, l);
	l->loader = id;
	l->split_batches = l->even_batches = -1;
	l->wrap_num_processes = l->wrap_process_index = -1;
	l->wrap_inner = AW_NONE;
	l->wrapper = AW_NONE;
	l->built_from = AW_NONE;
	l->dispatch_drop_last = -1;
	l->last_iteration = AW_NONE;
	l->last_len = -1;
	l->global = AW_NONE;
	l->stream_prev = AW_NONE;
	l->stream_head = index;
	aw_index_map_put(&model->loader_index, key, index);
	return index;
}

/* How many drawn batches may still be prefetched ones: torch draws
 * prefetch_factor x num_workers batches ahead; accelerate one more. */
static uint32_t aw_loader_window(const struct aw_loader *l)
{
	if (!l->described)
		return 256;
	uint32_t prefetch =
	    l->prefetch_factor > 0 ? (uint32_t)l->prefetch_factor : 2;
	uint32_t workers = l->num_workers > 0 ? (uint32_t)l->num_workers : 1;
	uint64_t window = 2ull * prefetch * workers + 16;
	return (uint32_t)AW_MIN(window, 4096);
}

/* At most how many drawn batches the loop has not got yet: the workers'
 * prefetch (none without workers: the loop gets each batch as it is
 * drawn), and one more for a loader in an accelerate wrap, which fetches
 * one ahead; 256 when the loader is not described. */
static uint32_t aw_loader_ahead(const struct aw_loader *l)
{
	if (!l->described)
		return 256;
	uint32_t prefetch =
	    l->prefetch_factor > 0 ? (uint32_t)l->prefetch_factor : 2;
	uint64_t workers = l->num_workers > 0 ? (uint64_t)l->num_workers : 0;
	uint64_t wrap = l->wraps || l->wrapped;
	return (uint32_t)AW_MIN(prefetch * workers + wrap, 4096);
}

/* The dispatcher wrapping a loader (accelerate: the outer loader whose
 * base_dataloader it is; v0.2x: the loader itself), or NULL. */
static const struct aw_loader *aw_dispatcher_of(const struct aw_model *model,
						const struct aw_loader *l)
{
	const struct aw_loader *outer = l;
	if (!l->wraps && l->wrapper != AW_NONE)
		outer = &model->loaders[l->wrapper];
	if (!outer->wraps || !outer->wrap_kind ||
	    !strstr(outer->wrap_kind, "dispatch"))
		return NULL;
	return outer;
}

int32_t aw_process_rank_so_far(const struct aw_process *p)
{
	return p->dist_rank >= 0 ? p->dist_rank : p->env_rank;
}

/* What a new iteration must keep beyond its sample set: the dispatcher's
 * shares on rank 0; and whom to tell its reads, when the observer asks. */
static void aw_model_prepare_iteration(struct aw_model *model, uint32_t index,
				       uint32_t loader)
{
	struct aw_iteration *it = &model->iterations[index];
	const struct aw_loader *l = &model->loaders[loader];
	it->mapping = l->mapping;
	const struct aw_loader *dispatcher = aw_dispatcher_of(model, l);
	/* An IterableDataset has no indices to slice: its item fingerprints
	 * are, when this process reads them (no workers). */
	if (dispatcher && dispatcher->wrap_num_processes >= 2 &&
	    dispatcher->wrap_process_index == 0 &&
	    (!l->iterable || l->num_workers == 0)) {
		aw_iteration_dispatch(it,
				      (uint32_t)dispatcher->wrap_num_processes,
				      dispatcher->split_batches == 1);
		it->dispatch_items = l->iterable;
	}

	const struct aw_model_observer *o = &model->observer;
	if (!o->wants_iteration || !o->wants_iteration(o->data, model, index))
		return;
	struct aw_read template = {.process = l->process,
				   .loader = loader,
				   .iteration = index,
				   .epoch = it->ordinal,
				   .worker_id = -1,
				   .to_rank = -1};
	aw_iteration_observe(it, o, &template);
}

uint32_t aw_model_iteration(struct aw_model *model, uint32_t loader,
			    uint32_t ordinal)
{
	struct aw_loader *l = &model->loaders[loader];
	if (ordinal == ACCWATCH_UNKNOWN) {
		if (l->last_iteration != AW_NONE)
			return l->last_iteration;
		ordinal = 0;
	}
	uint64_t key = aw_key2(loader, ordinal);
	uint32_t index = aw_index_map_get(&model->iteration_index, key);
	if (index != AW_NONE)
		return index;
	AW_GROW(model->iterations, model->iterations_cap,
		model->n_iterations + 1);
	index = (uint32_t)model->n_iterations++;
	aw_iteration_init(&model->iterations[index], loader, ordinal,
			  aw_loader_window(l));
	model->iterations[index].ahead = aw_loader_ahead(l);
	aw_model_prepare_iteration(model, index, loader);
	aw_index_map_put(&model->iteration_index, key, index);
	l->last_iteration = index;
	l->n_iterations++;
	return index;
}

static void aw_model_on_process(struct aw_model *model, struct aw_process *p,
				const struct aw_event_process *e)
{
	(void)model;
	p->described = true;
	aw_model_set_known(&p->ppid, e->ppid);
	aw_model_set_known(&p->env_rank, e->rank);
	aw_model_set_known(&p->local_rank, e->local_rank);
	aw_model_set_known(&p->world_size, e->world_size);
	if (e->rank_source && *e->rank_source)
		aw_set_string(&p->rank_source, e->rank_source);
	if (e->host && *e->host)
		aw_set_string(&p->host, e->host);
	if (e->role && *e->role)
		aw_set_string(&p->role, e->role);
	if (e->argv && *e->argv)
		aw_set_string(&p->argv, e->argv);
}

/* A process group of p: its comma-separated member ranks, parsed; a list
 * that is not one (an absurd or damaged value) is left out. */
static void aw_model_on_dist_group(struct aw_process *p,
				   const struct aw_event_dist_group *e)
{
	const char *s = e->ranks ? e->ranks : "";
	uint32_t n = *s ? 1 : 0;
	for (const char *c = s; *c; c++)
		n += *c == ',';
	if (n == 0 || n > AW_RANK_GROUP_MAX)
		return;
	int32_t *ranks = aw_xcalloc(n, sizeof(*ranks));
	for (uint32_t i = 0; i < n; i++) {
		char *end;
		long r = strtol(s, &end, 10);
		if (end == s || r < 0 || r > INT32_MAX ||
		    (*end != ',' && *end != '\0')) {
			free(ranks);
			return;
		}
		ranks[i] = (int32_t)r;
		s = *end ? end + 1 : end;
	}
	aw_sort(ranks, n, sizeof(*ranks), aw_compare_int32);
	AW_GROW(p->groups, p->groups_cap, p->n_groups + 1);
	p->groups[p->n_groups++] = (struct aw_rank_group){ranks, n};
}

/* The process's uncaught exception; the passes still open then are the
 * ones it was inside (their iter_end may come later: the traceback keeps
 * the loop's frame, and so its iterator, alive while it is printed). */
static void aw_model_on_exception(struct aw_model *model, uint32_t process,
				  const struct aw_event_exception *e)
{
	struct aw_process *p = &model->processes[process];
	aw_set_string(&p->exception_type, e->type_name);
	aw_set_string(&p->exception_message, e->message);
	aw_set_string(&p->exception_site, e->site);
	for (size_t i = 0; i < model->n_iterations; i++) {
		struct aw_iteration *it = &model->iterations[i];
		if (!it->ended && model->loaders[it->loader].process == process)
			it->open_at_exception = true;
	}
}

static void aw_model_on_fork(struct aw_model *model, uint32_t process,
			     const struct aw_event_fork *e)
{
	AW_GROW(model->forks, model->forks_cap, model->n_forks + 1);
	struct aw_fork *f = &model->forks[model->n_forks++];
	f->process = process;
	f->child_pid = e->child_pid;
	f->threads = e->threads;
	f->cuda_mapped = e->cuda_mapped;
	f->thread_names = aw_xstrdup(e->thread_names);
	f->py_stack = aw_xstrdup(e->py_stack);
	f->native_stack = aw_xstrdup(e->native_stack);
	f->py_threads = aw_xstrdup(e->py_threads);
}

static void aw_model_on_loader_new(struct aw_loader *l,
				   const struct aw_event_loader_new *e)
{
	l->described = true;
	ACCWATCH_FIELDS_loader_new(AW_OWNED_COPY, l);
}

static void aw_model_on_loader_wrap(struct aw_model *model, uint32_t process,
				    const struct aw_event_loader_wrap *e)
{
	uint32_t outer = aw_model_loader(model, process, e->outer);
	uint32_t inner = aw_model_loader(model, process, e->inner);
	struct aw_loader *l = &model->loaders[outer];
	l->wraps = true;
	l->wrap_inner = inner;
	aw_set_string(&l->wrap_kind, e->kind);
	l->split_batches = e->split_batches;
	l->even_batches = e->even_batches;
	l->wrap_num_processes = e->num_processes;
	l->wrap_process_index = e->process_index;
	if (inner != outer) {
		model->loaders[inner].wrapped = true;
		model->loaders[inner].wrapper = outer;
	}
}

static void aw_model_on_sampler(struct aw_loader *l,
				const struct aw_event_sampler *e)
{
	if (e->depth >= AW_SAMPLER_CHAIN_MAX)
		return;
	struct aw_sampler_link *link = &l->chain[e->depth];
	free(link->class_name);
	*link = (struct aw_sampler_link){
	    .seen = true,
	    .class_name = aw_xstrdup(e->class_name ? e->class_name : ""),
	    .length = e->length,
	    .num_replicas = e->num_replicas,
	    .rank = e->rank,
	    .shuffle = e->shuffle,
	    .drop_last = e->drop_last,
	    .replacement = e->replacement,
	    .seed = e->seed,
	    .epoch = e->epoch,
	    .num_samples = e->num_samples,
	    .batch_size = e->batch_size,
	    .skip = e->skip,
	    .total_size = e->total_size,
	    .object_id = e->object_id,
	    .own_iter = e->own_iter};
	l->n_chain = AW_MAX(l->n_chain, e->depth + 1);
}

static void aw_model_on_stream_shard(struct aw_loader *l,
				     const struct aw_event_stream_shard *e)
{
	if (e->depth >= AW_STREAM_LINKS_MAX)
		return;
	struct aw_stream_link *link = &l->stream[e->depth];
	free(link->class_name);
	*link = (struct aw_stream_link){
	    .seen = true,
	    .class_name = aw_xstrdup(e->class_name ? e->class_name : ""),
	    .num_replicas = e->num_replicas,
	    .rank = e->rank,
	    .batch_size = e->batch_size,
	    .shards = e->shards,
	    .split_batches = e->split_batches,
	    .whole = e->whole};
	l->n_stream = AW_MAX(l->n_stream, e->depth + 1);
}

static void aw_model_on_loader_len(struct aw_loader *l,
				   const struct aw_event_loader_len *e)
{
	const char *site = e->site ? e->site : "";
	l->last_len = e->value;
	for (size_t i = 0; i < l->n_len_calls; i++) {
		if (l->len_calls[i].value == e->value &&
		    strcmp(l->len_calls[i].site, site) == 0) {
			l->len_calls[i].count++;
			return;
		}
	}
	AW_GROW(l->len_calls, l->len_calls_cap, l->n_len_calls + 1);
	struct aw_len_call *call = &l->len_calls[l->n_len_calls++];
	call->value = e->value;
	call->site = aw_xstrdup(site);
	call->count = 1;
}

/* A loop that stops after the len() batches its map-style loader answered
 * (Lightning's fit loop, `zip(range(len(loader)), loader)`) never meets
 * StopIteration, yet it ran the whole epoch. An IterableDataset's len() is
 * only a hint. */
static bool aw_ran_to_len(const struct aw_loader *l, uint32_t yielded)
{
	return !l->iterable && l->last_len > 0 && yielded == l->last_len;
}

/* The batches the loop consumed: what the iterator yielded, or what a
 * wrapper reading ahead handed on of it when the pass was left before its
 * end (once the iterator ran out, the wrapper still hands over the batch
 * it held). */
static uint32_t aw_loop_consumed(const struct aw_event_iter_end *e)
{
	if (!e->exhausted && e->handed >= 0 && (uint64_t)e->handed < e->yielded)
		return (uint32_t)e->handed;
	return e->yielded;
}

/* join: a Join entered (nested in the one open) or left (the innermost
 * open one; an end without its begin, from a session started inside it,
 * says nothing). */
static void aw_model_on_join(struct aw_model *model, uint32_t process,
			     const struct aw_event_join *e)
{
	struct aw_process *p = &model->processes[process];
	if (!e->begin) {
		if (p->open_join == AW_NONE)
			return;
		struct aw_join *j = &model->joins[p->open_join];
		j->ended = true;
		j->raised = e->raised;
		p->open_join = j->outer;
		return;
	}
	AW_GROW(model->joins, model->joins_cap, model->n_joins + 1);
	model->joins[model->n_joins] = (struct aw_join){
	    .process = process,
	    .joinables = e->joinables,
	    .enable = e->enable,
	    .throw_on_early_termination = e->throw_on_early_termination,
	    .raised = -1,
	    .outer = p->open_join};
	p->open_join = (uint32_t)model->n_joins++;
}

/* Whether a pass ran inside a Join: the one open at its first event that
 * came inside one, unless a batch was drawn outside any (drew). Its
 * iterator may be made before the Join is entered, and an abandoned one
 * ended after it was left: only the draws decide. */
static void aw_iteration_note_join(struct aw_iteration *it,
				   const struct aw_process *p, bool drew)
{
	if (p->open_join != AW_NONE) {
		if (it->join == AW_NONE)
			it->join = p->open_join;
	} else if (drew) {
		it->outside_join = true;
	}
}

static void aw_model_on_chunk(struct aw_model *model, uint32_t process,
			      const struct aw_event *event)
{
	const struct aw_event_chunk *c = &event->u.chunk;
	uint32_t loader = aw_model_loader(model, process, c->loader);
	uint32_t iteration = aw_model_iteration(model, loader, c->iteration);
	struct aw_iteration *it = &model->iterations[iteration];
	uint32_t seen = it->batches_seen;
	aw_iteration_note_join(it, &model->processes[process], true);
	if (event->kind == AW_EVENT_BATCH)
		aw_iteration_add_chunk(it, c, event->values.u32, NULL,
				       event->count);
	else
		aw_iteration_add_chunk(it, c, NULL, event->values.i64,
				       event->count);
	if (it->batches_seen > seen && model->clock_ns >= 0)
		aw_iteration_note_batch_time(it, model->clock_ns);
}

static void aw_take_process(struct aw_model *model, uint32_t process,
			    const struct aw_event *event)
{
	struct aw_process *p = &model->processes[process];
	aw_model_on_process(model, p, &event->u.process);
}

static void aw_take_string_cut(struct aw_model *model, uint32_t process,
			       const struct aw_event *event)
{
	struct aw_process *p = &model->processes[process];
	if (model->strings_cut++ == 0) {
		model->cut_pid = p->pid;
		aw_set_string(&model->cut_event,
			      event->u.string_cut.event_name);
		aw_set_string(&model->cut_field,
			      event->u.string_cut.field_name);
		model->cut_length = event->u.string_cut.length;
	}
}

static void aw_take_dist_init(struct aw_model *model, uint32_t process,
			      const struct aw_event *event)
{
	struct aw_process *p = &model->processes[process];
	aw_model_set_known(&p->dist_rank, event->u.dist_init.rank);
	aw_model_set_known(&p->dist_world_size, event->u.dist_init.world_size);
}

static void aw_take_fork(struct aw_model *model, uint32_t process,
			 const struct aw_event *event)
{
	aw_model_on_fork(model, process, &event->u.fork);
}

static void aw_take_dist_group(struct aw_model *model, uint32_t process,
			       const struct aw_event *event)
{
	struct aw_process *p = &model->processes[process];
	aw_model_on_dist_group(p, &event->u.dist_group);
}

static void aw_take_exec(struct aw_model *model, uint32_t process,
			 const struct aw_event *event)
{
	(void)event;
	struct aw_process *p = &model->processes[process];
	p->execed = true;
}

static void aw_take_exception(struct aw_model *model, uint32_t process,
			      const struct aw_event *event)
{
	aw_model_on_exception(model, process, &event->u.exception);
}

static void aw_take_exit(struct aw_model *model, uint32_t process,
			 const struct aw_event *event)
{
	(void)process;
	int32_t exited_pid = event->u.exit.exited_pid > 0
				 ? event->u.exit.exited_pid
				 : event->pid;
	uint32_t exited =
	    aw_model_process(model, event->source, event->run, exited_pid);
	struct aw_process *q = &model->processes[exited];
	if (!q->exited)
		q->exit_ns = model->clock_ns;
	q->exited = true;
	aw_model_set_known(&q->exit_status, event->u.exit.status);
	aw_model_set_known(&q->exit_signal, event->u.exit.signal);
}

/* The loader `id` of process (made when new). Its index first: making it
 * may move model->loaders, so the array is read after. */
static struct aw_loader *aw_loader_at(struct aw_model *model, uint32_t process,
				      uint32_t id)
{
	uint32_t index = aw_model_loader(model, process, id);
	return &model->loaders[index];
}

static void aw_take_loader_new(struct aw_model *model, uint32_t process,
			       const struct aw_event *event)
{
	aw_model_on_loader_new(
	    aw_loader_at(model, process, event->u.loader_new.loader),
	    &event->u.loader_new);
}

static void aw_take_loader_wrap(struct aw_model *model, uint32_t process,
				const struct aw_event *event)
{
	aw_model_on_loader_wrap(model, process, &event->u.loader_wrap);
}

static void aw_take_dataset_map(struct aw_model *model, uint32_t process,
				const struct aw_event *event)
{
	/* The loader is found (and maybe grown) before the array is
	 * read: a new one may move it. */
	uint32_t loader =
	    aw_model_loader(model, process, event->u.dataset_map.loader);
	struct aw_loader *l = &model->loaders[loader];
	if (!l->mapping)
		l->mapping = aw_xcalloc(1, sizeof(*l->mapping));
	if (!aw_mapping_add(l->mapping, event, &model->mapping_budget))
		model->mapping_parts_left_out++;
}

static void aw_take_sampler(struct aw_model *model, uint32_t process,
			    const struct aw_event *event)
{
	aw_model_on_sampler(
	    aw_loader_at(model, process, event->u.sampler.loader),
	    &event->u.sampler);
}

static void aw_take_stream_shard(struct aw_model *model, uint32_t process,
				 const struct aw_event *event)
{
	aw_model_on_stream_shard(
	    aw_loader_at(model, process, event->u.stream_shard.loader),
	    &event->u.stream_shard);
}

static void aw_take_loader_len(struct aw_model *model, uint32_t process,
			       const struct aw_event *event)
{
	aw_model_on_loader_len(
	    aw_loader_at(model, process, event->u.loader_len.loader),
	    &event->u.loader_len);
}

static void aw_take_iter_begin(struct aw_model *model, uint32_t process,
			       const struct aw_event *event)
{
	struct aw_process *p = &model->processes[process];
	const struct aw_event_iter_begin *e = &event->u.iter_begin;
	uint32_t loader = aw_model_loader(model, process, e->loader);
	uint32_t iteration = aw_model_iteration(model, loader, e->iteration);
	struct aw_iteration *it = &model->iterations[iteration];
	it->began = true;
	it->sampler_epoch = e->sampler_epoch;
	it->dataset_epoch = e->dataset_epoch;
	it->seed = e->seed;
	it->resumed = e->resumed;
	aw_iteration_note_join(it, p, false);
}

static void aw_take_batch(struct aw_model *model, uint32_t process,
			  const struct aw_event *event)
{
	aw_model_on_chunk(model, process, event);
}

static void aw_take_iter_end(struct aw_model *model, uint32_t process,
			     const struct aw_event *event)
{
	struct aw_process *p = &model->processes[process];
	const struct aw_event_iter_end *e = &event->u.iter_end;
	uint32_t loader = aw_model_loader(model, process, e->loader);
	uint32_t iteration = aw_model_iteration(model, loader, e->iteration);
	struct aw_iteration *it = &model->iterations[iteration];
	aw_iteration_note_join(it, p, false);
	uint32_t consumed = aw_loop_consumed(e);
	aw_iteration_end(it, e->drawn, consumed,
			 e->exhausted ||
			     aw_ran_to_len(&model->loaders[loader], consumed));
}
static void aw_take_join(struct aw_model *model, uint32_t process,
			 const struct aw_event *event)
{
	aw_model_on_join(model, process, &event->u.join);
}

static void aw_take_scheduler(struct aw_model *model, uint32_t process,
			      const struct aw_event *event)
{
	const struct aw_event_scheduler *e = &event->u.scheduler;
	struct aw_process *p = &model->processes[process];
	/* accelerate's count, else the world the environment gave. */
	int32_t processes =
	    e->num_processes > 0 ? e->num_processes : p->world_size;
	int32_t steps = e->step_with_optimizer == 1 && e->split_batches == 0
			    ? AW_MAX(processes, 0)
			    : 1;
	p->scheduler_steps = AW_MAX(p->scheduler_steps, steps);
}

/* What the model does with each kind of event; a kind it has no use for
 * (the _packed ones, which the reader hands on as the plain or _wide event)
 * is counted in stats.by_kind and left. */
typedef void aw_event_handler(struct aw_model *model, uint32_t process,
			      const struct aw_event *event);
static aw_event_handler *const aw_event_handlers[AW_EVENT_KIND_COUNT] = {
    [AW_EVENT_PROCESS] = aw_take_process,
    [AW_EVENT_STRING_CUT] = aw_take_string_cut,
    [AW_EVENT_DIST_INIT] = aw_take_dist_init,
    [AW_EVENT_FORK] = aw_take_fork,
    [AW_EVENT_DIST_GROUP] = aw_take_dist_group,
    [AW_EVENT_EXEC] = aw_take_exec,
    [AW_EVENT_EXCEPTION] = aw_take_exception,
    [AW_EVENT_EXIT] = aw_take_exit,
    [AW_EVENT_LOADER_NEW] = aw_take_loader_new,
    [AW_EVENT_LOADER_WRAP] = aw_take_loader_wrap,
    [AW_EVENT_DATASET_MAP] = aw_take_dataset_map,
    [AW_EVENT_DATASET_MAP_WIDE] = aw_take_dataset_map,
    [AW_EVENT_SAMPLER] = aw_take_sampler,
    [AW_EVENT_STREAM_SHARD] = aw_take_stream_shard,
    [AW_EVENT_LOADER_LEN] = aw_take_loader_len,
    [AW_EVENT_ITER_BEGIN] = aw_take_iter_begin,
    [AW_EVENT_BATCH] = aw_take_batch,
    [AW_EVENT_BATCH_WIDE] = aw_take_batch,
    [AW_EVENT_ITER_END] = aw_take_iter_end,
    [AW_EVENT_WORKER_START] = aw_take_worker_start,
    [AW_EVENT_WORKER_FETCH] = aw_take_worker_fetch,
    [AW_EVENT_WORKER_FETCH_WIDE] = aw_take_worker_fetch,
    [AW_EVENT_ITEM_FETCH] = aw_take_item_fetch,
    [AW_EVENT_WORKER_FETCH_END] = aw_take_worker_fetch_end,
    [AW_EVENT_JOIN] = aw_take_join,
    [AW_EVENT_SCHEDULER] = aw_take_scheduler,
};

void aw_model_add_event(struct aw_model *model, const struct aw_event *event)
{
	if ((unsigned)event->kind >= AW_EVENT_KIND_COUNT) {
		model->bad_events++;
		return;
	}
	if (event->count && !event->values.u32) {
		model->bad_events++;
		return;
	}
	if (!aw_run_choice_keeps(&model->runs_taken, event->run)) {
		model->stats.other_run_events++;
		return;
	}
	model->stats.by_kind[event->kind]++;
	uint32_t process =
	    aw_model_process(model, event->source, event->run, event->pid);
	struct aw_process *p = &model->processes[process];
	p->events++;
	if (model->clock_ns >= 0) {
		if (p->first_ns < 0)
			p->first_ns = model->clock_ns;
		p->last_ns = model->clock_ns;
	}

	if (aw_event_handlers[event->kind])
		aw_event_handlers[event->kind](model, process, event);
}

void aw_model_note_trace_run(struct aw_model *model, const char *dir,
			     uint32_t run)
{
	struct aw_trace_stats *s = &model->stats;
	dir = dir ? dir : "";
	for (size_t i = 0; i < s->n_trace_runs; i++)
		if (s->trace_runs[i].run == run &&
		    strcmp(s->trace_runs[i].dir, dir) == 0)
			return;
	AW_GROW(s->trace_runs, s->trace_runs_cap, s->n_trace_runs + 1);
	s->trace_runs[s->n_trace_runs].dir = aw_xstrdup(dir);
	s->trace_runs[s->n_trace_runs++].run = run;
}

void aw_model_set_clock(struct aw_model *model, int64_t ns)
{
	/* The muxer orders events by time; a clock going back (another
	 * trace's skewed clock) must not make durations negative. */
	if (ns > model->clock_ns)
		model->clock_ns = ns;
}

bool aw_model_knows_fetch_ends(const struct aw_model *model)
{
	return (model->stats.declared_kinds &
		((uint64_t)1 << AW_EVENT_WORKER_FETCH_END)) ||
	       model->stats.by_kind[AW_EVENT_WORKER_FETCH_END] > 0;
}

uint64_t aw_model_accwatch_events(const struct aw_model *model)
{
	uint64_t total = 0;
	for (int k = 0; k < AW_EVENT_KIND_COUNT; k++)
		total += model->stats.by_kind[k];
	return total;
}

const struct aw_loader *aw_model_describe(const struct aw_model *model,
					  const struct aw_global_loader *loader)
{
	return &model->loaders[loader->representative];
}

int64_t aw_epoch_to_cover(const struct aw_loader *desc,
			  const struct aw_epoch *epoch)
{
	if (epoch->gaps.judged)
		return epoch->base_len;
	return epoch->mapped ? (int64_t)epoch->expected_count
			     : desc->dataset_len;
}

const struct aw_loader *aw_model_cell_loader(const struct aw_model *model,
					     const struct aw_cell *cell)
{
	return &model->loaders[model->iterations[cell->iteration].loader];
}

const struct aw_process *aw_model_cell_process(const struct aw_model *model,
					       const struct aw_cell *cell)
{
	return &model->processes[aw_model_cell_loader(model, cell)->process];
}

uint32_t aw_model_find_loader(const struct aw_model *model, uint32_t process,
			      uint32_t id)
{
	return aw_index_map_get(&model->loader_index, aw_key2(process, id));
}

uint32_t aw_model_epoch(const struct aw_model *model, uint32_t loader,
			uint32_t ordinal)
{
	if (ordinal == ACCWATCH_UNKNOWN || loader >= model->n_loaders)
		return ordinal;
	return model->loaders[loader].stream_offset + ordinal;
}

uint32_t aw_model_iterated_loader(const struct aw_model *model, uint32_t loader)
{
	/* Outer loaders of accelerate hand their passes to the inner one. */
	for (int depth = 0; depth < 4; depth++) {
		const struct aw_loader *l = &model->loaders[loader];
		if (!l->wraps || l->wrap_inner == AW_NONE ||
		    l->wrap_inner == loader)
			break;
		loader = l->wrap_inner;
	}
	return loader;
}

struct aw_epoch *aw_model_find_epoch(const struct aw_global_loader *loader,
				     uint32_t epoch)
{
	size_t low = 0, high = loader->n_epochs;
	while (low < high) {
		size_t mid = low + (high - low) / 2;
		if (loader->epochs[mid].epoch < epoch)
			low = mid + 1;
		else
			high = mid;
	}
	if (low < loader->n_epochs && loader->epochs[low].epoch == epoch)
		return &loader->epochs[low];
	return NULL;
}

const struct aw_cell *aw_model_cell(const struct aw_global_loader *loader,
				    uint32_t epoch, int32_t rank)
{
	const struct aw_epoch *ep = aw_model_find_epoch(loader, epoch);
	if (!ep)
		return NULL;
	for (size_t c = 0; c < ep->n_cells; c++)
		if (ep->cells[c].rank == rank)
			return &ep->cells[c];
	return NULL;
}

bool aw_model_judged(const struct aw_model *model)
{
	return model->n_iterations > 0;
}
