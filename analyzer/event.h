/* The accwatch trace events as plain structs: the reader turns each babeltrace2
 * event into one of these, unit tests build them by hand, the model eats them.
 */
#ifndef AW_EVENT_H
#define AW_EVENT_H

#include <stdint.h>

/* One kind per event of tracepoints/accwatch_tp.h, in its order, except
 * that kinds added later go last: the kind is the tag of an event record of
 * the event stream (event_codec.h), and recorded streams (the fuzz seeds)
 * must keep their meaning. */
enum aw_event_kind {
	AW_EVENT_PROCESS,
	AW_EVENT_DIST_INIT,
	AW_EVENT_FORK,
	AW_EVENT_EXEC,
	AW_EVENT_EXIT,
	AW_EVENT_LOADER_NEW,
	AW_EVENT_LOADER_WRAP,
	AW_EVENT_LOADER_LEN,
	AW_EVENT_ITER_BEGIN,
	AW_EVENT_BATCH,
	AW_EVENT_BATCH_WIDE,
	AW_EVENT_ITER_END,
	AW_EVENT_WORKER_START,
	AW_EVENT_WORKER_FETCH,
	AW_EVENT_WORKER_FETCH_WIDE,
	AW_EVENT_ITEM_FETCH,
	AW_EVENT_WORKER_FETCH_END,
	AW_EVENT_KIND_COUNT
};

/* The event's name without the provider ("batch"); NULL if out of range. */
const char *aw_event_kind_name(enum aw_event_kind kind);

/* Strings are borrowed for the duration of the call that receives the event;
 * a field absent from the trace holds -1 (signed), ACCWATCH_UNKNOWN
 * (loader/iteration/batch numbers), 0 (other unsigned) or "". */
struct aw_event_process {
	int32_t ppid, rank, local_rank, world_size, local_world_size;
	const char *rank_source, *host, *role, *argv, *python, *torch;
};

struct aw_event_dist_init {
	int32_t rank, world_size;
	const char *backend;
};

struct aw_event_fork {
	int32_t child_pid;
	uint32_t threads;
	uint8_t cuda_mapped;
	const char *thread_names, *py_stack, *native_stack, *py_threads;
};

struct aw_event_exec {
	const char *path;
};

struct aw_event_exit {
	int32_t exited_pid, status, signal;
};

struct aw_event_loader_new {
	uint32_t loader;
	uint64_t dataset_id;
	int64_t dataset_len, batch_size;
	uint8_t iterable;
	int8_t drop_last, shuffle, persistent_workers;
	int32_t num_workers, prefetch_factor, sampler_replicas, sampler_rank;
	const char *dataset_type, *loader_class, *sampler_class;
	const char *batch_sampler_class, *start_method, *site, *stack;
};

struct aw_event_loader_wrap {
	uint32_t outer, inner;
	int8_t split_batches, even_batches;
	int32_t num_processes, process_index;
	const char *kind;
};

struct aw_event_loader_len {
	uint32_t loader;
	int64_t value;
	const char *site;
};

struct aw_event_iter_begin {
	uint32_t loader, iteration;
	int64_t sampler_epoch, seed;
};

/* batch, batch_wide, worker_fetch, worker_fetch_wide and item_fetch: one
 * chunk [offset, offset + count) of a sequence `total` long. */
struct aw_event_chunk {
	int32_t worker_id; /* fetch events only */
	uint32_t loader, iteration, batch, offset, total;
};

struct aw_event_iter_end {
	uint32_t loader, iteration, drawn, yielded;
	uint8_t exhausted;
};

struct aw_event_worker_start {
	int32_t worker_id, num_workers;
	uint64_t seed;
	uint32_t loader, iteration;
	/* The process whose loader and iteration these are (the parent, or
	 * who asked a forkserver); -1 unknown. */
	int32_t loader_pid;
};

/* A worker's fetch (its worker_fetch events) returned (ok 1) or raised. */
struct aw_event_worker_fetch_end {
	int32_t worker_id;
	uint32_t loader, iteration, batch;
	uint8_t ok;
};

struct aw_event {
	enum aw_event_kind kind;
	/* Whose pid namespace `pid` is in: the reader numbers the hosts of the
	 * traces (their `hostname`), so equal pids of two nodes stay apart.
	 * 0 when there is one host or it is unknown. */
	uint32_t source;
	uint32_t run;
	int32_t pid;
	union {
		struct aw_event_process process;
		struct aw_event_dist_init dist_init;
		struct aw_event_fork fork;
		struct aw_event_exec exec;
		struct aw_event_exit exit;
		struct aw_event_loader_new loader_new;
		struct aw_event_loader_wrap loader_wrap;
		struct aw_event_loader_len loader_len;
		struct aw_event_iter_begin iter_begin;
		struct aw_event_chunk chunk;
		struct aw_event_iter_end iter_end;
		struct aw_event_worker_start worker_start;
		struct aw_event_worker_fetch_end fetch_end;
	} u;
	/* The integer sequence of the chunk events: u32 for batch and
	 * worker_fetch, i64 for the _wide ones, u64 (hashes) for item_fetch. */
	union {
		const uint32_t *u32;
		const int64_t *i64;
		const uint64_t *u64;
	} values;
	uint32_t count;
};

#endif
