/* SPDX-License-Identifier: MIT */
/* Sample multisets on CRoaring: cardinalities, unions and intersections are
 * the library's; this file only keeps the duplicate count beside the bitmap. */
#include "sample_set.h"

#include "util.h"

#include <stdlib.h>
#include <string.h>

/* Staging grows from a few indices to this many (4 MiB) per set, so that
 * thousands of small sets stay small; a large stage makes a fold cheap
 * where indices are sparse (each container gets many at once: merging a
 * few into thousands per fold grows with the square), and a set that is
 * asked about (at the end, at a snapshot) gives its stage back. */
#define AW_SAMPLE_SET_STAGE_MIN 256u
#define AW_SAMPLE_SET_STAGE_MAX (1u << 20)
#define AW_SAMPLE_SET_STAGE_SPARSE (1u << 22)
#define AW_SAMPLE_SET_GROUP_MIN 256u
/* A full stage of at least this many indices, one in AW_FLAT_DENSITY of
 * the span of its containers or more, makes that span a flat bitset: no
 * more memory than the stage it replaces, and a bit set per index instead
 * of a stage and a fold. Told from about AW_FLAT_SAMPLE of its indices. */
#define AW_SAMPLE_SET_FLAT_MIN 4096u
#define AW_FLAT_DENSITY 32u
#define AW_FLAT_SAMPLE 4096u

void aw_sample_set_init(struct aw_sample_set *set)
{
	set->bitmap = roaring_bitmap_create();
	if (!set->bitmap)
		aw_out_of_memory(sizeof(roaring_bitmap_t));
	set->high = NULL;
	set->n_high = set->high_capacity = 0;
	set->staged = NULL;
	set->n_staged = 0;
	set->staged_capacity = 0;
	set->dense_keys = NULL;
	set->flat = NULL;
	set->flat_key = set->flat_keys = 0;
	set->samples = 0;
	set->unrepresentable = 0;
	set->n_examples = 0;
}

void aw_sample_set_fini(struct aw_sample_set *set)
{
	if (set->bitmap)
		roaring_bitmap_free(set->bitmap);
	set->bitmap = NULL;
	for (uint32_t i = 0; i < set->n_high; i++)
		roaring_bitmap_free(set->high[i].bitmap);
	free(set->high);
	set->high = NULL;
	set->n_high = set->high_capacity = 0;
	free(set->staged);
	set->staged = NULL;
	set->n_staged = set->staged_capacity = 0;
	if (set->dense_keys)
		roaring_bitmap_free(set->dense_keys);
	set->dense_keys = NULL;
	free(set->flat);
	set->flat = NULL;
	set->flat_key = set->flat_keys = 0;
}

/* Staged values as a bitmap, written in CRoaring's portable format
 * (RoaringFormatSpec, no run containers: a cookie, the count, a key and
 * cardinality - 1 per container, their offsets, then each container: up to
 * 4096 sorted 16-bit values, else a bitset of 65536 bits; little-endian)
 * and read back, which takes a few instructions a value where adding them
 * one by one takes some sixty. The values are grouped by container in a
 * counting sort of their keys; a group is sorted and rid of repeats in a
 * bitset of its container (an insertion sort when small). NULL when out
 * of memory. */
#define AW_ROARING_COOKIE 12346u
#define AW_ROARING_ARRAY_MAX 4096u
#define AW_ROARING_BITSET_WORDS 1024u
#define AW_FOLD_SMALL_GROUP 64u

struct aw_fold {
	uint32_t kmin, span;
	uint32_t *end;     /* end[k]: where group k ends in grouped */
	uint32_t *grouped; /* the values, by key */
	uint64_t *bits;    /* one container's bits */
	unsigned char *buffer;
	size_t size;
};

static void aw_put_le(unsigned char *at, uint32_t value, unsigned bytes)
{
	for (unsigned i = 0; i < bytes; i++)
		at[i] = (unsigned char)(value >> (8 * i));
}

/* Groups v by key into fold->grouped; returns the number of groups. */
static uint32_t aw_fold_group(struct aw_fold *fold, const uint32_t *v,
			      uint32_t n)
{
	uint32_t *end = fold->end, groups = 0;
	for (uint32_t i = 0; i < n; i++)
		end[(v[i] >> 16) - fold->kmin]++;
	for (uint32_t k = 0, at = 0; k < fold->span; k++) {
		uint32_t count = end[k];
		groups += count != 0;
		end[k] = at;
		at += count;
	}
	for (uint32_t i = 0; i < n; i++)
		fold->grouped[end[(v[i] >> 16) - fold->kmin]++] = v[i];
	return groups;
}

/* A small group sorted in place, its repeats dropped; its new length. */
static uint32_t aw_fold_sort_small(uint32_t *g, uint32_t n)
{
	for (uint32_t i = 1; i < n; i++) {
		uint32_t value = g[i], j = i;
		for (; j > 0 && g[j - 1] > value; j--)
			g[j] = g[j - 1];
		g[j] = value;
	}
	uint32_t kept = n ? 1 : 0;
	for (uint32_t i = 1; i < n; i++)
		if (g[i] != g[kept - 1])
			g[kept++] = g[i];
	return kept;
}

/* A container's bits, card of them set, written at data as the portable
 * format keeps them (a bitset above 4096, else the sorted values); returns
 * its bytes. */
static size_t aw_bits_write(const uint64_t *bits, uint32_t card,
			    unsigned char *data)
{
	if (card > AW_ROARING_ARRAY_MAX) {
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
		memcpy(data, bits, AW_ROARING_BITSET_WORDS * 8);
#else
		for (uint32_t w = 0; w < AW_ROARING_BITSET_WORDS; w++)
			for (unsigned b = 0; b < 8; b++)
				data[8 * w + b] =
				    (unsigned char)(bits[w] >> (8 * b));
#endif
		return AW_ROARING_BITSET_WORDS * 8;
	}
	unsigned char *at = data;
	for (uint32_t w = 0; w < AW_ROARING_BITSET_WORDS; w++)
		for (uint64_t x = bits[w]; x; x &= x - 1) {
			aw_put_le(at, w * 64 + (uint32_t)__builtin_ctzll(x), 2);
			at += 2;
		}
	return (size_t)(at - data);
}

/* One container's values g[0..n) written at data; returns its bytes and
 * its cardinality in *card. */
static size_t aw_fold_container(struct aw_fold *fold, uint32_t *g, uint32_t n,
				unsigned char *data, uint32_t *card)
{
	if (n <= AW_FOLD_SMALL_GROUP) {
		*card = aw_fold_sort_small(g, n);
		for (uint32_t i = 0; i < *card; i++)
			aw_put_le(data + 2 * i, g[i] & 0xffff, 2);
		return (size_t)*card * 2;
	}
	uint64_t *bits = fold->bits;
	uint32_t c = 0;
	memset(bits, 0, AW_ROARING_BITSET_WORDS * sizeof(*bits));
	for (uint32_t i = 0; i < n; i++) {
		uint32_t low = g[i] & 0xffff;
		uint64_t bit = UINT64_C(1) << (low & 63);
		c += (bits[low >> 6] & bit) == 0;
		bits[low >> 6] |= bit;
	}
	*card = c;
	return aw_bits_write(bits, c, data);
}

/* Groups whose container in the set's bitmap is a bitset already (more
 * than 4096 values) go straight in: setting a bit each is cheaper than any
 * merge. A container once found so stays so (a set only grows): it is
 * remembered in dense_keys, and its cardinality (a count over its 8 KiB) is
 * asked only until then. Marks them in dense; returns how many groups are
 * left. */
static uint32_t aw_fold_dense(struct aw_fold *fold, struct aw_sample_set *set,
			      uint8_t *dense)
{
	uint32_t left = 0;
	if (!set->dense_keys)
		set->dense_keys = roaring_bitmap_create();
	if (!set->dense_keys)
		aw_out_of_memory(sizeof(roaring_bitmap_t));
	for (uint32_t k = 0, begin = 0; k < fold->span; k++) {
		uint32_t stop = fold->end[k], key = fold->kmin + k;
		if (stop == begin)
			continue;
		uint64_t low = (uint64_t)key << 16;
		bool known = roaring_bitmap_contains(set->dense_keys, key);
		if (known || roaring_bitmap_range_cardinality(set->bitmap, low,
							      low + 65536) >
				 AW_ROARING_ARRAY_MAX) {
			if (!known)
				roaring_bitmap_add(set->dense_keys, key);
			roaring_bitmap_add_many(set->bitmap, stop - begin,
						fold->grouped + begin);
			dense[k] = 1;
		} else {
			left++;
		}
		begin = stop;
	}
	return left;
}

/* Adds v[0..n) to the set's bitmap; false when out of memory. */
static bool aw_sample_set_build(struct aw_sample_set *set, const uint32_t *v,
				uint32_t n)
{
	roaring_bitmap_t *into = set->bitmap;
	bool done = false;
	roaring_bitmap_t *bitmap = NULL;
	struct aw_fold fold = {.kmin = UINT32_MAX};
	uint32_t kmax = 0;
	for (uint32_t i = 0; i < n; i++) {
		fold.kmin = AW_MIN(fold.kmin, v[i] >> 16);
		kmax = AW_MAX(kmax, v[i] >> 16);
	}
	fold.span = kmax - fold.kmin + 1;
	fold.end = calloc(fold.span, sizeof(*fold.end));
	fold.grouped = malloc((size_t)n * sizeof(*fold.grouped));
	fold.bits = malloc(AW_ROARING_BITSET_WORDS * sizeof(*fold.bits));
	uint8_t *dense = calloc(fold.span, 1);
	if (!fold.end || !fold.grouped || !fold.bits || !dense)
		goto end;
	aw_fold_group(&fold, v, n);
	uint32_t groups = aw_fold_dense(&fold, set, dense);
	/* 8 header bytes a container, and at most 2 bytes a value: a
	 * bitset (8192 bytes) holds more than 4096 of them. */
	size_t size = 8 + (size_t)groups * 8 + (size_t)n * 2;
	fold.buffer = malloc(size);
	if (!fold.buffer)
		goto end;
	aw_put_le(fold.buffer, AW_ROARING_COOKIE, 4);
	aw_put_le(fold.buffer + 4, groups, 4);
	size_t offset = 8 + (size_t)groups * 8;
	for (uint32_t k = 0, c = 0, begin = 0; k < fold.span; k++) {
		uint32_t stop = fold.end[k], card;
		if (stop == begin || dense[k]) {
			begin = stop;
			continue;
		}
		unsigned char *head = fold.buffer + 8 + (size_t)c * 4;
		aw_put_le(fold.buffer + 8 + (size_t)groups * 4 + (size_t)c * 4,
			  (uint32_t)offset, 4);
		offset +=
		    aw_fold_container(&fold, fold.grouped + begin, stop - begin,
				      fold.buffer + offset, &card);
		aw_put_le(head, fold.kmin + k, 2);
		aw_put_le(head + 2, card - 1, 2);
		begin = stop;
		c++;
	}
	if (groups) {
		bitmap = roaring_bitmap_portable_deserialize_safe(
		    (const char *)fold.buffer, offset);
		if (!bitmap)
			goto end;
		roaring_bitmap_or_inplace(into, bitmap);
		roaring_bitmap_free(bitmap);
	}
	done = true;
end:
	free(fold.end);
	free(fold.grouped);
	free(fold.bits);
	free(fold.buffer);
	free(dense);
	return done;
}

/* Folds the staged indices into the bitmap: by container, straight into
 * the dense ones, through a bitmap built whole (aw_sample_set_build) or-ed
 * in for the rest. */
static void aw_sample_set_fold(struct aw_sample_set *set)
{
	if (set->n_staged == 0)
		return;
	uint32_t n = set->n_staged;
	if (n >= 1024) {
		if (!aw_sample_set_build(set, set->staged, n))
			aw_out_of_memory((size_t)n * 2 * sizeof(uint32_t));
	} else {
		roaring_bitmap_add_many(set->bitmap, n, set->staged);
	}
	set->n_staged = 0;
}

/* The bits of flat container k, counted; their number. Each word's bits
 * summed per byte (at most 8), 16 words' byte sums added (at most 128),
 * then in 16-bit lanes (at most 1024) added up: no popcount instruction
 * is assumed. */
static uint32_t aw_flat_card(const struct aw_sample_set *set, uint32_t k)
{
	const uint64_t *bits = set->flat + (size_t)k * AW_ROARING_BITSET_WORDS;
	const uint64_t m1 = UINT64_C(0x5555555555555555);
	const uint64_t m2 = UINT64_C(0x3333333333333333);
	const uint64_t m4 = UINT64_C(0x0f0f0f0f0f0f0f0f);
	uint32_t card = 0;
	for (uint32_t w = 0; w < AW_ROARING_BITSET_WORDS; w += 16) {
		uint64_t bytes = 0;
		for (uint32_t i = 0; i < 16; i++) {
			uint64_t x = bits[w + i];
			x -= (x >> 1) & m1;
			x = (x & m2) + ((x >> 2) & m2);
			bytes += (x + (x >> 4)) & m4;
		}
		bytes = (bytes & UINT64_C(0x00ff00ff00ff00ff)) +
			((bytes >> 8) & UINT64_C(0x00ff00ff00ff00ff));
		card +=
		    (uint32_t)((bytes * UINT64_C(0x0001000100010001)) >> 48);
	}
	return card;
}

/* The flat bitset or-ed into the bitmap (written in the portable format,
 * read back) and given back. */
static void aw_sample_set_fold_flat(struct aw_sample_set *set)
{
	if (!set->flat)
		return;
	uint32_t *card = aw_xcalloc(set->flat_keys, sizeof(*card));
	uint32_t groups = 0;
	size_t size = 8;
	for (uint32_t k = 0; k < set->flat_keys; k++) {
		card[k] = aw_flat_card(set, k);
		groups += card[k] != 0;
		size += card[k] == 0 ? 0
			: card[k] > AW_ROARING_ARRAY_MAX
			    ? 8 + AW_ROARING_BITSET_WORDS * 8
			    : 8 + (size_t)card[k] * 2;
	}
	unsigned char *buffer = aw_xcalloc(size, 1);
	aw_put_le(buffer, AW_ROARING_COOKIE, 4);
	aw_put_le(buffer + 4, groups, 4);
	size_t offset = 8 + (size_t)groups * 8;
	for (uint32_t k = 0, c = 0; k < set->flat_keys; k++) {
		if (card[k] == 0)
			continue;
		unsigned char *head = buffer + 8 + (size_t)c * 4;
		aw_put_le(head, set->flat_key + k, 2);
		aw_put_le(head + 2, card[k] - 1, 2);
		aw_put_le(buffer + 8 + (size_t)groups * 4 + (size_t)c * 4,
			  (uint32_t)offset, 4);
		offset += aw_bits_write(set->flat +
					    (size_t)k * AW_ROARING_BITSET_WORDS,
					card[k], buffer + offset);
		c++;
	}
	if (groups) {
		roaring_bitmap_t *bitmap =
		    roaring_bitmap_portable_deserialize_safe(
			(const char *)buffer, offset);
		if (!bitmap)
			aw_out_of_memory(size);
		roaring_bitmap_or_inplace(set->bitmap, bitmap);
		roaring_bitmap_free(bitmap);
	}
	free(buffer);
	free(card);
	free(set->flat);
	set->flat = NULL;
	set->flat_key = set->flat_keys = 0;
}

const roaring_bitmap_t *aw_sample_set_bitmap(const struct aw_sample_set *set)
{
	/* Folding changes no element of the set, only where it is kept. */
	struct aw_sample_set *folded = (struct aw_sample_set *)set;
	aw_sample_set_fold(folded);
	aw_sample_set_fold_flat(folded);
	free(folded->staged);
	folded->staged = NULL;
	folded->staged_capacity = 0;
	return set->bitmap;
}

/* Whether a full stage grows rather than folds: up to
 * AW_SAMPLE_SET_STAGE_MAX, and up to AW_SAMPLE_SET_STAGE_SPARSE when its
 * indices span so many containers that each would get fewer than
 * AW_SAMPLE_SET_GROUP_MIN of them (merging a few into thousands, fold
 * after fold, grows with the square). */
static bool aw_sample_set_stage_grows(const struct aw_sample_set *set)
{
	uint32_t n = set->n_staged;
	if (n < AW_SAMPLE_SET_STAGE_MAX)
		return true;
	if (n >= AW_SAMPLE_SET_STAGE_SPARSE)
		return false;
	uint32_t kmin = UINT32_MAX, kmax = 0;
	for (uint32_t i = 0; i < n; i++) {
		kmin = AW_MIN(kmin, set->staged[i] >> 16);
		kmax = AW_MAX(kmax, set->staged[i] >> 16);
	}
	return (uint64_t)(kmax - kmin + 1) * AW_SAMPLE_SET_GROUP_MIN > n;
}

/* The containers [*lo, *hi] that hold the full stage but for about 1/32
 * of its indices at either end (outliers), judged on every stride-th
 * index; about how many they hold. */
static uint32_t aw_stage_bulk(const struct aw_sample_set *set, uint32_t *lo,
			      uint32_t *hi)
{
	uint32_t n = set->n_staged, kmin = UINT32_MAX, kmax = 0;
	uint32_t stride = AW_MAX(1u, n / AW_FLAT_SAMPLE), seen = 0;
	for (uint32_t i = 0; i < n; i += stride) {
		kmin = AW_MIN(kmin, set->staged[i] >> 16);
		kmax = AW_MAX(kmax, set->staged[i] >> 16);
		seen++;
	}
	uint32_t *count = aw_xcalloc((size_t)kmax - kmin + 1, sizeof(*count));
	for (uint32_t i = 0; i < n; i += stride)
		count[(set->staged[i] >> 16) - kmin]++;
	uint32_t below = 0, above = 0, a = 0, b = kmax - kmin;
	while (a < b && below + count[a] <= seen / 32)
		below += count[a++];
	while (b > a && above + count[b] <= seen / 32)
		above += count[b--];
	free(count);
	*lo = kmin + a;
	*hi = kmin + b;
	return (uint32_t)((uint64_t)n * (seen - below - above) / seen);
}

/* When the bulk of the full stage (aw_stage_bulk) holds one index in
 * AW_FLAT_DENSITY of the span of its containers or more: that span
 * becomes the flat bitset, the stage's indices in it move into it. */
static bool aw_sample_set_try_flat(struct aw_sample_set *set)
{
	uint32_t lo, hi;
	if (set->flat || set->n_staged < AW_SAMPLE_SET_FLAT_MIN)
		return false;
	uint32_t in = aw_stage_bulk(set, &lo, &hi);
	uint64_t span = (uint64_t)hi - lo + 1;
	if (span * (65536 / AW_FLAT_DENSITY) > in)
		return false;
	set->flat = calloc(span * AW_ROARING_BITSET_WORDS, sizeof(uint64_t));
	if (!set->flat)
		return false; /* staged and folded as before */
	set->flat_key = lo;
	set->flat_keys = (uint32_t)span;
	uint32_t base = lo << 16, kept = 0;
	uint64_t limit = span << 16;
	for (uint32_t i = 0; i < set->n_staged; i++) {
		uint32_t at = set->staged[i] - base;
		if (at < limit)
			set->flat[at >> 6] |= UINT64_C(1) << (at & 63);
		else
			set->staged[kept++] = set->staged[i];
	}
	set->n_staged = kept;
	return true;
}

/* Stages what fits of indices[0..count) (the stage grown, folded or made
 * flat when full); returns how many were staged. */
static size_t aw_sample_set_stage(struct aw_sample_set *set,
				  const uint32_t *indices, size_t count)
{
	if (set->n_staged == set->staged_capacity) {
		if (aw_sample_set_try_flat(set) &&
		    set->n_staged < set->staged_capacity)
			return 0;
		if (!aw_sample_set_stage_grows(set)) {
			aw_sample_set_fold(set);
		} else {
			uint32_t capacity = set->staged_capacity
						? set->staged_capacity * 2
						: AW_SAMPLE_SET_STAGE_MIN;
			uint32_t *grown =
			    realloc(set->staged, capacity * sizeof(uint32_t));
			if (!grown)
				aw_out_of_memory(capacity * sizeof(uint32_t));
			set->staged = grown;
			set->staged_capacity = capacity;
		}
	}
	size_t room = set->staged_capacity - set->n_staged;
	size_t take = count < room ? count : room;
	memcpy(set->staged + set->n_staged, indices, take * sizeof(uint32_t));
	set->n_staged += (uint32_t)take;
	return take;
}

/* Stages indices[0..count), all of them, without counting them. */
static void aw_sample_set_stage_all(struct aw_sample_set *set,
				    const uint32_t *indices, size_t count)
{
	for (size_t done = 0; done < count;)
		done += aw_sample_set_stage(set, indices + done, count - done);
}

/* Up to 512 of indices[0..count): those in the flat span set their bit,
 * the others are staged; returns how many were taken. */
static size_t aw_sample_set_add_flat(struct aw_sample_set *set,
				     const uint32_t *indices, size_t count)
{
	uint32_t rest[512], base = set->flat_key << 16;
	uint64_t limit = (uint64_t)set->flat_keys << 16, *flat = set->flat;
	size_t take = AW_MIN(count, sizeof(rest) / sizeof(rest[0])), n = 0;
	for (size_t i = 0; i < take; i++) {
		uint32_t at = indices[i] - base;
		if (at < limit)
			flat[at >> 6] |= UINT64_C(1) << (at & 63);
		else
			rest[n++] = indices[i];
	}
	aw_sample_set_stage_all(set, rest, n);
	return take;
}

void aw_sample_set_add(struct aw_sample_set *set, const uint32_t *indices,
		       size_t count)
{
	set->samples += count;
	while (count > 0) {
		size_t taken = set->flat
				   ? aw_sample_set_add_flat(set, indices, count)
				   : aw_sample_set_stage(set, indices, count);
		indices += taken;
		count -= taken;
	}
}

/* The bitmap of high half `high`, made when absent and `make`, else NULL. */
static roaring_bitmap_t *aw_sample_set_high(struct aw_sample_set *set,
					    uint32_t high, bool make)
{
	uint32_t lo = 0, hi = set->n_high;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (set->high[mid].high < high)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < set->n_high && set->high[lo].high == high)
		return set->high[lo].bitmap;
	if (!make)
		return NULL;
	if (set->n_high == set->high_capacity) {
		uint32_t capacity =
		    set->high_capacity ? set->high_capacity * 2 : 4;
		struct aw_sample_high *grown =
		    realloc(set->high, capacity * sizeof(*grown));
		if (!grown)
			aw_out_of_memory(capacity * sizeof(*grown));
		set->high = grown;
		set->high_capacity = capacity;
	}
	memmove(&set->high[lo + 1], &set->high[lo],
		(set->n_high - lo) * sizeof(set->high[0]));
	set->n_high++;
	set->high[lo].high = high;
	set->high[lo].bitmap = roaring_bitmap_create();
	if (!set->high[lo].bitmap)
		aw_out_of_memory(sizeof(roaring_bitmap_t));
	return set->high[lo].bitmap;
}

static const roaring_bitmap_t *
aw_sample_set_high_of(const struct aw_sample_set *set, uint32_t high)
{
	return aw_sample_set_high((struct aw_sample_set *)set, high, false);
}

void aw_sample_set_add64(struct aw_sample_set *set, const uint64_t *indices,
			 size_t count)
{
	/* Narrowed through a stack buffer: no allocation per call; those
	 * in the flat span set their bit at once. */
	uint32_t narrow[512];
	size_t filled = 0;
	uint64_t base = (uint64_t)set->flat_key << 16;
	uint64_t limit = set->flat ? (uint64_t)set->flat_keys << 16 : 0;
	set->samples += count;
	uint64_t *flat = set->flat;
	for (size_t i = 0; i < count; i++) {
		uint64_t at = indices[i] - base;
		if (at < limit) {
			flat[at >> 6] |= UINT64_C(1) << (at & 63);
			continue;
		}
		if (indices[i] > UINT32_MAX) {
			/* Rare: straight into its bitmap, no staging. */
			roaring_bitmap_add(
			    aw_sample_set_high(
				set, (uint32_t)(indices[i] >> 32), true),
			    (uint32_t)indices[i]);
			continue;
		}
		narrow[filled++] = (uint32_t)indices[i];
		if (filled == sizeof(narrow) / sizeof(narrow[0])) {
			/* Staging may make the flat bitset: asked anew. */
			set->samples -= filled;
			aw_sample_set_add(set, narrow, filled);
			filled = 0;
			limit = set->flat ? (uint64_t)set->flat_keys << 16 : 0;
			base = (uint64_t)set->flat_key << 16;
			flat = set->flat;
		}
	}
	set->samples -= filled;
	aw_sample_set_add(set, narrow, filled);
}

void aw_sample_set_add_wide(struct aw_sample_set *set, const int64_t *indices,
			    size_t count)
{
	uint64_t chunk[512];
	size_t filled = 0;
	for (size_t i = 0; i < count; i++) {
		if (indices[i] < 0) {
			aw_sample_set_note_unrepresentable(set, indices[i]);
			continue;
		}
		chunk[filled++] = (uint64_t)indices[i];
		if (filled == sizeof(chunk) / sizeof(chunk[0])) {
			aw_sample_set_add64(set, chunk, filled);
			filled = 0;
		}
	}
	aw_sample_set_add64(set, chunk, filled);
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

/* The 0-based rank-th element of bitmap from `from` on, through out. */
static size_t aw_bitmap_from(const roaring_bitmap_t *bitmap, uint64_t high,
			     uint64_t from, uint64_t *out, size_t max)
{
	uint64_t below =
	    from ? roaring_bitmap_range_cardinality(bitmap, 0, from) : 0;
	uint64_t total = roaring_bitmap_get_cardinality(bitmap);
	size_t n = 0;
	for (uint64_t rank = below; rank < total && n < max; rank++) {
		uint32_t low;
		if (roaring_bitmap_select(bitmap, (uint32_t)rank, &low))
			out[n++] = high << 32 | low;
	}
	return n;
}

size_t aw_sample_set_at_or_above(const struct aw_sample_set *set,
				 uint64_t limit, uint64_t *out, size_t max)
{
	size_t n = 0;
	if (limit <= UINT32_MAX)
		n = aw_bitmap_from(aw_sample_set_bitmap(set), 0, limit, out,
				   max);
	for (uint32_t i = 0; i < set->n_high && n < max; i++) {
		uint64_t high = set->high[i].high;
		if (high < limit >> 32)
			continue;
		uint64_t from = high == limit >> 32 ? (limit & UINT32_MAX) : 0;
		n += aw_bitmap_from(set->high[i].bitmap, high, from, out + n,
				    max - n);
	}
	return n;
}

void aw_sample_set_merge(struct aw_sample_set *set,
			 const struct aw_sample_set *src)
{
	aw_sample_set_fold(set);
	roaring_bitmap_or_inplace(set->bitmap, aw_sample_set_bitmap(src));
	for (uint32_t i = 0; i < src->n_high; i++)
		roaring_bitmap_or_inplace(
		    aw_sample_set_high(set, src->high[i].high, true),
		    src->high[i].bitmap);
	set->samples += src->samples;
	set->unrepresentable += src->unrepresentable;
	for (uint32_t i = 0; i < src->n_examples; i++)
		aw_sample_set_keep_example(set, src->examples[i]);
}

uint64_t aw_sample_set_unique(const struct aw_sample_set *set)
{
	uint64_t unique =
	    roaring_bitmap_get_cardinality(aw_sample_set_bitmap(set));
	for (uint32_t i = 0; i < set->n_high; i++)
		unique += roaring_bitmap_get_cardinality(set->high[i].bitmap);
	return unique;
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
	uint64_t unique = roaring_bitmap_range_cardinality(
	    aw_sample_set_bitmap(set), 0,
	    limit > (uint64_t)UINT32_MAX + 1 ? (uint64_t)UINT32_MAX + 1
					     : limit);
	for (uint32_t i = 0; i < set->n_high; i++) {
		uint64_t high = set->high[i].high;
		if (high < limit >> 32)
			unique +=
			    roaring_bitmap_get_cardinality(set->high[i].bitmap);
		else if (high == limit >> 32 && (limit & UINT32_MAX))
			unique += roaring_bitmap_range_cardinality(
			    set->high[i].bitmap, 0, limit & UINT32_MAX);
	}
	return unique;
}

uint64_t aw_sample_set_overlap(const struct aw_sample_set *a,
			       const struct aw_sample_set *b)
{
	uint64_t both = roaring_bitmap_and_cardinality(aw_sample_set_bitmap(a),
						       aw_sample_set_bitmap(b));
	for (uint32_t i = 0; i < a->n_high; i++) {
		const roaring_bitmap_t *other =
		    aw_sample_set_high_of(b, a->high[i].high);
		if (other)
			both += roaring_bitmap_and_cardinality(
			    a->high[i].bitmap, other);
	}
	return both;
}

/* The walk over lacking indices, ascending, into runs. */
static void aw_index_runs_add(struct aw_index_runs *runs, uint64_t first,
			      uint64_t last)
{
	bool continues = runs->count > 0 && runs->previous + 1 == first;
	runs->count += last - first + 1;
	runs->previous = last;
	if (continues) {
		if (runs->n_runs <= AW_INDEX_RUNS_KEPT)
			runs->last[runs->n_runs - 1] = last;
		return;
	}
	if (runs->n_runs < AW_INDEX_RUNS_KEPT) {
		runs->first[runs->n_runs] = first;
		runs->last[runs->n_runs] = last;
	}
	runs->n_runs++;
}

/* roaring_iterate's callback: one lacking index of high half `high`. */
struct aw_runs_walk {
	struct aw_index_runs *runs;
	uint64_t high;
};

static bool aw_index_runs_walk(uint32_t low, void *data)
{
	struct aw_runs_walk *walk = data;
	uint64_t index = walk->high << 32 | low;
	aw_index_runs_add(walk->runs, index, index);
	return true;
}

/* Within [0, limit): the gaps between the indices the set holds, walked
 * over what it holds, not over what it lacks (a dataset of 2^32 samples
 * of which a few were read). */
struct aw_gaps_walk {
	struct aw_index_runs *runs;
	uint64_t high, next, limit;
	bool done;
};

static bool aw_gaps_walk(uint32_t low, void *data)
{
	struct aw_gaps_walk *walk = data;
	uint64_t index = walk->high << 32 | low;
	if (index >= walk->limit) {
		walk->done = true;
		return false;
	}
	if (index > walk->next)
		aw_index_runs_add(walk->runs, walk->next, index - 1);
	walk->next = index + 1;
	return true;
}

void aw_sample_set_lacks(const struct aw_sample_set *set,
			 const struct aw_sample_set *within, uint64_t limit,
			 struct aw_index_runs *out)
{
	memset(out, 0, sizeof(*out));
	if (!within) {
		struct aw_gaps_walk walk = {.runs = out, .limit = limit};
		roaring_iterate(aw_sample_set_bitmap(set), aw_gaps_walk, &walk);
		for (uint32_t i = 0; i < set->n_high && !walk.done; i++) {
			walk.high = set->high[i].high;
			roaring_iterate(set->high[i].bitmap, aw_gaps_walk,
					&walk);
		}
		if (walk.next < limit)
			aw_index_runs_add(out, walk.next, limit - 1);
		return;
	}
	struct aw_runs_walk walk = {.runs = out};
	for (uint32_t i = 0; i <= within->n_high; i++) {
		/* i == 0: below 2^32; then within's high halves. */
		const roaring_bitmap_t *part = i ? within->high[i - 1].bitmap
						 : aw_sample_set_bitmap(within);
		const roaring_bitmap_t *mine =
		    i ? aw_sample_set_high_of(set, within->high[i - 1].high)
		      : aw_sample_set_bitmap(set);
		walk.high = i ? within->high[i - 1].high : 0;
		roaring_bitmap_t *rest = roaring_bitmap_copy(part);
		if (!rest)
			aw_out_of_memory(sizeof(roaring_bitmap_t));
		if (mine)
			roaring_bitmap_andnot_inplace(rest, mine);
		roaring_iterate(rest, aw_index_runs_walk, &walk);
		roaring_bitmap_free(rest);
	}
}

/* The indices in two or more of the bitmaps of one high half (NULL: a set
 * with none there), and per set how many of its own are among them. */
static uint64_t aw_bitmaps_shared(const roaring_bitmap_t *const *bitmaps,
				  size_t n, uint64_t *shared)
{
	/* seen: in at least one set so far; repeated: in at least two. */
	roaring_bitmap_t *seen = roaring_bitmap_create();
	roaring_bitmap_t *repeated = roaring_bitmap_create();
	if (!seen || !repeated)
		aw_out_of_memory(sizeof(roaring_bitmap_t));
	for (size_t i = 0; i < n; i++) {
		if (!bitmaps[i])
			continue;
		roaring_bitmap_t *again = roaring_bitmap_and(seen, bitmaps[i]);
		if (!again)
			aw_out_of_memory(sizeof(roaring_bitmap_t));
		roaring_bitmap_or_inplace(repeated, again);
		roaring_bitmap_free(again);
		roaring_bitmap_or_inplace(seen, bitmaps[i]);
	}
	for (size_t i = 0; shared && i < n; i++)
		if (bitmaps[i])
			shared[i] += roaring_bitmap_and_cardinality(bitmaps[i],
								    repeated);
	uint64_t count = roaring_bitmap_get_cardinality(repeated);
	roaring_bitmap_free(seen);
	roaring_bitmap_free(repeated);
	return count;
}

uint64_t aw_sample_sets_shared(const struct aw_sample_set *const *sets,
			       size_t n, uint64_t *shared)
{
	const roaring_bitmap_t **bitmaps = calloc(n ? n : 1, sizeof(*bitmaps));
	if (!bitmaps)
		aw_out_of_memory((n ? n : 1) * sizeof(*bitmaps));
	for (size_t i = 0; shared && i < n; i++)
		shared[i] = 0;
	for (size_t i = 0; i < n; i++)
		bitmaps[i] = aw_sample_set_bitmap(sets[i]);
	uint64_t count = aw_bitmaps_shared(bitmaps, n, shared);
	/* Each high half any set holds, once: the first set holding it
	 * counts it. */
	for (size_t first = 0; first < n; first++) {
		for (uint32_t h = 0; h < sets[first]->n_high; h++) {
			uint32_t high = sets[first]->high[h].high;
			bool counted = false;
			for (size_t i = 0; i < first && !counted; i++)
				counted = aw_sample_set_high_of(sets[i], high);
			if (counted)
				continue;
			for (size_t i = 0; i < n; i++)
				bitmaps[i] =
				    i < first
					? NULL
					: aw_sample_set_high_of(sets[i], high);
			count += aw_bitmaps_shared(bitmaps, n, shared);
		}
	}
	free(bitmaps);
	return count;
}
