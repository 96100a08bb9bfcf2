/* SPDX-License-Identifier: MIT */
/* The analyzer's event stream as bytes: how the process reading the trace
 * with babeltrace2 hands events to the analyzer, and the input of the fuzz
 * harness. A stream is a sequence of records; each opens with a tag byte.
 *
 *   event   tag = kind (0 .. AW_EVENT_KIND_COUNT-1), source, then run, pid
 *           and the kind's members in the order of event_fields.c, then for
 *           chunk events the element count and the elements (varints;
 *           the words of a _packed event's indices as 8 bytes each,
 *           little-endian, unpacked by ingest.c)
 *   stats   AW_RECORD_STATS, the reader's counters (struct aw_trace_stats)
 *   phase   AW_RECORD_PHASE, what the reader is doing, and on which trace
 *   end     AW_RECORD_END, how reading ended, the trace, a message
 *   discard AW_RECORD_DISCARDS, events one stream lost (a discarded-events
 *           message): the stream's name, the count, whether it was known
 *   clock   AW_RECORD_CLOCK, the trace clock (ns from its origin) the
 *           events after it happened at, to a millisecond
 *   declared AW_RECORD_DECLARED, the event kinds a trace's metadata
 *           declares (a bit per kind): what its recorder could emit
 *   run     AW_RECORD_TRACE_RUN, a trace directory holds events of a run
 *           (sent once per directory and run)
 *   progress AW_RECORD_PROGRESS, the packets begun so far (for the
 *           progress line)
 *   host    AW_RECORD_HOST, the host (trace `hostname`) of a source number
 *           of a reader that decodes part of the streams (reader_bt.h)
 *
 * Integers are LEB128 varints (signed ones zigzag-encoded), strings and
 * arrays are prefixed with their length. Nothing in a record is trusted:
 * decoding checks every length against the bytes present. */
#ifndef AW_EVENT_CODEC_H
#define AW_EVENT_CODEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "event.h"
#include "event_fields.h"
#include "trace_stats.h"

enum aw_record_tag {
	AW_RECORD_STATS = 0x40,
	AW_RECORD_PHASE = 0x41,
	AW_RECORD_END = 0x42,
	AW_RECORD_DISCARDS = 0x43,
	AW_RECORD_CLOCK = 0x44,
	AW_RECORD_DECLARED = 0x45,
	AW_RECORD_TRACE_RUN = 0x46,
	AW_RECORD_PROGRESS = 0x47,
	AW_RECORD_HOST = 0x48,
};

enum aw_record_type {
	AW_RECORD_TYPE_EVENT,
	AW_RECORD_TYPE_STATS,
	AW_RECORD_TYPE_PHASE,
	AW_RECORD_TYPE_END,
	AW_RECORD_TYPE_DISCARDS,
	AW_RECORD_TYPE_CLOCK,
	AW_RECORD_TYPE_DECLARED,
	AW_RECORD_TYPE_TRACE_RUN,
	AW_RECORD_TYPE_PROGRESS,
	AW_RECORD_TYPE_HOST,
};

enum aw_reader_phase {
	AW_PHASE_OPENING, /* creating the source of trace `dir` */
	AW_PHASE_READING, /* running the graph over every trace */
};

enum aw_read_end {
	AW_READ_END_OK,       /* read to the end */
	AW_READ_END_OPEN,     /* a trace could not be opened: nothing read */
	AW_READ_END_STOPPED,  /* reading stopped at a corrupt part */
	AW_READ_END_INTERNAL, /* babeltrace2 missing or out of memory */
};

/* The reader's counters a stats record carries. */
struct aw_read_counts {
	uint64_t streams, packets;
	uint64_t discarded_events, discarded_events_messages;
	uint64_t discarded_packets;
	uint64_t events, foreign_events, unknown_accwatch_events;
};

#define AW_RECORD_NO_DIR UINT32_MAX

struct aw_record {
	enum aw_record_type type;
	struct aw_event event;        /* EVENT: arrays and strings borrowed */
	struct aw_read_counts counts; /* STATS */
	enum aw_reader_phase phase;   /* PHASE */
	enum aw_read_end end;         /* END */
	uint32_t dir;        /* PHASE, END, TRACE_RUN: index of the trace,
			      * AW_RECORD_NO_DIR */
	const char *message; /* END: borrowed, "" when none */
	/* DISCARDS: the stream (borrowed), the events it lost (0 when the
	 * trace does not say: count_known false). */
	const char *stream;
	uint64_t discarded;
	bool count_known;
	int64_t clock_ns;  /* CLOCK */
	uint64_t declared; /* DECLARED: bit k for event kind k */
	uint32_t run;      /* TRACE_RUN */
	uint64_t packets;  /* PROGRESS */
	uint32_t source;   /* HOST: the reader's number */
	const char *host;  /* HOST: borrowed */
};

/* A growing byte buffer that records are appended to. */
struct aw_encoder {
	unsigned char *data;
	size_t len, cap;
};

void aw_encoder_init(struct aw_encoder *enc);
void aw_encoder_fini(struct aw_encoder *enc);
void aw_encode_event(struct aw_encoder *enc, const struct aw_event *event);
/* An event record written as its members are met, the same bytes as
 * aw_encode_event: the head, each member in the kind's order
 * (aw_common_members, then the spec's), then, for a kind with a sequence,
 * its count and that many elements. */
void aw_encode_event_head(struct aw_encoder *enc, enum aw_event_kind kind,
			  uint32_t source);
void aw_encode_member_string(struct aw_encoder *enc, const char *value);
/* The count, and room for the count elements that follow. */
void aw_encode_elements_begin(struct aw_encoder *enc, uint32_t count);

/* Writes a varint where room for 10 bytes was made. */
static inline void aw_encode_uvarint_unchecked(struct aw_encoder *enc,
					       uint64_t value)
{
	while (value >= 0x80) {
		enc->data[enc->len++] = (unsigned char)(value | 0x80);
		value >>= 7;
	}
	enc->data[enc->len++] = (unsigned char)value;
}

/* A signed integer as the unsigned one its varint carries: 0, -1, 1, -2
 * ... as 0, 1, 2, 3 ... */
static inline uint64_t aw_zigzag(int64_t value)
{
	return ((uint64_t)value << 1) ^ (uint64_t)(value >> 63);
}

/* Room for n more bytes: out of line, the usual case has it. */
void aw_encoder_grow(struct aw_encoder *enc, size_t n);

/* An integer member, narrowed to its slot as struct aw_event keeps it
 * (accwatch_kind_store, then accwatch_kind_load), signed ones
 * zigzag-encoded; inline: every member of every event comes here. */
static inline void aw_encode_member(struct aw_encoder *enc,
				    const struct aw_member_spec *spec,
				    int64_t value)
{
	uint64_t bits;
	switch (spec->slot) {
	case ACCWATCH_KIND_u8:
		bits = (uint8_t)value;
		break;
	case ACCWATCH_KIND_i8:
		bits = aw_zigzag((int8_t)value);
		break;
	case ACCWATCH_KIND_u32:
		bits = (uint32_t)value;
		break;
	case ACCWATCH_KIND_i32:
		bits = aw_zigzag((int32_t)value);
		break;
	case ACCWATCH_KIND_i64:
		bits = aw_zigzag(value);
		break;
	default:
		bits = (uint64_t)value;
		break;
	}
	if (!enc->data || enc->cap - enc->len < 10)
		aw_encoder_grow(enc, 10);
	aw_encode_uvarint_unchecked(enc, bits);
}

/* A word as its 8 bytes, little-endian, where room was made. */
static inline void aw_encode_word_unchecked(struct aw_encoder *enc,
					    uint64_t word)
{
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	word = __builtin_bswap64(word);
#endif
	memcpy(enc->data + enc->len, &word, 8);
	enc->len += 8;
}

/* One element of a sequence of kind, as its 64 bits, where
 * aw_encode_elements_begin made room: varints (signed ones zigzag), the
 * words of packed indices as 8 bytes, little-endian. */
static inline void aw_encode_element(struct aw_encoder *enc,
				     enum aw_array_kind kind, uint64_t bits)
{
	switch (kind) {
	case AW_ARRAY_U32:
		aw_encode_uvarint_unchecked(enc, (uint32_t)bits);
		break;
	case AW_ARRAY_I64:
		aw_encode_uvarint_unchecked(enc, aw_zigzag((int64_t)bits));
		break;
	case AW_ARRAY_U64:
		aw_encode_uvarint_unchecked(enc, bits);
		break;
	case AW_ARRAY_PACKED:
		aw_encode_word_unchecked(enc, bits);
		break;
	case AW_ARRAY_NONE:
		break;
	}
}

void aw_encode_counts(struct aw_encoder *enc,
		      const struct aw_read_counts *counts);
void aw_encode_phase(struct aw_encoder *enc, enum aw_reader_phase phase,
		     uint32_t dir);
void aw_encode_end(struct aw_encoder *enc, enum aw_read_end end, uint32_t dir,
		   const char *message);
void aw_encode_discards(struct aw_encoder *enc, const char *stream,
			uint64_t discarded, bool count_known);
void aw_encode_clock(struct aw_encoder *enc, int64_t ns);
void aw_encode_declared(struct aw_encoder *enc, uint64_t kinds);
void aw_encode_trace_run(struct aw_encoder *enc, uint32_t dir, uint32_t run);
void aw_encode_progress(struct aw_encoder *enc, uint64_t packets);
void aw_encode_host(struct aw_encoder *enc, uint32_t source, const char *host);

/* Owns the memory decoded records borrow: valid until the next decode. */
struct aw_decoder {
	uint32_t *u32;
	int64_t *i64;
	uint64_t *u64;
	size_t u32_cap, i64_cap, u64_cap;
	char *strings;
	size_t strings_cap;
	/* An event of each kind with its members absent, made on the kind's
	 * first record (NULL until then): copied, not built, per event. */
	struct aw_event *absent[AW_EVENT_KIND_COUNT];
};

enum aw_decode_status {
	AW_DECODE_OK,
	AW_DECODE_SHORT,     /* the record goes on past the bytes given */
	AW_DECODE_MALFORMED, /* an unknown tag or an impossible number */
};

void aw_decoder_init(struct aw_decoder *dec);
void aw_decoder_fini(struct aw_decoder *dec);
/* Decodes the record at the start of data; on OK, *used is its length. */
enum aw_decode_status aw_decode_record(struct aw_decoder *dec,
				       const unsigned char *data, size_t size,
				       size_t *used, struct aw_record *record);

/* Stores a stats record's counters into the model's. */
void aw_read_counts_apply(const struct aw_read_counts *counts,
			  struct aw_trace_stats *stats);
/* Adds a discards record to the model's per-stream discards and totals. */
void aw_discards_apply(const struct aw_record *record,
		       struct aw_trace_stats *stats);

#endif
