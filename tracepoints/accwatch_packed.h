/* SPDX-License-Identifier: MIT */
/* Packed indices: how the _packed events (accwatch_catalogue.def) carry a
 * chunk of indices in a few 64-bit words; the recorder encodes, the reader
 * decodes, with these functions.
 *
 * The words hold a bit stream, least significant bit first ("sized": 7
 * bits n, then the value in n bits):
 *   1 bit    form: 0 a run (index i = first + i * step), 1 offsets
 *   sized    count, the indices it holds (at most ACCWATCH_CHUNK_MAX)
 *   sized    zigzag(first) for a run, zigzag(base) else
 *   a run:   sized zigzag(step)
 *   offsets: 7 bits width w (1..64), then count fields of w bits each,
 *            index - base (modulo 2^64)
 * A shuffle of N indices takes about log2(N) bits an index, a sequential or
 * strided chunk a few bytes in all; any 64-bit index can be written.
 *
 * The _bits events (what the recorder writes) hold the integer fields of
 * their list in the stream too, before the indices, so that the event's
 * fixed part is run, pid and the words' count ("short": 5 bits c, then the
 * value in c bits, 32 when c is 31; a 32-bit value or less):
 *   head     each integer field of the list but offset and total, in the
 *            list's order (ACCWATCH_BITS_HEAD_<event>,
 *            accwatch_catalogue.def): short, a signed one zigzagged
 *            (worker_id); base_len (64 bits) sized, zigzagged
 *   1 bit    place: 0 the chunk is the whole batch (offset 0, total the
 *            count below), 1 short offset then short total follow
 *   then the indices as above.
 * A batch of 64 shuffled indices of 2^20 of loader 0 or 1, iteration
 * below 8 and batch ordinal below 2^14 fits 21 words (63 bits of fields
 * and header), as many as the _packed event, which had 20 bytes of fields
 * besides. */
#ifndef ACCWATCH_PACKED_H
#define ACCWATCH_PACKED_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* The most words count indices take, and a _bits event's head besides. */
#define ACCWATCH_PACKED_WORDS(count) ((size_t)(count) + 3u)
#define ACCWATCH_PACKED_BITS_WORDS(count) (ACCWATCH_PACKED_WORDS(count) + 4u)

struct accwatch_packed_writer {
	uint64_t *words;
	size_t n;
	uint64_t bits; /* not yet stored */
	unsigned used; /* of bits, < 64 */
};

static inline unsigned accwatch_packed_width(uint64_t value)
{
	return value ? 64u - (unsigned)__builtin_clzll(value) : 0u;
}

static inline uint64_t accwatch_packed_zigzag(int64_t value)
{
	return ((uint64_t)value << 1) ^ (uint64_t)(value >> 63);
}

static inline int64_t accwatch_packed_unzigzag(uint64_t value)
{
	return (int64_t)(value >> 1) ^ -(int64_t)(value & 1);
}

/* Appends the low n bits of value (n <= 64). */
static inline void accwatch_packed_put(struct accwatch_packed_writer *writer,
				       uint64_t value, unsigned n)
{
	if (n == 0)
		return;
	if (n < 64)
		value &= (UINT64_C(1) << n) - 1;
	writer->bits |= value << writer->used;
	if (writer->used + n < 64) {
		writer->used += n;
		return;
	}
	writer->words[writer->n++] = writer->bits;
	writer->bits = writer->used ? value >> (64 - writer->used) : 0;
	writer->used = writer->used + n - 64;
}

/* 7 bits of width, then the value in that many bits. */
static inline void accwatch_packed_put_sized(struct accwatch_packed_writer *w,
					     uint64_t value)
{
	unsigned width = accwatch_packed_width(value);

	accwatch_packed_put(w, width, 7);
	accwatch_packed_put(w, value, width);
}

/* 5 bits of width (31: 32), then the value in that many bits: one put. */
static inline void accwatch_packed_put_short(struct accwatch_packed_writer *w,
					     uint32_t value)
{
	unsigned width = accwatch_packed_width(value);
	unsigned code = width < 31 ? width : 31;

	accwatch_packed_put(w, code | (uint64_t)value << 5,
			    5 + (code < 31 ? code : 32));
}

/* The codings of a _bits event's head that are more than a put
 * (ACCWATCH_BITS_HEAD_<event>, accwatch_catalogue.def): a signed field
 * zigzagged, short (32 bits) or sized (64). */
static inline void
accwatch_packed_put_short_zigzag(struct accwatch_packed_writer *w,
				 int32_t value)
{
	accwatch_packed_put_short(w, (uint32_t)accwatch_packed_zigzag(value));
}

static inline void
accwatch_packed_put_sized_zigzag(struct accwatch_packed_writer *w,
				 int64_t value)
{
	accwatch_packed_put_sized(w, accwatch_packed_zigzag(value));
}

/* The words of a stream: the bits not yet stored go in one more word. */
static inline size_t accwatch_packed_finish(struct accwatch_packed_writer *w)
{
	if (w->used)
		w->words[w->n++] = w->bits;
	w->bits = 0;
	w->used = 0;
	return w->n;
}

/* The low width bits (1..64) of count values, in order; the writer's bits
 * go on from where they are. Two values make one field of 2 * width bits
 * when that fits a word (half the steps for the usual widths). */
#define ACCWATCH_PACKED_PUT_ALL(function, type)                                \
	static inline void function(struct accwatch_packed_writer *w,          \
				    const type *values, uint32_t count,        \
				    unsigned width)                            \
	{                                                                      \
		uint64_t mask =                                                \
		    width < 64 ? (UINT64_C(1) << width) - 1 : ~UINT64_C(0);    \
		uint64_t bits = w->bits, *out = w->words + w->n;               \
		unsigned used = w->used, twice = 2 * width;                    \
		uint32_t i = 0, pairs = width <= 32 ? count / 2 : 0;           \
                                                                               \
		for (uint32_t p = 0; p < pairs; p++, i += 2) {                 \
			uint64_t field =                                       \
			    ((uint64_t)(int64_t)values[i] & mask) |            \
			    (((uint64_t)(int64_t)values[i + 1] & mask)         \
			     << width);                                        \
                                                                               \
			bits |= field << used;                                 \
			used += twice;                                         \
			if (used >= 64) {                                      \
				*out++ = bits;                                 \
				used -= 64;                                    \
				bits = used ? field >> (twice - used) : 0;     \
			}                                                      \
		}                                                              \
		for (; i < count; i++) {                                       \
			uint64_t field = (uint64_t)(int64_t)values[i] & mask;  \
                                                                               \
			bits |= field << used;                                 \
			used += width;                                         \
			if (used >= 64) {                                      \
				*out++ = bits;                                 \
				used -= 64;                                    \
				bits = used ? field >> (width - used) : 0;     \
			}                                                      \
		}                                                              \
		w->bits = bits;                                                \
		w->used = used;                                                \
		w->n = (size_t)(out - w->words);                               \
	}

/* The encoder of one element type: values[0..count) appended to a writer
 * (function_put, its words with room for ACCWATCH_PACKED_WORDS(count)
 * more), or into words on their own (function; returns the words used).
 * Offsets are from the first value with its low width bits cleared, width
 * being what the values differ in (the bits of the or of their xors with
 * the first): the values then share every bit above, and an offset is a
 * value's low bits. Both passes are a few instructions an index. */
#define ACCWATCH_PACKED_ENCODER(function, type)                                \
	ACCWATCH_PACKED_PUT_ALL(function##_put_all, type)                      \
	static inline void function##_put(struct accwatch_packed_writer *w,    \
					  const type *values, uint32_t count)  \
	{                                                                      \
		uint64_t first = count ? (uint64_t)(int64_t)values[0] : 0;     \
		uint64_t step =                                                \
		    count > 1 ? (uint64_t)(int64_t)values[1] - first : 0;      \
		uint64_t steps = 0, differ = 0, base;                          \
		unsigned width;                                                \
                                                                               \
		for (uint32_t i = 1; i < count; i++) {                         \
			uint64_t value = (uint64_t)(int64_t)values[i];         \
			differ |= value ^ first;                               \
			steps |=                                               \
			    (value - (uint64_t)(int64_t)values[i - 1]) ^ step; \
		}                                                              \
		accwatch_packed_put(w, steps ? 1 : 0, 1);                      \
		accwatch_packed_put_sized(w, count);                           \
		if (!steps) {                                                  \
			accwatch_packed_put_sized(                             \
			    w, accwatch_packed_zigzag((int64_t)first));        \
			accwatch_packed_put_sized(                             \
			    w, accwatch_packed_zigzag((int64_t)step));         \
			return;                                                \
		}                                                              \
		width = accwatch_packed_width(differ);                         \
		base = width < 64 ? first & ~((UINT64_C(1) << width) - 1) : 0; \
		accwatch_packed_put_sized(                                     \
		    w, accwatch_packed_zigzag((int64_t)base));                 \
		accwatch_packed_put(w, width, 7);                              \
		function##_put_all(w, values, count, width);                   \
	}                                                                      \
	static inline size_t function(const type *values, uint32_t count,      \
				      uint64_t *words)                         \
	{                                                                      \
		struct accwatch_packed_writer w = {words, 0, 0, 0};            \
                                                                               \
		function##_put(&w, values, count);                             \
		return accwatch_packed_finish(&w);                             \
	}
ACCWATCH_PACKED_ENCODER(accwatch_packed_encode_u32, uint32_t)
ACCWATCH_PACKED_ENCODER(accwatch_packed_encode_i64, int64_t)

struct accwatch_packed_reader {
	const uint64_t *words;
	uint64_t bits; /* in words */
	uint64_t at;
};

/* The next n bits (n <= 64) into *value; 0 when the words end first. */
static inline int accwatch_packed_get(struct accwatch_packed_reader *reader,
				      unsigned n, uint64_t *value)
{
	uint64_t word, offset, got;

	if (n == 0 || reader->bits - reader->at < n) {
		*value = 0;
		return n == 0;
	}
	word = reader->at >> 6;
	offset = reader->at & 63;
	got = reader->words[word] >> offset;
	if (offset + n > 64)
		got |= reader->words[word + 1] << (64 - offset);
	if (n < 64)
		got &= (UINT64_C(1) << n) - 1;
	reader->at += n;
	*value = got;
	return 1;
}

static inline int accwatch_packed_get_sized(struct accwatch_packed_reader *r,
					    uint64_t *value)
{
	uint64_t width;

	return accwatch_packed_get(r, 7, &width) && width <= 64 &&
	       accwatch_packed_get(r, (unsigned)width, value);
}

/* 5 bits of width (31: 32), then the value. */
static inline int accwatch_packed_get_short(struct accwatch_packed_reader *r,
					    uint32_t *value)
{
	uint64_t code, got;

	if (!accwatch_packed_get(r, 5, &code) ||
	    !accwatch_packed_get(r, code < 31 ? (unsigned)code : 32u, &got))
		return 0;
	*value = (uint32_t)got;
	return 1;
}

/* The readers of the codings above: *value set only when the words held
 * it. */
static inline int
accwatch_packed_get_short_zigzag(struct accwatch_packed_reader *r,
				 int32_t *value)
{
	uint32_t got;

	if (!accwatch_packed_get_short(r, &got))
		return 0;
	*value = (int32_t)accwatch_packed_unzigzag(got);
	return 1;
}

static inline int
accwatch_packed_get_sized_zigzag(struct accwatch_packed_reader *r,
				 int64_t *value)
{
	uint64_t got;

	if (!accwatch_packed_get_sized(r, &got))
		return 0;
	*value = accwatch_packed_unzigzag(got);
	return 1;
}

/* A reader of words[0..n_words); 0 when the count of bits overflows. */
static inline int accwatch_packed_reader_init(struct accwatch_packed_reader *r,
					      const uint64_t *words,
					      size_t n_words)
{
	r->words = words;
	r->bits = (uint64_t)n_words * 64;
	r->at = 0;
	return n_words <= UINT64_MAX / 64;
}

/* The 8 bytes of words from byte byte on, the first the lowest (the
 * stream's order on a little-endian machine). */
static inline uint64_t accwatch_packed_load(const uint64_t *words,
					    uint64_t byte)
{
	uint64_t value;

	memcpy(&value, (const unsigned char *)words + byte, sizeof(value));
	return value;
}

/* How many of n fields of width bits from bit at can be read by a load of
 * 8 bytes at their first byte, words holding bits bits: those that start
 * before bits - 56 (their load ends in the words) when a field and its
 * shift within its first byte fit 64 bits; 0 on a big-endian machine. */
static inline uint32_t accwatch_packed_loadable(uint64_t bits, uint64_t at,
						unsigned width, uint32_t n)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	uint64_t fields;

	if (width > 57 || bits < 64 || at >= bits - 56)
		return 0;
	fields = (bits - 56 - at + width - 1) / width;
	return fields < n ? (uint32_t)fields : n;
#else
	(void)bits;
	(void)at;
	(void)width;
	(void)n;
	return 0;
#endif
}

/* groups of 8 fields of width bits (a constant where it is inlined) from
 * byte p on, the first at bit shift (< 8) of it: field k of a group is in
 * the 8 bytes at byte k * width / 8, shifted by shift then by the
 * constant k * width % 8 (at most 14 bits in all, so width <= 50). */
static inline __attribute__((always_inline)) void
accwatch_packed_groups(const unsigned char *p, unsigned shift, unsigned width,
		       uint64_t first, int64_t *out, uint32_t groups)
{
	const uint64_t mask = (UINT64_C(1) << width) - 1;
	uint64_t field;

	for (uint32_t g = 0; g < groups; g++, p += width, out += 8) {
#pragma GCC unroll 8
		for (unsigned k = 0; k < 8; k++) {
			memcpy(&field, p + k * width / 8, sizeof(field));
			field = field >> shift >> (k * width % 8);
			out[k] = (int64_t)(first + (field & mask));
		}
	}
}

#define ACCWATCH_PACKED_GROUPS_OF(w)                                           \
	case w:                                                                \
		accwatch_packed_groups(p, shift, w, first, out, groups);       \
		return 1
#define ACCWATCH_PACKED_GROUPS_OF_4(w)                                         \
	ACCWATCH_PACKED_GROUPS_OF(w);                                          \
	ACCWATCH_PACKED_GROUPS_OF(w + 1);                                      \
	ACCWATCH_PACKED_GROUPS_OF(w + 2);                                      \
	ACCWATCH_PACKED_GROUPS_OF(w + 3)

/* The groups of 8 fields of a width up to 32, by a loop of that width; 0
 * (nothing read) for a wider one. */
static inline int accwatch_packed_groups_by_width(const unsigned char *p,
						  unsigned shift,
						  unsigned width,
						  uint64_t first, int64_t *out,
						  uint32_t groups)
{
	switch (width) {
		ACCWATCH_PACKED_GROUPS_OF_4(1);
		ACCWATCH_PACKED_GROUPS_OF_4(5);
		ACCWATCH_PACKED_GROUPS_OF_4(9);
		ACCWATCH_PACKED_GROUPS_OF_4(13);
		ACCWATCH_PACKED_GROUPS_OF_4(17);
		ACCWATCH_PACKED_GROUPS_OF_4(21);
		ACCWATCH_PACKED_GROUPS_OF_4(25);
		ACCWATCH_PACKED_GROUPS_OF_4(29);
	default:
		return 0;
	}
}

/* n fields of width bits (1..64) from bit at of words[0..bits / 64), each
 * plus first, into out; returns the bit after them. The caller checked
 * that the bits are there. The fields whose load stays in the words are
 * read by one unaligned load each: by groups of 8 in a loop of their
 * width up to 32, then two a load when 2 * width + 7 fits 64 bits, else
 * one; the last few of the stream by word. */
static inline uint64_t accwatch_packed_unpack(const uint64_t *words,
					      uint64_t bits, uint64_t at,
					      unsigned width, uint64_t first,
					      int64_t *out, uint32_t n)
{
	uint64_t mask = width < 64 ? (UINT64_C(1) << width) - 1 : ~UINT64_C(0);
	uint64_t field, shift;
	uint32_t i = 0, fast = accwatch_packed_loadable(bits, at, width, n);

	if (fast >= 8 && accwatch_packed_groups_by_width(
			     (const unsigned char *)words + (at >> 3), at & 7,
			     width, first, out, fast / 8)) {
		i = fast / 8 * 8;
		at += (uint64_t)i * width;
	}

	if (width <= 28) {
		for (; i + 2 <= fast; i += 2, at += 2 * width) {
			field =
			    accwatch_packed_load(words, at >> 3) >> (at & 7);
			out[i] = (int64_t)(first + (field & mask));
			out[i + 1] =
			    (int64_t)(first + ((field >> width) & mask));
		}
	}
	for (; i < fast; i++, at += width) {
		field = accwatch_packed_load(words, at >> 3) >> (at & 7);
		out[i] = (int64_t)(first + (field & mask));
	}
	for (; i < n; i++, at += width) {
		shift = at & 63;
		field = words[at >> 6] >> shift;
		if (shift + width > 64)
			field |= words[(at >> 6) + 1] << (64 - shift);
		out[i] = (int64_t)(first + (field & mask));
	}
	return at;
}

/* The indices from where the reader is to *count indices in out (room for
 * max); 1, or 0 when the bits are not such a stream (too short, a width
 * above 64, more than max indices). */
static inline int accwatch_packed_get_indices(struct accwatch_packed_reader *r,
					      uint32_t max, int64_t *out,
					      uint32_t *count)
{
	uint64_t form, n, first, step, width;
	uint32_t i;

	*count = 0;
	if (!accwatch_packed_get(r, 1, &form) ||
	    !accwatch_packed_get_sized(r, &n) || n > max ||
	    !accwatch_packed_get_sized(r, &first))
		return 0;
	first = (uint64_t)accwatch_packed_unzigzag(first);
	if (form == 0) {
		if (!accwatch_packed_get_sized(r, &step))
			return 0;
		step = (uint64_t)accwatch_packed_unzigzag(step);
		for (i = 0; i < n; i++)
			out[i] = (int64_t)(first + (uint64_t)i * step);
		*count = (uint32_t)n;
		return 1;
	}
	if (!accwatch_packed_get(r, 7, &width) || width == 0 || width > 64 ||
	    (r->bits - r->at) / width < n)
		return 0;
	/* The bits are there (checked above): no check per index. */
	r->at = accwatch_packed_unpack(
	    r->words, r->bits, r->at, (unsigned)width, first, out, (uint32_t)n);
	*count = (uint32_t)n;
	return 1;
}

/* words[0..n_words) (a _packed event's) to *count indices in out (room
 * for max); 1, or 0 when the words are not such a stream. */
static inline int accwatch_packed_decode(const uint64_t *words, size_t n_words,
					 uint32_t max, int64_t *out,
					 uint32_t *count)
{
	struct accwatch_packed_reader r;

	*count = 0;
	return accwatch_packed_reader_init(&r, words, n_words) &&
	       accwatch_packed_get_indices(&r, max, out, count);
}

/* A _bits event's place and indices, after its fields: *offset, *total
 * and *count indices in out (room for max); 1, or 0 when the bits are not
 * such a stream. */
static inline int accwatch_packed_get_chunk(struct accwatch_packed_reader *r,
					    uint32_t max, int64_t *out,
					    uint32_t *count, uint32_t *offset,
					    uint32_t *total)
{
	uint64_t place;

	*count = 0;
	if (!accwatch_packed_get(r, 1, &place))
		return 0;
	*offset = 0;
	if (place && (!accwatch_packed_get_short(r, offset) ||
		      !accwatch_packed_get_short(r, total)))
		return 0;
	if (!accwatch_packed_get_indices(r, max, out, count))
		return 0;
	if (!place)
		*total = *count;
	return 1;
}

/* The place of a chunk of count indices at offset in a batch of total. */
static inline void accwatch_packed_put_place(struct accwatch_packed_writer *w,
					     uint32_t offset, uint32_t total,
					     uint32_t count)
{
	if (offset == 0 && total == count) {
		accwatch_packed_put(w, 0, 1);
		return;
	}
	accwatch_packed_put(w, 1, 1);
	accwatch_packed_put_short(w, offset);
	accwatch_packed_put_short(w, total);
}

#endif
