/* SPDX-License-Identifier: MIT */
/* The questions of a debugging session besides the report: who read sample N
 * (--sample), what one rank consumed in one epoch, in order (--rank/--epoch),
 * one loader only (--loader), one recording only (--run). What the answers
 * need is kept by a watch (watch.h) only when asked. */
#ifndef AW_QUERY_H
#define AW_QUERY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "observer.h"
#include "run_choice.h"

struct aw_query {
	bool by_sample; /* --sample */
	uint32_t sample;
	bool by_sequence; /* --rank and --epoch */
	int32_t rank;
	uint32_t epoch;
	const char *loader; /* --loader: "L1" or a site ("train.py:31") */
	struct aw_run_choice runs; /* --run */
};

/* One read of the sample asked for. */
struct aw_hit {
	enum aw_read_kind kind;
	uint32_t process;   /* index of the reading process in the model */
	uint32_t loader;    /* index of the loader object, AW_NONE unknown */
	uint32_t loader_id; /* the event's loader id when `loader` is unknown */
	uint32_t iteration; /* the epoch, ACCWATCH_UNKNOWN */
	uint32_t
	    batch; /* draw ordinal, worker fetch ordinal or dispatch step */
	uint32_t position; /* in the batch */
	int32_t worker_id; /* AW_READ_FETCHED */
	int32_t to_rank;   /* AW_READ_DISPATCHED: the rank that got it */
};

/* Hits kept at most; the rest are counted. */
#define AW_QUERY_HITS_MAX 100000

/* Indices in the order a rank consumed them, with batch boundaries. */
struct aw_sequence {
	int64_t *indices;
	size_t n, cap;
	size_t *batch_ends; /* index into `indices` after each batch */
	size_t n_batches, batches_cap;
	uint64_t unrepresentable; /* negative indices that were not kept */
};

struct aw_query_results {
	struct aw_hit *hits;
	size_t n_hits, hits_cap;
	uint64_t hits_dropped;
};

void aw_query_results_fini(struct aw_query_results *results);
void aw_query_results_add(struct aw_query_results *results,
			  const struct aw_hit *hit);

void aw_sequence_fini(struct aw_sequence *sequence);
/* One batch: 32-bit indices, or wide ones (wide non-NULL). */
void aw_sequence_add_batch(struct aw_sequence *sequence,
			   const uint32_t *indices, const int64_t *wide,
			   size_t count);

/* Whether a loader answers to --loader: its id ("L1") or a site ending in
 * the text given ("train.py:31" matches "/home/u/train.py:31"). */
bool aw_query_loader_matches(const char *wanted, const char *id,
			     const char *site);

#endif
