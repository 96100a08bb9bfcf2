/* SPDX-License-Identifier: MIT */
/* The analyzer's intake: decodes the event stream (event_codec.h) and hands
 * its events and counts to the model. The reader feeds it what its child
 * process writes; the fuzz harness feeds it arbitrary bytes. */
#ifndef AW_INGEST_H
#define AW_INGEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "event_codec.h"
#include "model.h"
#include "trace_dirs.h"

struct aw_ingest {
	struct aw_model *model;
	const struct aw_trace_dirs *dirs; /* names the traces; may be NULL */
	struct aw_decoder decoder;
	/* The last phase record: where the reader was. */
	bool phase_seen;
	enum aw_reader_phase phase;
	uint32_t phase_dir;
	/* The end record, once it came. */
	bool ended;
	enum aw_read_end end;
	uint32_t end_dir;
	char message[1024];
	/* Packets begun, as the last progress record said. */
	uint64_t decoded_packets;
	/* A _packed event's indices, unpacked: reused, never freed per event.
	 */
	int64_t *i64;
	uint32_t *u32;
};

enum aw_ingest_status {
	AW_INGEST_OK,
	AW_INGEST_MALFORMED, /* bytes that are no record: stop feeding */
};

void aw_ingest_init(struct aw_ingest *ingest, struct aw_model *model,
		    const struct aw_trace_dirs *dirs);
void aw_ingest_fini(struct aw_ingest *ingest);
/* Takes every complete record at the start of data; *used says how many
 * bytes they were (an incomplete record at the end is left for the next
 * call, with more bytes). An end record that says reading stopped marks
 * the model's stats (read_error). */
enum aw_ingest_status aw_ingest_feed(struct aw_ingest *ingest,
				     const unsigned char *data, size_t size,
				     size_t *used);
/* The trace directory called dir, or NULL. */
const char *aw_ingest_dir_name(const struct aw_ingest *ingest, uint32_t dir);

#endif
