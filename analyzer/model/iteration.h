/* SPDX-License-Identifier: MIT */
/* One pass of one process over one DataLoader (an epoch): assembles the drawn
 * batches from their chunks and folds the consumed ones into a sample set. */
#ifndef AW_ITERATION_H
#define AW_ITERATION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define XXH_STATIC_LINKING_ONLY
#include <xxhash.h>

#include "dispatch.h"
#include "event.h"
#include "index_head.h"
#include "index_map.h"
#include "mapping.h"
#include "observer.h"
#include "sample_set.h"

/* A batch drawn but not yet folded: it may still turn out to be prefetched
 * and never yielded. Its indices live in the iteration's buffer. */
struct aw_pending_batch {
	uint32_t ordinal;
	uint32_t total; /* the batch's length, as its chunks claim */
	/* Slots in the buffer: offsets [base, base + reserved) of the batch.
	 * They grow with the chunks that come, never to a claimed total at
	 * once, so that memory follows the indices the trace holds. */
	uint32_t base, reserved;
	uint32_t filled;          /* indices written to the slots */
	uint32_t folded;          /* indices consumed at once (out of place) */
	uint32_t unrepresentable; /* negative indices, not kept */
	size_t start;             /* first slot in the buffer */
};

/* The first batch of a pass, its indices by offset; complete once every
 * offset of its claimed length came. Longer batches are not kept. */
#define AW_FIRST_BATCH_MAX 4096
struct aw_first_batch {
	bool any, too_long;
	uint32_t ordinal, total, filled;
	int64_t *indices; /* total slots, -1 not seen */
};
bool aw_first_batch_complete(const struct aw_first_batch *first);

struct aw_iteration {
	uint32_t loader;  /* index of the loader object in the model */
	uint32_t ordinal; /* the trace's iteration number of its loader */
	/* Its epoch in its global loader: the ordinal, after the passes of
	 * the loader objects its stream had before (resolved by
	 * aw_model_finish). */
	uint32_t epoch;
	int64_t sampler_epoch, seed;
	int64_t dataset_epoch; /* its dataset's own epoch then, -1 none */
	/* Batches it skipped at its head, resuming from a state_dict, -1 */
	int64_t resumed;
	bool began, ended;
	uint32_t drawn, yielded; /* as iter_end reported them */
	uint8_t exhausted;
	/* The Join (index into aw_model.joins) its process was inside at the
	 * first of its events that came inside one, AW_NONE; outside_join: a
	 * batch was drawn while the process was inside none. */
	uint32_t join;
	bool outside_join;
	/* Its process's uncaught exception came while it was open: the
	 * exception ended the process inside this pass. */
	bool open_at_exception;

	struct aw_sample_set consumed;
	uint32_t batches_seen;     /* distinct batches drawn in the trace */
	uint32_t batches_consumed; /* of those, folded into consumed */
	uint32_t max_batch_len;
	uint64_t prefetched_samples; /* drawn, never yielded */
	uint64_t lost_samples; /* of consumed batches, chunks never seen */
	uint64_t bad_chunks;   /* chunks that did not fit their batch */
	uint32_t over_counted_batches; /* folded early, then beyond `yielded` */
	/* The newest batch drawn: what a process that died mid-epoch was
	 * about to read (without workers) or had queued last (with them). */
	struct aw_index_head last_drawn;
	/* The first batch drawn (the lowest ordinal), whole: what the live
	 * verdicts at a pass's first batches compare across ranks and
	 * epochs. */
	struct aw_first_batch first;

	/* Trace clock (ns from origin) when each batch was first drawn, in
	 * the order drawn: the HTML report's timeline. Past
	 * AW_BATCH_NS_MAX times every other one is dropped: each kept time
	 * stands for batch_ns_stride batches (0 or 1: one). */
	int64_t *batch_ns;
	size_t n_batch_ns, batch_ns_cap;
	uint32_t batch_ns_stride;
	uint64_t batch_ns_seen;
	int64_t last_batch_ns; /* the last batch's, kept or not */

	/* xxh64 of the consumed indices in the order consumed. */
	XXH64_state_t order;
	/* accelerate's dispatcher on rank 0: consumed batches go to the ranks'
	 * shares instead of `consumed` (NULL otherwise). */
	struct aw_dispatch *dispatch;
	/* The dispatched loader is an IterableDataset read in this process:
	 * its batches have no indices, the dispatcher is fed its item
	 * fingerprints' ordinals (a batch gathered from its chunks). */
	bool dispatch_items;
	uint64_t *item_batch;
	size_t item_batch_len, item_batch_cap;
	/* Positions to dataset indices (NULL: they are the same); unmapped:
	 * consumed positions no map told, left out of `consumed`. */
	const struct aw_mapping *mapping;
	uint64_t *mapped;
	size_t mapped_cap;
	uint64_t unmapped;
	/* Told of every batch placed (NULL: no one wants them); the template
	 * names the process, loader and iteration. */
	const struct aw_model_observer *observer;
	struct aw_read read_template;

	/* Drawn batches wait here until `window` newer ones were drawn (then
	 * they cannot be prefetched ones) or until iter_end tells how many were
	 * yielded. This bounds memory by the window, not by the epoch. */
	uint32_t window;
	/* At most this many drawn batches are not yet the loop's (prefetch):
	 * the lower bound of an open pass's consumed batches. */
	uint32_t ahead;
	/* pending[0..n_pending): the oldest first, inside pending_store
	 * (pending_cap entries), which the oldest leaves by a step of
	 * `pending`; they move down when the newest reaches its end. */
	struct aw_pending_batch *pending, *pending_store;
	size_t n_pending, pending_cap;
	/* The highest ordinal a pending batch was made for (pending_any):
	 * a chunk of a higher one opens a new batch without a search. */
	uint32_t pending_max;
	bool pending_any;
	uint64_t *buffer;
	size_t buffer_head, buffer_len, buffer_cap;
	uint32_t last_ordinal, folded_max_ordinal;
	bool any_batch, folded_any;
};

void aw_iteration_init(struct aw_iteration *it, uint32_t loader,
		       uint32_t ordinal, uint32_t window);
void aw_iteration_fini(struct aw_iteration *it);

/* One batch (or batch_wide) event: exactly one of u32 and i64 is non-NULL. */
/* At most this many batch times a pass (a pass of more batches keeps one
 * in 2, 4, ...: flat memory for a billion indices). */
#define AW_BATCH_NS_MAX 65536u

/* A new batch was first drawn at ns. */
void aw_iteration_note_batch_time(struct aw_iteration *it, int64_t ns);

void aw_iteration_add_chunk(struct aw_iteration *it,
			    const struct aw_event_chunk *chunk,
			    const uint32_t *u32, const int64_t *i64,
			    uint32_t count);
/* iter_end: the first `yielded` batches were consumed, the rest prefetched. */
void aw_iteration_end(struct aw_iteration *it, uint32_t drawn, uint32_t yielded,
		      uint8_t exhausted);
/* No iter_end came (the process died or events were lost): every batch
 * drawn counts as consumed. Does nothing on an ended iteration. */
void aw_iteration_flush(struct aw_iteration *it);

/* Batches the loop consumed: `yielded` when iter_end came, else those seen. */
uint32_t aw_iteration_batches(const struct aw_iteration *it);
/* The same, for a pass still open: at least those folded, and those drawn
 * less the ones that may be prefetched (`ahead`). */
uint32_t aw_iteration_batches_at_least(const struct aw_iteration *it);
/* Adds to out what the pass read so far, for a pass still open too: the
 * consumed samples and those of the batches drawn since that the loop is
 * sure to get (all but the newest `ahead`), in positions as drawn (a
 * loader with index maps: the pending batches unmapped). */
void aw_iteration_drawn(const struct aw_iteration *it,
			struct aw_sample_set *out);
/* The hash of the consumed order so far. */
uint64_t aw_iteration_order_hash(const struct aw_iteration *it);
/* Makes the iteration replay accelerate's dispatcher over W ranks; before
 * its first batch. The dispatch is owned by the iteration. */
void aw_iteration_dispatch(struct aw_iteration *it, uint32_t world,
			   bool split_batches);
/* An item_fetch chunk of the dispatched IterableDataset (dispatch_items):
 * its fingerprints numbered in ordinals (the model's), a complete batch
 * handed to the dispatcher. */
void aw_iteration_dispatch_items(struct aw_iteration *it,
				 struct aw_index_map *ordinals,
				 const struct aw_event_chunk *chunk,
				 const uint64_t *hashes, uint32_t count);
/* Tells observer every batch the iteration places, as template with the
 * kind, batch and indices set (after aw_iteration_dispatch, if any). */
void aw_iteration_observe(struct aw_iteration *it,
			  const struct aw_model_observer *observer,
			  const struct aw_read *template);

#endif
