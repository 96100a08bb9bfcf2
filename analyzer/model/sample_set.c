/* Sample multisets on CRoaring: cardinalities, unions and intersections are
 * the library's; this file only keeps the duplicate count beside the bitmap. */
#include "sample_set.h"

#include "util.h"

#include <stdlib.h>
#include <string.h>

/* Staging grows from a few indices to this many (256 KiB) per set, so that
 * thousands of small sets stay small. */
#define AW_SAMPLE_SET_STAGE_MIN 256u
#define AW_SAMPLE_SET_STAGE_MAX 65536u

void aw_sample_set_init(struct aw_sample_set *set)
{
	set->bitmap = roaring_bitmap_create();
	if (!set->bitmap)
		aw_out_of_memory(sizeof(roaring_bitmap_t));
	set->staged = NULL;
	set->n_staged = 0;
	set->staged_capacity = 0;
	set->samples = 0;
	set->unrepresentable = 0;
	set->n_examples = 0;
}

void aw_sample_set_fini(struct aw_sample_set *set)
{
	if (set->bitmap)
		roaring_bitmap_free(set->bitmap);
	set->bitmap = NULL;
	free(set->staged);
	set->staged = NULL;
	set->n_staged = set->staged_capacity = 0;
}

/* Two passes of a 16-bit radix sort, from values to tmp and back. */
static void aw_sample_set_sort(uint32_t *values, uint32_t *tmp, uint32_t n)
{
	static const unsigned shifts[2] = {0, 16};
	uint32_t *from = values, *to = tmp;
	for (int pass = 0; pass < 2; pass++) {
		uint32_t *count = calloc(65537, sizeof(uint32_t));
		if (!count)
			aw_out_of_memory(65537 * sizeof(uint32_t));
		for (uint32_t i = 0; i < n; i++)
			count[((from[i] >> shifts[pass]) & 0xffff) + 1]++;
		for (uint32_t b = 0; b < 65536; b++)
			count[b + 1] += count[b];
		for (uint32_t i = 0; i < n; i++)
			to[count[(from[i] >> shifts[pass]) & 0xffff]++] =
			    from[i];
		free(count);
		uint32_t *swap = from;
		from = to;
		to = swap;
	}
}

/* Folds the staged indices into the bitmap: sorted, they go in as appends
 * to a fresh bitmap that is then or-ed in, container by container. */
static void aw_sample_set_fold(struct aw_sample_set *set)
{
	if (set->n_staged == 0)
		return;
	uint32_t n = set->n_staged;
	if (n >= 1024) {
		uint32_t *tmp = malloc((size_t)n * sizeof(uint32_t));
		if (!tmp)
			aw_out_of_memory((size_t)n * sizeof(uint32_t));
		aw_sample_set_sort(set->staged, tmp, n);
		free(tmp);
		roaring_bitmap_t *sorted =
		    roaring_bitmap_of_ptr(n, set->staged);
		if (!sorted)
			aw_out_of_memory(sizeof(roaring_bitmap_t));
		roaring_bitmap_or_inplace(set->bitmap, sorted);
		roaring_bitmap_free(sorted);
	} else {
		roaring_bitmap_add_many(set->bitmap, n, set->staged);
	}
	set->n_staged = 0;
}

const roaring_bitmap_t *aw_sample_set_bitmap(const struct aw_sample_set *set)
{
	/* Folding changes no element of the set, only where it is kept. */
	aw_sample_set_fold((struct aw_sample_set *)set);
	return set->bitmap;
}

void aw_sample_set_add(struct aw_sample_set *set, const uint32_t *indices,
		       size_t count)
{
	if (count == 0)
		return;
	set->samples += count;
	while (count > 0) {
		if (set->n_staged == set->staged_capacity) {
			if (set->staged_capacity == AW_SAMPLE_SET_STAGE_MAX) {
				aw_sample_set_fold(set);
			} else {
				uint32_t capacity =
				    set->staged_capacity
					? set->staged_capacity * 2
					: AW_SAMPLE_SET_STAGE_MIN;
				uint32_t *grown = realloc(
				    set->staged, capacity * sizeof(uint32_t));
				if (!grown)
					aw_out_of_memory(capacity *
							 sizeof(uint32_t));
				set->staged = grown;
				set->staged_capacity = capacity;
			}
		}
		size_t room = set->staged_capacity - set->n_staged;
		size_t take = count < room ? count : room;
		memcpy(set->staged + set->n_staged, indices,
		       take * sizeof(uint32_t));
		set->n_staged += (uint32_t)take;
		indices += take;
		count -= take;
	}
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
		if (roaring_bitmap_select(aw_sample_set_bitmap(set),
					  (uint32_t)rank, &out[n]))
			n++;
	return n;
}

void aw_sample_set_merge(struct aw_sample_set *set,
			 const struct aw_sample_set *src)
{
	aw_sample_set_fold(set);
	roaring_bitmap_or_inplace(set->bitmap, aw_sample_set_bitmap(src));
	set->samples += src->samples;
	set->unrepresentable += src->unrepresentable;
	for (uint32_t i = 0; i < src->n_examples; i++)
		aw_sample_set_keep_example(set, src->examples[i]);
}

uint64_t aw_sample_set_unique(const struct aw_sample_set *set)
{
	return roaring_bitmap_get_cardinality(aw_sample_set_bitmap(set));
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
	return roaring_bitmap_range_cardinality(aw_sample_set_bitmap(set), 0,
						limit);
}

uint64_t aw_sample_set_overlap(const struct aw_sample_set *a,
			       const struct aw_sample_set *b)
{
	return roaring_bitmap_and_cardinality(aw_sample_set_bitmap(a),
					      aw_sample_set_bitmap(b));
}

/* roaring_iterate's walk over the lacking indices, ascending. */
struct aw_runs_walk {
	struct aw_index_runs *runs;
	uint32_t previous;
};

static bool aw_index_runs_add(uint32_t index, void *data)
{
	struct aw_runs_walk *walk = data;
	struct aw_index_runs *runs = walk->runs;
	bool extends = runs->count > 0 && walk->previous + 1 == index;
	runs->count++;
	walk->previous = index;
	if (extends) {
		if (runs->n_runs <= AW_INDEX_RUNS_KEPT)
			runs->last[runs->n_runs - 1] = index;
		return true;
	}
	if (runs->n_runs < AW_INDEX_RUNS_KEPT)
		runs->first[runs->n_runs] = runs->last[runs->n_runs] = index;
	runs->n_runs++;
	return true;
}

void aw_sample_set_lacks(const struct aw_sample_set *set,
			 const struct aw_sample_set *within, uint64_t limit,
			 struct aw_index_runs *out)
{
	memset(out, 0, sizeof(*out));
	if (limit > (uint64_t)UINT32_MAX + 1)
		limit = (uint64_t)UINT32_MAX + 1;
	roaring_bitmap_t *rest =
	    within ? roaring_bitmap_copy(aw_sample_set_bitmap(within))
		   : roaring_bitmap_from_range(0, limit, 1);
	if (!rest)
		aw_out_of_memory(sizeof(roaring_bitmap_t));
	roaring_bitmap_andnot_inplace(rest, aw_sample_set_bitmap(set));
	struct aw_runs_walk walk = {.runs = out};
	roaring_iterate(rest, aw_index_runs_add, &walk);
	roaring_bitmap_free(rest);
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
		    roaring_bitmap_and(seen, aw_sample_set_bitmap(sets[i]));
		if (!again)
			aw_out_of_memory(sizeof(roaring_bitmap_t));
		roaring_bitmap_or_inplace(repeated, again);
		roaring_bitmap_free(again);
		roaring_bitmap_or_inplace(seen, aw_sample_set_bitmap(sets[i]));
	}
	for (size_t i = 0; shared && i < n; i++)
		shared[i] = roaring_bitmap_and_cardinality(
		    aw_sample_set_bitmap(sets[i]), repeated);
	uint64_t count = roaring_bitmap_get_cardinality(repeated);
	roaring_bitmap_free(seen);
	roaring_bitmap_free(repeated);
	return count;
}
