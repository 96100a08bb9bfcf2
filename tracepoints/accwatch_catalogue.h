/* The catalogue of the `accwatch` trace events: every event and field, once.
 *
 * From these lists the build makes the LTTng-UST provider (accwatch_tp.h),
 * the recorder's argument structs (accwatch_events.h) and its keyword
 * handling of the bootstrap's calls (preload/accwatch_record_args.c), and the
 * analyzer's event structs and field table (analyzer/read/event.h,
 * event_fields.c). Adding a field is one line here plus its use.
 *
 * Why X-macros and not a generator: the lists are C, read by the C compiler
 * of every part that needs them; no second language, no generated file to
 * keep in step, and LTTng-UST's own headers are macros of the same kind.
 *
 * A field is F(X, kind, name, absent), X being what the user of the list
 * passes through (ACCWATCH_FIELDS_<list>(F, X)):
 *   kind    u8 i8 u32 i32 u64 i64 or str
 *   absent  the value when the recorder was not given it (or it does not
 *           fit) and when the analyzer reads a trace that lacks it; a str
 *           is then "". A loader, iteration or batch ordinal not known is
 *           ACCWATCH_UNKNOWN.
 * Every event starts with run (the run id accwatch-run filters on) and pid
 * (the emitting process: per-UID buffers mix processes), which are not
 * listed. The order of the fields is the order in the trace. */
#ifndef ACCWATCH_CATALOGUE_H
#define ACCWATCH_CATALOGUE_H

/* What a process is: its rank as the environment says (rank_source: the
 * variable that answered, "" if none), and what the bootstrap saw. role is
 * "rank", "worker", "launcher" or "other"; argv the arguments joined by
 * spaces. */
#define ACCWATCH_FIELDS_process(F, X)                                          \
	F(X, i32, ppid, -1)                                                    \
	F(X, i32, rank, -1)                                                    \
	F(X, i32, local_rank, -1)                                              \
	F(X, i32, world_size, -1)                                              \
	F(X, i32, local_world_size, -1)                                        \
	F(X, str, rank_source, 0)                                              \
	F(X, str, host, 0)                                                     \
	F(X, str, role, 0)                                                     \
	F(X, str, argv, 0)                                                     \
	F(X, str, python, 0)                                                   \
	F(X, str, torch, 0)

/* The process joined a torch.distributed process group. */
#define ACCWATCH_FIELDS_dist_init(F, X)                                        \
	F(X, i32, rank, -1)                                                    \
	F(X, i32, world_size, -1)                                              \
	F(X, str, backend, 0)

/* pid forked child_pid. threads: the parent's threads at the fork (LTTng's
 * own excluded), thread_names comma-separated; py_stack and native_stack
 * innermost last, "file:line func" per line; py_threads the Python threads
 * (threading) alive besides the forking and the main one, "module name" per
 * line (module: whose code the thread runs). */
#define ACCWATCH_FIELDS_fork(F, X)                                             \
	F(X, i32, child_pid, -1)                                               \
	F(X, u32, threads, 0)                                                  \
	F(X, str, thread_names, 0)                                             \
	F(X, u8, cuda_mapped, 0)                                               \
	F(X, str, py_stack, 0)                                                 \
	F(X, str, native_stack, 0)                                             \
	F(X, str, py_threads, 0)

/* pid is about to exec path (child_pid 0), or pid started child_pid on path
 * with posix_spawn (child_pid -1: not known). An exec that fails is still
 * recorded: the pid then goes on emitting events. */
#define ACCWATCH_FIELDS_exec(F, X)                                             \
	F(X, str, path, 0)                                                     \
	F(X, i32, child_pid, -1)

/* exited_pid is the pid itself (its own exit()/_exit(), seen from inside) or
 * a child whose end pid observed with the wait family (reaped, or peeked at
 * with WNOWAIT: a child may have several exit events, all alike). status is
 * the exit code (0-255) when it exited, else -1; signal the signal that
 * killed it, else -1. */
#define ACCWATCH_FIELDS_exit(F, X)                                             \
	F(X, i32, exited_pid, -1)                                              \
	F(X, i32, status, -1)                                                  \
	F(X, i32, signal, -1)

/* A DataLoader was built (loader: the per-process ordinal, from 0).
 * dataset_len -1: no len(); batch_size -1: None; the int8 flags -1:
 * unknown; sampler_replicas and sampler_rank -1: the sampler does not
 * shard. site is "file:line" of the user's construction, stack a short
 * Python stack, innermost last. */
#define ACCWATCH_FIELDS_loader_new(F, X)                                       \
	F(X, u32, loader, ACCWATCH_UNKNOWN)                                    \
	F(X, u64, dataset_id, 0)                                               \
	F(X, str, dataset_type, 0)                                             \
	F(X, i64, dataset_len, -1)                                             \
	F(X, u8, iterable, 0)                                                  \
	F(X, str, loader_class, 0)                                             \
	F(X, str, sampler_class, 0)                                            \
	F(X, str, batch_sampler_class, 0)                                      \
	F(X, i64, batch_size, -1)                                              \
	F(X, i8, drop_last, -1)                                                \
	F(X, i8, shuffle, -1)                                                  \
	F(X, i32, num_workers, -1)                                             \
	F(X, i8, persistent_workers, -1)                                       \
	F(X, i32, prefetch_factor, -1)                                         \
	F(X, str, start_method, 0)                                             \
	F(X, i32, sampler_replicas, -1)                                        \
	F(X, i32, sampler_rank, -1)                                            \
	F(X, str, site, 0)                                                     \
	F(X, str, stack, 0)

/* Loader outer wraps loader inner (kind "shard", "dispatcher", "adapter",
 * ...), with accelerate's parameters when it is one of accelerate's. */
#define ACCWATCH_FIELDS_loader_wrap(F, X)                                      \
	F(X, u32, outer, ACCWATCH_UNKNOWN)                                     \
	F(X, u32, inner, ACCWATCH_UNKNOWN)                                     \
	F(X, str, kind, 0)                                                     \
	F(X, i8, split_batches, -1)                                            \
	F(X, i8, even_batches, -1)                                             \
	F(X, i32, num_processes, -1)                                           \
	F(X, i32, process_index, -1)

/* len() of a loader answered value, asked from site. */
#define ACCWATCH_FIELDS_loader_len(F, X)                                       \
	F(X, u32, loader, ACCWATCH_UNKNOWN)                                    \
	F(X, i64, value, -1)                                                   \
	F(X, str, site, 0)

#define ACCWATCH_FIELDS_iter_begin(F, X)                                       \
	F(X, u32, loader, ACCWATCH_UNKNOWN)                                    \
	F(X, u32, iteration, ACCWATCH_UNKNOWN)                                 \
	F(X, i64, sampler_epoch, -1)                                           \
	F(X, i64, seed, -1)

/* One part of a batch of indices the main process drew (`_next_index`): a
 * batch longer than ACCWATCH_CHUNK_MAX indices is split into several events
 * of the same batch ordinal; offset says where this part starts, total how
 * long the whole batch is. */
#define ACCWATCH_FIELDS_batch(F, X)                                            \
	F(X, u32, loader, ACCWATCH_UNKNOWN)                                    \
	F(X, u32, iteration, ACCWATCH_UNKNOWN)                                 \
	F(X, u32, batch, ACCWATCH_UNKNOWN)                                     \
	F(X, u32, offset, 0)                                                   \
	F(X, u32, total, 0)

/* The same for what a worker fetched (batch: the worker's own fetch
 * ordinal) or the fingerprints of items an IterableDataset produced, in a
 * worker (worker_id >= 0) or in the main process (worker_id -1). */
#define ACCWATCH_FIELDS_chunk(F, X)                                            \
	F(X, i32, worker_id, -1)                                               \
	F(X, u32, loader, ACCWATCH_UNKNOWN)                                    \
	F(X, u32, iteration, ACCWATCH_UNKNOWN)                                 \
	F(X, u32, batch, ACCWATCH_UNKNOWN)                                     \
	F(X, u32, offset, 0)                                                   \
	F(X, u32, total, 0)

#define ACCWATCH_FIELDS_iter_end(F, X)                                         \
	F(X, u32, loader, ACCWATCH_UNKNOWN)                                    \
	F(X, u32, iteration, ACCWATCH_UNKNOWN)                                 \
	F(X, u32, drawn, 0)                                                    \
	F(X, u32, yielded, 0)                                                  \
	F(X, u8, exhausted, 0)

/* loader and iteration are ids of the process that started the worker,
 * loader_pid (its parent for fork and spawn; for forkserver the process that
 * asked the forkserver): passed through fork, or through multiprocessing's
 * process config for spawn and forkserver. ACCWATCH_UNKNOWN (loader_pid -1)
 * when that failed. */
#define ACCWATCH_FIELDS_worker_start(F, X)                                     \
	F(X, i32, worker_id, -1)                                               \
	F(X, i32, num_workers, -1)                                             \
	F(X, u64, seed, 0)                                                     \
	F(X, u32, loader, ACCWATCH_UNKNOWN)                                    \
	F(X, u32, iteration, ACCWATCH_UNKNOWN)                                 \
	F(X, i32, loader_pid, -1)

/* The end of a worker's fetch: the worker_fetch of the same pid, loader,
 * iteration and batch returned (ok 1) or raised (ok 0). A worker_fetch
 * without its end was still running when the worker died or the trace
 * ended: a worker stuck in __getitem__ shows as such. */
#define ACCWATCH_FIELDS_fetch_end(F, X)                                        \
	F(X, i32, worker_id, -1)                                               \
	F(X, u32, loader, ACCWATCH_UNKNOWN)                                    \
	F(X, u32, iteration, ACCWATCH_UNKNOWN)                                 \
	F(X, u32, batch, ACCWATCH_UNKNOWN)                                     \
	F(X, u8, ok, 1)

/* The field lists above, each a struct of the recorder
 * (struct accwatch_<list>_info). */
#define ACCWATCH_FIELD_LISTS(L)                                                \
	L(process) L(dist_init) L(fork) L(exec) L(exit) L(loader_new)          \
	    L(loader_wrap) L(loader_len) L(iter_begin) L(batch) L(chunk)       \
	    L(iter_end) L(worker_start) L(fetch_end)

/* The events: E(name, NAME, fields, model, sequence).
 *   fields    its field list
 *   model     the analyzer's struct it is read into (union member of
 *             struct aw_event): the five chunk events share one, batch's
 *             fields being a part of chunk's
 *   sequence  none, or the integer sequence after the fields:
 *             u32_indices, i64_indices (an index negative or above 32
 *             bits: the _wide events) or u64_hashes (xxh64 of items)
 * In this order: the analyzer's event kind is the position (the tag of an
 * event record of its event stream, analyzer/read/event_codec.h), so new
 * events go last. */
#define ACCWATCH_EVENTS(E)                                                     \
	E(process, PROCESS, process, process, none)                            \
	E(dist_init, DIST_INIT, dist_init, dist_init, none)                    \
	E(fork, FORK, fork, fork, none)                                        \
	E(exec, EXEC, exec, exec, none)                                        \
	E(exit, EXIT, exit, exit, none)                                        \
	E(loader_new, LOADER_NEW, loader_new, loader_new, none)                \
	E(loader_wrap, LOADER_WRAP, loader_wrap, loader_wrap, none)            \
	E(loader_len, LOADER_LEN, loader_len, loader_len, none)                \
	E(iter_begin, ITER_BEGIN, iter_begin, iter_begin, none)                \
	E(batch, BATCH, batch, chunk, u32_indices)                             \
	E(batch_wide, BATCH_WIDE, batch, chunk, i64_indices)                   \
	E(iter_end, ITER_END, iter_end, iter_end, none)                        \
	E(worker_start, WORKER_START, worker_start, worker_start, none)        \
	E(worker_fetch, WORKER_FETCH, chunk, chunk, u32_indices)               \
	E(worker_fetch_wide, WORKER_FETCH_WIDE, chunk, chunk, i64_indices)     \
	E(item_fetch, ITEM_FETCH, chunk, chunk, u64_hashes)                    \
	E(worker_fetch_end, WORKER_FETCH_END, fetch_end, fetch_end, none)

/* The analyzer's structs (model column above). */
#define ACCWATCH_MODELS(M)                                                     \
	M(process) M(dist_init) M(fork) M(exec) M(exit) M(loader_new)          \
	    M(loader_wrap) M(loader_len) M(iter_begin) M(chunk) M(iter_end)    \
	    M(worker_start) M(fetch_end)

/* The sequences: the C type of an element and the field's name. */
#define ACCWATCH_SEQ_TYPE_u32_indices uint32_t
#define ACCWATCH_SEQ_NAME_u32_indices indices
#define ACCWATCH_SEQ_TYPE_i64_indices int64_t
#define ACCWATCH_SEQ_NAME_i64_indices indices
#define ACCWATCH_SEQ_TYPE_u64_hashes uint64_t
#define ACCWATCH_SEQ_NAME_u64_hashes hashes

#endif
