/* SPDX-License-Identifier: MIT */
/* Reading exact lists, tuples and small exact ints straight from CPython's
 * object memory: the per-batch path converts 64 indices per call, and two
 * C-API calls per index were most of its cost. Used only when a probe at
 * attach found this interpreter's layout to be one of the two known ones
 * (3.8-3.11: ob_size; 3.12+: lv_tag; 30-bit digits, GIL build, no debug
 * header); otherwise every read goes through the C-API as before. */
#ifndef ACCWATCH_PYLAYOUT_H
#define ACCWATCH_PYLAYOUT_H

#include <stdint.h>
#include <string.h>

#include "accwatch_capi.h"

enum accwatch_long_layout {
	ACCWATCH_LONG_UNKNOWN = 0,
	ACCWATCH_LONG_SIZE, /* ob_size: signed digit count (3.8-3.11) */
	ACCWATCH_LONG_TAG,  /* lv_tag: digits << 3 | sign (3.12+) */
};

struct accwatch_pylayout {
	int sequences; /* list ob_item and tuple items readable in place */
	enum accwatch_long_layout longs;
	accwatch_pyobject *list_type, *tuple_type, *long_type;
};

/* Fills layout from probes of live objects; needs the GIL. Leaves all
 * zero (the C-API path) when anything disagrees. */
void accwatch_pylayout_probe(const struct accwatch_capi *api,
			     struct accwatch_pylayout *layout);

/* The hot path below is inline: it runs for every recorded index. */
#define ACCWATCH_OFFSET_TYPE 8
#define ACCWATCH_OFFSET_SIZE 16
#define ACCWATCH_OFFSET_ITEMS 24
#define ACCWATCH_DIGIT_BITS 30
#define ACCWATCH_DIGIT_MASK ((1u << ACCWATCH_DIGIT_BITS) - 1)

static inline const void *accwatch_pylayout_field(const void *object,
						  size_t offset)
{
	return (const char *)object + offset;
}

static inline const accwatch_pyobject *
accwatch_pylayout_type(const void *object)
{
	const accwatch_pyobject *type;

	memcpy(&type, accwatch_pylayout_field(object, ACCWATCH_OFFSET_TYPE),
	       sizeof(type));
	return type;
}

/* The digit decoding alone, on the memory of an int object: 1 and *value
 * for at most two digits (|v| < 2^60), else 0. Reads no digit the object
 * does not have. */
static inline int accwatch_pylayout_decode(enum accwatch_long_layout layout,
					   const void *object, long long *value)
{
	const void *digits =
	    accwatch_pylayout_field(object, ACCWATCH_OFFSET_ITEMS);
	uint32_t low = 0, high = 0;
	uint64_t head, ndigits;
	int negative;

	memcpy(&head, accwatch_pylayout_field(object, ACCWATCH_OFFSET_SIZE),
	       sizeof(head));
	if (layout == ACCWATCH_LONG_SIZE) {
		negative = (int64_t)head < 0;
		ndigits = negative ? -head : head;
	} else if (layout == ACCWATCH_LONG_TAG && (head & 3) != 3) {
		negative = (head & 3) == 2;
		ndigits = (head & 3) == 1 ? 0 : head >> 3;
	} else {
		return 0;
	}
	if (ndigits > 2)
		return 0;
	if (ndigits > 0)
		memcpy(&low, digits, sizeof(low));
	if (ndigits > 1)
		memcpy(&high, (const char *)digits + sizeof(low), sizeof(high));
	if ((low | high) & ~ACCWATCH_DIGIT_MASK)
		return 0;
	*value = (long long)low | (long long)high << ACCWATCH_DIGIT_BITS;
	if (negative)
		*value = -*value;
	return 1;
}

/* 1 and *value when object is an exact int of at most two digits, else 0
 * (ask the C-API). */
static inline int accwatch_pylayout_long(const struct accwatch_pylayout *layout,
					 const accwatch_pyobject *object,
					 long long *value)
{
	if (layout->longs == ACCWATCH_LONG_UNKNOWN ||
	    accwatch_pylayout_type(object) != layout->long_type)
		return 0;
	return accwatch_pylayout_decode(layout->longs, object, value);
}

/* The batch of almost every DataLoader in one tight pass: how many leading
 * items of items[0, count) are exact ints in [0, 2^30) (zero or one digit),
 * their values stored in out. */
static inline uint32_t
accwatch_pylayout_small(const struct accwatch_pylayout *layout,
			accwatch_pyobject *const *items, uint32_t count,
			uint32_t *out)
{
	uint64_t zero = layout->longs == ACCWATCH_LONG_SIZE ? 0 : 1;
	uint64_t one = layout->longs == ACCWATCH_LONG_SIZE ? 1 : 1 << 3;
	uint32_t i;

	if (layout->longs == ACCWATCH_LONG_UNKNOWN)
		return 0;
	for (i = 0; i < count; i++) {
		const void *item = items[i];
		uint64_t head;

		if (accwatch_pylayout_type(item) != layout->long_type)
			break;
		memcpy(&head,
		       accwatch_pylayout_field(item, ACCWATCH_OFFSET_SIZE),
		       sizeof(head));
		if (head == one)
			memcpy(&out[i],
			       accwatch_pylayout_field(item,
						       ACCWATCH_OFFSET_ITEMS),
			       sizeof(out[i]));
		else if (head == zero)
			out[i] = 0;
		else
			break;
	}
	return i;
}

/* The items of an exact list or tuple, or NULL. Valid until Python code
 * runs (a list may be resized). */
static inline accwatch_pyobject *const *
accwatch_pylayout_items(const struct accwatch_pylayout *layout,
			accwatch_pyobject *sequence)
{
	const accwatch_pyobject *type;
	accwatch_pyobject *const *items;

	if (!layout->sequences)
		return NULL;
	type = accwatch_pylayout_type(sequence);
	if (type == layout->tuple_type)
		return (accwatch_pyobject *const *)accwatch_pylayout_field(
		    sequence, ACCWATCH_OFFSET_ITEMS);
	if (type != layout->list_type)
		return NULL;
	memcpy(&items, accwatch_pylayout_field(sequence, ACCWATCH_OFFSET_ITEMS),
	       sizeof(items));
	return items;
}

#endif
