/* SPDX-License-Identifier: MIT */
/* Unit tests of packed indices (tracepoints/accwatch_packed.h): what the
 * recorder encodes the reader decodes, and words that are no such stream
 * are refused. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>

#include "accwatch_events.h"
#include "accwatch_packed.h"

#define MAX 4096u

static uint64_t words[ACCWATCH_PACKED_WORDS(MAX)];
static int64_t out[MAX];

static size_t round_trip(const int64_t *values, uint32_t count)
{
	size_t n = accwatch_packed_encode_i64(values, count, words);
	uint32_t got = 0;

	cr_assert_leq(n, ACCWATCH_PACKED_WORDS(count));
	cr_assert(accwatch_packed_decode(words, n, MAX, out, &got));
	cr_assert_eq(got, count);
	for (uint32_t i = 0; i < count; i++)
		cr_assert_eq(out[i], values[i], "index %u", i);
	return n;
}

Test(packed, runs_take_a_word_or_two)
{
	int64_t values[MAX];

	for (uint32_t i = 0; i < MAX; i++)
		values[i] = 1000000 + i;
	cr_expect_eq(round_trip(values, MAX), 1);
	for (uint32_t i = 0; i < 64; i++)
		values[i] = 70 - 8 * (int64_t)i; /* strided, going down */
	cr_expect_eq(round_trip(values, 64), 1);
	for (uint32_t i = 0; i < 64; i++)
		values[i] = INT64_MAX - 3; /* the same index 64 times */
	cr_expect_leq(round_trip(values, 64), 2);
	cr_expect_eq(round_trip(values, 1), 2);
	cr_expect_eq(round_trip(values, 0), 1);
}

Test(packed, a_shuffle_below_2_to_the_20_takes_20_bits_an_index)
{
	int64_t values[64];

	srand(7);
	for (uint32_t i = 0; i < 64; i++)
		values[i] = rand() % (1 << 20);
	values[5] = 0;
	values[9] = (1 << 20) - 1;
	/* 64 x 20 bits and a header of at most 64 bits. */
	cr_expect_leq(round_trip(values, 64), 21);
}

Test(packed, any_64_bit_index)
{
	int64_t values[] = {INT64_MIN, INT64_MAX, -1, 0, 1, 1LL << 32, -5};
	uint32_t narrow[] = {0, UINT32_MAX, 7, 7};
	uint32_t got;
	size_t n;

	round_trip(values, 7);
	round_trip(values, 2);
	n = accwatch_packed_encode_u32(narrow, 4, words);
	cr_assert(accwatch_packed_decode(words, n, MAX, out, &got));
	cr_assert_eq(got, 4);
	cr_expect_eq(out[1], UINT32_MAX);
	cr_expect_eq(out[3], 7);
}

Test(packed, words_that_are_no_stream_are_refused)
{
	int64_t values[64];
	uint32_t got = 99;
	size_t n;

	for (uint32_t i = 0; i < 64; i++)
		values[i] = (int64_t)(i * 7919u % 1000u);
	n = accwatch_packed_encode_i64(values, 64, words);
	/* cut short */
	cr_expect_not(accwatch_packed_decode(words, n - 1, MAX, out, &got));
	cr_expect_eq(got, 0);
	cr_expect_not(accwatch_packed_decode(words, 0, MAX, out, &got));
	/* more indices than the reader takes */
	cr_expect_not(accwatch_packed_decode(words, n, 63, out, &got));
	/* a width field above 64: form 1, count 1 (sized: 7 bits of 1, then
	 * 1), least 0 (7 bits of 0), width 127 */
	words[0] = 1u | (1u << 1) | (1u << 8) | (127u << 16);
	cr_expect_not(accwatch_packed_decode(words, 1, MAX, out, &got));
	/* a run of more than the maximum in one word */
	words[0] = 0u | (13u << 1) | (UINT64_C(0x1fff) << 8);
	cr_expect_not(accwatch_packed_decode(words, 1, MAX, out, &got));
}

/* A _bits stream as the recorder writes it: three fields, the place, the
 * indices; read back field by field. */
static size_t bits_write(const uint32_t *fields, uint32_t offset,
			 uint32_t total, const int64_t *values, uint32_t count)
{
	struct accwatch_packed_writer w = {words, 0, 0, 0};

	for (int i = 0; i < 3; i++)
		accwatch_packed_put_short(&w, fields[i]);
	accwatch_packed_put_place(&w, offset, total, count);
	accwatch_packed_encode_i64_put(&w, values, count);
	return accwatch_packed_finish(&w);
}

static int bits_read(size_t n, uint32_t *fields, uint32_t *offset,
		     uint32_t *total, uint32_t *count)
{
	struct accwatch_packed_reader r;

	*count = 0;
	return accwatch_packed_reader_init(&r, words, n) &&
	       accwatch_packed_get_short(&r, &fields[0]) &&
	       accwatch_packed_get_short(&r, &fields[1]) &&
	       accwatch_packed_get_short(&r, &fields[2]) &&
	       accwatch_packed_get_chunk(&r, MAX, out, count, offset, total);
}

Test(packed, bits_fields_and_place_round_trip)
{
	const uint32_t edges[][3] = {{0, 1, 2},
				     {UINT32_MAX, UINT32_MAX - 1, 1u << 31},
				     {(1u << 31) - 1, 1u << 30, 12345}};
	int64_t values[64];
	uint32_t fields[3], offset, total, count;

	for (uint32_t i = 0; i < 64; i++)
		values[i] = (int64_t)(i * 7919u % 1000u) - 3;
	for (size_t e = 0; e < sizeof(edges) / sizeof(edges[0]); e++) {
		/* the whole batch, then a part of a longer one */
		size_t n = bits_write(edges[e], 0, 64, values, 64);

		cr_assert(bits_read(n, fields, &offset, &total, &count));
		cr_expect_arr_eq(fields, edges[e], sizeof(fields));
		cr_expect_eq(offset, 0);
		cr_expect_eq(total, 64);
		cr_assert_eq(count, 64);
		cr_expect_arr_eq(out, values, 64 * sizeof(int64_t));
		n = bits_write(edges[e], UINT32_MAX - 64, UINT32_MAX, values,
			       64);
		cr_assert(bits_read(n, fields, &offset, &total, &count));
		cr_expect_eq(offset, UINT32_MAX - 64);
		cr_expect_eq(total, UINT32_MAX);
		cr_expect_eq(count, 64);
	}
}

Test(packed, a_batch_of_a_2_to_the_20_shuffle_takes_21_words_as_bits)
{
	const uint32_t fields[3] = {1, 3, (1u << 14) - 1};
	int64_t values[64];

	srand(7);
	for (uint32_t i = 0; i < 64; i++)
		values[i] = rand() % (1 << 20);
	values[9] = (1 << 20) - 1;
	/* 64 x 20 bits, the fields and the header in the last 64 bits */
	cr_expect_leq(bits_write(fields, 0, 64, values, 64), 21);
}

Test(packed, bits_cut_short_are_refused)
{
	const uint32_t fields[3] = {UINT32_MAX, 5, 70000};
	int64_t values[8] = {1, 5, 9, 2, 6, 10, 3, 7};
	uint32_t got[3], offset, total, count = 99;
	size_t n = bits_write(fields, 8, 16, values, 8);

	for (size_t cut = 0; cut < n; cut++) {
		cr_expect_not(bits_read(cut, got, &offset, &total, &count));
		cr_expect_eq(count, 0);
	}
	cr_expect(bits_read(n, got, &offset, &total, &count));
}

/* Offsets of exactly width bits (the first 0, the second all ones, the
 * rest pseudo-random) after lead bits of the stream; returns the words. */
static size_t offsets_write(int64_t *values, uint32_t count, unsigned width,
			    unsigned lead)
{
	struct accwatch_packed_writer w = {words, 0, 0, 0};
	uint64_t mask = width < 64 ? (UINT64_C(1) << width) - 1 : ~UINT64_C(0);
	uint64_t x = 0x9e3779b97f4a7c15u * (width + 1) + count;

	for (uint32_t i = 0; i < count; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		values[i] = (int64_t)(i == 0 ? 0 : i == 1 ? mask : x & mask);
	}
	accwatch_packed_put(&w, ~UINT64_C(0), lead);
	accwatch_packed_encode_i64_put(&w, values, count);
	return accwatch_packed_finish(&w);
}

Test(packed, every_width_count_and_start_round_trips)
{
	int64_t values[130];
	struct accwatch_packed_reader r;
	uint64_t skipped;
	uint32_t got;

	for (unsigned width = 1; width <= 64; width++)
		for (uint32_t count = 2; count <= 130; count += 1 + count / 8)
			for (unsigned lead = 0; lead < 12; lead++) {
				size_t n =
				    offsets_write(values, count, width, lead);

				cr_assert(
				    accwatch_packed_reader_init(&r, words, n));
				cr_assert(
				    accwatch_packed_get(&r, lead, &skipped));
				cr_assert(accwatch_packed_get_indices(
					      &r, MAX, out, &got),
					  "width %u count %u lead %u", width,
					  count, lead);
				cr_assert_eq(got, count);
				cr_assert_arr_eq(out, values,
						 count * sizeof(int64_t),
						 "width %u count %u lead %u",
						 width, count, lead);
				/* the last word cut off: refused */
				cr_assert(accwatch_packed_reader_init(&r, words,
								      n - 1));
				cr_expect_not(
				    accwatch_packed_get(&r, lead, &skipped) &&
				    accwatch_packed_get_indices(&r, MAX, out,
								&got));
			}
}
