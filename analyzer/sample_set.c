/* Sample multisets on CRoaring: cardinalities, unions and intersections are
 * the library's; this file only keeps the duplicate count beside the bitmap. */
#include "sample_set.h"

#include "util.h"

void aw_sample_set_init(struct aw_sample_set *set)
{
	set->bitmap = roaring_bitmap_create();
	if (!set->bitmap)
		aw_out_of_memory(sizeof(roaring_bitmap_t));
	set->samples = 0;
	set->unrepresentable = 0;
	set->n_examples = 0;
}

void aw_sample_set_fini(struct aw_sample_set *set)
{
	if (set->bitmap)
		roaring_bitmap_free(set->bitmap);
	set->bitmap = NULL;
}

void aw_sample_set_add(struct aw_sample_set *set, const uint32_t *indices,
		       size_t count)
{
	if (count == 0)
		return;
	roaring_bitmap_add_many(set->bitmap, count, indices);
	set->samples += count;
}

void aw_sample_set_add_wide(struct aw_sample_set *set, const int64_t *indices,
			    size_t count)
{
	/* Narrowed through a stack buffer: no allocation per call. */
	uint32_t narrow[512];
	size_t filled = 0;
	for (size_t i = 0; i < count; i++) {
		if (indices[i] < 0 || indices[i] > (int64_t)UINT32_MAX) {
			aw_sample_set_note_unrepresentable(set, indices[i]);
			continue;
		}
		narrow[filled++] = (uint32_t)indices[i];
		if (filled == sizeof(narrow) / sizeof(narrow[0])) {
			aw_sample_set_add(set, narrow, filled);
			filled = 0;
		}
	}
	aw_sample_set_add(set, narrow, filled);
}

void aw_sample_set_keep_example(struct aw_sample_set *set, int64_t index)
{
	for (uint32_t i = 0; i < set->n_examples; i++)
		if (set->examples[i] == index)
			return;
	if (set->n_examples < AW_SAMPLE_SET_EXAMPLES)
		set->examples[set->n_examples++] = index;
}

void aw_sample_set_note_unrepresentable(struct aw_sample_set *set,
					int64_t index)
{
	set->unrepresentable++;
	aw_sample_set_keep_example(set, index);
}

size_t aw_sample_set_at_or_above(const struct aw_sample_set *set,
				 uint64_t limit, uint32_t *out, size_t max)
{
	if (limit > UINT32_MAX)
		return 0;
	uint64_t below = aw_sample_set_unique_below(set, limit);
	uint64_t total = aw_sample_set_unique(set);
	size_t n = 0;
	/* roaring_bitmap_select takes a 0-based rank. */
	for (uint64_t rank = below; rank < total && n < max; rank++)
		if (roaring_bitmap_select(set->bitmap, (uint32_t)rank, &out[n]))
			n++;
	return n;
}

void aw_sample_set_merge(struct aw_sample_set *set,
			 const struct aw_sample_set *src)
{
	roaring_bitmap_or_inplace(set->bitmap, src->bitmap);
	set->samples += src->samples;
	set->unrepresentable += src->unrepresentable;
	for (uint32_t i = 0; i < src->n_examples; i++)
		aw_sample_set_keep_example(set, src->examples[i]);
}

uint64_t aw_sample_set_unique(const struct aw_sample_set *set)
{
	return roaring_bitmap_get_cardinality(set->bitmap);
}

uint64_t aw_sample_set_duplicates(const struct aw_sample_set *set)
{
	uint64_t unique = aw_sample_set_unique(set);
	return set->samples > unique ? set->samples - unique : 0;
}

uint64_t aw_sample_set_unique_below(const struct aw_sample_set *set,
				    uint64_t limit)
{
	if (limit == 0)
		return 0;
	if (limit > (uint64_t)UINT32_MAX + 1)
		limit = (uint64_t)UINT32_MAX + 1;
	return roaring_bitmap_range_cardinality(set->bitmap, 0, limit);
}

uint64_t aw_sample_set_overlap(const struct aw_sample_set *a,
			       const struct aw_sample_set *b)
{
	return roaring_bitmap_and_cardinality(a->bitmap, b->bitmap);
}

uint64_t aw_sample_sets_shared(const struct aw_sample_set *const *sets,
			       size_t n, uint64_t *shared)
{
	/* seen: in at least one set so far; repeated: in at least two. */
	roaring_bitmap_t *seen = roaring_bitmap_create();
	roaring_bitmap_t *repeated = roaring_bitmap_create();
	if (!seen || !repeated)
		aw_out_of_memory(sizeof(roaring_bitmap_t));
	for (size_t i = 0; i < n; i++) {
		roaring_bitmap_t *again =
		    roaring_bitmap_and(seen, sets[i]->bitmap);
		if (!again)
			aw_out_of_memory(sizeof(roaring_bitmap_t));
		roaring_bitmap_or_inplace(repeated, again);
		roaring_bitmap_free(again);
		roaring_bitmap_or_inplace(seen, sets[i]->bitmap);
	}
	for (size_t i = 0; shared && i < n; i++)
		shared[i] =
		    roaring_bitmap_and_cardinality(sets[i]->bitmap, repeated);
	uint64_t count = roaring_bitmap_get_cardinality(repeated);
	roaring_bitmap_free(seen);
	roaring_bitmap_free(repeated);
	return count;
}
