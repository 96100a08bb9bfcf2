/* SPDX-License-Identifier: MIT */
/* Emits a small, known accwatch event stream through real LTTng-UST
 * tracepoints, standing in for several processes (the pid is in each event's
 * payload), so the reader can be tested on a real CTF trace.
 *
 *   trace_gen RUN sharded|unsharded   two ranks over a dataset of 100, 2 epochs
 *   trace_gen RUN none                registers the provider, emits nothing
 *   trace_gen RUN bench INDICES [FORM]
 *                                     4 ranks drawing INDICES indices in all,
 *                                     shuffled, in batches of 64 as FORM:
 *                                     bits (the recorder's, the default),
 *                                     packed or plain (the events of
 *                                     recorders before)
 *   trace_gen RUN discards INDICES    the bench's burst (bits), then four
 *                                     batch events of 2^15 indices (128 KiB):
 *                                     LTTng drops an event larger than a
 *                                     sub-buffer, so under 64 KiB sub-buffers
 *                                     events are lost whatever the timing
 *   trace_gen RUN absurd              values no sane run has: a dataset of
 *                                     2^62, negative and huge indices, a batch
 *                                     of 10^7 indices, extreme ids and counts
 *   trace_gen RUN growth SHAPE N      a long run of two ranks, for the
 *                                     report's growth (bench/report_growth.py):
 *                                     SHAPE loaders: N one-batch DataLoaders
 *                                     built over one DistributedSampler per
 *                                     rank, one pass each; epochs: one loader
 *                                     per rank, N one-batch passes in all;
 *                                     processes: N passes, each forking a
 *                                     worker that fetches its batch and exits;
 *                                     unsharded: N one-batch DataLoaders of
 *                                     all 16 samples, none sharded
 *
 * RUN is the run id every event carries: record with a session filter on it
 * (--filter 'run == RUN'), since other processes of the user may emit
 * accwatch events into the same per-user buffers meanwhile. */
#define LTTNG_UST_TRACEPOINT_CREATE_PROBES
#define LTTNG_UST_TRACEPOINT_DEFINE
#include "accwatch_tp.h"

#include "accwatch_packed.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DATASET 100u
#define BATCH 8u

/* The info struct of an event of field list `list`: the run id and the
 * emitting pid every event begins with, then the event's own fields as
 * designated initializers. */
#define TG_INFO(list, run_id, emitter, ...)                                    \
	(&(struct accwatch_##list##_info){                                     \
	    .run = (run_id), .pid = (emitter), __VA_ARGS__})

/* An event without a sequence (its field list has its name). */
#define TG_EMIT(event, run_id, emitter, ...)                                   \
	lttng_ust_tracepoint(accwatch, event,                                  \
			     TG_INFO(event, run_id, emitter, __VA_ARGS__))

static void emit_process(uint32_t run, int32_t pid, int32_t ppid, int32_t rank,
			 const char *role)
{
	TG_EMIT(process, run, pid, .ppid = ppid, .rank = rank,
		.local_rank = rank, .world_size = 2, .local_world_size = 2,
		.rank_source = "RANK", .host = "node0", .role = role,
		.argv = "python train.py", .python = "3.11", .torch = "2.1");
}

static void emit_loader(uint32_t run, int32_t pid, uint32_t loader,
			int64_t dataset_len, int64_t batch_size)
{
	TG_EMIT(
	    loader_new, run, pid, .loader = loader, .dataset_id = 42,
	    .dataset_type = "ToyDataset", .dataset_len = dataset_len,
	    .loader_class = "DataLoader", .sampler_class = "DistributedSampler",
	    .batch_sampler_class = "BatchSampler", .batch_size = batch_size,
	    .drop_last = 0, .shuffle = 1, .num_workers = 1,
	    .persistent_workers = 0, .prefetch_factor = 2,
	    .start_method = "fork", .sampler_replicas = 2, .sampler_rank = 0,
	    .site = "train.py:10", .stack = "train.py:10 main", .allow = "");
}

/* How a batch goes out: batch (the events of traces before packing),
 * batch_wide, batch_packed (fields and packed indices), or batch_bits
 * (what the recorder writes: fields and indices packed). */
enum tg_form { TG_PLAIN, TG_WIDE, TG_PACKED, TG_BITS };

/* batch_bits of one chunk (accwatch_packed.h). */
static void emit_bits(const struct accwatch_batch_info *info,
		      const uint32_t *indices)
{
	uint64_t words[ACCWATCH_PACKED_BITS_WORDS(64)];
	struct accwatch_packed_writer w = {words, 0, 0, 0};
	accwatch_packed_put_short(&w, info->loader);
	accwatch_packed_put_short(&w, info->iteration);
	accwatch_packed_put_short(&w, info->batch);
	accwatch_packed_put_place(&w, info->offset, info->total, info->count);
	accwatch_packed_encode_u32_put(&w, indices, info->count);
	size_t n_words = accwatch_packed_finish(&w);
	lttng_ust_tracepoint(accwatch, batch_bits, info, words,
			     (uint16_t)n_words);
}

/* One batch, split into chunks of at most `chunk` indices (<= 64). */
static void emit_batch(uint32_t run, int32_t pid, uint32_t loader,
		       uint32_t iteration, uint32_t ordinal,
		       const uint32_t *indices, uint32_t count, uint32_t chunk,
		       enum tg_form form)
{
	for (uint32_t offset = 0; offset < count; offset += chunk) {
		uint32_t n = count - offset < chunk ? count - offset : chunk;
		const struct accwatch_batch_info *info =
		    TG_INFO(batch, run, pid, .loader = loader,
			    .iteration = iteration, .batch = ordinal,
			    .offset = offset, .total = count, .count = n);
		if (form == TG_BITS) {
			emit_bits(info, indices + offset);
		} else if (form == TG_PACKED) {
			uint64_t words[ACCWATCH_PACKED_WORDS(64)];
			size_t n_words = accwatch_packed_encode_u32(
			    indices + offset, n, words);
			lttng_ust_tracepoint(accwatch, batch_packed, info,
					     words, (uint16_t)n_words);
		} else if (form == TG_WIDE) {
			int64_t wide_indices[64];
			for (uint32_t i = 0; i < n; i++)
				wide_indices[i] = indices[offset + i];
			lttng_ust_tracepoint(accwatch, batch_wide, info,
					     wide_indices);
		} else {
			lttng_ust_tracepoint(accwatch, batch, info,
					     indices + offset);
		}
	}
}

/* One rank's epoch: its indices in batches of BATCH, plus two prefetched
 * batches drawn past what the loop yields when `prefetch` is set. */
static void emit_epoch(uint32_t run, int32_t pid, uint32_t iteration,
		       const uint32_t *indices, uint32_t count, int prefetch)
{
	TG_EMIT(iter_begin, run, pid, .loader = 0, .iteration = iteration,
		.sampler_epoch = iteration, .seed = 1234, .resumed = -1);
	uint32_t batches = 0;
	for (uint32_t start = 0; start < count; start += BATCH, batches++) {
		uint32_t n = count - start < BATCH ? count - start : BATCH;
		/* Batch 1 is chunked (3 + 5), plain in the first epoch and
		 * as bits after; batch 2 goes out wide, batch 3 packed, the
		 * ones after as bits (one trace of every recorder). */
		emit_batch(run, pid, 0, iteration, batches, indices + start, n,
			   batches == 1 ? 3 : BATCH,
			   batches == 2   ? TG_WIDE
			   : batches == 3 ? TG_PACKED
			   : batches > 3 || (batches == 1 && iteration > 0)
			       ? TG_BITS
			       : TG_PLAIN);
	}
	uint32_t drawn = batches;
	if (prefetch) {
		uint32_t extra[BATCH];
		for (uint32_t i = 0; i < BATCH; i++)
			extra[i] = i;
		emit_batch(run, pid, 0, iteration, drawn++, extra, BATCH, BATCH,
			   TG_PLAIN);
		emit_batch(run, pid, 0, iteration, drawn++, extra, BATCH, BATCH,
			   TG_BITS);
	}
	TG_EMIT(iter_end, run, pid, .loader = 0, .iteration = iteration,
		.drawn = drawn, .yielded = batches, .exhausted = 1,
		.handed = -1);
}

static int scenario_two_ranks(uint32_t run, int sharded)
{
	const int32_t pids[2] = {1001, 1002};
	emit_process(run, 1000, 1, -1, "launcher");
	for (int r = 0; r < 2; r++) {
		emit_process(run, pids[r], 1000, r, "rank");
		TG_EMIT(dist_init, run, pids[r], .rank = r, .world_size = 2,
			.backend = "gloo");
		emit_loader(run, pids[r], 0, DATASET, BATCH);
	}
	/* A worker of rank 0, for the process model. */
	emit_process(run, 2001, pids[0], 0, "worker");
	TG_EMIT(worker_start, run, 2001, .worker_id = 0, .num_workers = 1,
		.seed = 99, .loader = 0, .iteration = 0, .loader_pid = pids[0]);
	uint32_t fetched[4] = {0, 2, 4, 6};
	lttng_ust_tracepoint(accwatch, worker_fetch,
			     TG_INFO(chunk, run, 2001, .worker_id = 0,
				     .loader = 0, .iteration = 0, .batch = 0,
				     .offset = 0, .total = 4, .count = 4),
			     fetched);

	for (uint32_t epoch = 0; epoch < 2; epoch++) {
		for (int r = 0; r < 2; r++) {
			uint32_t indices[DATASET];
			uint32_t n = 0;
			/* The sampler shuffles: epoch 1 reads in reverse. */
			for (uint32_t k = 0; k < DATASET; k++) {
				uint32_t i = epoch ? DATASET - 1 - k : k;
				if (!sharded || i % 2 == (uint32_t)r)
					indices[n++] = i;
			}
			TG_EMIT(loader_len, run, pids[r], .loader = 0,
				.value = (n + BATCH - 1) / BATCH,
				.site = "train.py:20");
			emit_epoch(run, pids[r], epoch, indices, n, r == 0);
		}
	}
	TG_EMIT(exit, run, 2001, .exited_pid = 2001, .status = 0, .signal = -1);
	return 0;
}

/* Four ranks, disjoint shards of a shuffle (position p holds p times an
 * odd number modulo the next power of two, those below total kept), batches
 * of 64: a load for timing the reader. */
static int scenario_bench(uint32_t run, unsigned long long total,
			  enum tg_form form)
{
	enum { RANKS = 4, B = 64 };
	uint32_t batch[B];
	for (int r = 0; r < RANKS; r++) {
		emit_process(run, 5000 + r, 4999, r, "rank");
		emit_loader(run, 5000 + r, 0, (int64_t)total, B);
		TG_EMIT(iter_begin, run, 5000 + r, .loader = 0, .iteration = 0,
			.sampler_epoch = 0, .seed = 0, .resumed = -1);
	}
	unsigned long long span = 1, position = 0;
	while (span < total)
		span <<= 1;
	uint32_t drawn[RANKS] = {0};
	while (position < span) {
		for (int r = 0; r < RANKS; r++) {
			int n = 0;
			while (n < B && position < span) {
				unsigned long long index =
				    (position++ * 2654435761ull) & (span - 1);
				if (index < total)
					batch[n++] = (uint32_t)index;
			}
			if (n)
				emit_batch(run, 5000 + r, 0, 0, drawn[r]++,
					   batch, (uint32_t)n, B, form);
		}
	}
	for (int r = 0; r < RANKS; r++)
		TG_EMIT(iter_end, run, 5000 + r, .loader = 0, .iteration = 0,
			.drawn = drawn[r], .yielded = drawn[r], .exhausted = 1,
			.handed = -1);
	return 0;
}

/* The bench's burst, which may or may not outrun the consumer, then four
 * batch events too large for a sub-buffer of 64 KiB: those are lost on any
 * machine, so a trace recorded with such sub-buffers surely has discards. */
static int scenario_discards(uint32_t run, unsigned long long total)
{
	enum { BIG = 1u << 15, EVENTS = 4 };
	scenario_bench(run, total, TG_BITS);
	uint32_t *big = malloc(BIG * sizeof(*big));
	if (!big)
		return 1;
	for (uint32_t i = 0; i < BIG; i++)
		big[i] = i;
	for (uint32_t e = 0; e < EVENTS; e++)
		lttng_ust_tracepoint(accwatch, batch,
				     TG_INFO(batch, run, 5000, .loader = 0,
					     .iteration = 1, .batch = e,
					     .offset = 0, .total = BIG,
					     .count = BIG),
				     big);
	free(big);
	return 0;
}

/* Values at the edges of every field type, for the analyzer's robustness
 * tests: the report must come out, with the odd values flagged or counted. */
static int scenario_absurd(uint32_t run)
{
	enum { HUGE_BATCH = 10000000 };
	const int32_t pids[2] = {3000, 3001};
	for (int r = 0; r < 2; r++) {
		emit_process(run, pids[r], 2999, r, "rank");
		emit_loader(run, pids[r], 0, INT64_C(1) << 62, HUGE_BATCH);
		TG_EMIT(loader_len, run, pids[r], .loader = 0,
			.value = INT64_MIN, .site = "absurd.py:1");
		TG_EMIT(iter_begin, run, pids[r], .loader = 0, .iteration = 0,
			.sampler_epoch = INT64_MAX, .seed = INT64_MIN,
			.resumed = -1);
	}
	/* Rank 0: one batch of 10^7 indices, in chunks as the recorder splits
	 * it, then one claiming 2^32-1 indices and bringing 3. */
	uint32_t *huge = malloc(HUGE_BATCH * sizeof(*huge));
	if (!huge)
		return 1;
	for (uint32_t i = 0; i < HUGE_BATCH; i++)
		huge[i] = i;
	emit_batch(run, pids[0], 0, 0, 0, huge, HUGE_BATCH, ACCWATCH_CHUNK_MAX,
		   TG_BITS);
	free(huge);
	uint32_t few[3] = {UINT32_MAX, UINT32_MAX - 1, 0};
	lttng_ust_tracepoint(accwatch, batch,
			     TG_INFO(batch, run, pids[0], .loader = 0,
				     .iteration = 0, .batch = 1,
				     .offset = UINT32_MAX - 3,
				     .total = UINT32_MAX, .count = 3),
			     few);
	TG_EMIT(iter_end, run, pids[0], .loader = 0, .iteration = 0,
		.drawn = UINT32_MAX, .yielded = UINT32_MAX, .exhausted = 1,
		.handed = -1);
	/* Rank 1: indices below 0 and beyond 2^32, 2^62 and int64's ends. */
	int64_t wide[8] = {-1,
			   -(INT64_C(1) << 40),
			   INT64_C(1) << 40,
			   (INT64_C(1) << 62) - 1,
			   INT64_MIN,
			   INT64_MAX,
			   5,
			   0};
	lttng_ust_tracepoint(accwatch, batch_wide,
			     TG_INFO(batch, run, pids[1], .loader = 0,
				     .iteration = 0, .batch = 0, .offset = 0,
				     .total = 8, .count = 8),
			     wide);
	TG_EMIT(iter_end, run, pids[1], .loader = 0, .iteration = 0, .drawn = 1,
		.yielded = 5, .exhausted = 1, .handed = -1);
	/* A process claiming the last rank of a world of 2^31-1, a loader
	 * and an iteration numbered at the top of their range, and ids
	 * nobody uses (pid 0, negative ppid). */
	TG_EMIT(process, run, 0, .ppid = INT32_MIN, .rank = INT32_MAX,
		.local_rank = INT32_MAX, .world_size = INT32_MAX,
		.local_world_size = -5, .rank_source = "RANK", .host = "",
		.role = "rank", .argv = "", .python = "", .torch = "");
	TG_EMIT(dist_init, run, 0, .rank = INT32_MAX, .world_size = -5,
		.backend = "");
	TG_EMIT(iter_begin, run, 0, .loader = UINT32_MAX - 1,
		.iteration = UINT32_MAX - 1, .sampler_epoch = -1, .seed = -1,
		.resumed = -1);
	TG_EMIT(iter_end, run, 0, .loader = UINT32_MAX - 1,
		.iteration = UINT32_MAX - 1, .drawn = 0, .yielded = UINT32_MAX,
		.exhausted = 0, .handed = -1);
	TG_EMIT(exit, run, 0, .exited_pid = INT32_MIN, .status = INT32_MIN,
		.signal = INT32_MAX);
	return 0;
}

/* The growth scenario (see the top): two ranks, a dataset of 16 read in one
 * batch of 8 per rank and pass, through a DistributedSampler whose object is
 * the same for every loader of a rank, as a training loop building a new
 * DataLoader per epoch over one sampler does. */
enum { GROWTH_LOADERS, GROWTH_EPOCHS, GROWTH_PROCESSES, GROWTH_UNSHARDED };

/* The unsharded shape's loader: every rank's is a DataLoader of one batch
 * of all 16 over a SequentialSampler, built anew each epoch. */
static void growth_unsharded_loader(uint32_t run, int32_t pid, uint32_t loader)
{
	TG_EMIT(
	    loader_new, run, pid, .loader = loader, .dataset_id = 42,
	    .dataset_type = "ToyDataset", .dataset_len = 16,
	    .loader_class = "DataLoader", .sampler_class = "SequentialSampler",
	    .batch_sampler_class = "BatchSampler", .batch_size = 16,
	    .drop_last = 0, .shuffle = 0, .num_workers = 0,
	    .persistent_workers = 0, .prefetch_factor = -1, .start_method = "",
	    .sampler_replicas = -1, .sampler_rank = -1, .site = "train.py:40",
	    .stack = "train.py:40 main", .allow = "");
	TG_EMIT(sampler, run, pid, .loader = loader, .depth = 0,
		.class_name = "BatchSampler", .length = 1, .num_replicas = -1,
		.rank = -1, .shuffle = -1, .seed = -1, .epoch = -1,
		.drop_last = 0, .replacement = -1, .num_samples = -1,
		.batch_size = 16, .skip = -1, .total_size = -1,
		.object_id = 2000000u + loader);
	TG_EMIT(sampler, run, pid, .loader = loader, .depth = 1,
		.class_name = "SequentialSampler", .length = 16,
		.num_replicas = -1, .rank = -1, .shuffle = 0, .seed = -1,
		.epoch = -1, .drop_last = -1, .replacement = -1,
		.num_samples = -1, .batch_size = -1, .skip = -1,
		.total_size = -1, .object_id = 3000000u + loader);
}

static void growth_unsharded_pass(uint32_t run, int32_t pid, uint32_t loader)
{
	uint32_t indices[16];
	for (uint32_t i = 0; i < 16; i++)
		indices[i] = i;
	TG_EMIT(iter_begin, run, pid, .loader = loader, .iteration = 0,
		.sampler_epoch = -1, .seed = -1, .resumed = -1);
	emit_batch(run, pid, loader, 0, 0, indices, 16, 16, TG_PLAIN);
	TG_EMIT(iter_end, run, pid, .loader = loader, .iteration = 0,
		.drawn = 1, .yielded = 1, .exhausted = 1, .handed = -1);
}

static void growth_loader(uint32_t run, int32_t pid, int r, uint32_t loader,
			  uint32_t epoch)
{
	TG_EMIT(
	    loader_new, run, pid, .loader = loader, .dataset_id = 42,
	    .dataset_type = "ToyDataset", .dataset_len = 16,
	    .loader_class = "DataLoader", .sampler_class = "DistributedSampler",
	    .batch_sampler_class = "BatchSampler", .batch_size = 8,
	    .drop_last = 0, .shuffle = 0, .num_workers = 0,
	    .persistent_workers = 0, .prefetch_factor = -1, .start_method = "",
	    .sampler_replicas = 2, .sampler_rank = r, .site = "train.py:30",
	    .stack = "train.py:30 main", .allow = "");
	TG_EMIT(sampler, run, pid, .loader = loader, .depth = 0,
		.class_name = "BatchSampler", .length = 1, .num_replicas = -1,
		.rank = -1, .shuffle = -1, .seed = -1, .epoch = -1,
		.drop_last = 0, .replacement = -1, .num_samples = -1,
		.batch_size = 8, .skip = -1, .total_size = -1,
		.object_id = 1000000u + loader);
	TG_EMIT(sampler, run, pid, .loader = loader, .depth = 1,
		.class_name = "DistributedSampler", .length = 8,
		.num_replicas = 2, .rank = r, .shuffle = 0, .seed = 0,
		.epoch = epoch, .drop_last = 0, .replacement = -1,
		.num_samples = 8, .batch_size = -1, .skip = -1,
		.total_size = 16, .object_id = 7);
}

static void growth_pass(uint32_t run, int32_t pid, int r, uint32_t loader,
			uint32_t iteration, uint32_t epoch, int32_t worker)
{
	uint32_t indices[8];
	for (uint32_t i = 0; i < 8; i++)
		indices[i] = 2 * i + (uint32_t)r;
	TG_EMIT(loader_len, run, pid, .loader = loader, .value = 1,
		.site = "train.py:31");
	TG_EMIT(iter_begin, run, pid, .loader = loader, .iteration = iteration,
		.sampler_epoch = epoch, .seed = 0, .resumed = -1);
	emit_batch(run, pid, loader, iteration, 0, indices, 8, 8, TG_PLAIN);
	if (worker > 0) {
		TG_EMIT(fork, run, pid, .child_pid = worker, .threads = 1,
			.thread_names = "", .cuda_mapped = 0, .py_stack = "",
			.native_stack = "", .py_threads = "");
		TG_EMIT(process, run, worker, .ppid = pid, .rank = r,
			.local_rank = r, .world_size = 2, .local_world_size = 2,
			.rank_source = "RANK", .host = "node0",
			.role = "worker", .argv = "python train.py",
			.python = "3.11", .torch = "2.1");
		TG_EMIT(worker_start, run, worker, .worker_id = 0,
			.num_workers = 1, .seed = 99, .loader = loader,
			.iteration = iteration, .loader_pid = pid);
		lttng_ust_tracepoint(
		    accwatch, worker_fetch,
		    TG_INFO(chunk, run, worker, .worker_id = 0,
			    .loader = loader, .iteration = iteration,
			    .batch = 0, .offset = 0, .total = 8, .count = 8),
		    indices);
		lttng_ust_tracepoint(accwatch, worker_fetch_end,
				     TG_INFO(fetch_end, run, worker,
					     .worker_id = 0, .loader = loader,
					     .iteration = iteration, .batch = 0,
					     .ok = 1));
		TG_EMIT(exit, run, worker, .exited_pid = worker, .status = 0,
			.signal = -1);
		TG_EMIT(exit, run, pid, .exited_pid = worker, .status = 0,
			.signal = -1);
	}
	TG_EMIT(iter_end, run, pid, .loader = loader, .iteration = iteration,
		.drawn = 1, .yielded = 1, .exhausted = 1, .handed = -1);
}

static int scenario_growth(uint32_t run, const char *shape_name,
			   unsigned long long n)
{
	const int32_t pids[2] = {6001, 6002};
	int shape;
	if (strcmp(shape_name, "loaders") == 0)
		shape = GROWTH_LOADERS;
	else if (strcmp(shape_name, "epochs") == 0)
		shape = GROWTH_EPOCHS;
	else if (strcmp(shape_name, "processes") == 0)
		shape = GROWTH_PROCESSES;
	else if (strcmp(shape_name, "unsharded") == 0)
		shape = GROWTH_UNSHARDED;
	else
		return 2;
	emit_process(run, 6000, 1, -1, "launcher");
	for (int r = 0; r < 2; r++) {
		emit_process(run, pids[r], 6000, r, "rank");
		TG_EMIT(dist_init, run, pids[r], .rank = r, .world_size = 2,
			.backend = "gloo");
		if (shape != GROWTH_LOADERS && shape != GROWTH_UNSHARDED)
			growth_loader(run, pids[r], r, 0, 0);
	}
	/* The ranks take turns, as their real events interleave. */
	for (unsigned long long k = 0; k < n / 2; k++) {
		for (int r = 0; r < 2; r++) {
			uint32_t epoch = (uint32_t)k;
			int32_t worker = 0;
			if (shape == GROWTH_UNSHARDED) {
				growth_unsharded_loader(run, pids[r], epoch);
				growth_unsharded_pass(run, pids[r], epoch);
				continue;
			}
			if (shape == GROWTH_LOADERS) {
				growth_loader(run, pids[r], r, epoch, epoch);
				growth_pass(run, pids[r], r, epoch, 0, epoch,
					    0);
				continue;
			}
			if (shape == GROWTH_PROCESSES)
				worker = 100000 + (int32_t)(2 * k) + r;
			growth_pass(run, pids[r], r, 0, epoch, epoch, worker);
		}
	}
	for (int r = 0; r < 2; r++)
		TG_EMIT(exit, run, pids[r], .exited_pid = pids[r], .status = 0,
			.signal = -1);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 3)
		goto usage;
	uint32_t run = (uint32_t)strtoul(argv[1], NULL, 10);
	const char *scenario = argv[2];
	if (strcmp(scenario, "sharded") == 0)
		return scenario_two_ranks(run, 1);
	if (strcmp(scenario, "unsharded") == 0)
		return scenario_two_ranks(run, 0);
	if (strcmp(scenario, "none") == 0)
		return 0;
	if (strcmp(scenario, "absurd") == 0)
		return scenario_absurd(run);
	if (argc >= 4 && strcmp(scenario, "bench") == 0)
		return scenario_bench(run, strtoull(argv[3], NULL, 10),
				      argc < 5                        ? TG_BITS
				      : strcmp(argv[4], "plain") == 0 ? TG_PLAIN
				      : strcmp(argv[4], "packed") == 0
					  ? TG_PACKED
					  : TG_BITS);
	if (argc >= 4 && strcmp(scenario, "discards") == 0)
		return scenario_discards(run, strtoull(argv[3], NULL, 10));
	if (argc >= 5 && strcmp(scenario, "growth") == 0)
		return scenario_growth(run, argv[3],
				       strtoull(argv[4], NULL, 10));
usage:
	fprintf(stderr,
		"usage: trace_gen RUN sharded|unsharded|none|absurd|"
		"bench INDICES [bits|packed|plain]|discards INDICES|growth "
		"loaders|epochs|processes N\n");
	return 2;
}
