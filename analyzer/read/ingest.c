/* SPDX-License-Identifier: MIT */
/* Record by record: events to aw_model_add_event, counts, declared kinds,
 * the runs of each trace and the clock into the model, phase and end
 * records kept for the reader to judge the outcome. */
#include "ingest.h"

#include <stdio.h>
#include <string.h>

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
