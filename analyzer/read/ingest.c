/* SPDX-License-Identifier: MIT */
/* Record by record: events to aw_model_add_event, counts, declared kinds,
 * the runs of each trace and the clock into the model, phase and end
 * records kept for the reader to judge the outcome. */
#include "ingest.h"

#if defined(__SSE2__) && defined(__x86_64__)
#include <emmintrin.h>
#endif
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "accwatch_events.h"
#include "accwatch_packed.h"
#include "util.h"

void aw_ingest_init(struct aw_ingest *ingest, struct aw_model *model,
		    const struct aw_trace_dirs *dirs)
{
	memset(ingest, 0, sizeof(*ingest));
	ingest->model = model;
	ingest->dirs = dirs;
	ingest->phase_dir = ingest->end_dir = AW_RECORD_NO_DIR;
	aw_decoder_init(&ingest->decoder);
}

static void aw_ingest_lanes_fini(struct aw_ingest *ingest);

void aw_ingest_fini(struct aw_ingest *ingest)
{
	aw_decoder_fini(&ingest->decoder);
	free(ingest->i64);
	free(ingest->u32);
	aw_ingest_lanes_fini(ingest);
}

const char *aw_ingest_dir_name(const struct aw_ingest *ingest, uint32_t dir)
{
	if (!ingest->dirs || dir >= ingest->dirs->n)
		return NULL;
	return ingest->dirs->dirs[dir];
}

static void aw_ingest_end(struct aw_ingest *ingest,
			  const struct aw_record *record)
{
	ingest->ended = true;
	ingest->end = record->end;
	ingest->end_dir = record->dir;
	snprintf(ingest->message, sizeof(ingest->message), "%s",
		 record->message);
	if (record->end != AW_READ_END_STOPPED)
		return;
	struct aw_trace_stats *stats = &ingest->model->stats;
	const char *dir = aw_ingest_dir_name(ingest, record->dir);
	stats->read_error = true;
	snprintf(stats->read_error_message, sizeof(stats->read_error_message),
		 "%s%s%s", dir ? dir : "", dir ? ": " : "", record->message);
}

/* The fields at the head of a _bits event's words (accwatch_packed.h), as
 * ACCWATCH_BITS_HEAD_<event> (accwatch_catalogue.def) lists them, into the
 * event's model; 0 when the words end first (the fields read so far set,
 * the others left as they were). */
typedef int aw_bits_head(struct accwatch_packed_reader *r,
			 struct aw_event *event);

/* One field of the head from reader r into the model `of`. */
#define AW_BITS_GET(of, name, coding)                                          \
	accwatch_packed_get_##coding(r, &(of)->name) &&
#define AW_BITS_HEAD(name, model)                                              \
	static int aw_bits_head_##name(struct accwatch_packed_reader *r,       \
				       struct aw_event *event)                 \
	{                                                                      \
		struct aw_event_##model *of = &event->u.model;                 \
		return ACCWATCH_BITS_HEAD_##name(AW_BITS_GET, of) 1;           \
	}
AW_BITS_HEAD(batch_bits, chunk)
AW_BITS_HEAD(worker_fetch_bits, chunk)
AW_BITS_HEAD(dataset_map_bits, dataset_map)

/* How a _packed or _bits event is read: the plain and _wide event it is
 * handed on as, the head of its words (NULL: none, a _packed event) and
 * where the head's offset and total go. */
struct aw_packed_kind {
	enum aw_event_kind kind, narrow, wide;
	aw_bits_head *head;
	size_t offset, total; /* in struct aw_event */
};

#define AW_CHUNK_PLACE                                                         \
	offsetof(struct aw_event, u.chunk.offset),                             \
	    offsetof(struct aw_event, u.chunk.total)
#define AW_MAP_PLACE                                                           \
	offsetof(struct aw_event, u.dataset_map.offset),                       \
	    offsetof(struct aw_event, u.dataset_map.total)
static const struct aw_packed_kind aw_packed_kinds[] = {
    {AW_EVENT_BATCH_PACKED, AW_EVENT_BATCH, AW_EVENT_BATCH_WIDE, NULL, 0, 0},
    {AW_EVENT_WORKER_FETCH_PACKED, AW_EVENT_WORKER_FETCH,
     AW_EVENT_WORKER_FETCH_WIDE, NULL, 0, 0},
    {AW_EVENT_DATASET_MAP_PACKED, AW_EVENT_DATASET_MAP,
     AW_EVENT_DATASET_MAP_WIDE, NULL, 0, 0},
    {AW_EVENT_BATCH_BITS, AW_EVENT_BATCH, AW_EVENT_BATCH_WIDE,
     aw_bits_head_batch_bits, AW_CHUNK_PLACE},
    {AW_EVENT_WORKER_FETCH_BITS, AW_EVENT_WORKER_FETCH,
     AW_EVENT_WORKER_FETCH_WIDE, aw_bits_head_worker_fetch_bits,
     AW_CHUNK_PLACE},
    {AW_EVENT_DATASET_MAP_BITS, AW_EVENT_DATASET_MAP, AW_EVENT_DATASET_MAP_WIDE,
     aw_bits_head_dataset_map_bits, AW_MAP_PLACE},
};

static const struct aw_packed_kind *aw_packed_kind(enum aw_event_kind kind)
{
	if (kind < AW_EVENT_BATCH_PACKED)
		return NULL; /* the usual case: the events before the _packed */
	for (size_t i = 0;
	     i < sizeof(aw_packed_kinds) / sizeof(*aw_packed_kinds); i++)
		if (aw_packed_kinds[i].kind == kind)
			return &aw_packed_kinds[i];
	return NULL;
}

/* The words of a _packed or _bits event to its fields and ingest->i64;
 * false when they are not such a stream. */
static bool aw_ingest_decode(struct aw_ingest *ingest,
			     const struct aw_packed_kind *how,
			     struct aw_event *event, uint32_t *count)
{
	struct accwatch_packed_reader r;
	uint32_t offset, total;
	*count = 0;
	if (!event->count ||
	    !accwatch_packed_reader_init(&r, event->values.u64, event->count))
		return false;
	if (!how->head)
		return accwatch_packed_get_indices(&r, ACCWATCH_CHUNK_MAX,
						   ingest->i64, count);
	if (!how->head(&r, event) ||
	    !accwatch_packed_get_chunk(&r, ACCWATCH_CHUNK_MAX, ingest->i64,
				       count, &offset, &total))
		return false;
	memcpy((char *)event + how->offset, &offset, sizeof(offset));
	memcpy((char *)event + how->total, &total, sizeof(total));
	return true;
}

/* One pass: in[0..n) narrowed into out, and the bits above 32 gathered
 * (their or) to tell whether they all fit; four at a time, by SSE2 where
 * there is (two loads, an or, a shuffle of the low halves, a store). */
static uint64_t aw_ingest_narrow(uint32_t *out, const int64_t *in, uint32_t n)
{
	uint64_t high = 0;
	uint32_t i = 0;
#if defined(__SSE2__) && defined(__x86_64__)
	__m128i any = _mm_setzero_si128();
	for (; i + 4 <= n; i += 4) {
		__m128i a = _mm_loadu_si128((const __m128i *)(in + i));
		__m128i b = _mm_loadu_si128((const __m128i *)(in + i + 2));
		any = _mm_or_si128(any, _mm_or_si128(a, b));
		__m128 low =
		    _mm_shuffle_ps(_mm_castsi128_ps(a), _mm_castsi128_ps(b),
				   _MM_SHUFFLE(2, 0, 2, 0));
		_mm_storeu_si128((__m128i *)(out + i), _mm_castps_si128(low));
	}
	high = (uint64_t)_mm_cvtsi128_si64(any) >> 32 |
	       (uint64_t)_mm_cvtsi128_si64(_mm_unpackhi_epi64(any, any)) >> 32;
#else
	for (; i + 4 <= n; i += 4) {
		uint64_t a = (uint64_t)in[i], b = (uint64_t)in[i + 1];
		uint64_t c = (uint64_t)in[i + 2], d = (uint64_t)in[i + 3];
		high |= (a | b | c | d) >> 32;
		out[i] = (uint32_t)a;
		out[i + 1] = (uint32_t)b;
		out[i + 2] = (uint32_t)c;
		out[i + 3] = (uint32_t)d;
	}
#endif
	for (; i < n; i++) {
		high |= (uint64_t)in[i] >> 32;
		out[i] = (uint32_t)in[i];
	}
	return high;
}

/* A _packed or _bits event's words decoded, in place: the plain event when
 * every index fits 32 bits, else the _wide one. Words that are not such a
 * stream leave no indices (and a _bits event's fields as far as the words
 * held them, absent beyond). Other events are left as they are. */
static void aw_ingest_unpack(struct aw_ingest *ingest, struct aw_event *event)
{
	const struct aw_packed_kind *how = aw_packed_kind(event->kind);
	uint32_t count = 0;
	if (!how)
		return;
	if (!ingest->i64) {
		ingest->i64 = aw_xcalloc(ACCWATCH_CHUNK_MAX, sizeof(int64_t));
		ingest->u32 = aw_xcalloc(ACCWATCH_CHUNK_MAX, sizeof(uint32_t));
	}
	if (!aw_ingest_decode(ingest, how, event, &count))
		count = 0;
	uint64_t high = aw_ingest_narrow(ingest->u32, ingest->i64, count);
	event->count = count;
	event->kind = high == 0 ? how->narrow : how->wide;
	if (high != 0)
		event->values.i64 = ingest->i64;
	else
		event->values.u32 = count ? ingest->u32 : NULL;
}

/* The records every reader's stream may hold, lanes or not. */
static void aw_ingest_apply(struct aw_ingest *ingest,
			    const struct aw_record *record)
{
	switch (record->type) {
	case AW_RECORD_TYPE_PHASE:
		ingest->phase_seen = true;
		ingest->phase = record->phase;
		ingest->phase_dir = record->dir;
		break;
	case AW_RECORD_TYPE_DISCARDS:
		aw_discards_apply(record, &ingest->model->stats);
		break;
	case AW_RECORD_TYPE_CLOCK:
		aw_model_set_clock(ingest->model, record->clock_ns);
		break;
	case AW_RECORD_TYPE_DECLARED:
		ingest->model->stats.declared_kinds |= record->declared;
		break;
	case AW_RECORD_TYPE_TRACE_RUN:
		aw_model_note_trace_run(ingest->model,
					aw_ingest_dir_name(ingest, record->dir),
					record->run);
		break;
	default:
		break;
	}
}

enum aw_ingest_status aw_ingest_feed(struct aw_ingest *ingest,
				     const unsigned char *data, size_t size,
				     size_t *used)
{
	size_t done = 0;
	enum aw_ingest_status status = AW_INGEST_OK;
	while (done < size) {
		struct aw_record record;
		size_t length = 0;
		enum aw_decode_status decoded =
		    aw_decode_record(&ingest->decoder, data + done, size - done,
				     &length, &record);
		if (decoded == AW_DECODE_SHORT)
			break;
		if (decoded == AW_DECODE_MALFORMED) {
			status = AW_INGEST_MALFORMED;
			break;
		}
		done += length;
		switch (record.type) {
		case AW_RECORD_TYPE_EVENT:
			aw_ingest_unpack(ingest, &record.event);
			aw_model_add_event(ingest->model, &record.event);
			break;
		case AW_RECORD_TYPE_STATS:
			aw_read_counts_apply(&record.counts,
					     &ingest->model->stats);
			break;
		case AW_RECORD_TYPE_END:
			aw_ingest_end(ingest, &record);
			break;
		case AW_RECORD_TYPE_PROGRESS:
			ingest->decoded_packets = record.packets;
			break;
		default:
			aw_ingest_apply(ingest, &record);
			break;
		}
	}
	*used = done;
	return status;
}

void aw_ingest_set_lanes(struct aw_ingest *ingest, size_t n)
{
	ingest->lanes = aw_xcalloc(n ? n : 1, sizeof(*ingest->lanes));
	ingest->n_lanes = n;
	for (size_t i = 0; i < n; i++)
		aw_decoder_init(&ingest->lanes[i].decoder);
}

static void aw_ingest_lanes_fini(struct aw_ingest *ingest)
{
	for (size_t i = 0; i < ingest->n_lanes; i++) {
		struct aw_ingest_lane *lane = &ingest->lanes[i];
		aw_decoder_fini(&lane->decoder);
		for (size_t s = 0; s < lane->n_sources; s++)
			free(lane->hosts[s]);
		free(lane->hosts);
		free(lane->global);
	}
	free(ingest->lanes);
	for (size_t i = 0; i < ingest->n_hosts; i++)
		free(ingest->hosts[i]);
	free(ingest->hosts);
}

/* A lane's source number as the analyzer's: its host's number, hosts
 * numbered in the order their first events are taken (as one reader
 * numbers them). */
/* Room for a lane's source number local. */
static void aw_ingest_lane_grow(struct aw_ingest_lane *lane, uint32_t local)
{
	if (local < lane->n_sources)
		return;
	AW_GROW(lane->hosts, lane->hosts_cap, (size_t)local + 1);
	lane->global =
	    realloc(lane->global, lane->hosts_cap * sizeof(*lane->global));
	if (!lane->global)
		aw_out_of_memory(lane->hosts_cap * sizeof(*lane->global));
	for (size_t s = lane->n_sources; s <= local; s++) {
		lane->hosts[s] = NULL;
		lane->global[s] = AW_NONE;
	}
	lane->n_sources = (size_t)local + 1;
}

static uint32_t aw_ingest_source(struct aw_ingest *ingest,
				 struct aw_ingest_lane *lane, uint32_t local)
{
	aw_ingest_lane_grow(lane, local);
	if (lane->global[local] != AW_NONE)
		return lane->global[local];
	const char *host = lane->hosts[local] ? lane->hosts[local] : "";
	uint32_t global = 0;
	while (global < ingest->n_hosts &&
	       strcmp(ingest->hosts[global], host) != 0)
		global++;
	if (global == ingest->n_hosts) {
		AW_GROW(ingest->hosts, ingest->hosts_cap, ingest->n_hosts + 1);
		ingest->hosts[ingest->n_hosts++] = aw_xstrdup(host);
	}
	lane->global[local] = global;
	return global;
}

static void aw_ingest_lane_host(struct aw_ingest *ingest,
				struct aw_ingest_lane *lane,
				const struct aw_record *record)
{
	(void)ingest;
	aw_ingest_lane_grow(lane, record->source);
	if (lane->global[record->source] != AW_NONE ||
	    lane->hosts[record->source])
		return; /* told already: a repeated record changes nothing */
	lane->hosts[record->source] = aw_xstrdup(record->host);
}

/* A lane's counts, progress or end, summed or judged over the lanes. */
static void aw_ingest_lane_record(struct aw_ingest *ingest,
				  struct aw_ingest_lane *lane,
				  struct aw_record *record)
{
	switch (record->type) {
	case AW_RECORD_TYPE_STATS: {
		lane->counts = record->counts;
		struct aw_read_counts sum = {0};
		for (size_t i = 0; i < ingest->n_lanes; i++) {
			const struct aw_read_counts *c =
			    &ingest->lanes[i].counts;
			sum.streams += c->streams;
			sum.packets += c->packets;
			sum.discarded_events += c->discarded_events;
			sum.discarded_events_messages +=
			    c->discarded_events_messages;
			sum.discarded_packets += c->discarded_packets;
			sum.events += c->events;
			sum.foreign_events += c->foreign_events;
			sum.unknown_accwatch_events +=
			    c->unknown_accwatch_events;
		}
		aw_read_counts_apply(&sum, &ingest->model->stats);
		break;
	}
	case AW_RECORD_TYPE_PROGRESS:
		lane->packets = record->packets;
		ingest->decoded_packets = 0;
		for (size_t i = 0; i < ingest->n_lanes; i++)
			ingest->decoded_packets += ingest->lanes[i].packets;
		break;
	case AW_RECORD_TYPE_END: {
		/* The first lane that did not end well speaks for all; the
		 * reading has ended once every lane has. */
		lane->ended = true;
		if (!ingest->lane_failed &&
		    (record->end != AW_READ_END_OK || !ingest->ended))
			aw_ingest_end(ingest, record);
		ingest->lane_failed |= record->end != AW_READ_END_OK;
		bool all = true;
		for (size_t i = 0; i < ingest->n_lanes; i++)
			all &= ingest->lanes[i].ended;
		ingest->ended = all;
		break;
	}
	case AW_RECORD_TYPE_HOST:
		aw_ingest_lane_host(ingest, lane, record);
		break;
	case AW_RECORD_TYPE_EVENT: /* no clock before it: taken as it comes */
		aw_ingest_unpack(ingest, &record->event);
		record->event.source =
		    aw_ingest_source(ingest, lane, record->event.source);
		aw_model_add_event(ingest->model, &record->event);
		break;
	default:
		aw_ingest_apply(ingest, record);
		break;
	}
}

enum aw_ingest_status aw_ingest_lane_feed(struct aw_ingest *ingest,
					  size_t index,
					  const unsigned char *data,
					  size_t size, size_t *used)
{
	struct aw_ingest_lane *lane = &ingest->lanes[index];
	size_t done = 0;
	enum aw_ingest_status status = AW_INGEST_OK;
	while (!lane->has_unit && done < size) {
		struct aw_record record;
		size_t length = 0, event_length = 0;
		enum aw_decode_status decoded = aw_decode_record(
		    &lane->decoder, data + done, size - done, &length, &record);
		if (decoded == AW_DECODE_OK &&
		    record.type == AW_RECORD_TYPE_CLOCK) {
			/* A clock opens a unit with the event after it. */
			int64_t ns = record.clock_ns;
			decoded = aw_decode_record(
			    &lane->decoder, data + done + length,
			    size - done - length, &event_length, &record);
			if (decoded == AW_DECODE_OK &&
			    record.type == AW_RECORD_TYPE_EVENT) {
				lane->has_unit = true;
				lane->unit_ns = ns;
				lane->unit = record.event;
				done += length + event_length;
				break;
			}
			if (decoded == AW_DECODE_OK)
				decoded = aw_decode_record(
				    &lane->decoder, data + done, size - done,
				    &length, &record);
		}
		if (decoded == AW_DECODE_SHORT)
			break;
		if (decoded == AW_DECODE_MALFORMED) {
			status = AW_INGEST_MALFORMED;
			break;
		}
		done += length;
		aw_ingest_lane_record(ingest, lane, &record);
	}
	*used = done;
	return status;
}

void aw_ingest_lane_take(struct aw_ingest *ingest, size_t index)
{
	struct aw_ingest_lane *lane = &ingest->lanes[index];
	if (!lane->has_unit)
		return;
	lane->has_unit = false;
	/* The clock as one reader sends it: when it moved by the
	 * resolution. */
	if (!ingest->clock_taken ||
	    lane->unit_ns - ingest->clock_ns >= AW_INGEST_CLOCK_NS) {
		aw_model_set_clock(ingest->model, lane->unit_ns);
		ingest->clock_taken = true;
		ingest->clock_ns = lane->unit_ns;
	}
	struct aw_event *event = &lane->unit;
	aw_ingest_unpack(ingest, event);
	event->source = aw_ingest_source(ingest, lane, event->source);
	aw_model_add_event(ingest->model, event);
}
