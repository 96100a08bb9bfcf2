/* SPDX-License-Identifier: MIT */
/* What the trace says, rebuilt: processes, DataLoader objects, their passes
 * (iterations) and, after aw_model_finish, each loader's epochs per rank. */
#ifndef AW_MODEL_H
#define AW_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "epoch.h"
#include "event.h"
#include "index_head.h"
#include "index_map.h"
#include "items.h"
#include "iteration.h"
#include "mapping.h"
#include "observer.h"
#include "run_choice.h"
#include "sample_set.h"
#include "trace_stats.h"

/* A torch.distributed process group a process said it is a member of:
 * its members' global ranks, ascending. Longer lists are left out. */
#define AW_RANK_GROUP_MAX (1u << 20)
struct aw_rank_group {
	int32_t *ranks;
	uint32_t n;
};

struct aw_process {
	/* (source, run) pid namespace, see aw_model.space_index. */
	uint32_t space;
	uint32_t source, run;
	int32_t pid, ppid;
	uint32_t parent; /* index of the parent process, AW_NONE */
	int32_t env_rank, dist_rank, local_rank;
	int32_t world_size, dist_world_size;
	char *rank_source, *host, *role, *argv;
	bool described;      /* its `process` event was seen */
	bool started_worker; /* it emitted worker_start */
	int32_t worker_id;
	bool exited;
	int32_t exit_status, exit_signal;
	int64_t exit_ns; /* trace clock at its first exit event, -1 unknown */
	/* The uncaught exception that ended it (its newest `exception`
	 * event), NULL when none was recorded: its class ("module.Name"),
	 * its str() as cut by the recorder, and "file:line" where raised. */
	char *exception_type, *exception_message, *exception_site;
	/* Trace clock at its first and newest event, -1 unknown. */
	int64_t first_ns, last_ns;
	bool execed; /* it called exec: a fork+exec child, not a worker */
	/* The process groups it is a member of (dist_group events). */
	struct aw_rank_group *groups;
	uint32_t n_groups;
	size_t groups_cap;
	uint64_t events, fetch_events, fetched_indices, item_events;
	/* worker_start: the parent's loader and iteration at the fork
	 * (ACCWATCH_UNKNOWN in spawn/forkserver workers). */
	uint32_t worker_loader, worker_iteration;
	int32_t worker_loader_pid; /* whose loader: -1 unknown (the parent) */
	int32_t worker_count;      /* num_workers of its loader, -1 unknown */
	/* The newest worker_fetch/item_fetch: what it was doing last.
	 * last_fetch.ordinal is the worker's fetch ordinal in that epoch. */
	bool any_fetch;
	bool last_fetch_items; /* item_fetch: fingerprints, no indices */
	uint32_t last_fetch_loader, last_fetch_iteration;
	struct aw_index_head last_fetch;
	/* A worker runs one fetch at a time, so a worker_fetch_end after the
	 * newest worker_fetch is its end: until it comes, the fetch is open
	 * (the worker is inside __getitem__ or collate_fn). */
	bool fetch_open;
	int8_t last_fetch_ok;   /* its end: 1 returned, 0 raised, -1 none */
	int64_t fetch_start_ns; /* trace clock at its start, -1 unknown */
	/* The innermost torch.distributed Join it is inside (index into
	 * aw_model.joins), AW_NONE. */
	uint32_t open_join;
	/* How many times a learning-rate scheduler that accelerate's
	 * prepare() wrapped steps per optimizer step (the most of its
	 * schedulers'): its num_processes (else the process's world size)
	 * when it steps with the optimizer without split_batches (0 when
	 * neither is known), else 1; -1 when it prepared none. */
	int32_t scheduler_steps;

	/* Resolved by aw_model_finish. */
	uint32_t owner; /* a worker's rank process (loader_pid, else the
			 * nearest non-worker ancestor); AW_NONE */
	bool is_worker;
	bool rank_inferred;  /* no process had a rank: numbered in pid order */
	int32_t rank;        /* -1: unknown */
	uint32_t iterations; /* passes over any loader */
	/* Which generation of processes of its rank it belongs to, from 0: a
	 * process of a rank that started after every earlier one of that rank
	 * ended begins the next (a restart of the job, or a new job resuming
	 * it). Workers take their owner's. */
	uint32_t attempt;
};

/* One len() answer, counted once per distinct (value, site). */
struct aw_len_call {
	int64_t value;
	char *site;
	uint64_t count;
};

/* Links of a sampler chain kept (deeper ones are not recorded either). */
#define AW_SAMPLER_CHAIN_MAX 8

/* One link of a loader's sampler chain (the sampler event's fields; -1:
 * the link has no such parameter). */
struct aw_sampler_link {
	bool seen; /* a sampler event told it */
	char *class_name;
	int32_t num_replicas, rank;
	int8_t shuffle, drop_last, replacement;
	int64_t length, seed, epoch, num_samples, batch_size, skip;
	int64_t total_size;
	/* The link's object in its process (0: not known): loaders built
	 * around one sampler object share it. */
	uint64_t object_id;
	/* 1: it draws with code outside the frameworks the report models
	 * (its rule is not known), 0: a framework's, -1 unknown. */
	int8_t own_iter;
};

/* Whether a link told it cuts a rank's part: it states num_replicas and
 * rank (DistributedSampler's indices, BatchSamplerShard's batches). */
static inline bool aw_link_cuts(const struct aw_sampler_link *l)
{
	return l->seen && l->num_replicas >= 1 && l->rank >= 0;
}

/* One link of an IterableDataset's own split among replicas (a
 * stream_shard event; the catalogue says what its fields mean). */
#define AW_STREAM_LINKS_MAX 4
struct aw_stream_link {
	bool seen;
	char *class_name;
	int32_t num_replicas, rank;
	int64_t batch_size, shards;
	int8_t split_batches, whole;
};

/* One torch.distributed Join context of a process (join events): entered,
 * and left when `ended`. */
struct aw_join {
	uint32_t process;
	int32_t joinables;
	int8_t enable, throw_on_early_termination;
	bool ended;
	int8_t raised;  /* when it ended: an exception left it (1), none (0) */
	uint32_t outer; /* the Join it is nested in, AW_NONE */
};

/* A catalogue field kept by the model: its event type, strings owned. */
#define AW_OWNED_u8 uint8_t
#define AW_OWNED_i8 int8_t
#define AW_OWNED_u32 uint32_t
#define AW_OWNED_i32 int32_t
#define AW_OWNED_u64 uint64_t
#define AW_OWNED_i64 int64_t
#define AW_OWNED_str char *
#define AW_OWNED_MEMBER(X, kind, name, absent) AW_OWNED_##kind name;

/* One DataLoader object in one process. */
struct aw_loader {
	uint32_t process;
	uint32_t id;    /* the per-process ordinal the recorder gave it */
	bool described; /* its loader_new event was seen */
	/* Its loader_new event's fields, as the catalogue lists them
	 * (dataset_len, batch_size, sampler_class, site, ...: a field added
	 * there is kept here, defaulted, copied and freed by model.c with no
	 * line of its own); `loader` repeats id. `allow`: the finding ids its
	 * source says are intended (comma-separated, as written: suppress.h),
	 * "" none. */
	ACCWATCH_FIELDS_loader_new(AW_OWNED_MEMBER, ~)

	    /* loader_wrap: this loader wraps `wrap_inner` (accelerate). */
	    bool wraps;
	uint32_t wrap_inner;
	char *wrap_kind;
	int8_t split_batches, even_batches;
	int32_t wrap_num_processes, wrap_process_index;
	bool wrapped;          /* another loader of its process wraps it */
	uint32_t wrapper;      /* that loader, AW_NONE */
	uint32_t n_iterations; /* passes over it in its process */

	/* Resolved by aw_model_finish (lineage.c). */
	/* The loader the user built that accelerate's loader (this one, outer
	 * or inner) was made from: same dataset in the same process. */
	uint32_t built_from;
	bool sharded; /* its sampler, batch sampler or wrap shards the data */
	/* Dispatcher inner loaders: the dispatcher's drop_last. */
	int8_t dispatch_drop_last;

	struct aw_len_call *len_calls;
	size_t n_len_calls, len_calls_cap;
	/* The index maps below its dataset (NULL: positions are indices). */
	struct aw_mapping *mapping;
	/* Its sampler chain, outermost first: links [0, n_chain). */
	struct aw_sampler_link chain[AW_SAMPLER_CHAIN_MAX];
	uint32_t n_chain;
	/* Its IterableDataset's splitting links, outermost first. */
	struct aw_stream_link stream[AW_STREAM_LINKS_MAX];
	uint32_t n_stream;
	int64_t last_len;        /* its newest len() answer, -1 before any */
	uint32_t last_iteration; /* index of its newest iteration, AW_NONE */

	/* Resolved by aw_model_finish. */
	uint32_t global; /* index into aw_model.loaders_global */
	/* Its loading stream (finish.c, aw_link_streams): the loader object
	 * of its process whose passes it continues (a new DataLoader built
	 * for the next epoch around the same sampler, or over the same
	 * dataset, at the same site), AW_NONE; the stream's first loader
	 * object (itself when it continues none); and the epochs of the
	 * stream before its own first pass. */
	uint32_t stream_prev, stream_head, stream_offset;
	/* Among the streams begun at the same site in its process. */
	uint32_t site_ordinal;
};

struct aw_fork {
	uint32_t process; /* the parent */
	int32_t child_pid;
	uint32_t threads;
	uint8_t cuda_mapped;
	char *thread_names, *py_stack, *native_stack;
	char *py_threads; /* Python threads but the forking and main one:
			     "module name" a line each */
};

/* A loader as the report names it: the same creation site and order in every
 * rank's process are one loader ("L0", "L1", ... by first appearance). Its
 * members in one process are one loading stream: a loader object, or the
 * loader objects built one per epoch around one sampler (or dataset). */
struct aw_global_loader {
	char id[16];
	const char *site;        /* the link key: creation site ... */
	uint32_t site_ordinal;   /* ... and order among that site's streams */
	uint32_t representative; /* loader object whose description is shown */
	uint32_t *members;       /* loader objects, all processes */
	size_t n_members;
	struct aw_epoch *epochs; /* sorted by epoch */
	size_t n_epochs;
	int64_t *len_reported; /* distinct len() answers, by first appearance */
	size_t n_len_reported;
	bool dispatched; /* wrapped by accelerate's dispatcher somewhere */
	/* Dispatched, and the ranks' shares were rebuilt from rank 0's reads.
	 */
	bool rebuilt;
	/* Iterations of ranks that only primed a dispatched loader. */
	uint32_t primed_iterations;
	uint32_t attempt; /* of its processes: each attempt's epochs apart */
	/* The global loader of the first attempt built at the same site (and
	 * site ordinal): the same data path, whatever the attempt. */
	uint32_t lineage;
};

/* Told how far the analysis after the reading got: stage ("linking",
 * "epochs", "checks"), done of total units. For the progress line of a
 * long report (read/progress.h); called often, so it must be cheap. */
typedef void aw_model_progress_fn(void *context, const char *stage, size_t done,
				  size_t total);

struct aw_model {
	struct aw_process *processes;
	size_t n_processes, processes_cap;
	struct aw_loader *loaders;
	size_t n_loaders, loaders_cap;
	struct aw_iteration *iterations;
	size_t n_iterations, iterations_cap;
	struct aw_fork *forks;
	size_t n_forks, forks_cap;
	struct aw_join *joins;
	size_t n_joins, joins_cap;
	struct aw_item_streams items; /* item_fetch fingerprints */
	/* Dispatchers over an IterableDataset: each item fingerprint rank 0
	 * read, numbered, so its slicing rule can cut them like indices. */
	struct aw_index_map item_ordinals;

	/* --run: the runs whose events are taken (every run by default). */
	struct aw_run_choice runs_taken;
	/* Told of every read of the iterations it wants (none by default). */
	struct aw_model_observer observer;
	aw_model_progress_fn *progress; /* NULL: none */
	void *progress_context;

	/* (source, run) -> namespace ordinal. */
	struct aw_index_map space_index;
	struct aw_index_map process_index;   /* (namespace, pid) */
	struct aw_index_map loader_index;    /* (process, loader id) */
	struct aw_index_map iteration_index; /* (loader, iteration) */

	struct aw_trace_stats stats;
	uint64_t bad_events; /* events that named nothing usable */
	/* Index map entries that may still be kept, and parts left out. */
	uint64_t mapping_budget;
	uint64_t mapping_parts_left_out;
	/* The trace clock (ns from its origin) at the events being added, as
	 * the reader's clock records tell it; -1 until one came. Traces read
	 * without them have no durations. */
	int64_t clock_ns;

	/* Resolved by aw_model_finish. */
	bool finished;
	struct aw_global_loader *loaders_global;
	size_t n_loaders_global;
	/* The loaders whose chain cuts ranks' shares with drop_last (a link
	 * with num_replicas, rank and drop_last=1) over a dataset of known
	 * length: what a remainder read on every rank completes
	 * (checks_remainder.c), so that no check scans every loader. */
	uint32_t *drop_last_shards;
	size_t n_drop_last_shards;
	/* A loader of the run is accelerate's (aw_loader_is_accelerate). */
	bool uses_accelerate;
	int32_t *ranks; /* sorted */
	size_t n_ranks;
	uint32_t *runs; /* distinct run ids, sorted: more than one means the
			 * recording did not filter on its run */
	size_t n_runs;
	int32_t world_size;
	uint32_t n_attempts; /* generations of rank processes, at least 1 */
	bool ranks_inferred;
	bool
	    ranks_from_samplers; /* inferred: the rank each sampler was given */
	uint32_t unranked_processes; /* iterated, but no rank could be given */
	uint32_t incomplete_iterations;
	uint64_t index_out_of_range, index_unrepresentable;
	/* Strings the recorder cut to ACCWATCH_STR_MAX bytes (string_cut
	 * events), and the first one: which event and field, how long. */
	uint64_t strings_cut;
	int32_t cut_pid;
	char *cut_event, *cut_field;
	uint64_t cut_length;
};

struct aw_model *aw_model_create(void);
void aw_model_destroy(struct aw_model *model);
/* Which runs' events are taken (the others are counted): call before the
 * first event. */
void aw_model_take_runs(struct aw_model *model,
			const struct aw_run_choice *runs);
/* Installs the one observer (replacing any): call before the first event. */
void aw_model_observe(struct aw_model *model,
		      const struct aw_model_observer *observer);
/* A process's rank as its events told it so far (torch.distributed's, else
 * the environment's; -1 unknown): what aw_model_finish settles. */
int32_t aw_process_rank_so_far(const struct aw_process *p);
/* The world size a process says it is in: torch.distributed's when it
 * joined a process group, else its launcher's variable; -1 unknown. */
int32_t aw_process_world(const struct aw_process *p);

/* The trace clock has reached ns (ns from origin): events added after this
 * happened then (to the reader's clock record resolution). */
void aw_model_set_clock(struct aw_model *model, int64_t ns);
/* Whether the trace can say that a worker's fetch did not end: its
 * recorder had worker_fetch_end (declared, or one was recorded). Older
 * recorders leave every last fetch without an end. */
bool aw_model_knows_fetch_ends(const struct aw_model *model);
/* The trace directory dir ("" unknown) holds events of run. */
void aw_model_note_trace_run(struct aw_model *model, const char *dir,
			     uint32_t run);
/* Takes one event (of a run the query keeps); strings and arrays in it
 * are copied if kept. */
void aw_model_add_event(struct aw_model *model, const struct aw_event *event);
/* Ends open iterations, resolves ranks and workers, links loaders across
 * ranks and builds their epochs. Call once, after the last event. */
void aw_model_finish(struct aw_model *model);
/* The same at any moment before the end, for checks and renderers to read
 * the model as it stands: open iterations count what they consumed so far,
 * nothing is ended, and intake goes on. What it builds holds until the next
 * event (or snapshot, or finish), which builds it anew. */
void aw_model_snapshot(struct aw_model *model);
/* Drops what a snapshot or finish built (model.c, used by both). */
void aw_model_forget_derived(struct aw_model *model);

/* Events the reader handed over, all kinds. */
uint64_t aw_model_accwatch_events(const struct aw_model *model);
/* Whether there is anything to judge: a process iterated a loader. */
bool aw_model_judged(const struct aw_model *model);
/* The loader object whose description stands for a global loader. */
const struct aw_loader *
aw_model_describe(const struct aw_model *model,
		  const struct aw_global_loader *loader);
/* How many samples an epoch of a loader (desc: its description) is to
 * cover: the dataset at the bottom of its index maps when the ranks' maps
 * differ (gaps.judged), else what its maps stand for, else its dataset;
 * -1 unknown. */
int64_t aw_epoch_to_cover(const struct aw_loader *desc,
			  const struct aw_epoch *epoch);
/* The loader object, and its process, whose pass a cell read. */
const struct aw_loader *aw_model_cell_loader(const struct aw_model *model,
					     const struct aw_cell *cell);
const struct aw_process *aw_model_cell_process(const struct aw_model *model,
					       const struct aw_cell *cell);
/* The rank process a process belongs to: itself, or a worker's nearest
 * ancestor that is not a worker. AW_NONE if none. */
/* "L1 (train.py:15)", and ", attempt 1" inside the parentheses when the
 * trace holds several attempts: a loader as findings and tables name it. */
const char *aw_global_loader_label(const struct aw_model *model,
				   const struct aw_global_loader *g, char *buf,
				   size_t size);
uint32_t aw_model_rank_process(const struct aw_model *model, uint32_t process);
/* A loader object of a process by its per-process id, AW_NONE. */
uint32_t aw_model_find_loader(const struct aw_model *model, uint32_t process,
			      uint32_t id);
/* The epoch of its global loader that pass `ordinal` of a loader object is
 * (the passes of the loader objects its stream had before it come first);
 * ACCWATCH_UNKNOWN stays so. */
uint32_t aw_model_epoch(const struct aw_model *model, uint32_t loader,
			uint32_t ordinal);
/* The loader whose passes stand for this one: an outer loader's inner. */
uint32_t aw_model_iterated_loader(const struct aw_model *model,
				  uint32_t loader);
/* Tells the model's progress function, when it has one. */
static inline void aw_model_progress(const struct aw_model *model,
				     const char *stage, size_t done,
				     size_t total)
{
	if (model->progress)
		model->progress(model->progress_context, stage, done, total);
}

/* The index maps a cell's loader reads through; NULL when it has none. */
const struct aw_mapping *aw_model_cell_mapping(const struct aw_model *model,
					       const struct aw_cell *cell);
/* A global loader's epoch by ordinal, or NULL: a binary search, the epochs
 * being sorted once built (a run of 300,000 epochs asks this per pass). */
struct aw_epoch *aw_model_find_epoch(const struct aw_global_loader *loader,
				     uint32_t epoch);
/* The cell of a rank in a global loader's epoch (by ordinal), or NULL. */
const struct aw_cell *aw_model_cell(const struct aw_global_loader *loader,
				    uint32_t epoch, int32_t rank);

#endif
