/* The LTTng-UST provider `accwatch`: the catalogue of events that libaccwatch
 * records and accwatch-report reads. Field names here are the trace's contract. */

#undef LTTNG_UST_TRACEPOINT_PROVIDER
#define LTTNG_UST_TRACEPOINT_PROVIDER accwatch

#undef LTTNG_UST_TRACEPOINT_INCLUDE
#define LTTNG_UST_TRACEPOINT_INCLUDE "accwatch_tp.h"

#if !defined(ACCWATCH_TP_H) || defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)
#define ACCWATCH_TP_H

#include <lttng/tracepoint.h>
#include <stdint.h>

#include "accwatch_events.h"

/* Every event starts with the run id (accwatch-run filters on it, so parallel
 * sessions of one user do not see each other) and the emitting pid (per-UID
 * buffers mix processes; the trace must not depend on session contexts). */
#define ACCWATCH_TP_COMMON(run_value, pid_value)                               \
	lttng_ust_field_integer(uint32_t, run, run_value)                      \
	lttng_ust_field_integer(int32_t, pid, pid_value)

LTTNG_UST_TRACEPOINT_EVENT(accwatch, process,
	LTTNG_UST_TP_ARGS(const struct accwatch_process_info *, info),
	LTTNG_UST_TP_FIELDS(
		ACCWATCH_TP_COMMON(info->run, info->pid)
		lttng_ust_field_integer(int32_t, ppid, info->ppid)
		lttng_ust_field_integer(int32_t, rank, info->rank)
		lttng_ust_field_integer(int32_t, local_rank, info->local_rank)
		lttng_ust_field_integer(int32_t, world_size, info->world_size)
		lttng_ust_field_integer(int32_t, local_world_size, info->local_world_size)
		lttng_ust_field_string(rank_source, info->rank_source)
		lttng_ust_field_string(host, info->host)
		lttng_ust_field_string(role, info->role)
		lttng_ust_field_string(argv, info->argv)
		lttng_ust_field_string(python, info->python)
		lttng_ust_field_string(torch, info->torch)
	)
)

LTTNG_UST_TRACEPOINT_EVENT(accwatch, dist_init,
	LTTNG_UST_TP_ARGS(uint32_t, run, int32_t, pid, int32_t, rank,
		int32_t, world_size, const char *, backend),
	LTTNG_UST_TP_FIELDS(
		ACCWATCH_TP_COMMON(run, pid)
		lttng_ust_field_integer(int32_t, rank, rank)
		lttng_ust_field_integer(int32_t, world_size, world_size)
		lttng_ust_field_string(backend, backend)
	)
)

LTTNG_UST_TRACEPOINT_EVENT(accwatch, fork,
	LTTNG_UST_TP_ARGS(const struct accwatch_fork_info *, info),
	LTTNG_UST_TP_FIELDS(
		ACCWATCH_TP_COMMON(info->run, info->pid)
		lttng_ust_field_integer(int32_t, child_pid, info->child_pid)
		lttng_ust_field_integer(uint32_t, threads, info->threads)
		lttng_ust_field_string(thread_names, info->thread_names)
		lttng_ust_field_integer(uint8_t, cuda_mapped, info->cuda_mapped)
		lttng_ust_field_string(py_stack, info->py_stack)
		lttng_ust_field_string(native_stack, info->native_stack)
		lttng_ust_field_string(py_threads, info->py_threads)
	)
)

/* pid is about to exec path (child_pid 0), or pid started child_pid on path
 * with posix_spawn (child_pid -1: not known). An exec that fails is still
 * recorded: the pid then goes on emitting events. */
LTTNG_UST_TRACEPOINT_EVENT(accwatch, exec,
	LTTNG_UST_TP_ARGS(uint32_t, run, int32_t, pid, const char *, path,
		int32_t, child_pid),
	LTTNG_UST_TP_FIELDS(
		ACCWATCH_TP_COMMON(run, pid)
		lttng_ust_field_string(path, path)
		lttng_ust_field_integer(int32_t, child_pid, child_pid)
	)
)

/* exited_pid is the pid itself (its own exit()/_exit(), seen from inside) or
 * a child whose end pid observed with the wait family (reaped, or peeked at
 * with WNOWAIT: a child may have several exit events, all alike). status is
 * the exit code (0-255) when it exited, else -1; signal the signal that
 * killed it, else -1. */
LTTNG_UST_TRACEPOINT_EVENT(accwatch, exit,
	LTTNG_UST_TP_ARGS(uint32_t, run, int32_t, pid, int32_t, exited_pid,
		int32_t, status, int32_t, signal),
	LTTNG_UST_TP_FIELDS(
		ACCWATCH_TP_COMMON(run, pid)
		lttng_ust_field_integer(int32_t, exited_pid, exited_pid)
		lttng_ust_field_integer(int32_t, status, status)
		lttng_ust_field_integer(int32_t, signal, signal)
	)
)

LTTNG_UST_TRACEPOINT_EVENT(accwatch, loader_new,
	LTTNG_UST_TP_ARGS(const struct accwatch_loader_info *, info),
	LTTNG_UST_TP_FIELDS(
		ACCWATCH_TP_COMMON(info->run, info->pid)
		lttng_ust_field_integer(uint32_t, loader, info->loader)
		lttng_ust_field_integer(uint64_t, dataset_id, info->dataset_id)
		lttng_ust_field_string(dataset_type, info->dataset_type)
		lttng_ust_field_integer(int64_t, dataset_len, info->dataset_len)
		lttng_ust_field_integer(uint8_t, iterable, info->iterable)
		lttng_ust_field_string(loader_class, info->loader_class)
		lttng_ust_field_string(sampler_class, info->sampler_class)
		lttng_ust_field_string(batch_sampler_class, info->batch_sampler_class)
		lttng_ust_field_integer(int64_t, batch_size, info->batch_size)
		lttng_ust_field_integer(int8_t, drop_last, info->drop_last)
		lttng_ust_field_integer(int8_t, shuffle, info->shuffle)
		lttng_ust_field_integer(int32_t, num_workers, info->num_workers)
		lttng_ust_field_integer(int8_t, persistent_workers, info->persistent_workers)
		lttng_ust_field_integer(int32_t, prefetch_factor, info->prefetch_factor)
		lttng_ust_field_string(start_method, info->start_method)
		lttng_ust_field_integer(int32_t, sampler_replicas, info->sampler_replicas)
		lttng_ust_field_integer(int32_t, sampler_rank, info->sampler_rank)
		lttng_ust_field_string(site, info->site)
		lttng_ust_field_string(stack, info->stack)
	)
)

LTTNG_UST_TRACEPOINT_EVENT(accwatch, loader_wrap,
	LTTNG_UST_TP_ARGS(const struct accwatch_wrap_info *, info),
	LTTNG_UST_TP_FIELDS(
		ACCWATCH_TP_COMMON(info->run, info->pid)
		lttng_ust_field_integer(uint32_t, outer, info->outer)
		lttng_ust_field_integer(uint32_t, inner, info->inner)
		lttng_ust_field_string(kind, info->kind)
		lttng_ust_field_integer(int8_t, split_batches, info->split_batches)
		lttng_ust_field_integer(int8_t, even_batches, info->even_batches)
		lttng_ust_field_integer(int32_t, num_processes, info->num_processes)
		lttng_ust_field_integer(int32_t, process_index, info->process_index)
	)
)

LTTNG_UST_TRACEPOINT_EVENT(accwatch, loader_len,
	LTTNG_UST_TP_ARGS(uint32_t, run, int32_t, pid, uint32_t, loader,
		int64_t, value, const char *, site),
	LTTNG_UST_TP_FIELDS(
		ACCWATCH_TP_COMMON(run, pid)
		lttng_ust_field_integer(uint32_t, loader, loader)
		lttng_ust_field_integer(int64_t, value, value)
		lttng_ust_field_string(site, site)
	)
)

LTTNG_UST_TRACEPOINT_EVENT(accwatch, iter_begin,
	LTTNG_UST_TP_ARGS(uint32_t, run, int32_t, pid, uint32_t, loader,
		uint32_t, iteration, int64_t, sampler_epoch, int64_t, seed),
	LTTNG_UST_TP_FIELDS(
		ACCWATCH_TP_COMMON(run, pid)
		lttng_ust_field_integer(uint32_t, loader, loader)
		lttng_ust_field_integer(uint32_t, iteration, iteration)
		lttng_ust_field_integer(int64_t, sampler_epoch, sampler_epoch)
		lttng_ust_field_integer(int64_t, seed, seed)
	)
)

/* One batch of indices drawn by the main process (`_next_index`). A batch
 * longer than ACCWATCH_CHUNK_MAX indices is split into several events with
 * the same batch ordinal; offset says where this part starts, total how long
 * the whole batch is. */
LTTNG_UST_TRACEPOINT_EVENT(accwatch, batch,
	LTTNG_UST_TP_ARGS(const struct accwatch_batch_info *, info,
		const uint32_t *, indices),
	LTTNG_UST_TP_FIELDS(
		ACCWATCH_TP_COMMON(info->run, info->pid)
		lttng_ust_field_integer(uint32_t, loader, info->loader)
		lttng_ust_field_integer(uint32_t, iteration, info->iteration)
		lttng_ust_field_integer(uint32_t, batch, info->batch)
		lttng_ust_field_integer(uint32_t, offset, info->offset)
		lttng_ust_field_integer(uint32_t, total, info->total)
		lttng_ust_field_sequence(uint32_t, indices, indices, uint32_t, info->count)
	)
)

/* The same batch when some index is negative or does not fit in 32 bits. */
LTTNG_UST_TRACEPOINT_EVENT(accwatch, batch_wide,
	LTTNG_UST_TP_ARGS(const struct accwatch_batch_info *, info,
		const int64_t *, indices),
	LTTNG_UST_TP_FIELDS(
		ACCWATCH_TP_COMMON(info->run, info->pid)
		lttng_ust_field_integer(uint32_t, loader, info->loader)
		lttng_ust_field_integer(uint32_t, iteration, info->iteration)
		lttng_ust_field_integer(uint32_t, batch, info->batch)
		lttng_ust_field_integer(uint32_t, offset, info->offset)
		lttng_ust_field_integer(uint32_t, total, info->total)
		lttng_ust_field_sequence(int64_t, indices, indices, uint32_t, info->count)
	)
)

LTTNG_UST_TRACEPOINT_EVENT(accwatch, iter_end,
	LTTNG_UST_TP_ARGS(uint32_t, run, int32_t, pid, uint32_t, loader,
		uint32_t, iteration, uint32_t, drawn, uint32_t, yielded,
		uint8_t, exhausted),
	LTTNG_UST_TP_FIELDS(
		ACCWATCH_TP_COMMON(run, pid)
		lttng_ust_field_integer(uint32_t, loader, loader)
		lttng_ust_field_integer(uint32_t, iteration, iteration)
		lttng_ust_field_integer(uint32_t, drawn, drawn)
		lttng_ust_field_integer(uint32_t, yielded, yielded)
		lttng_ust_field_integer(uint8_t, exhausted, exhausted)
	)
)

/* loader and iteration are ids of the process that started the worker,
 * loader_pid (its parent for fork and spawn; for forkserver the process that
 * asked the forkserver): passed through fork, or through multiprocessing's
 * process config for spawn and forkserver. ACCWATCH_UNKNOWN (loader_pid -1)
 * when that failed. */
LTTNG_UST_TRACEPOINT_EVENT(accwatch, worker_start,
	LTTNG_UST_TP_ARGS(uint32_t, run, int32_t, pid, int32_t, worker_id,
		int32_t, num_workers, uint64_t, seed, uint32_t, loader,
		uint32_t, iteration, int32_t, loader_pid),
	LTTNG_UST_TP_FIELDS(
		ACCWATCH_TP_COMMON(run, pid)
		lttng_ust_field_integer(int32_t, worker_id, worker_id)
		lttng_ust_field_integer(int32_t, num_workers, num_workers)
		lttng_ust_field_integer(uint64_t, seed, seed)
		lttng_ust_field_integer(uint32_t, loader, loader)
		lttng_ust_field_integer(uint32_t, iteration, iteration)
		lttng_ust_field_integer(int32_t, loader_pid, loader_pid)
	)
)

/* Indices a worker fetched (`_MapDatasetFetcher.fetch` in the worker);
 * batch is the worker's own fetch ordinal. Split like `batch`. */
LTTNG_UST_TRACEPOINT_EVENT(accwatch, worker_fetch,
	LTTNG_UST_TP_ARGS(const struct accwatch_fetch_info *, info,
		const uint32_t *, indices),
	LTTNG_UST_TP_FIELDS(
		ACCWATCH_TP_COMMON(info->run, info->pid)
		lttng_ust_field_integer(int32_t, worker_id, info->worker_id)
		lttng_ust_field_integer(uint32_t, loader, info->loader)
		lttng_ust_field_integer(uint32_t, iteration, info->iteration)
		lttng_ust_field_integer(uint32_t, batch, info->batch)
		lttng_ust_field_integer(uint32_t, offset, info->offset)
		lttng_ust_field_integer(uint32_t, total, info->total)
		lttng_ust_field_sequence(uint32_t, indices, indices, uint32_t, info->count)
	)
)

LTTNG_UST_TRACEPOINT_EVENT(accwatch, worker_fetch_wide,
	LTTNG_UST_TP_ARGS(const struct accwatch_fetch_info *, info,
		const int64_t *, indices),
	LTTNG_UST_TP_FIELDS(
		ACCWATCH_TP_COMMON(info->run, info->pid)
		lttng_ust_field_integer(int32_t, worker_id, info->worker_id)
		lttng_ust_field_integer(uint32_t, loader, info->loader)
		lttng_ust_field_integer(uint32_t, iteration, info->iteration)
		lttng_ust_field_integer(uint32_t, batch, info->batch)
		lttng_ust_field_integer(uint32_t, offset, info->offset)
		lttng_ust_field_integer(uint32_t, total, info->total)
		lttng_ust_field_sequence(int64_t, indices, indices, uint32_t, info->count)
	)
)

/* The end of a worker's fetch: the worker_fetch of the same pid, loader,
 * iteration and batch returned (ok 1) or raised (ok 0). A worker_fetch
 * without its end was still running when the worker died or the trace
 * ended: a worker stuck in __getitem__ shows as such. */
LTTNG_UST_TRACEPOINT_EVENT(accwatch, worker_fetch_end,
	LTTNG_UST_TP_ARGS(uint32_t, run, int32_t, pid, int32_t, worker_id,
		uint32_t, loader, uint32_t, iteration, uint32_t, batch,
		uint8_t, ok),
	LTTNG_UST_TP_FIELDS(
		ACCWATCH_TP_COMMON(run, pid)
		lttng_ust_field_integer(int32_t, worker_id, worker_id)
		lttng_ust_field_integer(uint32_t, loader, loader)
		lttng_ust_field_integer(uint32_t, iteration, iteration)
		lttng_ust_field_integer(uint32_t, batch, batch)
		lttng_ust_field_integer(uint8_t, ok, ok)
	)
)

/* Fingerprints (xxh64) of items an IterableDataset produced, in a worker
 * (worker_id >= 0) or in the main process (worker_id = -1). */
LTTNG_UST_TRACEPOINT_EVENT(accwatch, item_fetch,
	LTTNG_UST_TP_ARGS(const struct accwatch_fetch_info *, info,
		const uint64_t *, hashes),
	LTTNG_UST_TP_FIELDS(
		ACCWATCH_TP_COMMON(info->run, info->pid)
		lttng_ust_field_integer(int32_t, worker_id, info->worker_id)
		lttng_ust_field_integer(uint32_t, loader, info->loader)
		lttng_ust_field_integer(uint32_t, iteration, info->iteration)
		lttng_ust_field_integer(uint32_t, batch, info->batch)
		lttng_ust_field_integer(uint32_t, offset, info->offset)
		lttng_ust_field_integer(uint32_t, total, info->total)
		lttng_ust_field_sequence(uint64_t, hashes, hashes, uint32_t, info->count)
	)
)

#endif /* ACCWATCH_TP_H */

#include <lttng/tracepoint-event.h>
