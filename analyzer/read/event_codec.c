/* SPDX-License-Identifier: MIT */
/* Records of the event stream, encoded and decoded member by member from the
 * tables of event_fields.c, so the format follows the event catalogue. */
#include "event_codec.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "event_fields.h"
#include "util.h"

/* A string longer than this is taken as a corrupt stream. */
#define AW_CODEC_STRING_MAX (1u << 30)
/* More strings than any event has (loader_new: 7). */
#define AW_CODEC_STRINGS_MAX 16
/* Streams listed with their discards; the rest are summed in the last. */
#define AW_DISCARD_STREAMS_MAX 1024
#define AW_DISCARD_OTHER_STREAMS "(other streams)"

void aw_encoder_init(struct aw_encoder *enc)
{
	enc->data = NULL;
	enc->len = enc->cap = 0;
}

void aw_encoder_fini(struct aw_encoder *enc)
{
	free(enc->data);
	aw_encoder_init(enc);
}

static void aw_put_byte(struct aw_encoder *enc, unsigned char byte)
{
	AW_GROW(enc->data, enc->cap, enc->len + 1);
	enc->data[enc->len++] = byte;
}

static void aw_put_uvarint(struct aw_encoder *enc, uint64_t value)
{
	AW_GROW(enc->data, enc->cap, enc->len + 10);
	aw_encode_uvarint_unchecked(enc, value);
}

static void aw_put_svarint(struct aw_encoder *enc, int64_t value)
{
	aw_put_uvarint(enc, aw_zigzag(value));
}

static void aw_put_string(struct aw_encoder *enc, const char *s)
{
	size_t len = s ? strlen(s) : 0;
	aw_put_uvarint(enc, len);
	AW_GROW(enc->data, enc->cap, enc->len + len);
	if (len)
		memcpy(enc->data + enc->len, s, len);
	enc->len += len;
}

void aw_encode_event_head(struct aw_encoder *enc, enum aw_event_kind kind,
			  uint32_t source)
{
	aw_put_byte(enc, (unsigned char)kind);
	aw_put_uvarint(enc, source);
}

void aw_encoder_grow(struct aw_encoder *enc, size_t n)
{
	AW_GROW(enc->data, enc->cap, enc->len + n);
}

void aw_encode_member_string(struct aw_encoder *enc, const char *value)
{
	aw_put_string(enc, value);
}

void aw_encode_elements_begin(struct aw_encoder *enc, uint32_t count)
{
	aw_put_uvarint(enc, count);
	/* Room for the whole sequence at once: it is the bulk of a trace. */
	AW_GROW(enc->data, enc->cap, enc->len + (size_t)count * 10);
}

static void aw_put_member(struct aw_encoder *enc, const struct aw_event *event,
			  const struct aw_member_spec *spec)
{
	if (spec->slot == ACCWATCH_KIND_str)
		aw_encode_member_string(enc, aw_slot_string(event, spec));
	else
		aw_encode_member(enc, spec, aw_slot_load(event, spec));
}

void aw_encode_event(struct aw_encoder *enc, const struct aw_event *event)
{
	const struct aw_event_spec *spec = aw_event_spec_by_kind(event->kind);
	if (!spec)
		return;
	aw_encode_event_head(enc, event->kind, event->source);
	for (size_t i = 0; i < AW_N_COMMON_MEMBERS; i++)
		aw_put_member(enc, event, &aw_common_members[i]);
	for (size_t i = 0; i < spec->n_members; i++)
		aw_put_member(enc, event, &spec->members[i]);
	if (spec->array_kind == AW_ARRAY_NONE)
		return;
	uint32_t count = event->values.u32 ? event->count : 0;
	aw_encode_elements_begin(enc, count);
	for (uint32_t i = 0; i < count; i++) {
		uint64_t bits = spec->array_kind == AW_ARRAY_U32
				    ? event->values.u32[i]
				    : event->values.u64[i];
		aw_encode_element(enc, spec->array_kind, bits);
	}
}

void aw_encode_counts(struct aw_encoder *enc,
		      const struct aw_read_counts *counts)
{
	aw_put_byte(enc, AW_RECORD_STATS);
	aw_put_uvarint(enc, counts->streams);
	aw_put_uvarint(enc, counts->packets);
	aw_put_uvarint(enc, counts->discarded_events);
	aw_put_uvarint(enc, counts->discarded_events_messages);
	aw_put_uvarint(enc, counts->discarded_packets);
	aw_put_uvarint(enc, counts->events);
	aw_put_uvarint(enc, counts->foreign_events);
	aw_put_uvarint(enc, counts->unknown_accwatch_events);
}

void aw_encode_phase(struct aw_encoder *enc, enum aw_reader_phase phase,
		     uint32_t dir)
{
	aw_put_byte(enc, AW_RECORD_PHASE);
	aw_put_uvarint(enc, (uint64_t)phase);
	aw_put_uvarint(enc, dir);
}

void aw_encode_end(struct aw_encoder *enc, enum aw_read_end end, uint32_t dir,
		   const char *message)
{
	aw_put_byte(enc, AW_RECORD_END);
	aw_put_uvarint(enc, (uint64_t)end);
	aw_put_uvarint(enc, dir);
	aw_put_string(enc, message);
}

void aw_encode_discards(struct aw_encoder *enc, const char *stream,
			uint64_t discarded, bool count_known)
{
	aw_put_byte(enc, AW_RECORD_DISCARDS);
	aw_put_string(enc, stream);
	aw_put_uvarint(enc, discarded);
	aw_put_byte(enc, count_known ? 1 : 0);
}

void aw_encode_clock(struct aw_encoder *enc, int64_t ns)
{
	aw_put_byte(enc, AW_RECORD_CLOCK);
	aw_put_svarint(enc, ns);
}

void aw_encode_declared(struct aw_encoder *enc, uint64_t kinds)
{
	aw_put_byte(enc, AW_RECORD_DECLARED);
	aw_put_uvarint(enc, kinds);
}

void aw_encode_trace_run(struct aw_encoder *enc, uint32_t dir, uint32_t run)
{
	aw_put_byte(enc, AW_RECORD_TRACE_RUN);
	aw_put_uvarint(enc, dir);
	aw_put_uvarint(enc, run);
}

void aw_encode_progress(struct aw_encoder *enc, uint64_t packets)
{
	aw_put_byte(enc, AW_RECORD_PROGRESS);
	aw_put_uvarint(enc, packets);
}

void aw_encode_host(struct aw_encoder *enc, uint32_t source, const char *host)
{
	aw_put_byte(enc, AW_RECORD_HOST);
	aw_put_uvarint(enc, source);
	aw_put_string(enc, host);
}

void aw_decoder_init(struct aw_decoder *dec)
{
	memset(dec, 0, sizeof(*dec));
}

void aw_decoder_fini(struct aw_decoder *dec)
{
	free(dec->u32);
	free(dec->i64);
	free(dec->u64);
	free(dec->strings);
	for (size_t i = 0; i < AW_EVENT_KIND_COUNT; i++)
		free(dec->absent[i]);
	aw_decoder_init(dec);
}

/* The bytes of one record, read front to back. */
struct aw_cursor {
	const unsigned char *at, *end;
	enum aw_decode_status status; /* the first failure sticks */
};

static bool aw_cursor_ok(const struct aw_cursor *c)
{
	return c->status == AW_DECODE_OK;
}

static uint64_t aw_get_uvarint_checked(struct aw_cursor *c)
{
	uint64_t value = 0;
	for (unsigned shift = 0; aw_cursor_ok(c); shift += 7) {
		if (c->at == c->end) {
			c->status = AW_DECODE_SHORT;
			break;
		}
		unsigned char byte = *c->at++;
		/* The tenth byte may only hold bit 63. */
		if (shift == 63 && byte > 1) {
			c->status = AW_DECODE_MALFORMED;
			break;
		}
		value |= (uint64_t)(byte & 0x7f) << shift;
		if (!(byte & 0x80))
			return value;
	}
	return 0;
}

/* A varint of several bytes (a run, a pid, an unknown id) of up to 8, with
 * 8 bytes left: two bytes at once, more by one load, its 7-bit groups
 * joined pairwise (no check per byte); longer ones and the record's last
 * bytes in the loop above. */
static uint64_t aw_get_uvarint_slow(struct aw_cursor *c)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	uint64_t x, stops;
	if (!aw_cursor_ok(c) || c->end - c->at < 8)
		return aw_get_uvarint_checked(c);
	if (c->at[1] < 0x80) { /* two bytes: a run, a batch ordinal */
		x = (uint64_t)(c->at[0] & 0x7f) | (uint64_t)c->at[1] << 7;
		c->at += 2;
		return x;
	}
	memcpy(&x, c->at, sizeof(x));
	if ((x & UINT64_C(0xffffffffff)) == UINT64_C(0x0fffffffff)) {
		/* 2^32 - 1, an absent id (a _bits event's fields) */
		c->at += 5;
		return UINT32_MAX;
	}
	stops = ~x & UINT64_C(0x8080808080808080);
	if (!stops)
		return aw_get_uvarint_checked(c);
	unsigned bytes = ((unsigned)__builtin_ctzll(stops) >> 3) + 1;
	if (bytes < 8)
		x &= (UINT64_C(1) << (8 * bytes)) - 1;
	x &= UINT64_C(0x7f7f7f7f7f7f7f7f);
	x = (x & UINT64_C(0x007f007f007f007f)) |
	    (x & UINT64_C(0x7f007f007f007f00)) >> 1;
	x = (x & UINT64_C(0x00003fff00003fff)) |
	    (x & UINT64_C(0x3fff00003fff0000)) >> 2;
	x = (x & UINT64_C(0x000000000fffffff)) |
	    (x & UINT64_C(0x0fffffff00000000)) >> 4;
	c->at += bytes;
	return x;
#else
	return aw_get_uvarint_checked(c);
#endif
}

/* One byte, the usual case, inline; longer ones in the loop above. */
static inline uint64_t aw_get_uvarint(struct aw_cursor *c)
{
	if (c->at != c->end && *c->at < 0x80 && aw_cursor_ok(c))
		return *c->at++;
	return aw_get_uvarint_slow(c);
}

static int64_t aw_get_svarint(struct aw_cursor *c)
{
	uint64_t u = aw_get_uvarint(c);
	return (int64_t)((u >> 1) ^ (0 - (u & 1)));
}

/* A length about to be followed by at least `length * min_bytes` bytes. */
static uint64_t aw_get_length(struct aw_cursor *c, uint64_t max,
			      size_t min_bytes)
{
	uint64_t length = aw_get_uvarint(c);
	if (!aw_cursor_ok(c))
		return 0;
	if (length > max) {
		c->status = AW_DECODE_MALFORMED;
		return 0;
	}
	if (length > (uint64_t)(c->end - c->at) / min_bytes) {
		c->status = AW_DECODE_SHORT;
		return 0;
	}
	return length;
}

/* Strings are copied, NUL-terminated, into dec->strings; pointers are set
 * once the record is complete, since the buffer may move meanwhile. */
struct aw_string_refs {
	const struct aw_member_spec *spec[AW_CODEC_STRINGS_MAX];
	size_t offset[AW_CODEC_STRINGS_MAX];
	size_t n, used;
};

static size_t aw_get_string(struct aw_cursor *c, struct aw_decoder *dec,
			    struct aw_string_refs *refs)
{
	uint64_t len = aw_get_length(c, AW_CODEC_STRING_MAX, 1);
	if (!aw_cursor_ok(c))
		return 0;
	size_t offset = refs->used;
	AW_GROW(dec->strings, dec->strings_cap, refs->used + len + 1);
	memcpy(dec->strings + offset, c->at, len);
	dec->strings[offset + len] = '\0';
	aw_utf8_clean(dec->strings + offset, len);
	c->at += len;
	refs->used += len + 1;
	return offset;
}

static void aw_get_string_member(struct aw_cursor *c, struct aw_decoder *dec,
				 struct aw_string_refs *refs,
				 const struct aw_member_spec *spec)
{
	size_t offset = aw_get_string(c, dec, refs);
	if (!aw_cursor_ok(c) || refs->n == AW_CODEC_STRINGS_MAX)
		return;
	refs->spec[refs->n] = spec;
	refs->offset[refs->n++] = offset;
}

/* Inline: the integers of every event go through here; one switch on the
 * slot picks the varint's sign and the store's width. */
static inline void aw_get_member(struct aw_cursor *c, struct aw_decoder *dec,
				 struct aw_string_refs *refs,
				 struct aw_event *event,
				 const struct aw_member_spec *spec)
{
	char *at = (char *)event + spec->offset;
	switch (spec->slot) {
	case ACCWATCH_KIND_u8:
		*(uint8_t *)at = (uint8_t)aw_get_uvarint(c);
		break;
	case ACCWATCH_KIND_i8:
		*(int8_t *)at = (int8_t)aw_get_svarint(c);
		break;
	case ACCWATCH_KIND_u32:
		*(uint32_t *)at = (uint32_t)aw_get_uvarint(c);
		break;
	case ACCWATCH_KIND_i32:
		*(int32_t *)at = (int32_t)aw_get_svarint(c);
		break;
	case ACCWATCH_KIND_u64:
		*(uint64_t *)at = aw_get_uvarint(c);
		break;
	case ACCWATCH_KIND_i64:
		*(int64_t *)at = aw_get_svarint(c);
		break;
	case ACCWATCH_KIND_str:
		aw_get_string_member(c, dec, refs, spec);
		break;
	}
}

static void aw_get_array(struct aw_cursor *c, struct aw_decoder *dec,
			 struct aw_event *event, enum aw_array_kind kind)
{
	uint64_t count =
	    aw_get_length(c, UINT32_MAX, kind == AW_ARRAY_PACKED ? 8 : 1);
	if (!aw_cursor_ok(c))
		return;
	event->count = (uint32_t)count;
	/* The decoder's buffer of the array's kind, grown and filled. */
#define AW_GET_ELEMENTS(buffer, get)                                           \
	do {                                                                   \
		AW_GROW(dec->buffer, dec->buffer##_cap, count ? count : 1);    \
		for (uint64_t i = 0; i < count; i++)                           \
			dec->buffer[i] = get;                                  \
		event->values.buffer = dec->buffer;                            \
	} while (0)
	switch (kind) {
	case AW_ARRAY_U32:
		AW_GET_ELEMENTS(u32, (uint32_t)aw_get_uvarint(c));
		break;
	case AW_ARRAY_I64:
		AW_GET_ELEMENTS(i64, aw_get_svarint(c));
		break;
	case AW_ARRAY_U64:
		AW_GET_ELEMENTS(u64, aw_get_uvarint(c));
		break;
	case AW_ARRAY_PACKED:
		/* aw_get_length checked the 8 bytes of each word. */
		AW_GROW(dec->u64, dec->u64_cap, count ? count : 1);
		memcpy(dec->u64, c->at, (size_t)count * 8);
		c->at += (size_t)count * 8;
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
		for (uint64_t i = 0; i < count; i++)
			dec->u64[i] = __builtin_bswap64(dec->u64[i]);
#endif
		event->values.u64 = dec->u64;
		break;
	case AW_ARRAY_NONE:
		break;
	}
#undef AW_GET_ELEMENTS
}

static void aw_get_event(struct aw_cursor *c, struct aw_decoder *dec,
			 enum aw_event_kind kind, struct aw_event *event)
{
	const struct aw_event_spec *spec = aw_event_spec_by_kind(kind);
	struct aw_string_refs refs; /* what it holds is counted by n */
	refs.n = refs.used = 0;
	if (!spec) {
		c->status = AW_DECODE_MALFORMED;
		return;
	}
	if (!dec->absent[kind]) {
		dec->absent[kind] = aw_xcalloc(1, sizeof(struct aw_event));
		aw_event_init_absent(dec->absent[kind], kind);
	}
	*event = *dec->absent[kind];
	uint64_t source = aw_get_uvarint(c);
	event->source = (uint32_t)source;
	if (source > UINT32_MAX)
		c->status = AW_DECODE_MALFORMED;
	for (size_t i = 0; i < AW_N_COMMON_MEMBERS; i++)
		aw_get_member(c, dec, &refs, event, &aw_common_members[i]);
	for (size_t i = 0; i < spec->n_members; i++)
		aw_get_member(c, dec, &refs, event, &spec->members[i]);
	if (spec->array_kind != AW_ARRAY_NONE)
		aw_get_array(c, dec, event, spec->array_kind);
	if (!aw_cursor_ok(c))
		return;
	for (size_t i = 0; i < refs.n; i++)
		aw_slot_set_string(event, refs.spec[i],
				   dec->strings + refs.offset[i]);
}

static void aw_get_counts(struct aw_cursor *c, struct aw_read_counts *counts)
{
	counts->streams = aw_get_uvarint(c);
	counts->packets = aw_get_uvarint(c);
	counts->discarded_events = aw_get_uvarint(c);
	counts->discarded_events_messages = aw_get_uvarint(c);
	counts->discarded_packets = aw_get_uvarint(c);
	counts->events = aw_get_uvarint(c);
	counts->foreign_events = aw_get_uvarint(c);
	counts->unknown_accwatch_events = aw_get_uvarint(c);
}

static uint32_t aw_get_dir(struct aw_cursor *c)
{
	uint64_t dir = aw_get_uvarint(c);
	if (dir > UINT32_MAX)
		c->status = AW_DECODE_MALFORMED;
	return (uint32_t)dir;
}

enum aw_decode_status aw_decode_record(struct aw_decoder *dec,
				       const unsigned char *data, size_t size,
				       size_t *used, struct aw_record *record)
{
	struct aw_cursor c = {data, data + size, AW_DECODE_OK};
	if (size == 0)
		return AW_DECODE_SHORT;
	unsigned char tag = *c.at++;
	if (tag < AW_EVENT_KIND_COUNT) {
		/* Only the event is read of an event record: the rest is
		 * left as it is, the event filled whole. */
		record->type = AW_RECORD_TYPE_EVENT;
		record->message = "";
		record->dir = AW_RECORD_NO_DIR;
		aw_get_event(&c, dec, (enum aw_event_kind)tag, &record->event);
		if (aw_cursor_ok(&c))
			*used = (size_t)(c.at - data);
		return c.status;
	}
	memset(record, 0, sizeof(*record));
	record->message = "";
	record->dir = AW_RECORD_NO_DIR;
	if (tag == AW_RECORD_STATS) {
		record->type = AW_RECORD_TYPE_STATS;
		aw_get_counts(&c, &record->counts);
	} else if (tag == AW_RECORD_PHASE) {
		record->type = AW_RECORD_TYPE_PHASE;
		uint64_t phase = aw_get_uvarint(&c);
		record->dir = aw_get_dir(&c);
		if (aw_cursor_ok(&c) && phase > AW_PHASE_READING)
			c.status = AW_DECODE_MALFORMED;
		record->phase = (enum aw_reader_phase)phase;
	} else if (tag == AW_RECORD_END) {
		struct aw_string_refs refs = {.n = 0, .used = 0};
		record->type = AW_RECORD_TYPE_END;
		uint64_t end = aw_get_uvarint(&c);
		record->dir = aw_get_dir(&c);
		size_t offset = aw_get_string(&c, dec, &refs);
		if (aw_cursor_ok(&c) && end > AW_READ_END_INTERNAL)
			c.status = AW_DECODE_MALFORMED;
		record->end = (enum aw_read_end)end;
		if (aw_cursor_ok(&c))
			record->message = dec->strings + offset;
	} else if (tag == AW_RECORD_DISCARDS) {
		struct aw_string_refs refs = {.n = 0, .used = 0};
		record->type = AW_RECORD_TYPE_DISCARDS;
		size_t offset = aw_get_string(&c, dec, &refs);
		record->discarded = aw_get_uvarint(&c);
		uint64_t known = aw_get_uvarint(&c);
		if (aw_cursor_ok(&c) && known > 1)
			c.status = AW_DECODE_MALFORMED;
		record->count_known = known == 1;
		if (aw_cursor_ok(&c))
			record->stream = dec->strings + offset;
	} else if (tag == AW_RECORD_CLOCK) {
		record->type = AW_RECORD_TYPE_CLOCK;
		record->clock_ns = aw_get_svarint(&c);
	} else if (tag == AW_RECORD_DECLARED) {
		record->type = AW_RECORD_TYPE_DECLARED;
		uint64_t kinds = aw_get_uvarint(&c);
		if (aw_cursor_ok(&c) && kinds >> AW_EVENT_KIND_COUNT)
			c.status = AW_DECODE_MALFORMED;
		record->declared = kinds;
	} else if (tag == AW_RECORD_TRACE_RUN) {
		record->type = AW_RECORD_TYPE_TRACE_RUN;
		record->dir = aw_get_dir(&c);
		uint64_t run = aw_get_uvarint(&c);
		if (aw_cursor_ok(&c) && run > UINT32_MAX)
			c.status = AW_DECODE_MALFORMED;
		record->run = (uint32_t)run;
	} else if (tag == AW_RECORD_PROGRESS) {
		record->type = AW_RECORD_TYPE_PROGRESS;
		record->packets = aw_get_uvarint(&c);
	} else if (tag == AW_RECORD_HOST) {
		struct aw_string_refs refs = {.n = 0, .used = 0};
		record->type = AW_RECORD_TYPE_HOST;
		uint64_t source = aw_get_uvarint(&c);
		size_t offset = aw_get_string(&c, dec, &refs);
		if (aw_cursor_ok(&c) && source > UINT32_MAX)
			c.status = AW_DECODE_MALFORMED;
		record->source = (uint32_t)source;
		if (aw_cursor_ok(&c))
			record->host = dec->strings + offset;
	} else {
		return AW_DECODE_MALFORMED;
	}
	if (aw_cursor_ok(&c))
		*used = (size_t)(c.at - data);
	return c.status;
}

void aw_read_counts_apply(const struct aw_read_counts *counts,
			  struct aw_trace_stats *stats)
{
	stats->streams = counts->streams;
	stats->packets = counts->packets;
	stats->discarded_events = counts->discarded_events;
	stats->discarded_events_messages = counts->discarded_events_messages;
	stats->discarded_packets = counts->discarded_packets;
	stats->events = counts->events;
	stats->foreign_events = counts->foreign_events;
	stats->unknown_accwatch_events = counts->unknown_accwatch_events;
}

void aw_discards_apply(const struct aw_record *record,
		       struct aw_trace_stats *stats)
{
	struct aw_stream_discards *d = NULL;
	const char *stream = record->stream;
	for (size_t i = 0; i < stats->n_discards && !d; i++)
		if (strcmp(stats->discards[i].stream, stream) == 0)
			d = &stats->discards[i];
	if (!d && stats->n_discards == AW_DISCARD_STREAMS_MAX) {
		/* A list that long is unreadable anyway, and searching it per
		 * record would grow quadratically. */
		stream = AW_DISCARD_OTHER_STREAMS;
		d = &stats->discards[stats->n_discards - 1];
		if (strcmp(d->stream, stream) != 0) {
			free(d->stream);
			d->stream = aw_xstrdup(stream);
		}
	}
	if (!d) {
		AW_GROW(stats->discards, stats->discards_cap,
			stats->n_discards + 1);
		d = &stats->discards[stats->n_discards++];
		memset(d, 0, sizeof(*d));
		d->stream = aw_xstrdup(stream);
	}
	d->messages++;
	d->events += record->discarded;
	/* The totals too, until the next counts record sets them: if the
	 * reader dies before it, they are right anyway. */
	stats->discarded_events_messages++;
	stats->discarded_events += record->discarded;
}
