/* SPDX-License-Identifier: MIT */
/* Sample multisets: counts with duplicates, ranges, unions, intersections,
 * and indices that do not fit the bitmap. */
#include <criterion/criterion.h>

#include "sample_set.h"

Test(sample_set, counts_duplicates)
{
	struct aw_sample_set set;
	aw_sample_set_init(&set);
	const uint32_t indices[] = {5, 1, 5, 9, 1, 5};
	aw_sample_set_add(&set, indices, 6);
	cr_expect_eq(set.samples, 6);
	cr_expect_eq(aw_sample_set_unique(&set), 3);
	cr_expect_eq(aw_sample_set_duplicates(&set), 3);
	aw_sample_set_fini(&set);
}

Test(sample_set, empty)
{
	struct aw_sample_set set;
	aw_sample_set_init(&set);
	aw_sample_set_add(&set, NULL, 0);
	cr_expect_eq(aw_sample_set_unique(&set), 0);
	cr_expect_eq(aw_sample_set_duplicates(&set), 0);
	cr_expect_eq(aw_sample_set_unique_below(&set, 0), 0);
	cr_expect_eq(aw_sample_set_unique_below(&set, 100), 0);
	aw_sample_set_fini(&set);
	aw_sample_set_fini(&set); /* twice is harmless */
}

Test(sample_set, unique_below_limit)
{
	struct aw_sample_set set;
	aw_sample_set_init(&set);
	const uint32_t indices[] = {0, 9, 10, 11, UINT32_MAX};
	aw_sample_set_add(&set, indices, 5);
	cr_expect_eq(aw_sample_set_unique_below(&set, 10), 2);
	cr_expect_eq(aw_sample_set_unique_below(&set, 12), 4);
	cr_expect_eq(aw_sample_set_unique_below(&set, (uint64_t)UINT32_MAX + 1),
		     5);
	cr_expect_eq(aw_sample_set_unique_below(&set, UINT64_MAX), 5);
	aw_sample_set_fini(&set);
}

/* aw_sample_set_add_wide of indices into a new set, then its counts: the
 * indices >= 0 are samples, the negative ones only counted apart. */
static void expect_wide(const int64_t *indices, size_t count, uint64_t samples,
			uint64_t unrepresentable, uint64_t unique)
{
	struct aw_sample_set set;
	aw_sample_set_init(&set);
	aw_sample_set_add_wide(&set, indices, count);
	cr_expect_eq(set.samples, samples);
	cr_expect_eq(set.unrepresentable, unrepresentable);
	cr_expect_eq(aw_sample_set_unique(&set), unique);
	aw_sample_set_fini(&set);
}

Test(sample_set, wide_indices_negative_apart)
{
	const int64_t indices[] = {
	    -1, 3, (int64_t)UINT32_MAX + 1, 3, INT64_MIN, INT64_MAX, 7};
	expect_wide(indices, 7, 5, 2, 4);
}

Test(sample_set, wide_indices_many)
{
	/* More than the conversion buffer holds at once. */
	static int64_t indices[5000];
	for (int i = 0; i < 5000; i++)
		indices[i] = i % 2 ? -i : i;
	expect_wide(indices, 5000, 2500, 2500, 2500);
}

Test(sample_set, merge_and_overlap)
{
	struct aw_sample_set a, b;
	aw_sample_set_init(&a);
	aw_sample_set_init(&b);
	const uint32_t ia[] = {1, 2, 3, 4};
	const uint32_t ib[] = {3, 4, 5, 5};
	aw_sample_set_add(&a, ia, 4);
	aw_sample_set_add(&b, ib, 4);
	cr_expect_eq(aw_sample_set_overlap(&a, &b), 2);
	aw_sample_set_merge(&a, &b);
	cr_expect_eq(a.samples, 8);
	cr_expect_eq(aw_sample_set_unique(&a), 5);
	cr_expect_eq(aw_sample_set_duplicates(&a), 3);
	aw_sample_set_fini(&a);
	aw_sample_set_fini(&b);
}

Test(sample_set, shared_between_sets)
{
	struct aw_sample_set s[3];
	for (int i = 0; i < 3; i++)
		aw_sample_set_init(&s[i]);
	const uint32_t i0[] = {0, 1, 2, 3};
	const uint32_t i1[] = {3, 4, 5};
	const uint32_t i2[] = {5, 6, 3};
	aw_sample_set_add(&s[0], i0, 4);
	aw_sample_set_add(&s[1], i1, 3);
	aw_sample_set_add(&s[2], i2, 3);
	const struct aw_sample_set *sets[] = {&s[0], &s[1], &s[2]};
	uint64_t shared[3];
	/* 3 is in all three sets, 5 in two. */
	cr_expect_eq(aw_sample_sets_shared(sets, 3, shared), 2);
	cr_expect_eq(shared[0], 1);
	cr_expect_eq(shared[1], 2);
	cr_expect_eq(shared[2], 2);
	cr_expect_eq(aw_sample_sets_shared(sets, 0, NULL), 0);
	for (int i = 0; i < 3; i++)
		aw_sample_set_fini(&s[i]);
}

Test(sample_set, lacks_names_runs_and_counts_the_rest)
{
	struct aw_sample_set set, within;
	aw_sample_set_init(&set);
	aw_sample_set_init(&within);
	/* [0, 20) lacks 3, 5-6, 9, 12-13, 15 and 17-19: six runs. */
	const uint32_t read[] = {0, 1, 2, 4, 7, 8, 10, 11, 14, 16};
	aw_sample_set_add(&set, read, 10);
	struct aw_index_runs runs;
	aw_sample_set_lacks(&set, NULL, 20, &runs);
	cr_expect_eq(runs.count, 10);
	cr_expect_eq(runs.n_runs, 6);
	cr_expect_eq(runs.first[0], 3);
	cr_expect_eq(runs.last[0], 3);
	cr_expect_eq(runs.first[1], 5);
	cr_expect_eq(runs.last[1], 6);
	cr_expect_eq(runs.first[3], 12);
	cr_expect_eq(runs.last[3], 13);
	/* Within a set of its own: only what it holds counts. */
	const uint32_t part[] = {3, 4, 5, 30, 31};
	aw_sample_set_add(&within, part, 5);
	aw_sample_set_lacks(&set, &within, 20, &runs);
	cr_expect_eq(runs.count, 4);
	cr_expect_eq(runs.n_runs, 3);
	cr_expect_eq(runs.first[2], 30);
	cr_expect_eq(runs.last[2], 31);
	/* Nothing lacking. */
	aw_sample_set_lacks(&set, NULL, 3, &runs);
	cr_expect_eq(runs.count, 0);
	cr_expect_eq(runs.n_runs, 0);
	aw_sample_set_fini(&set);
	aw_sample_set_fini(&within);
}

/* Indices around 2^32 and up to 2^63-1 are samples like any other: kept,
 * counted, compared and named (a dataset longer than 2^32). */
#define TWO32 ((uint64_t)1 << 32)

Test(sample_set, indices_beyond_2_32)
{
	struct aw_sample_set a, b;
	aw_sample_set_init(&a);
	aw_sample_set_init(&b);
	const uint64_t ia[] = {TWO32 - 4, TWO32 - 1, TWO32,     TWO32 + 7,
			       TWO32,     INT64_MAX, 3 * TWO32, 5};
	const int64_t ib[] = {(int64_t)TWO32 - 1, (int64_t)TWO32 + 1, INT64_MAX,
			      (int64_t)(3 * TWO32) + 2, 6};
	aw_sample_set_add64(&a, ia, 8);
	aw_sample_set_add_wide(&b, ib, 5);
	cr_expect_eq(a.samples, 8);
	cr_expect_eq(a.unrepresentable, 0);
	cr_expect_eq(aw_sample_set_unique(&a), 7);
	cr_expect_eq(aw_sample_set_duplicates(&a), 1);
	cr_expect_eq(aw_sample_set_unique_below(&a, TWO32), 3);
	cr_expect_eq(aw_sample_set_unique_below(&a, TWO32 + 1), 4);
	cr_expect_eq(aw_sample_set_unique_below(&a, TWO32 + 8), 5);
	cr_expect_eq(aw_sample_set_unique_below(&a, (uint64_t)INT64_MAX), 6);
	cr_expect_eq(aw_sample_set_unique_below(&a, UINT64_MAX), 7);
	/* 2^32-1 and 2^63-1 in both. */
	cr_expect_eq(aw_sample_set_overlap(&a, &b), 2);
	cr_expect_eq(aw_sample_set_overlap(&b, &a), 2);

	uint64_t above[4];
	cr_assert_eq(aw_sample_set_at_or_above(&a, TWO32 + 8, above, 4), 2);
	cr_expect_eq(above[0], 3 * TWO32);
	cr_expect_eq(above[1], (uint64_t)INT64_MAX);
	cr_assert_eq(aw_sample_set_at_or_above(&a, 6, above, 4), 4);
	cr_expect_eq(above[0], TWO32 - 4);
	cr_expect_eq(above[2], TWO32);

	const struct aw_sample_set *sets[] = {&a, &b};
	uint64_t shared[2];
	cr_expect_eq(aw_sample_sets_shared(sets, 2, shared), 2);
	cr_expect_eq(shared[0], 2);
	cr_expect_eq(shared[1], 2);

	aw_sample_set_merge(&a, &b);
	cr_expect_eq(a.samples, 13);
	cr_expect_eq(aw_sample_set_unique(&a), 10);
	cr_expect_eq(aw_sample_set_unique_below(&a, 3 * TWO32 + 3), 9);
	aw_sample_set_fini(&a);
	aw_sample_set_fini(&b);
}

Test(sample_set, lacks_across_2_32)
{
	struct aw_sample_set set, within;
	aw_sample_set_init(&set);
	aw_sample_set_init(&within);
	/* Of [0, 2^32+8), read 2^32-4 .. 2^32+7 but 2^32-1 and 2^32+2. */
	uint64_t read[10];
	size_t n = 0;
	for (uint64_t i = TWO32 - 4; i < TWO32 + 8; i++)
		if (i != TWO32 - 1 && i != TWO32 + 2)
			read[n++] = i;
	aw_sample_set_add64(&set, read, n);
	struct aw_index_runs runs;
	aw_sample_set_lacks(&set, NULL, TWO32 + 8, &runs);
	cr_expect_eq(runs.count, TWO32 - 4 + 2);
	cr_expect_eq(runs.n_runs, 3);
	cr_expect_eq(runs.first[0], 0);
	cr_expect_eq(runs.last[0], TWO32 - 5);
	cr_expect_eq(runs.first[1], TWO32 - 1);
	cr_expect_eq(runs.last[1], TWO32 - 1);
	cr_expect_eq(runs.first[2], TWO32 + 2);
	cr_expect_eq(runs.last[2], TWO32 + 2);
	/* A run that crosses 2^32. */
	aw_sample_set_lacks(&set, NULL, TWO32 + 12, &runs);
	cr_expect_eq(runs.n_runs, 4);
	cr_expect_eq(runs.first[3], TWO32 + 8);
	cr_expect_eq(runs.last[3], TWO32 + 11);
	/* Within a set of its own, over both halves. */
	const uint64_t part[] = {TWO32 - 2, TWO32 - 1, TWO32 + 2, TWO32 + 3,
				 INT64_MAX};
	aw_sample_set_add64(&within, part, 5);
	aw_sample_set_lacks(&set, &within, 0, &runs);
	cr_expect_eq(runs.count, 3);
	cr_expect_eq(runs.n_runs, 3);
	cr_expect_eq(runs.first[0], TWO32 - 1);
	cr_expect_eq(runs.first[1], TWO32 + 2);
	cr_expect_eq(runs.first[2], (uint64_t)INT64_MAX);
	aw_sample_set_fini(&set);
	aw_sample_set_fini(&within);
}

/* Many indices at once, folded in bulk: sparse containers (a few values
 * each), middling ones (arrays) and dense ones (bitsets), with repeats;
 * the set holds exactly what a bitmap filled one value at a time holds. */
Test(sample_set, bulk_folds_match_one_by_one)
{
	struct aw_sample_set set;
	roaring_bitmap_t *expected = roaring_bitmap_create();
	aw_sample_set_init(&set);
	static uint32_t batch[70000];
	uint64_t state = 12345, added = 0;
	for (int round = 0; round < 12; round++) {
		uint32_t n = round % 3 == 0 ? 1500 : 70000;
		for (uint32_t i = 0; i < n; i++) {
			state = state * 6364136223846793005ull +
				1442695040888963407ull;
			uint32_t r = (uint32_t)(state >> 33);
			/* sparse over 2^32, dense below 2^18, arrays
			 * between */
			batch[i] = round % 4 == 0   ? r * 2654435761u
				   : round % 4 == 1 ? r % (1u << 18)
				   : round % 4 == 2 ? (1u << 20) + r % 300000
						    : r % 5000;
			roaring_bitmap_add(expected, batch[i]);
		}
		aw_sample_set_add(&set, batch, n);
		added += n;
	}
	cr_expect(roaring_bitmap_equals(aw_sample_set_bitmap(&set), expected));
	cr_expect_eq(aw_sample_set_unique(&set),
		     roaring_bitmap_get_cardinality(expected));
	cr_expect_eq(aw_sample_set_duplicates(&set),
		     added - roaring_bitmap_get_cardinality(expected));
	roaring_bitmap_free(expected);
	aw_sample_set_fini(&set);
}

/* A shuffle dense over a few containers sets bits in a flat bitset; indices
 * outside it (below, above, past 2^32) are staged or kept apart, a set
 * asked midway gives the bitset back and makes it anew: the set holds
 * what a bitmap filled one value at a time holds, through add and add64. */
Test(sample_set, flat_span_matches_one_by_one)
{
	struct aw_sample_set set;
	roaring_bitmap_t *expected = roaring_bitmap_create();
	uint64_t state = 777, added = 0, high = 0;
	aw_sample_set_init(&set);
	static uint32_t narrow[50000];
	static uint64_t wide[50000];
	for (int round = 0; round < 8; round++) {
		for (uint32_t i = 0; i < 50000; i++) {
			state = state * 6364136223846793005ull +
				1442695040888963407ull;
			uint32_t r = (uint32_t)(state >> 33);
			/* dense over [2^20, 2^20 + 2^18), with a few below,
			 * above and past 2^32 */
			uint64_t v = i % 97 == 0   ? r % 1000
				     : i % 89 == 0 ? (1u << 30) + r % 70000
				     : i % 83 == 0 && round % 2
					 ? (UINT64_C(3) << 32) + r % 100
					 : (1u << 20) + r % (1u << 18);
			narrow[i] = (uint32_t)v;
			wide[i] = v;
			if (v > UINT32_MAX)
				high++;
			else
				roaring_bitmap_add(expected, (uint32_t)v);
		}
		if (round % 2)
			aw_sample_set_add64(&set, wide, 50000);
		else
			aw_sample_set_add(&set, narrow, 50000);
		added += 50000;
		if (round == 5)
			cr_expect(set.flat, "a dense shuffle sets bits");
		if (round == 3)
			cr_expect(roaring_bitmap_equals(
			    aw_sample_set_bitmap(&set), expected));
	}
	cr_expect(roaring_bitmap_equals(aw_sample_set_bitmap(&set), expected));
	cr_expect_null(set.flat);
	cr_expect_eq(set.samples, added);
	uint64_t high_unique = aw_sample_set_unique(&set) -
			       roaring_bitmap_get_cardinality(expected);
	cr_expect_leq(high_unique, 100);
	cr_expect_gt(high_unique, 0);
	cr_expect_eq(aw_sample_set_duplicates(&set),
		     added - roaring_bitmap_get_cardinality(expected) -
			 high_unique);
	cr_expect_geq(high, high_unique);
	roaring_bitmap_free(expected);
	aw_sample_set_fini(&set);
}
