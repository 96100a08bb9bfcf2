/* SPDX-License-Identifier: MIT */
/* Builders of accwatch event streams for the analyzer's unit tests: each call
 * hands the model one event (or a whole epoch of them), as the reader would. */
#ifndef AW_TEST_STREAM_H
#define AW_TEST_STREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "checks.h"
#include "findings.h"
#include "model.h"

/* The loader_new fields tests vary; the rest get plausible values. */
struct s_loader_opts {
	int64_t dataset_len;
	int64_t batch_size;
	int8_t drop_last;
	int32_t num_workers;
	int32_t sampler_replicas;
	int32_t sampler_rank;      /* used when sampler_replicas > 0 */
	const char *site;          /* default "train.py:10" */
	const char *sampler;       /* default "DistributedSampler" */
	int8_t shuffle;            /* loader_new.shuffle: 0 (default), 1, -1 */
	uint64_t dataset_id;       /* default 42 */
	int8_t persistent_workers; /* 0 (default), 1, -1 */
	const char *loader_class;  /* default "DataLoader" */
	const char *batch_sampler; /* default "BatchSampler" */
	const char *dataset_type;  /* default "ToyDataset" */
	uint8_t iterable;
	const char *allow; /* loader_new.allow: default "" */
};

/* N = 100, B = 10, no drop_last, a sampler that does not shard. */
#define S_BASE_LOADER(workers)                                                 \
	{                                                                      \
		.dataset_len = 100, .batch_size = 10, .drop_last = 0,          \
		.num_workers = (workers), .sampler_replicas = -1,              \
		.sampler = "RandomSampler"                                     \
	}

/* An event of the run stream.c's events are of (7), of kind and pid, the
 * rest zero: for the events a test builds by hand. */
struct aw_event s_event(enum aw_event_kind kind, int32_t pid);

void s_process(struct aw_model *m, int32_t pid, int32_t ppid, int32_t rank,
	       int32_t world, const char *role);
/* s_process on another host than node0 (a second node of the job). */
void s_process_on(struct aw_model *m, int32_t pid, int32_t ppid, int32_t rank,
		  int32_t world, const char *role, const char *host);
void s_dist_init(struct aw_model *m, int32_t pid, int32_t rank, int32_t world);
/* pid (rank) said it is a member of the process group of `ranks` ("0,1"). */
void s_dist_group(struct aw_model *m, int32_t pid, int32_t rank,
		  const char *ranks);
void s_worker_start(struct aw_model *m, int32_t pid, int32_t worker_id);
void s_loader(struct aw_model *m, int32_t pid, uint32_t loader,
	      const struct s_loader_opts *o);
void s_loader_len(struct aw_model *m, int32_t pid, uint32_t loader,
		  int64_t value);
void s_loader_wrap(struct aw_model *m, int32_t pid, uint32_t outer,
		   uint32_t inner, const char *kind, int8_t split_batches,
		   int8_t even_batches, int32_t num_processes,
		   int32_t process_index);
void s_fork(struct aw_model *m, int32_t pid, int32_t child, uint32_t threads,
	    const char *thread_names, bool cuda);
/* A fork with Python threads (py_threads: a name per line) besides the
 * native ones (thread_names: comma-separated, the Python threads' OS
 * threads not among them, as the recorder writes them). */
void s_fork_python(struct aw_model *m, int32_t pid, int32_t child,
		   uint32_t threads, const char *thread_names,
		   const char *py_threads, bool cuda);
void s_exit(struct aw_model *m, int32_t pid, int32_t exited, int32_t status,
	    int32_t signal);
void s_exec(struct aw_model *m, int32_t pid);
/* pid's uncaught exception reached sys.excepthook. */
void s_exception(struct aw_model *m, int32_t pid, const char *type_name,
		 const char *message, const char *site);
/* worker_start with the parent's loader and iteration at the fork. */
void s_worker(struct aw_model *m, int32_t pid, int32_t worker_id,
	      uint32_t loader, uint32_t iteration);
void s_worker_fetch(struct aw_model *m, int32_t pid, int32_t worker_id,
		    uint32_t loader, uint32_t iteration, uint32_t fetch,
		    const uint32_t *indices, uint32_t count);
/* The end of a worker's fetch (ok 0: it raised). */
void s_worker_fetch_end(struct aw_model *m, int32_t pid, int32_t worker_id,
			uint32_t loader, uint32_t iteration, uint32_t fetch,
			bool ok);
/* The trace clock reaches `seconds` (a clock record of the reader). */
void s_clock(struct aw_model *m, double seconds);
void s_item_fetch(struct aw_model *m, int32_t pid, int32_t worker_id,
		  uint32_t loader, uint32_t iteration, uint32_t fetch,
		  const uint64_t *hashes, uint32_t count);
/* pid entered (begin) or left torch.distributed's Join of one joinable,
 * enabled or not (enable 1, 0); raised: an exception left it (when
 * leaving). */
void s_join(struct aw_model *m, int32_t pid, bool begin, int8_t enable,
	    int8_t raised);
void s_iter_begin(struct aw_model *m, int32_t pid, uint32_t loader,
		  uint32_t iteration);
/* iter_begin with the sampler's epoch and seed. */
void s_iter_begin_sampler(struct aw_model *m, int32_t pid, uint32_t loader,
			  uint32_t iteration, int64_t sampler_epoch,
			  int64_t seed);
/* iter_begin of an iterable loader whose dataset holds dataset_epoch. */
void s_iter_begin_dataset(struct aw_model *m, int32_t pid, uint32_t loader,
			  uint32_t iteration, int64_t dataset_epoch);
void s_batch(struct aw_model *m, int32_t pid, uint32_t loader,
	     uint32_t iteration, uint32_t batch, uint32_t offset,
	     uint32_t total, const uint32_t *indices, uint32_t count);
void s_batch_wide(struct aw_model *m, int32_t pid, uint32_t loader,
		  uint32_t iteration, uint32_t batch, uint32_t offset,
		  uint32_t total, const int64_t *indices, uint32_t count);
void s_iter_end(struct aw_model *m, int32_t pid, uint32_t loader,
		uint32_t iteration, uint32_t drawn, uint32_t yielded,
		bool exhausted);

/* One epoch of one process: iter_begin, the indices in batches of
 * batch_size, `prefetched` more batches of `prefetch_index` after them, then
 * iter_end(yielded = the batches of indices) if `end`. */
struct s_epoch {
	const uint32_t *indices;
	size_t count;
	uint32_t batch_size;
	uint32_t prefetched;
	uint32_t prefetch_index;
	bool end;
	bool abandoned; /* iter_end with exhausted = 0 */
};
/* iter_end of a pass a read-ahead wrapper handed `handed` batches of. */
void s_iter_end_handed(struct aw_model *m, int32_t pid, uint32_t loader,
		       uint32_t iteration, uint32_t drawn, uint32_t yielded,
		       bool exhausted, int64_t handed);
/* iter_begin of a pass resuming `resumed` batches into its epoch. */
void s_iter_begin_resumed(struct aw_model *m, int32_t pid, uint32_t loader,
			  uint32_t iteration, int64_t resumed);
void s_epoch(struct aw_model *m, int32_t pid, uint32_t loader,
	     uint32_t iteration, const struct s_epoch *e);

/* start, start + step, ... (count of them), in a buffer of the caller. */
void s_range(uint32_t *out, uint32_t start, uint32_t count, uint32_t step);

/* W rank processes (pids 100 + r, parent 99) that initialised
 * torch.distributed, with loader 0 described by o. */
void s_ranks(struct aw_model *m, int world, const struct s_loader_opts *o);
/* Process pid reads indices [begin, end) of loader in batches of b; with
 * `ends`, iter_end follows: all yielded, exhausted. */
void s_reads(struct aw_model *m, int32_t pid, uint32_t loader,
	     uint32_t iteration, uint32_t begin, uint32_t end, uint32_t b,
	     bool ends);
/* Rank r (pid 100 + r) reads indices [begin, end) in batches of b, all
 * yielded and exhausted. */
void s_rank_reads(struct aw_model *m, int rank, uint32_t iteration,
		  uint32_t begin, uint32_t end, uint32_t b);
/* The same, but the epoch never ends (no iter_end: the rank died or was
 * still going when the trace ended). */
void s_rank_reads_cut(struct aw_model *m, int rank, uint32_t iteration,
		      uint32_t begin, uint32_t end, uint32_t b);

/* Finishes the model and runs the checks into out (initialized here). */
void s_analyze(struct aw_model *m, struct aw_findings *out);

/* A model under test and the findings of its analysis. */
struct s_run {
	struct aw_model *model;
	struct aw_findings findings;
};

/* A run on a new model; with world > 0, s_ranks(world, o) in it. */
struct s_run s_run_of(int world, const struct s_loader_opts *o);
/* s_analyze of the run's model into its findings. */
void s_finish(struct s_run *r);
/* Frees the findings and the model. */
void s_done(struct s_run *r);
size_t s_count(const struct aw_findings *f, const char *id);
/* The model's index of loader `id` of process `pid`, AW_NONE. */
uint32_t s_loader_of(const struct aw_model *m, int32_t pid, uint32_t id);

/* Assertions on findings (Criterion). s_expect_only: every error and
 * warning is `id` (infos are free); s_expect_exactly: every finding is;
 * NULL: none at all. s_get: the finding `id`, which must be there with a
 * message and a fix. s_number: its number `name`, which must be there.
 * s_says: its message, evidence or fix holds text. */
void s_expect_only(const struct aw_findings *f, const char *id);
void s_expect_exactly(const struct aw_findings *f, const char *id);
const struct aw_finding *s_get(const struct s_run *r, const char *id);
/* s_finish, then s_get(id), expected with that severity. */
const struct aw_finding *s_finish_get(struct s_run *r, const char *id,
				      enum aw_severity severity);
/* s_finish_get, and the finding's message, evidence or fix says text. */
void s_finish_says(struct s_run *r, const char *id, enum aw_severity severity,
		   const char *text);
int64_t s_number(const struct aw_finding *f, const char *name);
bool s_has_rank(const struct aw_finding *f, int32_t rank);
bool s_says(const struct aw_finding *f, const char *text);
/* Expects s_says(f, text), printing the finding's texts when not. */
void s_expect_says(const struct aw_finding *f, const char *text);
/* Rank r (pid 100 + r) reads indices in the given order, batches of b. */
void s_reads_in_order(struct aw_model *m, int rank, uint32_t loader,
		      uint32_t iteration, const uint32_t *idx, size_t count,
		      uint32_t b);

/* Rank 0 (pid 100) with loader 0 of 2 workers; forks a worker per epoch
 * pair (pids 200 + 2e + w) with the given thread names. */
void s_workers_over_epochs(struct aw_model *m, uint32_t epochs,
			   int8_t persistent, const char *names);

/* One rank's read for s_run_reading: s_rank_reads of [begin, end) in
 * batches of b. */
struct s_read {
	int rank;
	uint32_t iteration, begin, end, b;
};
/* s_run_of(world, o), then the reads up to the first with b == 0. */
struct s_run s_run_reading(int world, const struct s_loader_opts *o,
			   const struct s_read *reads);
/* The reads for s_run_reading, the one that ends them added. */
#define S_READS(...) ((const struct s_read[]){__VA_ARGS__, {0}})
/* Rank r (pid 100 + r) reads [begin, end) as `how` says: its batch size,
 * prefetched batches and end (its indices and count are ignored). */
void s_rank_reads_as(struct aw_model *m, int rank, uint32_t iteration,
		     uint32_t begin, uint32_t end, const struct s_epoch *how);
/* s_finish, then s_expect_only(id); the finding s_get(id), or NULL for
 * none. */
const struct aw_finding *s_finish_only(struct s_run *r, const char *id);
/* s_run_of(world, o) with o's sampler a DistributedSampler (its full class
 * name) over the world. */
struct s_run s_run_distributed(int world, struct s_loader_opts o);

/* pid's loader `loader` described by o, with its chain: a BatchSampler of
 * its own over o's sampler, which is object `sampler` (a sampler object
 * the program gave several loaders) or, with 0, one of the loader's own. A
 * DataLoader built per epoch around one sampler is this called for each
 * epoch with the same `sampler`. */
void s_loader_around(struct aw_model *m, int32_t pid, uint32_t loader,
		     const struct s_loader_opts *o, uint64_t sampler);
/* A sampler chain link of class_name, every parameter absent (-1). */
struct aw_event_sampler s_link(const char *class_name);
/* The sampler events of pid's loader: links[0] the outermost (depth 0). */
void s_chain(struct aw_model *m, int32_t pid, uint32_t loader,
	     const struct aw_event_sampler *links, size_t n);
/* pid's loader's chain: a BatchSampler of batch_size over a RandomSampler
 * of `length` without replacement, both torch's (own_iter 0). */
void s_random_chain(struct aw_model *m, int32_t pid, uint32_t loader,
		    int64_t batch_size, int64_t length);
/* A stream_shard link of pid's loader at depth 0: class_name over
 * num_replicas (rank: pid - 100), whole and shards as the event has them. */
void s_stream_split(struct aw_model *m, int32_t pid, uint32_t loader,
		    const char *class_name, int32_t num_replicas,
		    int64_t shards, int8_t whole);
/* On each of the W ranks (pid 100 + r): BatchSampler(batch_size) over
 * DistributedSampler(num_replicas=W, rank=r, drop_last) of dataset_len. */
void s_distributed_chain(struct aw_model *m, int world, uint32_t loader,
			 int64_t dataset_len, int64_t batch_size,
			 int8_t drop_last);
/* The process of pid (the test fails when there is none). */
const struct aw_process *s_process_of(const struct aw_model *m, int32_t pid);
/* One part [offset, offset + count) of pid's loader's index map at depth,
 * total entries long, into a dataset of base_len. */
void s_dataset_map(struct aw_model *m, int32_t pid, uint32_t loader,
		   uint32_t depth, int64_t base_len, const uint32_t *to,
		   uint32_t total, uint32_t offset, uint32_t count);
/* The same, of a map of that kind ("subset", "datasets", ...). */
void s_dataset_map_of(struct aw_model *m, int32_t pid, uint32_t loader,
		      const char *kind, uint32_t depth, int64_t base_len,
		      const uint32_t *to, uint32_t total, uint32_t offset,
		      uint32_t count);

#endif
