/* SPDX-License-Identifier: MIT */
/* Batch assembly: chunks of one batch meet at their offsets in a reserved
 * slice of a growable buffer; batches leave the buffer oldest first. */
#include "iteration.h"

#include <stdlib.h>
#include <string.h>

#include "accwatch_events.h"
#include "util.h"

/* A batch claiming more slots than this is taken as corrupt: only what its
 * chunks bring is kept. */
#define AW_BATCH_RESERVE_MAX (1u << 24)
/* Slots of a batch that no chunk filled (lost events): no index, which is
 * at most INT64_MAX. */
#define AW_SLOT_EMPTY UINT64_MAX

void aw_iteration_init(struct aw_iteration *it, uint32_t loader,
		       uint32_t ordinal, uint32_t window)
{
	memset(it, 0, sizeof(*it));
	it->loader = loader;
	it->ordinal = ordinal;
	it->epoch = ordinal;
	it->sampler_epoch = -1;
	it->dataset_epoch = -1;
	it->seed = -1;
	it->resumed = -1;
	it->join = AW_NONE;
	it->window = window ? window : 1;
	aw_sample_set_init(&it->consumed);
	XXH64_reset(&it->order, 0);
}

static void aw_iteration_release_buffers(struct aw_iteration *it)
{
	free(it->pending_store);
	free(it->buffer);
	it->pending = it->pending_store = NULL;
	it->pending_any = false;
	it->buffer = NULL;
	it->n_pending = it->pending_cap = 0;
	it->buffer_head = it->buffer_len = it->buffer_cap = 0;
}

void aw_iteration_fini(struct aw_iteration *it)
{
	free(it->first.indices);
	free(it->mapped);
	aw_iteration_release_buffers(it);
	aw_sample_set_fini(&it->consumed);
	free(it->item_batch);
	free(it->batch_ns);
	if (it->dispatch) {
		aw_dispatch_fini(it->dispatch);
		free(it->dispatch);
	}
}

void aw_iteration_dispatch(struct aw_iteration *it, uint32_t world,
			   bool split_batches)
{
	if (it->dispatch)
		return;
	it->dispatch = aw_xcalloc(1, sizeof(*it->dispatch));
	aw_dispatch_init(it->dispatch, world, split_batches);
}

void aw_iteration_dispatch_items(struct aw_iteration *it,
				 struct aw_index_map *ordinals,
				 const struct aw_event_chunk *chunk,
				 const uint64_t *hashes, uint32_t count)
{
	if (!it->dispatch || !it->dispatch_items)
		return;
	if (chunk->offset == 0)
		it->item_batch_len = 0;
	AW_GROW(it->item_batch, it->item_batch_cap, it->item_batch_len + count);
	for (uint32_t i = 0; i < count; i++) {
		uint32_t ordinal = aw_index_map_get(ordinals, hashes[i]);
		if (ordinal == AW_NONE) {
			ordinal = (uint32_t)ordinals->count;
			aw_index_map_put(ordinals, hashes[i], ordinal);
		}
		it->item_batch[it->item_batch_len++] = ordinal;
	}
	if ((uint64_t)chunk->offset + count >= chunk->total) {
		aw_dispatch_add_batch(it->dispatch, it->item_batch,
				      it->item_batch_len);
		it->item_batch_len = 0;
	}
}

void aw_iteration_observe(struct aw_iteration *it,
			  const struct aw_model_observer *observer,
			  const struct aw_read *template)
{
	it->observer = observer;
	it->read_template = *template;
	if (it->dispatch)
		aw_dispatch_observe(it->dispatch, observer, template);
}

/* One batch placed, to the observer. */
static void aw_iteration_tell(const struct aw_iteration *it, uint32_t ordinal,
			      const uint64_t *indices, size_t count,
			      enum aw_read_kind kind)
{
	struct aw_read read = it->read_template;
	read.kind = kind;
	read.batch = ordinal;
	/* Slots hold indices in [0, INT64_MAX]: the same values as int64. */
	read.wide = (const int64_t *)indices;
	read.count = count;
	it->observer->on_read(it->observer->data, &read);
}

/* The dataset indices of consumed positions, in it->mapped. */
static const uint64_t *aw_iteration_map(struct aw_iteration *it,
					const uint64_t *positions,
					size_t *count)
{
	AW_GROW(it->mapped, it->mapped_cap, *count);
	size_t n = 0;
	for (size_t i = 0; i < *count; i++) {
		uint64_t to = aw_mapping_apply(it->mapping, positions[i]);
		if (to == AW_UNMAPPED)
			it->unmapped++;
		else
			it->mapped[n++] = to;
	}
	*count = n;
	return it->mapped;
}

/* One consumed batch (its indices, no holes), in consumption order. */
static void aw_iteration_consume(struct aw_iteration *it, uint32_t ordinal,
				 const uint64_t *indices, size_t count)
{
	if (it->mapping && it->mapping->n_levels)
		indices = aw_iteration_map(it, indices, &count);
	/* A dispatched batch is told as the ranks' shares (dispatch.c). */
	if (it->dispatch) {
		if (!it->dispatch_items)
			aw_dispatch_add_batch(it->dispatch, indices, count);
		return;
	}
	if (it->observer)
		aw_iteration_tell(it, ordinal, indices, count,
				  AW_READ_CONSUMED);
	aw_sample_set_add64(&it->consumed, indices, count);
	if (count)
		XXH64_update(&it->order, indices, count * sizeof(*indices));
}

static void aw_iteration_consume_slots(struct aw_iteration *it,
				       uint32_t ordinal, uint64_t *slots,
				       size_t count, bool may_have_holes)
{
	if (!may_have_holes) {
		aw_iteration_consume(it, ordinal, slots, count);
		return;
	}
	/* Holes (lost chunks) are squeezed out in place: the batch leaves the
	 * buffer right after. */
	size_t n = 0;
	for (size_t i = 0; i < count; i++)
		if (slots[i] != AW_SLOT_EMPTY)
			slots[n++] = slots[i];
	aw_iteration_consume(it, ordinal, slots, n);
}

/* Takes the oldest pending batch out: into `consumed` or, when it was only
 * prefetched, into the prefetched count. */
static void aw_iteration_retire_oldest(struct aw_iteration *it, bool consume)
{
	struct aw_pending_batch *batch = &it->pending[0];
	if (consume) {
		/* Overlapping chunks (a repeated event) can over-fill a batch.
		 */
		uint32_t written =
		    batch->filled + batch->folded + batch->unrepresentable;
		uint32_t holes =
		    batch->total > written ? batch->total - written : 0;
		aw_iteration_consume_slots(
		    it, batch->ordinal, it->buffer + batch->start,
		    batch->reserved,
		    holes != 0 || batch->unrepresentable != 0 ||
			batch->filled != batch->reserved);
		it->consumed.unrepresentable += batch->unrepresentable;
		it->lost_samples += holes;
		it->batches_consumed++;
		if (!it->folded_any || batch->ordinal > it->folded_max_ordinal)
			it->folded_max_ordinal = batch->ordinal;
		it->folded_any = true;
	} else {
		it->prefetched_samples +=
		    batch->filled + batch->unrepresentable;
		if (it->observer) {
			/* In dataset indices, as consumed batches are. */
			const uint64_t *indices = it->buffer + batch->start;
			size_t count = batch->reserved;
			if (it->mapping && it->mapping->n_levels) {
				uint64_t unmapped = it->unmapped; /* consumed */
				indices = aw_iteration_map(it, indices, &count);
				it->unmapped = unmapped;
			}
			aw_iteration_tell(it, batch->ordinal, indices, count,
					  AW_READ_PREFETCHED);
		}
	}

	it->n_pending--;
	it->pending++;
	it->buffer_head = it->n_pending ? it->pending[0].start : it->buffer_len;
	if (it->buffer_head == it->buffer_len) {
		/* Batches still pending here hold no slot: they restart at 0
		 * with the buffer. */
		it->buffer_head = it->buffer_len = 0;
		for (size_t i = 0; i < it->n_pending; i++)
			it->pending[i].start = 0;
	} else if (it->buffer_head >= 4 * (it->buffer_len - it->buffer_head)) {
		/* The batches still pending move down once the slots
		 * before them are four times theirs: a move an index
		 * consumed would cost as much as the rest of its way. */
		size_t shift = it->buffer_head;
		memmove(it->buffer, it->buffer + shift,
			(it->buffer_len - shift) * sizeof(*it->buffer));
		it->buffer_len -= shift;
		it->buffer_head = 0;
		for (size_t i = 0; i < it->n_pending; i++)
			it->pending[i].start -= shift;
	}
}

static struct aw_pending_batch *
aw_iteration_find_pending(struct aw_iteration *it, uint32_t ordinal)
{
	if (!it->pending_any || ordinal > it->pending_max)
		return NULL;
	/* Chunks of one batch come together, so the newest is the usual hit. */
	for (size_t i = it->n_pending; i-- > 0;)
		if (it->pending[i].ordinal == ordinal)
			return &it->pending[i];
	return NULL;
}

/* Room for one more pending batch: the pending ones moved to the start of
 * the store when they reached its end, the store grown when they fill half
 * of it. */
static void aw_iteration_pending_room(struct aw_iteration *it)
{
	size_t head = (size_t)(it->pending - it->pending_store);
	if (it->pending_store && head + it->n_pending < it->pending_cap)
		return;
	if (head > 0)
		memmove(it->pending_store, it->pending,
			it->n_pending * sizeof(*it->pending));
	/* At most half full after a move: a move per many batches. */
	if (!it->pending_store || 2 * it->n_pending >= it->pending_cap)
		AW_GROW(it->pending_store, it->pending_cap,
			2 * it->n_pending + 1);
	it->pending = it->pending_store;
}

/* A new pending batch whose first chunk starts at base and brings count
 * indices: that many slots, at the end of the buffer, marked empty unless
 * the chunk's 32-bit indices fill them all right after (filled). */
static struct aw_pending_batch *
aw_iteration_reserve(struct aw_iteration *it, uint32_t ordinal, uint32_t total,
		     uint32_t base, uint32_t count, bool filled)
{
	AW_GROW(it->buffer, it->buffer_cap, it->buffer_len + count);
	if (!filled)
		memset(it->buffer + it->buffer_len, 0xff,
		       (size_t)count * sizeof(*it->buffer));
	aw_iteration_pending_room(it);
	struct aw_pending_batch *batch = &it->pending[it->n_pending++];
	if (!it->pending_any || ordinal > it->pending_max)
		it->pending_max = ordinal;
	it->pending_any = true;
	batch->ordinal = ordinal;
	batch->total = total;
	batch->base = base;
	batch->reserved = count;
	batch->filled = 0;
	batch->folded = 0;
	batch->unrepresentable = 0;
	batch->start = it->buffer_len;
	it->buffer_len += count;
	it->batches_seen++;
	if (total > it->max_batch_len)
		it->max_batch_len = total;
	return batch;
}

/* Makes the slots of batch reach offset end, if it is the newest batch in
 * the buffer (chunks of one batch come together) and the gap this leaves is
 * no wider than what the batch brings: a claimed offset alone cannot make
 * memory grow. */
static bool aw_iteration_extend(struct aw_iteration *it,
				struct aw_pending_batch *batch, uint32_t offset,
				uint32_t count)
{
	uint64_t have = (uint64_t)batch->base + batch->reserved;
	uint64_t end = (uint64_t)offset + count;
	if (offset < batch->base || batch != &it->pending[it->n_pending - 1] ||
	    batch->start + batch->reserved != it->buffer_len)
		return false;
	if (end <= have)
		return true;
	uint64_t gap = offset > have ? offset - have : 0;
	if (gap > (uint64_t)batch->filled + count)
		return false;
	size_t more = (size_t)(end - have);
	AW_GROW(it->buffer, it->buffer_cap, it->buffer_len + more);
	memset(it->buffer + it->buffer_len, 0xff, more * sizeof(*it->buffer));
	it->buffer_len += more;
	batch->reserved += (uint32_t)more;
	return true;
}

/* in[0..n) into out, four at a time. */
static void aw_widen(uint64_t *out, const uint32_t *in, uint32_t n)
{
	uint32_t i = 0;
	for (; i + 4 <= n; i += 4) {
		uint32_t a = in[i], b = in[i + 1], c = in[i + 2], d = in[i + 3];
		out[i] = a;
		out[i + 1] = b;
		out[i + 2] = c;
		out[i + 3] = d;
	}
	for (; i < n; i++)
		out[i] = in[i];
}

/* Indices consumed at once, not through a pending batch. */
static void aw_iteration_fold(struct aw_iteration *it, uint32_t ordinal,
			      const uint32_t *u32, const int64_t *i64,
			      uint32_t count)
{
	/* Widened through a stack buffer; negative indices counted apart. */
	uint64_t wide[512];
	size_t n = 0;
	for (uint32_t i = 0; i < count; i++) {
		if (i64 && i64[i] < 0) {
			aw_sample_set_note_unrepresentable(&it->consumed,
							   i64[i]);
			continue;
		}
		wide[n++] = u32 ? u32[i] : (uint64_t)i64[i];
		if (n == sizeof(wide) / sizeof(wide[0])) {
			aw_iteration_consume(it, ordinal, wide, n);
			n = 0;
		}
	}
	aw_iteration_consume(it, ordinal, wide, n);
}

/* A chunk of a batch that was already folded (it came late): it goes
 * straight into the consumed set. */
static void aw_iteration_add_late(struct aw_iteration *it,
				  const struct aw_event_chunk *chunk,
				  const uint32_t *u32, const int64_t *i64,
				  uint32_t count)
{
	aw_iteration_fold(it, chunk->batch, u32, i64, count);
	if (chunk->offset == 0) {
		it->batches_seen++;
		it->batches_consumed++;
	}
}

static uint32_t aw_iteration_resolve_ordinal(const struct aw_iteration *it,
					     const struct aw_event_chunk *chunk)
{
	if (chunk->batch != ACCWATCH_UNKNOWN)
		return chunk->batch;
	/* The recorder did not know the ordinal: a chunk at offset 0 opens the
	 * next batch, any other continues the current one. */
	if (!it->any_batch)
		return 0;
	return chunk->offset == 0 ? it->last_ordinal + 1 : it->last_ordinal;
}

bool aw_first_batch_complete(const struct aw_first_batch *first)
{
	return first->any && !first->too_long && first->total > 0 &&
	       first->filled >= first->total;
}

/* Keeps the chunk when it is of the first batch drawn; a lower ordinal
 * than the one kept starts it anew. */
static void aw_first_batch_add(struct aw_first_batch *first, uint32_t ordinal,
			       const struct aw_event_chunk *chunk,
			       const uint32_t *u32, const int64_t *i64,
			       uint32_t count)
{
	if (!first->any || ordinal < first->ordinal) {
		free(first->indices);
		memset(first, 0, sizeof(*first));
		first->any = true;
		first->ordinal = ordinal;
		first->total = chunk->total;
		first->too_long =
		    chunk->total == 0 || chunk->total > AW_FIRST_BATCH_MAX;
		if (!first->too_long) {
			first->indices =
			    aw_xcalloc(first->total, sizeof(*first->indices));
			for (uint32_t i = 0; i < first->total; i++)
				first->indices[i] = -1;
		}
	}
	if (ordinal != first->ordinal || first->too_long)
		return;
	for (uint32_t i = 0; i < count; i++) {
		uint64_t at = (uint64_t)chunk->offset + i;
		int64_t index = u32 ? (int64_t)u32[i] : i64[i];
		if (at >= first->total || index < 0 ||
		    first->indices[at] >= 0) {
			first->too_long |= at >= first->total;
			continue;
		}
		first->indices[at] = index;
		first->filled++;
	}
}

void aw_iteration_note_batch_time(struct aw_iteration *it, int64_t ns)
{
	uint32_t stride = it->batch_ns_stride ? it->batch_ns_stride : 1;
	uint64_t batch = it->batch_ns_seen++;
	it->last_batch_ns = ns;
	if (batch % stride)
		return;
	if (it->n_batch_ns == AW_BATCH_NS_MAX) {
		for (size_t i = 0; i < AW_BATCH_NS_MAX / 2; i++)
			it->batch_ns[i] = it->batch_ns[2 * i];
		it->n_batch_ns = AW_BATCH_NS_MAX / 2;
		stride *= 2;
		it->batch_ns_stride = stride;
		if (batch % stride)
			return;
	}
	AW_GROW(it->batch_ns, it->batch_ns_cap, it->n_batch_ns + 1);
	it->batch_ns[it->n_batch_ns++] = ns;
}

void aw_iteration_add_chunk(struct aw_iteration *it,
			    const struct aw_event_chunk *chunk,
			    const uint32_t *u32, const int64_t *i64,
			    uint32_t count)
{
	if (it->ended) {
		it->bad_chunks++; /* a batch after iter_end: nothing can consume
				     it */
		return;
	}
	uint32_t ordinal = aw_iteration_resolve_ordinal(it, chunk);
	it->last_ordinal = ordinal;
	it->any_batch = true;
	if (!it->last_drawn.any || ordinal > it->last_drawn.ordinal)
		aw_index_head_start(&it->last_drawn, ordinal);
	if (ordinal == it->last_drawn.ordinal)
		aw_index_head_add(&it->last_drawn, chunk, u32, i64, count);
	aw_first_batch_add(&it->first, ordinal, chunk, u32, i64, count);

	struct aw_pending_batch *batch = aw_iteration_find_pending(it, ordinal);
	if (!batch && it->folded_any && ordinal <= it->folded_max_ordinal &&
	    (it->n_pending == 0 || ordinal < it->pending[0].ordinal)) {
		aw_iteration_add_late(it, chunk, u32, i64, count);
		return;
	}
	if (!batch) {
		uint64_t end = (uint64_t)chunk->offset + count;
		uint64_t total = chunk->total;
		if (total < end || total > AW_BATCH_RESERVE_MAX)
			total = end;
		if (total > AW_BATCH_RESERVE_MAX) {
			it->bad_chunks++;
			return;
		}
		uint32_t fits = (uint32_t)total - chunk->offset;
		batch = aw_iteration_reserve(it, ordinal, (uint32_t)total,
					     chunk->offset, AW_MIN(count, fits),
					     u32 != NULL);
	}

	uint32_t fits =
	    batch->total > chunk->offset ? batch->total - chunk->offset : 0;
	if (count > fits) {
		it->bad_chunks++;
		count = fits;
	}
	if (!aw_iteration_extend(it, batch, chunk->offset, count)) {
		/* Before the batch's first chunk, or after a wide gap, in an
		 * older batch: consumed now, counted in the batch. */
		it->bad_chunks++;
		batch->folded += count;
		aw_iteration_fold(it, ordinal, u32, i64, count);
		goto window;
	}
	uint64_t *slots =
	    it->buffer + batch->start + (chunk->offset - batch->base);
	if (u32) {
		aw_widen(slots, u32, count);
		batch->filled += count;
	} else {
		for (uint32_t i = 0; i < count; i++) {
			if (i64[i] < 0) {
				batch->unrepresentable++;
				aw_sample_set_keep_example(&it->consumed,
							   i64[i]);
				continue;
			}
			slots[i] = (uint64_t)i64[i];
			batch->filled++;
		}
	}

window:
	while (it->n_pending > it->window)
		aw_iteration_retire_oldest(it, true);
}

void aw_iteration_end(struct aw_iteration *it, uint32_t drawn, uint32_t yielded,
		      uint8_t exhausted)
{
	if (it->ended)
		return;
	it->ended = true;
	it->drawn = drawn;
	it->yielded = yielded;
	it->exhausted = exhausted;
	if (it->folded_any && it->folded_max_ordinal >= yielded)
		it->over_counted_batches = AW_MIN(
		    it->batches_consumed, it->folded_max_ordinal - yielded + 1);
	while (it->n_pending)
		aw_iteration_retire_oldest(it,
					   it->pending[0].ordinal < yielded);
	aw_iteration_release_buffers(it);
}

void aw_iteration_flush(struct aw_iteration *it)
{
	if (it->ended)
		return;
	while (it->n_pending)
		aw_iteration_retire_oldest(it, true);
	aw_iteration_release_buffers(it);
}

uint32_t aw_iteration_batches(const struct aw_iteration *it)
{
	return it->ended ? it->yielded : it->batches_consumed;
}

uint32_t aw_iteration_batches_at_least(const struct aw_iteration *it)
{
	if (it->ended)
		return it->yielded;
	uint32_t drawn =
	    it->batches_seen > it->ahead ? it->batches_seen - it->ahead : 0;
	return AW_MAX(it->batches_consumed, drawn);
}

void aw_iteration_drawn(const struct aw_iteration *it,
			struct aw_sample_set *out)
{
	aw_sample_set_merge(out, &it->consumed);
	if (it->ended)
		return;
	size_t sure = it->n_pending > it->ahead ? it->n_pending - it->ahead : 0;
	for (size_t b = 0; b < sure; b++) {
		const struct aw_pending_batch *batch = &it->pending[b];
		for (uint32_t i = 0; i < batch->reserved; i++) {
			uint64_t index = it->buffer[batch->start + i];
			if (index != AW_SLOT_EMPTY)
				aw_sample_set_add64(out, &index, 1);
		}
	}
}

uint64_t aw_iteration_order_hash(const struct aw_iteration *it)
{
	return XXH64_digest(&it->order);
}
