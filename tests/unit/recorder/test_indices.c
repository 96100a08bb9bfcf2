/* SPDX-License-Identifier: MIT */
/* Unit tests of accwatch_indices: batches of Python objects (faked here
 * behind the C-API table) become chunks of uint32 or int64 indices. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "accwatch_indices.h"
#include "accwatch_pylayout.h"

enum fake_kind { FAKE_TYPE, FAKE_INT, FAKE_LIST, FAKE_TUPLE, FAKE_OTHER };

/* The fake completes the C-API's opaque object type. */
struct accwatch_pyobject {
	enum fake_kind kind;
	long long value;
	int overflow;
	accwatch_pyobject **items; /* list, tuple and iterable */
	ssize_t count;
	int references;
	int allocated;
};

static accwatch_pyobject fake_list_type = {.kind = FAKE_TYPE};
static accwatch_pyobject fake_tuple_type = {.kind = FAKE_TYPE};
static accwatch_pyobject fake_int_type = {.kind = FAKE_TYPE};
static accwatch_pyobject fake_other_type = {.kind = FAKE_TYPE};
static accwatch_pyobject fake_error = {.kind = FAKE_OTHER};
static accwatch_pyobject *fake_error_set;
static int fake_lists_alive;

static accwatch_pyobject *fake_type(accwatch_pyobject *object)
{
	accwatch_pyobject *type = object->kind == FAKE_LIST ? &fake_list_type
				  : object->kind == FAKE_TUPLE
				      ? &fake_tuple_type
				  : object->kind == FAKE_INT ? &fake_int_type
							     : &fake_other_type;

	type->references++;
	return type;
}

static void fake_decref(accwatch_pyobject *object)
{
	object->references--;
	if (object->allocated && object->references == 0) {
		fake_lists_alive--;
		free(object);
	}
}

static ssize_t fake_size(accwatch_pyobject *sequence)
{
	return sequence->count;
}

static accwatch_pyobject *fake_get_item(accwatch_pyobject *sequence,
					ssize_t index)
{
	if (index < 0 || index >= sequence->count) {
		fake_error_set = &fake_error;
		return NULL;
	}
	return sequence->items[index];
}

static long long fake_as_long_long(accwatch_pyobject *object, int *overflow)
{
	*overflow = 0;
	if (object->kind != FAKE_INT) {
		fake_error_set = &fake_error;
		return -1;
	}
	*overflow = object->overflow;
	return object->overflow ? -1 : object->value;
}

/* Any FAKE_OTHER with items is an iterable: list() copies it. */
static accwatch_pyobject *fake_sequence_list(accwatch_pyobject *object)
{
	accwatch_pyobject *list;

	if (object->kind != FAKE_OTHER || !object->items) {
		fake_error_set = &fake_error;
		return NULL;
	}
	list = calloc(1, sizeof(*list));
	list->kind = FAKE_LIST;
	list->items = object->items;
	list->count = object->count;
	list->references = 1;
	list->allocated = 1;
	fake_lists_alive++;
	return list;
}

static accwatch_pyobject *fake_occurred(void)
{
	return fake_error_set;
}

static void fake_clear(void)
{
	fake_error_set = NULL;
}

static const struct accwatch_capi fake_api = {
    .PyErr_Clear = fake_clear,
    .Py_DecRef = fake_decref,
    .PyErr_Occurred = fake_occurred,
    .PyObject_Type = fake_type,
    .PySequence_List = fake_sequence_list,
    .PyList_Size = fake_size,
    .PyList_GetItem = fake_get_item,
    .PyTuple_Size = fake_size,
    .PyTuple_GetItem = fake_get_item,
    .PyLong_AsLongLongAndOverflow = fake_as_long_long,
    .PyList_Type = &fake_list_type,
    .PyTuple_Type = &fake_tuple_type,
};

#define MAX_ITEMS 16
#define MAX_CHUNKS 8

struct fake_batch {
	accwatch_pyobject object;
	accwatch_pyobject ints[MAX_ITEMS];
	accwatch_pyobject *items[MAX_ITEMS];
};

static void fake_batch_init(struct fake_batch *batch, enum fake_kind kind,
			    const long long *values, ssize_t count)
{
	ssize_t i;

	memset(batch, 0, sizeof(*batch));
	batch->object.kind = kind;
	batch->object.items = batch->items;
	batch->object.count = count;
	batch->object.references = 1;
	for (i = 0; i < count; i++) {
		batch->ints[i].kind = FAKE_INT;
		batch->ints[i].value = values[i];
		batch->items[i] = &batch->ints[i];
	}
}

struct chunk {
	uint32_t offset, total, count;
	int narrow;
	int64_t values[MAX_ITEMS];
};

struct chunks {
	unsigned count;
	struct chunk chunk[MAX_CHUNKS];
};

static void collect(void *context, uint32_t offset, uint32_t total,
		    uint32_t count, const uint32_t *narrow, const int64_t *wide)
{
	struct chunks *chunks = context;
	struct chunk *chunk = &chunks->chunk[chunks->count++];
	uint32_t i;

	cr_assert((narrow == NULL) != (wide == NULL));
	chunk->offset = offset;
	chunk->total = total;
	chunk->count = count;
	chunk->narrow = narrow != NULL;
	for (i = 0; i < count; i++)
		chunk->values[i] = narrow ? (int64_t)narrow[i] : wide[i];
}

static struct accwatch_indices_buffer buffer;

static enum accwatch_indices_status
walk(accwatch_pyobject *batch, uint32_t chunk_max, struct chunks *chunks)
{
	memset(chunks, 0, sizeof(*chunks));
	return accwatch_indices_walk(&fake_api, batch, chunk_max, &buffer,
				     collect, chunks);
}

static void assert_chunk(const struct chunk *chunk, uint32_t offset,
			 uint32_t total, int narrow, const long long *values,
			 uint32_t count)
{
	uint32_t i;

	cr_assert_eq(chunk->offset, offset);
	cr_assert_eq(chunk->total, total);
	cr_assert_eq(chunk->count, count);
	cr_assert_eq(chunk->narrow, narrow);
	for (i = 0; i < count; i++)
		cr_assert_eq(chunk->values[i], values[i], "index %u", i);
}

/* A batch of `kind` holding values walks, unsplit, into one chunk of them
 * all, narrow or not. */
static void expect_one_chunk(enum fake_kind kind, const long long *values,
			     uint32_t count, int narrow)
{
	struct fake_batch batch;
	struct chunks chunks;

	fake_batch_init(&batch, kind, values, count);
	cr_assert_eq(walk(&batch.object, 0, &chunks), ACCWATCH_INDICES_OK);
	cr_assert_eq(chunks.count, 1);
	assert_chunk(&chunks.chunk[0], 0, count, narrow, values, count);
}

Test(indices, list_of_small_ints_is_one_narrow_chunk)
{
	const long long values[] = {3, 0, 4294967295LL, 7, 1};

	expect_one_chunk(FAKE_LIST, values, 5, 1);
	cr_assert_null(fake_error_set);
}

Test(indices, tuple_is_read_in_place)
{
	const long long values[] = {9, 8};

	expect_one_chunk(FAKE_TUPLE, values, 2, 1);
}

Test(indices, negative_or_large_indices_are_wide)
{
	const long long negative[] = {1, -1};
	const long long large[] = {4294967296LL, 2};

	expect_one_chunk(FAKE_LIST, negative, 2, 0);
	expect_one_chunk(FAKE_LIST, large, 2, 0);
}

Test(indices, overflowing_int_is_clamped_wide)
{
	const long long values[] = {1};
	const long long clamped[] = {INT64_MAX};
	struct fake_batch batch;
	struct chunks chunks;

	fake_batch_init(&batch, FAKE_LIST, values, 1);
	batch.ints[0].overflow = 1;
	cr_assert_eq(walk(&batch.object, 0, &chunks), ACCWATCH_INDICES_OK);
	assert_chunk(&chunks.chunk[0], 0, 1, 0, clamped, 1);
}

Test(indices, single_int_is_a_batch_of_one)
{
	const long long values[] = {42};
	struct fake_batch batch;
	struct chunks chunks;

	fake_batch_init(&batch, FAKE_INT, NULL, 0);
	batch.object.value = 42;
	cr_assert_eq(walk(&batch.object, 0, &chunks), ACCWATCH_INDICES_OK);
	cr_assert_eq(chunks.count, 1);
	assert_chunk(&chunks.chunk[0], 0, 1, 1, values, 1);
}

Test(indices, long_batches_are_split_and_each_chunk_chooses_its_width)
{
	const long long values[] = {0, 1, 2, 3, -4, 5, 6, 7, 8, 9};
	struct fake_batch batch;
	struct chunks chunks;

	fake_batch_init(&batch, FAKE_LIST, values, 10);
	cr_assert_eq(walk(&batch.object, 4, &chunks), ACCWATCH_INDICES_OK);
	cr_assert_eq(chunks.count, 3);
	assert_chunk(&chunks.chunk[0], 0, 10, 1, values, 4);
	assert_chunk(&chunks.chunk[1], 4, 10, 0, values + 4, 4);
	assert_chunk(&chunks.chunk[2], 8, 10, 1, values + 8, 2);
}

Test(indices, other_iterables_are_copied_to_a_list_and_released)
{
	const long long values[] = {5, 6, 7};

	expect_one_chunk(FAKE_OTHER, values, 3, 1);
	cr_assert_eq(fake_lists_alive, 0);
	cr_assert_eq(fake_other_type.references, 0);
}

Test(indices, non_integers_emit_nothing_and_clear_the_error)
{
	const long long values[] = {1, 2, 3};
	struct fake_batch batch;
	struct chunks chunks;

	fake_batch_init(&batch, FAKE_LIST, values, 3);
	batch.ints[1].kind =
	    FAKE_OTHER; /* e.g. None from an iterable sampler */
	cr_assert_eq(walk(&batch.object, 0, &chunks),
		     ACCWATCH_INDICES_NOT_INTEGERS);
	cr_assert_eq(chunks.count, 0);
	cr_assert_null(fake_error_set);
	fake_batch_init(&batch, FAKE_OTHER, NULL, 0);
	batch.object.items = NULL; /* not even iterable */
	cr_assert_eq(walk(&batch.object, 0, &chunks),
		     ACCWATCH_INDICES_NOT_INTEGERS);
	cr_assert_null(fake_error_set);
}

Test(indices, empty_batch_is_one_empty_chunk)
{
	struct fake_batch batch;
	struct chunks chunks;

	fake_batch_init(&batch, FAKE_LIST, NULL, 0);
	cr_assert_eq(walk(&batch.object, 0, &chunks), ACCWATCH_INDICES_OK);
	cr_assert_eq(chunks.count, 1);
	cr_assert_eq(chunks.chunk[0].total, 0);
	cr_assert_eq(chunks.chunk[0].count, 0);
}

Test(indices, busy_buffer_is_left_alone)
{
	const long long values[] = {11, 12};
	struct fake_batch batch;
	struct chunks chunks;

	fake_batch_init(&batch, FAKE_LIST, values, 2);
	buffer.busy = 1;
	buffer.wide[0] = 77;
	cr_assert_eq(walk(&batch.object, 0, &chunks), ACCWATCH_INDICES_OK);
	assert_chunk(&chunks.chunk[0], 0, 2, 1, values, 2);
	cr_assert_eq(buffer.wide[0], 77);
	cr_assert_eq(buffer.busy, 1);
	buffer.busy = 0;
}

Test(indices, types_are_released)
{
	const long long values[] = {1};
	struct fake_batch batch;
	struct chunks chunks;

	fake_batch_init(&batch, FAKE_LIST, values, 1);
	walk(&batch.object, 0, &chunks);
	fake_batch_init(&batch, FAKE_TUPLE, values, 1);
	walk(&batch.object, 0, &chunks);
	cr_assert_eq(fake_list_type.references, 0);
	cr_assert_eq(fake_tuple_type.references, 0);
}

/* --- in-place int decoding (accwatch_pylayout_decode) -------------------- */

/* The memory of an int object: refcount, type, size or tag, two digits. */
struct fake_long_memory {
	int64_t refcount;
	void *type;
	uint64_t head;
	uint32_t digit[2];
};

static int decode(enum accwatch_long_layout layout, uint64_t head, uint32_t low,
		  uint32_t high, long long *value)
{
	struct fake_long_memory memory = {
	    .refcount = 1, .head = head, .digit = {low, high}};

	*value = 12345;
	return accwatch_pylayout_decode(layout, &memory, value);
}

Test(pylayout, size_layout_reads_signed_digit_counts)
{
	long long value;

	cr_assert(decode(ACCWATCH_LONG_SIZE, 0, 0, 0, &value));
	cr_assert_eq(value, 0);
	cr_assert(decode(ACCWATCH_LONG_SIZE, 1, 7, 99, &value));
	cr_assert_eq(value, 7);
	cr_assert(decode(ACCWATCH_LONG_SIZE, (uint64_t)-1, 7, 0, &value));
	cr_assert_eq(value, -7);
	cr_assert(decode(ACCWATCH_LONG_SIZE, 2, 5, 3, &value));
	cr_assert_eq(value, 5 + (3LL << 30));
	cr_assert(decode(ACCWATCH_LONG_SIZE, (uint64_t)-2, 0, 1, &value));
	cr_assert_eq(value, -(1LL << 30));
}

Test(pylayout, tag_layout_reads_count_and_sign)
{
	long long value;

	cr_assert(decode(ACCWATCH_LONG_TAG, 1, 0, 0, &value)); /* zero */
	cr_assert_eq(value, 0);
	cr_assert(decode(ACCWATCH_LONG_TAG, 1 << 3, 9, 99, &value));
	cr_assert_eq(value, 9);
	cr_assert(decode(ACCWATCH_LONG_TAG, 1 << 3 | 2, 9, 0, &value));
	cr_assert_eq(value, -9);
	cr_assert(decode(ACCWATCH_LONG_TAG, 2 << 3, (1u << 30) - 1,
			 (1u << 30) - 1, &value));
	cr_assert_eq(value, (1LL << 60) - 1);
}

Test(pylayout, anything_else_is_left_to_the_c_api)
{
	long long value;

	/* Three digits, an invalid sign, digits with bits above 30, and no
	 * known layout: not decoded, value untouched. */
	cr_assert_not(decode(ACCWATCH_LONG_SIZE, 3, 1, 1, &value));
	cr_assert_not(decode(ACCWATCH_LONG_SIZE, (uint64_t)-3, 1, 1, &value));
	cr_assert_not(decode(ACCWATCH_LONG_TAG, 3 << 3, 1, 1, &value));
	cr_assert_not(decode(ACCWATCH_LONG_TAG, 1 << 3 | 3, 1, 0, &value));
	cr_assert_not(decode(ACCWATCH_LONG_SIZE, 1, 1u << 30, 0, &value));
	cr_assert_not(decode(ACCWATCH_LONG_UNKNOWN, 1, 1, 0, &value));
	cr_assert_eq(value, 12345);
}

Test(pylayout, unprobed_layout_reads_nothing_in_place)
{
	struct accwatch_pylayout layout = {0};
	struct fake_long_memory memory = {.head = 1, .digit = {4, 0}};
	long long value = 0;

	cr_assert_not(accwatch_pylayout_long(
	    &layout, (const accwatch_pyobject *)&memory, &value));
	cr_assert_null(
	    accwatch_pylayout_items(&layout, (accwatch_pyobject *)&memory));
}

Test(pylayout, small_ints_are_read_until_the_first_other_item)
{
	static char long_type, other_type;
	struct fake_long_memory zero = {.type = &long_type, .head = 0};
	struct fake_long_memory seven = {
	    .type = &long_type, .head = 1, .digit = {7, 0}};
	struct fake_long_memory big = {
	    .type = &long_type, .head = 2, .digit = {1, 1}};
	struct fake_long_memory other = {
	    .type = &other_type, .head = 1, .digit = {3, 0}};
	accwatch_pyobject *items[] = {
	    (accwatch_pyobject *)&seven, (accwatch_pyobject *)&zero,
	    (accwatch_pyobject *)&big, (accwatch_pyobject *)&seven};
	accwatch_pyobject *others[] = {(accwatch_pyobject *)&other};
	struct accwatch_pylayout layout = {.sequences = 1,
					   .longs = ACCWATCH_LONG_SIZE,
					   .long_type =
					       (accwatch_pyobject *)&long_type};
	uint32_t out[4] = {0};

	cr_assert_eq(accwatch_pylayout_small(&layout, items, 4, out), 2);
	cr_assert_eq(out[0], 7);
	cr_assert_eq(out[1], 0);
	cr_assert_eq(accwatch_pylayout_small(&layout, others, 1, out), 0);
	/* 3.12+: zero is tag 1, one positive digit tag 8. */
	layout.longs = ACCWATCH_LONG_TAG;
	zero.head = 1;
	seven.head = 1 << 3;
	big.head = 2 << 3;
	cr_assert_eq(accwatch_pylayout_small(&layout, items, 4, out), 2);
	cr_assert_eq(out[0], 7);
	cr_assert_eq(out[1], 0);
	layout.longs = ACCWATCH_LONG_UNKNOWN;
	cr_assert_eq(accwatch_pylayout_small(&layout, items, 4, out), 0);
}
