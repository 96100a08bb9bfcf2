/* Packed indices: how the _packed events (accwatch_catalogue.def) carry a
 * chunk of indices in a few 64-bit words; the recorder encodes, the reader
 * decodes, with these functions.
 *
 * The words hold a bit stream, least significant bit first ("sized": 7
 * bits n, then the value in n bits):
 *   1 bit    form: 0 a run (index i = first + i * step), 1 offsets
 *   sized    count, the indices it holds (at most ACCWATCH_CHUNK_MAX)
 *   sized    zigzag(first) for a run, zigzag(least) else
 *   a run:   sized zigzag(step)
 *   offsets: 7 bits width w (1..64), then count fields of w bits each,
 *            index - least (modulo 2^64)
 * A shuffle of N indices takes about log2(N) bits an index, a sequential or
 * strided chunk a few bytes in all; any 64-bit index can be written. */
#ifndef ACCWATCH_PACKED_H
#define ACCWATCH_PACKED_H

#include <stddef.h>
#include <stdint.h>

/* The most words count indices take. */
#define ACCWATCH_PACKED_WORDS(count) ((size_t)(count) + 3u)

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

/* The encoder of one element type: values[0..count) into words (room for
 * ACCWATCH_PACKED_WORDS(count)); returns the words used. */
#define ACCWATCH_PACKED_ENCODER(function, type)                                \
	static inline size_t function(const type *values, uint32_t count,      \
				      uint64_t *words)                         \
	{                                                                      \
		struct accwatch_packed_writer w = {words, 0, 0, 0};            \
		int64_t least = count ? (int64_t)values[0] : 0;                \
		int64_t most = least;                                          \
		uint64_t step =                                                \
		    count > 1 ? (uint64_t)(int64_t)values[1] - (uint64_t)least \
			      : 0;                                             \
		int run = 1;                                                   \
		uint32_t i;                                                    \
                                                                               \
		for (i = 1; i < count; i++) {                                  \
			int64_t value = (int64_t)values[i];                    \
			least = value < least ? value : least;                 \
			most = value > most ? value : most;                    \
			run &= (uint64_t)value -                               \
				   (uint64_t)(int64_t)values[i - 1] ==         \
			       step;                                           \
		}                                                              \
		accwatch_packed_put(&w, run ? 0 : 1, 1);                       \
		accwatch_packed_put_sized(&w, count);                          \
		if (run) {                                                     \
			accwatch_packed_put_sized(                             \
			    &w, accwatch_packed_zigzag(                        \
				    count ? (int64_t)values[0] : 0));          \
			accwatch_packed_put_sized(                             \
			    &w, accwatch_packed_zigzag((int64_t)step));        \
		} else {                                                       \
			unsigned width = accwatch_packed_width(                \
			    (uint64_t)most - (uint64_t)least);                 \
                                                                               \
			accwatch_packed_put_sized(                             \
			    &w, accwatch_packed_zigzag(least));                \
			accwatch_packed_put(&w, width, 7);                     \
			for (i = 0; i < count; i++)                            \
				accwatch_packed_put(                           \
				    &w,                                        \
				    (uint64_t)(int64_t)values[i] -             \
					(uint64_t)least,                       \
				    width);                                    \
		}                                                              \
		if (w.used)                                                    \
			words[w.n++] = w.bits;                                 \
		return w.n;                                                    \
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

/* words[0..n_words) to *count indices in out (room for max); 1, or 0 when
 * the words are not such a stream (too short, a width above 64, more than
 * max indices). */
static inline int accwatch_packed_decode(const uint64_t *words, size_t n_words,
					 uint32_t max, int64_t *out,
					 uint32_t *count)
{
	struct accwatch_packed_reader r = {words, (uint64_t)n_words * 64, 0};
	uint64_t form, n, first, step, width, offset;
	uint32_t i;

	*count = 0;
	if (n_words > UINT64_MAX / 64 || !accwatch_packed_get(&r, 1, &form) ||
	    !accwatch_packed_get_sized(&r, &n) || n > max ||
	    !accwatch_packed_get_sized(&r, &first))
		return 0;
	first = (uint64_t)accwatch_packed_unzigzag(first);
	if (form == 0) {
		if (!accwatch_packed_get_sized(&r, &step))
			return 0;
		step = (uint64_t)accwatch_packed_unzigzag(step);
		for (i = 0; i < n; i++)
			out[i] = (int64_t)(first + (uint64_t)i * step);
		*count = (uint32_t)n;
		return 1;
	}
	if (!accwatch_packed_get(&r, 7, &width) || width == 0 || width > 64 ||
	    (r.bits - r.at) / width < n)
		return 0;
	for (i = 0; i < n; i++) {
		accwatch_packed_get(&r, (unsigned)width, &offset);
		out[i] = (int64_t)(first + offset);
	}
	*count = (uint32_t)n;
	return 1;
}

#endif
