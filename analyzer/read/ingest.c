/* SPDX-License-Identifier: MIT */
/* Record by record: events to aw_model_add_event, counts, declared kinds,
 * the runs of each trace and the clock into the model, phase and end
 * records kept for the reader to judge the outcome. */
#include "ingest.h"

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

void aw_ingest_fini(struct aw_ingest *ingest)
{
	aw_decoder_fini(&ingest->decoder);
	free(ingest->i64);
	free(ingest->u32);
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

/* The plain and _wide event a _packed one is handed on as. */
static bool aw_packed_kinds(enum aw_event_kind packed,
			    enum aw_event_kind *narrow,
			    enum aw_event_kind *wide)
{
	static const enum aw_event_kind kinds[][3] = {
	    {AW_EVENT_BATCH_PACKED, AW_EVENT_BATCH, AW_EVENT_BATCH_WIDE},
	    {AW_EVENT_WORKER_FETCH_PACKED, AW_EVENT_WORKER_FETCH,
	     AW_EVENT_WORKER_FETCH_WIDE},
	    {AW_EVENT_DATASET_MAP_PACKED, AW_EVENT_DATASET_MAP,
	     AW_EVENT_DATASET_MAP_WIDE}};
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (kinds[i][0] == packed) {
			*narrow = kinds[i][1];
			*wide = kinds[i][2];
			return true;
		}
	return false;
}

/* A _packed event's words decoded, in place: the plain event when every
 * index fits 32 bits, else the _wide one; no indices when the words are
 * not a packed stream. Other events are left as they are. */
static void aw_ingest_unpack(struct aw_ingest *ingest, struct aw_event *event)
{
	enum aw_event_kind narrow, wide;
	uint32_t count = 0;
	if (!aw_packed_kinds(event->kind, &narrow, &wide))
		return;
	if (!ingest->i64) {
		ingest->i64 = aw_xcalloc(ACCWATCH_CHUNK_MAX, sizeof(int64_t));
		ingest->u32 = aw_xcalloc(ACCWATCH_CHUNK_MAX, sizeof(uint32_t));
	}
	if (!event->count ||
	    !accwatch_packed_decode(event->values.u64, event->count,
				    ACCWATCH_CHUNK_MAX, ingest->i64, &count))
		count = 0;
	/* One pass: narrowed, and the bits above 32 gathered to tell whether
	 * they all fit. */
	uint64_t high = 0;
	for (uint32_t i = 0; i < count; i++) {
		high |= (uint64_t)ingest->i64[i] >> 32;
		ingest->u32[i] = (uint32_t)ingest->i64[i];
	}
	event->count = count;
	event->kind = high == 0 ? narrow : wide;
	if (high != 0)
		event->values.i64 = ingest->i64;
	else
		event->values.u32 = count ? ingest->u32 : NULL;
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
		case AW_RECORD_TYPE_PHASE:
			ingest->phase_seen = true;
			ingest->phase = record.phase;
			ingest->phase_dir = record.dir;
			break;
		case AW_RECORD_TYPE_END:
			aw_ingest_end(ingest, &record);
			break;
		case AW_RECORD_TYPE_DISCARDS:
			aw_discards_apply(&record, &ingest->model->stats);
			break;
		case AW_RECORD_TYPE_CLOCK:
			aw_model_set_clock(ingest->model, record.clock_ns);
			break;
		case AW_RECORD_TYPE_DECLARED:
			ingest->model->stats.declared_kinds |= record.declared;
			break;
		case AW_RECORD_TYPE_PROGRESS:
			ingest->decoded_packets = record.packets;
			break;
		case AW_RECORD_TYPE_TRACE_RUN:
			aw_model_note_trace_run(
			    ingest->model,
			    aw_ingest_dir_name(ingest, record.dir), record.run);
			break;
		}
	}
	*used = done;
	return status;
}
