/* SPDX-License-Identifier: MIT */
/* Event builders for the unit tests: plain struct aw_event values, as the
 * reader makes them from a trace. */
#include "stream.h"

#include <criterion/criterion.h>

#include <stdlib.h>
#include <string.h>

#include "accwatch_events.h"

#define S_RUN 7u

struct aw_event s_event(enum aw_event_kind kind, int32_t pid)
{
	struct aw_event e;
	memset(&e, 0, sizeof(e));
	e.kind = kind;
	e.run = S_RUN;
	e.pid = pid;
	return e;
}

/* Adds the event `kind` of pid whose payload u.member is the initializer
 * of struct aw_event_<member> that follows. */
#define S_ADD(m, kind, pid, member, ...)                                       \
	do {                                                                   \
		struct aw_event e_ = s_event(kind, pid);                       \
		e_.u.member = (struct aw_event_##member){__VA_ARGS__};         \
		aw_model_add_event(m, &e_);                                    \
	} while (0)

void s_process_on(struct aw_model *m, int32_t pid, int32_t ppid, int32_t rank,
		  int32_t world, const char *role, const char *host)
{
	S_ADD(m, AW_EVENT_PROCESS, pid, process, .ppid = ppid, .rank = rank,
	      .local_rank = rank, .world_size = world,
	      .local_world_size = world, .rank_source = rank >= 0 ? "RANK" : "",
	      .host = host, .role = role, .argv = "python train.py",
	      .python = "3.11", .torch = "2.1");
}

void s_process(struct aw_model *m, int32_t pid, int32_t ppid, int32_t rank,
	       int32_t world, const char *role)
{
	s_process_on(m, pid, ppid, rank, world, role, "node0");
}

void s_dist_init(struct aw_model *m, int32_t pid, int32_t rank, int32_t world)
{
	S_ADD(m, AW_EVENT_DIST_INIT, pid, dist_init, .rank = rank,
	      .world_size = world, .backend = "gloo");
}

void s_dist_group(struct aw_model *m, int32_t pid, int32_t rank,
		  const char *ranks)
{
	S_ADD(m, AW_EVENT_DIST_GROUP, pid, dist_group, .rank = rank,
	      .ranks = ranks);
}

void s_worker_start(struct aw_model *m, int32_t pid, int32_t worker_id)
{
	s_worker(m, pid, worker_id, 0, 0);
}

void s_loader(struct aw_model *m, int32_t pid, uint32_t loader,
	      const struct s_loader_opts *o)
{
	S_ADD(m, AW_EVENT_LOADER_NEW, pid, loader_new, .loader = loader,
	      .dataset_id = o->dataset_id ? o->dataset_id : 42,
	      .dataset_len = o->dataset_len, .batch_size = o->batch_size,
	      .iterable = o->iterable, .drop_last = o->drop_last,
	      .shuffle = o->shuffle,
	      .persistent_workers = o->persistent_workers,
	      .num_workers = o->num_workers,
	      .prefetch_factor = o->num_workers > 0 ? 2 : -1,
	      .sampler_replicas = o->sampler_replicas,
	      .sampler_rank = o->sampler_replicas > 0 ? o->sampler_rank : -1,
	      .dataset_type = o->dataset_type ? o->dataset_type : "ToyDataset",
	      .loader_class = o->loader_class ? o->loader_class : "DataLoader",
	      .sampler_class = o->sampler ? o->sampler : "DistributedSampler",
	      .batch_sampler_class =
		  o->batch_sampler ? o->batch_sampler : "BatchSampler",
	      .start_method = "fork", .site = o->site ? o->site : "train.py:10",
	      .stack = "train.py:10 main", .allow = o->allow ? o->allow : "");
}

void s_loader_len(struct aw_model *m, int32_t pid, uint32_t loader,
		  int64_t value)
{
	S_ADD(m, AW_EVENT_LOADER_LEN, pid, loader_len, .loader = loader,
	      .value = value, .site = "train.py:20");
}

void s_loader_wrap(struct aw_model *m, int32_t pid, uint32_t outer,
		   uint32_t inner, const char *kind, int8_t split_batches,
		   int8_t even_batches, int32_t num_processes,
		   int32_t process_index)
{
	S_ADD(m, AW_EVENT_LOADER_WRAP, pid, loader_wrap, .outer = outer,
	      .inner = inner, .split_batches = split_batches,
	      .even_batches = even_batches, .num_processes = num_processes,
	      .process_index = process_index, .kind = kind);
}

void s_fork(struct aw_model *m, int32_t pid, int32_t child, uint32_t threads,
	    const char *thread_names, bool cuda)
{
	s_fork_python(m, pid, child, threads, thread_names, "", cuda);
}

void s_fork_python(struct aw_model *m, int32_t pid, int32_t child,
		   uint32_t threads, const char *thread_names,
		   const char *py_threads, bool cuda)
{
	S_ADD(m, AW_EVENT_FORK, pid, fork, .child_pid = child,
	      .threads = threads, .cuda_mapped = cuda,
	      .thread_names = thread_names, .py_threads = py_threads,
	      .py_stack =
		  "train.py:50 <module>\ntrain.py:40 main\n"
		  "/usr/lib/python3/dist-packages/torch/utils/data/"
		  "dataloader.py:1000 __init__\n"
		  "/usr/lib/python3.11/multiprocessing/popen_fork.py:66 "
		  "_launch",
	      .native_stack = "fork");
}

void s_exit(struct aw_model *m, int32_t pid, int32_t exited, int32_t status,
	    int32_t signal)
{
	S_ADD(m, AW_EVENT_EXIT, pid, exit, .exited_pid = exited,
	      .status = status, .signal = signal);
}

void s_exception(struct aw_model *m, int32_t pid, const char *type_name,
		 const char *message, const char *site)
{
	S_ADD(m, AW_EVENT_EXCEPTION, pid, exception, .type_name = type_name,
	      .message = message, .site = site);
}

void s_exec(struct aw_model *m, int32_t pid)
{
	struct aw_event e = s_event(AW_EVENT_EXEC, pid);
	e.u.exec.path = "/bin/sh";
	aw_model_add_event(m, &e);
}

void s_worker(struct aw_model *m, int32_t pid, int32_t worker_id,
	      uint32_t loader, uint32_t iteration)
{
	S_ADD(m, AW_EVENT_WORKER_START, pid, worker_start,
	      .worker_id = worker_id, .num_workers = 2, .loader = loader,
	      .iteration = iteration);
}

/* One chunk event: values are u32 indices, i64 indices or u64 hashes as the
 * kind says. */
static void s_chunk(struct aw_model *m, enum aw_event_kind kind, int32_t pid,
		    struct aw_event_chunk chunk, const void *values,
		    uint32_t count)
{
	struct aw_event e = s_event(kind, pid);
	e.u.chunk = chunk;
	e.values.u32 = values;
	e.count = count;
	aw_model_add_event(m, &e);
}

/* A worker's fetch in one chunk (fetches are not split like batches). */
static void s_fetch(struct aw_model *m, enum aw_event_kind kind, int32_t pid,
		    int32_t worker_id, uint32_t loader, uint32_t iteration,
		    uint32_t fetch, const void *values, uint32_t count)
{
	s_chunk(m, kind, pid,
		(struct aw_event_chunk){.worker_id = worker_id,
					.loader = loader,
					.iteration = iteration,
					.batch = fetch,
					.total = count},
		values, count);
}

void s_worker_fetch(struct aw_model *m, int32_t pid, int32_t worker_id,
		    uint32_t loader, uint32_t iteration, uint32_t fetch,
		    const uint32_t *indices, uint32_t count)
{
	s_fetch(m, AW_EVENT_WORKER_FETCH, pid, worker_id, loader, iteration,
		fetch, indices, count);
}

void s_worker_fetch_end(struct aw_model *m, int32_t pid, int32_t worker_id,
			uint32_t loader, uint32_t iteration, uint32_t fetch,
			bool ok)
{
	S_ADD(m, AW_EVENT_WORKER_FETCH_END, pid, fetch_end,
	      .worker_id = worker_id, .loader = loader, .iteration = iteration,
	      .batch = fetch, .ok = ok);
}

void s_clock(struct aw_model *m, double seconds)
{
	aw_model_set_clock(m, (int64_t)(seconds * 1e9));
}

void s_item_fetch(struct aw_model *m, int32_t pid, int32_t worker_id,
		  uint32_t loader, uint32_t iteration, uint32_t fetch,
		  const uint64_t *hashes, uint32_t count)
{
	s_fetch(m, AW_EVENT_ITEM_FETCH, pid, worker_id, loader, iteration,
		fetch, hashes, count);
}

void s_join(struct aw_model *m, int32_t pid, bool begin, int8_t enable,
	    int8_t raised)
{
	S_ADD(m, AW_EVENT_JOIN, pid, join, .begin = begin, .joinables = 1,
	      .enable = enable, .throw_on_early_termination = 0,
	      .raised = begin ? -1 : raised);
}

void s_iter_begin(struct aw_model *m, int32_t pid, uint32_t loader,
		  uint32_t iteration)
{
	S_ADD(m, AW_EVENT_ITER_BEGIN, pid, iter_begin, .loader = loader,
	      .iteration = iteration, .sampler_epoch = iteration, .seed = 1);
}

void s_iter_begin_sampler(struct aw_model *m, int32_t pid, uint32_t loader,
			  uint32_t iteration, int64_t sampler_epoch,
			  int64_t seed)
{
	S_ADD(m, AW_EVENT_ITER_BEGIN, pid, iter_begin, .loader = loader,
	      .iteration = iteration, .sampler_epoch = sampler_epoch,
	      .seed = seed, .dataset_epoch = -1);
}

void s_iter_begin_dataset(struct aw_model *m, int32_t pid, uint32_t loader,
			  uint32_t iteration, int64_t dataset_epoch)
{
	S_ADD(m, AW_EVENT_ITER_BEGIN, pid, iter_begin, .loader = loader,
	      .iteration = iteration, .sampler_epoch = -1, .seed = -1,
	      .dataset_epoch = dataset_epoch);
}

/* batch and batch_wide: one part [offset, offset + count) of a batch total
 * indices long. */
static void s_batch_part(struct aw_model *m, enum aw_event_kind kind,
			 int32_t pid, uint32_t loader, uint32_t iteration,
			 uint32_t batch, uint32_t offset, uint32_t total,
			 const void *indices, uint32_t count)
{
	struct aw_event_chunk chunk = {.worker_id = -1,
				       .loader = loader,
				       .iteration = iteration,
				       .batch = batch,
				       .offset = offset,
				       .total = total};
	s_chunk(m, kind, pid, chunk, indices, count);
}

void s_batch(struct aw_model *m, int32_t pid, uint32_t loader,
	     uint32_t iteration, uint32_t batch, uint32_t offset,
	     uint32_t total, const uint32_t *indices, uint32_t count)
{
	s_batch_part(m, AW_EVENT_BATCH, pid, loader, iteration, batch, offset,
		     total, indices, count);
}

void s_batch_wide(struct aw_model *m, int32_t pid, uint32_t loader,
		  uint32_t iteration, uint32_t batch, uint32_t offset,
		  uint32_t total, const int64_t *indices, uint32_t count)
{
	s_batch_part(m, AW_EVENT_BATCH_WIDE, pid, loader, iteration, batch,
		     offset, total, indices, count);
}

void s_iter_end(struct aw_model *m, int32_t pid, uint32_t loader,
		uint32_t iteration, uint32_t drawn, uint32_t yielded,
		bool exhausted)
{
	S_ADD(m, AW_EVENT_ITER_END, pid, iter_end, .loader = loader,
	      .iteration = iteration, .drawn = drawn, .yielded = yielded,
	      .exhausted = exhausted, .handed = -1);
}

void s_iter_end_handed(struct aw_model *m, int32_t pid, uint32_t loader,
		       uint32_t iteration, uint32_t drawn, uint32_t yielded,
		       bool exhausted, int64_t handed)
{
	S_ADD(m, AW_EVENT_ITER_END, pid, iter_end, .loader = loader,
	      .iteration = iteration, .drawn = drawn, .yielded = yielded,
	      .exhausted = exhausted, .handed = handed);
}

void s_iter_begin_resumed(struct aw_model *m, int32_t pid, uint32_t loader,
			  uint32_t iteration, int64_t resumed)
{
	S_ADD(m, AW_EVENT_ITER_BEGIN, pid, iter_begin, .loader = loader,
	      .iteration = iteration, .sampler_epoch = iteration, .seed = 1,
	      .dataset_epoch = -1, .resumed = resumed);
}

void s_epoch(struct aw_model *m, int32_t pid, uint32_t loader,
	     uint32_t iteration, const struct s_epoch *e)
{
	s_iter_begin(m, pid, loader, iteration);
	uint32_t batches = 0;
	for (size_t start = 0; start < e->count;
	     start += e->batch_size, batches++) {
		uint32_t n = (uint32_t)(e->count - start < e->batch_size
					    ? e->count - start
					    : e->batch_size);
		s_batch(m, pid, loader, iteration, batches, 0, n,
			e->indices + start, n);
	}
	uint32_t *extra =
	    calloc(e->batch_size ? e->batch_size : 1, sizeof(*extra));
	for (uint32_t i = 0; i < e->batch_size; i++)
		extra[i] = e->prefetch_index;
	for (uint32_t p = 0; p < e->prefetched; p++)
		s_batch(m, pid, loader, iteration, batches + p, 0,
			e->batch_size, extra, e->batch_size);
	free(extra);
	if (e->end)
		s_iter_end(m, pid, loader, iteration, batches + e->prefetched,
			   batches, !e->abandoned);
}

void s_range(uint32_t *out, uint32_t start, uint32_t count, uint32_t step)
{
	for (uint32_t i = 0; i < count; i++)
		out[i] = start + i * step;
}

void s_ranks(struct aw_model *m, int world, const struct s_loader_opts *o)
{
	s_process(m, 99, 1, -1, world, "launcher");
	for (int r = 0; r < world; r++) {
		s_process(m, 100 + r, 99, r, world, "rank");
		s_dist_init(m, 100 + r, r, world);
		s_loader(m, 100 + r, 0, o);
	}
}

void s_reads(struct aw_model *m, int32_t pid, uint32_t loader,
	     uint32_t iteration, uint32_t begin, uint32_t end, uint32_t b,
	     bool ends)
{
	uint32_t count = end > begin ? end - begin : 0;
	uint32_t *indices = calloc(count ? count : 1, sizeof(*indices));
	s_range(indices, begin, count, 1);
	struct s_epoch e = {
	    .indices = indices, .count = count, .batch_size = b, .end = ends};
	s_epoch(m, pid, loader, iteration, &e);
	free(indices);
}

void s_rank_reads(struct aw_model *m, int rank, uint32_t iteration,
		  uint32_t begin, uint32_t end, uint32_t b)
{
	s_reads(m, 100 + rank, 0, iteration, begin, end, b, true);
}

void s_rank_reads_cut(struct aw_model *m, int rank, uint32_t iteration,
		      uint32_t begin, uint32_t end, uint32_t b)
{
	s_reads(m, 100 + rank, 0, iteration, begin, end, b, false);
}

void s_analyze(struct aw_model *m, struct aw_findings *out)
{
	aw_findings_init(out);
	aw_model_finish(m);
	aw_checks_run(m, out);
	/* Every finding any test makes is one of the table's ids, with a
	 * severity the table gives it. */
	for (size_t i = 0; i < out->n; i++) {
		const struct aw_finding *f = &out->items[i];
		const struct aw_check *c = aw_checks_find(f->id);
		cr_expect(c, "finding %s is not in the checks' table", f->id);
		cr_expect(!c || (c->severities & (1u << f->severity)),
			  "finding %s has severity %s, not one the table "
			  "gives it",
			  f->id, aw_severity_name(f->severity));
	}
}

uint32_t s_loader_of(const struct aw_model *m, int32_t pid, uint32_t id)
{
	for (size_t i = 0; i < m->n_loaders; i++)
		if (m->loaders[i].id == id &&
		    m->processes[m->loaders[i].process].pid == pid)
			return (uint32_t)i;
	return AW_NONE;
}

size_t s_count(const struct aw_findings *f, const char *id)
{
	size_t n = 0;
	for (size_t i = 0; i < f->n; i++)
		n += strcmp(f->items[i].id, id) == 0;
	return n;
}

struct s_run s_run_of(int world, const struct s_loader_opts *o)
{
	struct s_run r = {.model = aw_model_create()};
	if (world > 0)
		s_ranks(r.model, world, o);
	return r;
}

void s_finish(struct s_run *r)
{
	s_analyze(r->model, &r->findings);
}

void s_done(struct s_run *r)
{
	aw_findings_fini(&r->findings);
	aw_model_destroy(r->model);
}

void s_expect_only(const struct aw_findings *f, const char *id)
{
	for (size_t i = 0; i < f->n; i++)
		if (f->items[i].severity != AW_SEVERITY_INFO)
			cr_expect(id && strcmp(f->items[i].id, id) == 0,
				  "unexpected finding %s: %s", f->items[i].id,
				  f->items[i].message);
	if (id)
		cr_expect_gt(s_count(f, id), 0, "no %s finding", id);
}

void s_expect_exactly(const struct aw_findings *f, const char *id)
{
	for (size_t i = 0; i < f->n; i++)
		cr_expect(id && strcmp(f->items[i].id, id) == 0,
			  "unexpected finding %s: %s", f->items[i].id,
			  f->items[i].message);
	if (id)
		cr_expect_gt(s_count(f, id), 0, "no %s finding", id);
}

const struct aw_finding *s_get(const struct s_run *r, const char *id)
{
	const struct aw_finding *f = aw_findings_find(&r->findings, id);
	cr_assert(f, "no %s finding", id);
	cr_expect(f->message && *f->message);
	cr_expect(f->fix && *f->fix, "%s has no fix", id);
	return f;
}

const struct aw_finding *s_finish_get(struct s_run *r, const char *id,
				      enum aw_severity severity)
{
	s_finish(r);
	const struct aw_finding *f = s_get(r, id);
	cr_expect_eq(f->severity, severity, "%s: severity %d", id, f->severity);
	return f;
}

void s_expect_says(const struct aw_finding *f, const char *text)
{
	cr_expect(s_says(f, text), "%s does not say \"%s\":\n%s\n%s\n%s", f->id,
		  text, f->message, f->evidence ? f->evidence : "", f->fix);
}

void s_finish_says(struct s_run *r, const char *id, enum aw_severity severity,
		   const char *text)
{
	s_expect_says(s_finish_get(r, id, severity), text);
}

int64_t s_number(const struct aw_finding *f, const char *name)
{
	for (size_t i = 0; i < f->n_numbers; i++)
		if (strcmp(f->numbers[i].name, name) == 0)
			return f->numbers[i].integer;
	cr_assert_fail("finding %s has no number %s", f->id, name);
	return -1;
}

bool s_has_rank(const struct aw_finding *f, int32_t rank)
{
	for (size_t i = 0; i < f->n_ranks; i++)
		if (f->ranks[i] == rank)
			return true;
	return false;
}

bool s_says(const struct aw_finding *f, const char *text)
{
	return (f->message && strstr(f->message, text)) ||
	       (f->evidence && strstr(f->evidence, text)) ||
	       (f->fix && strstr(f->fix, text));
}

void s_reads_in_order(struct aw_model *m, int rank, uint32_t loader,
		      uint32_t iteration, const uint32_t *idx, size_t count,
		      uint32_t b)
{
	struct s_epoch e = {
	    .indices = idx, .count = count, .batch_size = b, .end = true};
	s_epoch(m, 100 + rank, loader, iteration, &e);
}

void s_workers_over_epochs(struct aw_model *m, uint32_t epochs,
			   int8_t persistent, const char *names)
{
	struct s_loader_opts o = S_BASE_LOADER(0);
	o.num_workers = 2;
	o.persistent_workers = persistent;
	s_ranks(m, 1, &o);
	for (uint32_t e = 0; e < epochs; e++) {
		s_iter_begin(m, 100, 0, e);
		bool fork = !persistent || e == 0;
		for (int32_t w = 0; fork && w < 2; w++) {
			int32_t pid = 200 + 2 * (int32_t)e + w;
			s_fork(m, 100, pid, 3, names, false);
			s_process(m, pid, 100, 0, 1, "worker");
			s_worker(m, pid, w, 0, e);
		}
		uint32_t idx[100];
		s_range(idx, 0, 100, 1);
		for (uint32_t b = 0; b < 10; b++)
			s_batch(m, 100, 0, e, b, 0, 10, idx + 10 * b, 10);
		s_iter_end(m, 100, 0, e, 10, 10, 1);
	}
}

struct s_run s_run_reading(int world, const struct s_loader_opts *o,
			   const struct s_read *reads)
{
	struct s_run r = s_run_of(world, o);
	for (const struct s_read *d = reads; d->b; d++)
		s_rank_reads(r.model, d->rank, d->iteration, d->begin, d->end,
			     d->b);
	return r;
}

void s_rank_reads_as(struct aw_model *m, int rank, uint32_t iteration,
		     uint32_t begin, uint32_t end, const struct s_epoch *how)
{
	struct s_epoch e = *how;
	e.count = end - begin;
	uint32_t *indices = calloc(e.count ? e.count : 1, sizeof(*indices));
	s_range(indices, begin, (uint32_t)e.count, 1);
	e.indices = indices;
	s_epoch(m, 100 + rank, 0, iteration, &e);
	free(indices);
}

const struct aw_finding *s_finish_only(struct s_run *r, const char *id)
{
	s_finish(r);
	s_expect_only(&r->findings, id);
	return id ? s_get(r, id) : NULL;
}

struct s_run s_run_distributed(int world, struct s_loader_opts o)
{
	o.sampler = "torch.utils.data.distributed.DistributedSampler";
	o.sampler_replicas = world;
	return s_run_of(world, &o);
}

struct aw_event_sampler s_link(const char *class_name)
{
	return (struct aw_event_sampler){.class_name = class_name,
					 .length = -1,
					 .num_replicas = -1,
					 .rank = -1,
					 .shuffle = -1,
					 .seed = -1,
					 .epoch = -1,
					 .drop_last = -1,
					 .replacement = -1,
					 .num_samples = -1,
					 .batch_size = -1,
					 .skip = -1,
					 .total_size = -1,
					 .own_iter = -1};
}

void s_loader_around(struct aw_model *m, int32_t pid, uint32_t loader,
		     const struct s_loader_opts *o, uint64_t sampler)
{
	s_loader(m, pid, loader, o);
	/* Objects of the loader's own: numbers no shared sampler is given
	 * (those are small). */
	uint64_t own =
	    ((uint64_t)(uint32_t)pid << 32) | ((uint64_t)loader << 2);
	struct aw_event_sampler links[2] = {
	    s_link(o->batch_sampler ? o->batch_sampler : "BatchSampler"),
	    s_link(o->sampler ? o->sampler : "DistributedSampler")};
	links[0].batch_size = o->batch_size;
	links[0].object_id = own | 1;
	links[1].object_id = sampler ? sampler : own | 2;
	s_chain(m, pid, loader, links, 2);
}

void s_chain(struct aw_model *m, int32_t pid, uint32_t loader,
	     const struct aw_event_sampler *links, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct aw_event e = s_event(AW_EVENT_SAMPLER, pid);
		e.u.sampler = links[i];
		e.u.sampler.loader = loader;
		e.u.sampler.depth = (uint32_t)i;
		aw_model_add_event(m, &e);
	}
}

void s_random_chain(struct aw_model *m, int32_t pid, uint32_t loader,
		    int64_t batch_size, int64_t length)
{
	struct aw_event_sampler links[2] = {s_link("BatchSampler"),
					    s_link("RandomSampler")};
	links[0].batch_size = batch_size;
	links[1].shuffle = 1;
	links[1].replacement = 0;
	links[1].length = length;
	links[0].own_iter = links[1].own_iter = 0;
	s_chain(m, pid, loader, links, 2);
}

void s_stream_split(struct aw_model *m, int32_t pid, uint32_t loader,
		    const char *class_name, int32_t num_replicas,
		    int64_t shards, int8_t whole)
{
	struct aw_event e = s_event(AW_EVENT_STREAM_SHARD, pid);
	e.u.stream_shard =
	    (struct aw_event_stream_shard){.loader = loader,
					   .class_name = class_name,
					   .num_replicas = num_replicas,
					   .rank = pid - 100,
					   .batch_size = -1,
					   .split_batches = -1,
					   .shards = shards,
					   .whole = whole};
	aw_model_add_event(m, &e);
}

void s_distributed_chain(struct aw_model *m, int world, uint32_t loader,
			 int64_t dataset_len, int64_t batch_size,
			 int8_t drop_last)
{
	for (int r = 0; r < world; r++) {
		struct aw_event_sampler links[2] = {
		    s_link("torch.utils.data.sampler.BatchSampler"),
		    s_link("torch.utils.data.distributed.DistributedSampler")};
		links[0].batch_size = batch_size;
		links[0].drop_last = 0;
		links[1].num_replicas = world;
		links[1].rank = r;
		links[1].shuffle = 1;
		links[1].seed = 0;
		links[1].drop_last = drop_last;
		links[1].num_samples = drop_last == 1
					   ? dataset_len / world
					   : (dataset_len + world - 1) / world;
		links[1].total_size = links[1].num_samples * world;
		s_chain(m, 100 + r, loader, links, 2);
	}
}

const struct aw_process *s_process_of(const struct aw_model *m, int32_t pid)
{
	for (size_t i = 0; i < m->n_processes; i++)
		if (m->processes[i].pid == pid)
			return &m->processes[i];
	cr_assert_fail("no process %d", pid);
	return NULL;
}

void s_dataset_map(struct aw_model *m, int32_t pid, uint32_t loader,
		   uint32_t depth, int64_t base_len, const uint32_t *to,
		   uint32_t total, uint32_t offset, uint32_t count)
{
	s_dataset_map_of(m, pid, loader, "subset", depth, base_len, to, total,
			 offset, count);
}

void s_dataset_map_of(struct aw_model *m, int32_t pid, uint32_t loader,
		      const char *kind, uint32_t depth, int64_t base_len,
		      const uint32_t *to, uint32_t total, uint32_t offset,
		      uint32_t count)
{
	struct aw_event e = s_event(AW_EVENT_DATASET_MAP, pid);
	e.u.dataset_map = (struct aw_event_dataset_map){.loader = loader,
							.depth = depth,
							.kind = kind,
							.base_len = base_len,
							.offset = offset,
							.total = total};
	e.count = count;
	e.values.u32 = (uint32_t *)to;
	aw_model_add_event(m, &e);
}
