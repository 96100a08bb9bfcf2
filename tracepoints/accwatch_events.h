/* Names, limits and argument structs of the `accwatch` trace events, shared
 * by the recorder (which fills them) and the analyzer (which reads them). */
#ifndef ACCWATCH_EVENTS_H
#define ACCWATCH_EVENTS_H

#include <stdint.h>

#define ACCWATCH_PROVIDER "accwatch"
/* Environment variable carrying the run id that every event repeats. */
#define ACCWATCH_ENV_RUN "ACCWATCH_RUN"
/* Set to 1 to keep libaccwatch dormant even in a torch process. */
#define ACCWATCH_ENV_DISABLE "ACCWATCH_DISABLE"
/* Set to 1 for diagnostics of the preload on stderr. */
#define ACCWATCH_ENV_DEBUG "ACCWATCH_DEBUG"

/* A loader, iteration or batch number the recorder could not know. */
#define ACCWATCH_UNKNOWN UINT32_MAX
/* Indices per event at most; longer batches are split (offset/total). */
#define ACCWATCH_CHUNK_MAX 4096u

struct accwatch_process_info {
	uint32_t run;
	int32_t pid, ppid;
	int32_t rank, local_rank, world_size, local_world_size; /* -1: unknown */
	const char *rank_source; /* the variable that answered, "" if none */
	const char *host;
	const char *role; /* "rank", "worker", "launcher" or "other" */
	const char *argv; /* arguments joined by spaces */
	const char *python, *torch;
};

struct accwatch_fork_info {
	uint32_t run;
	int32_t pid, child_pid;
	uint32_t threads;         /* threads of the parent at fork */
	const char *thread_names; /* comma-separated */
	uint8_t cuda_mapped;
	const char *py_stack;     /* innermost last, "file:line func" per line */
	const char *native_stack;
	/* Python threads (threading) alive besides the forking and the main
	 * one, "module name" per line (module: whose code the thread runs);
	 * their OS threads are not in thread_names. */
	const char *py_threads;
};

struct accwatch_loader_info {
	uint32_t run;
	int32_t pid;
	uint32_t loader; /* per-process ordinal, from 0 */
	uint64_t dataset_id;
	const char *dataset_type;
	int64_t dataset_len; /* -1: no len() */
	uint8_t iterable;
	const char *loader_class, *sampler_class, *batch_sampler_class;
	int64_t batch_size; /* -1: None */
	int8_t drop_last, shuffle, persistent_workers; /* -1: unknown */
	int32_t num_workers, prefetch_factor;
	const char *start_method;
	int32_t sampler_replicas, sampler_rank; /* -1: sampler does not shard */
	const char *site;  /* "file:line" of the user's construction */
	const char *stack; /* short Python stack, innermost last */
};

struct accwatch_wrap_info {
	uint32_t run;
	int32_t pid;
	uint32_t outer, inner;
	const char *kind; /* "shard", "dispatcher", "adapter", ... */
	int8_t split_batches, even_batches;
	int32_t num_processes, process_index;
};

struct accwatch_batch_info {
	uint32_t run;
	int32_t pid;
	uint32_t loader, iteration, batch;
	uint32_t offset, total, count;
};

struct accwatch_fetch_info {
	uint32_t run;
	int32_t pid;
	int32_t worker_id;
	uint32_t loader, iteration, batch;
	uint32_t offset, total, count;
};

#endif
