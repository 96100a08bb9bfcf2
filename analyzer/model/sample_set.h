/* SPDX-License-Identifier: MIT */
/* A multiset of dataset indices as the analyzer needs it: the distinct indices
 * in CRoaring bitmaps plus how many were added in all (duplicates included).
 * Indices are 64-bit: those below 2^32 (nearly always all of them) in one
 * 32-bit bitmap, the others in one bitmap per high 32 bits (Debian 12's
 * CRoaring 0.2 has no 64-bit bitmap of its own). */
#ifndef AW_SAMPLE_SET_H
#define AW_SAMPLE_SET_H

#include <roaring/roaring.h>
#include <stddef.h>
#include <stdint.h>

#define AW_SAMPLE_SET_EXAMPLES 4

/* The indices of one high half: (high << 32) | each element of bitmap. */
struct aw_sample_high {
	uint32_t high;
	roaring_bitmap_t *bitmap;
};

struct aw_sample_set {
	/* Distinct indices below 2^32; read it through the functions below,
	 * which first fold in what is still staged. */
	roaring_bitmap_t *bitmap;
	/* Distinct indices from 2^32 on, by high half, ascending. */
	struct aw_sample_high *high;
	uint32_t n_high, high_capacity;
	/* Indices added but not yet in the bitmap: inserting shuffled indices
	 * one by one into CRoaring's array containers costs a memmove each, so
	 * they are staged, sorted and added in bulk (a cache: logically const).
	 */
	uint32_t *staged;
	uint32_t n_staged, staged_capacity;
	/* One bit per index of the containers (high 16 bits) [flat_key,
	 * flat_key + flat_keys), made once a full stage showed them dense
	 * (one index in 16 of their span or more: no more memory than their
	 * bitset containers): their indices set a bit each instead of being
	 * staged, and join the bitmap when the set is asked (NULL: none). */
	uint64_t *flat;
	uint32_t flat_key, flat_keys;
	/* The containers (high 16 bits) of the bitmap known to hold more than
	 * 4096 indices, where staged indices go straight in (NULL: none). */
	roaring_bitmap_t *dense_keys;
	/* Indices added and stored, duplicates included. */
	uint64_t samples;
	/* Indices < 0: counted, not stored. */
	uint64_t unrepresentable;
	/* The first few of them, for the evidence of index-range. */
	int64_t examples[AW_SAMPLE_SET_EXAMPLES];
	uint32_t n_examples;
};

void aw_sample_set_init(struct aw_sample_set *set);
void aw_sample_set_fini(struct aw_sample_set *set);

void aw_sample_set_add(struct aw_sample_set *set, const uint32_t *indices,
		       size_t count);
void aw_sample_set_add64(struct aw_sample_set *set, const uint64_t *indices,
			 size_t count);
/* Negative ones are counted as unrepresentable, not stored. */
void aw_sample_set_add_wide(struct aw_sample_set *set, const int64_t *indices,
			    size_t count);
/* An index that does not fit: counted, and kept as an example. */
void aw_sample_set_note_unrepresentable(struct aw_sample_set *set,
					int64_t index);
/* Keeps an example of an unrepresentable index without counting it (the
 * caller counts it). */
void aw_sample_set_keep_example(struct aw_sample_set *set, int64_t index);
/* Up to `max` distinct indices >= limit, smallest first; returns how many. */
size_t aw_sample_set_at_or_above(const struct aw_sample_set *set,
				 uint64_t limit, uint64_t *out, size_t max);

/* Adds every element of src to set (union of bitmaps, sum of counts). */
void aw_sample_set_merge(struct aw_sample_set *set,
			 const struct aw_sample_set *src);

/* The bitmap of the indices below 2^32 added so far. */
const roaring_bitmap_t *aw_sample_set_bitmap(const struct aw_sample_set *set);

uint64_t aw_sample_set_unique(const struct aw_sample_set *set);
/* samples - unique: how many reads repeated an index already read. */
uint64_t aw_sample_set_duplicates(const struct aw_sample_set *set);
/* Distinct indices in [0, limit). */
uint64_t aw_sample_set_unique_below(const struct aw_sample_set *set,
				    uint64_t limit);
/* Distinct indices present in both. */
uint64_t aw_sample_set_overlap(const struct aw_sample_set *a,
			       const struct aw_sample_set *b);

/* Indices as a finding names them: runs of consecutive ones ("88-99"),
 * the first few kept, all counted. */
#define AW_INDEX_RUNS_KEPT 4
struct aw_index_runs {
	uint64_t count;  /* indices in all */
	uint64_t n_runs; /* runs in all */
	uint64_t first[AW_INDEX_RUNS_KEPT], last[AW_INDEX_RUNS_KEPT];
	uint64_t previous; /* the last index walked */
};

/* The distinct indices of `within` (NULL: of [0, limit)) that set lacks;
 * linear in what the sets hold, not in limit. */
void aw_sample_set_lacks(const struct aw_sample_set *set,
			 const struct aw_sample_set *within, uint64_t limit,
			 struct aw_index_runs *out);

/* For n sets (one per rank): how many distinct indices are in two or more of
 * them (the return value) and, per set, how many of its distinct indices
 * another set also holds (shared[i], may be NULL). Linear in n. */
uint64_t aw_sample_sets_shared(const struct aw_sample_set *const *sets,
			       size_t n, uint64_t *shared);

#endif
