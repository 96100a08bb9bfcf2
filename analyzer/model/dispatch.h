/* SPDX-License-Identifier: MIT */
/* accelerate's DataLoaderDispatcher replayed on rank 0's reads: each rank's
 * share of every step, rebuilt from the slicing rule, so dispatched loaders
 * get per-rank rows like any other. */
#ifndef AW_DISPATCH_H
#define AW_DISPATCH_H

#define XXH_STATIC_LINKING_ONLY
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <xxhash.h>

#include "observer.h"
#include "sample_set.h"

/* One rank's share of the epoch. */
struct aw_dispatch_share {
	struct aw_sample_set set;
	uint64_t batches;
	uint32_t max_batch_len;
	XXH64_state_t order;
};

/* The rule (accelerate v0.2x-v1.x, DataLoaderDispatcher.__iter__): rank 0
 * concatenates W inner batches per step (one with split_batches); with n
 * samples in the step and bs = n / W, rank r keeps [r*bs, (r+1)*bs). The
 * epoch's last step, when n is not a multiple of W and drop_last is off, is
 * completed with the epoch's first W samples and bs grows by one. A last
 * step of fewer than W inner batches is dropped with drop_last. */
struct aw_dispatch {
	uint32_t world;    /* W: num_processes */
	uint32_t per_step; /* inner batches per step: W, or 1 */
	struct aw_dispatch_share *shares;
	/* The step being filled; it is only known to be the last at the end,
	 * so a full step waits until the next batch comes. */
	uint64_t *step;
	size_t step_len, step_cap;
	uint32_t step_batches;
	uint64_t *first; /* the epoch's first W samples */
	uint32_t n_first;
	bool first_taken;
	uint64_t steps;
	/* Samples of the epoch's head given again to complete the last step. */
	uint64_t padded;
	bool finished;

	/* Told of every rank's share of a step (NULL: no one wants them). */
	const struct aw_model_observer *observer;
	struct aw_read read_template;
};

void aw_dispatch_init(struct aw_dispatch *d, uint32_t world,
		      bool split_batches);
void aw_dispatch_fini(struct aw_dispatch *d);
/* Tells observer each rank's share as template with the kind, step, rank
 * and indices set. */
void aw_dispatch_observe(struct aw_dispatch *d,
			 const struct aw_model_observer *observer,
			 const struct aw_read *template);
/* One inner batch rank 0 consumed, in order. */
void aw_dispatch_add_batch(struct aw_dispatch *d, const uint64_t *indices,
			   size_t count);
/* The epoch ended: the held step is the last one. Without `exhausted` (a
 * loop that left early) no padding is added and a partial step is dropped. */
void aw_dispatch_finish(struct aw_dispatch *d, bool drop_last, bool exhausted);

#endif
