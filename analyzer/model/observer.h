/* SPDX-License-Identifier: MIT */
/* What the model tells an observer while it takes events: the indices of
 * every batch as it is placed (consumed, drawn ahead, fetched by a worker,
 * handed to a rank by accelerate's dispatcher). The questions of a debugging
 * session (--sample, --rank/--epoch, query/watch.h) are such an observer,
 * installed by main.c; the model keeps nothing for them. */
#ifndef AW_OBSERVER_H
#define AW_OBSERVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum aw_read_kind {
	AW_READ_CONSUMED,   /* in a batch the rank's loop got */
	AW_READ_PREFETCHED, /* drawn ahead, never yielded */
	AW_READ_FETCHED,    /* read by a DataLoader worker */
	AW_READ_DISPATCHED, /* rank 0 read it, accelerate sent it to a rank */
};

/* One batch, or one chunk of a worker's fetch, as placed. */
struct aw_read {
	enum aw_read_kind kind;
	uint32_t process;   /* index of the reading process in the model */
	uint32_t loader;    /* loader object, AW_NONE: not known yet */
	uint32_t loader_id; /* the event's loader id (fetches) */
	uint32_t iteration; /* index in model->iterations, AW_NONE: none */
	uint32_t epoch;     /* the iteration's ordinal, ACCWATCH_UNKNOWN */
	/* Draw ordinal, worker fetch ordinal or dispatch step. */
	uint32_t batch;
	uint32_t offset;   /* position in the batch of the first index */
	int32_t worker_id; /* AW_READ_FETCHED, else -1 */
	int32_t to_rank;   /* AW_READ_DISPATCHED: the rank that got it */
	/* The indices: 32-bit ones as a worker fetched them, or `wide` (a
	 * wide fetch; every batch placed, consumed, drawn ahead or
	 * dispatched; a fetch mapped to dataset indices, -1: unmapped). */
	const uint32_t *indices;
	const int64_t *wide;
	size_t count;
};

struct aw_model;

struct aw_model_observer {
	void *data;
	/* A new iteration (its index in model->iterations, set up but empty):
	 * whether its reads are told. */
	bool (*wants_iteration)(void *data, const struct aw_model *model,
				uint32_t iteration);
	/* Whether the chunks workers fetch are told. */
	bool wants_fetches;
	void (*on_read)(void *data, const struct aw_read *read);
};

#endif
