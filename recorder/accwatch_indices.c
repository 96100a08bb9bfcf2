/* SPDX-License-Identifier: MIT */
/* Batch to chunks of indices: lists and tuples are read in place, a single
 * integer is a batch of one, any other iterable is copied into a list first. */
#include <stdlib.h>

#include "accwatch_indices.h"
#include "accwatch_pylayout.h"

/* Set once at attach (accwatch_indices_probe); all zero = C-API only. */
static struct accwatch_pylayout accwatch_indices_layout;

int accwatch_indices_probe(const struct accwatch_capi *api)
{
	accwatch_pylayout_probe(api, &accwatch_indices_layout);
	return accwatch_indices_layout.longs;
}

int accwatch_indices_layout_known(void)
{
	return accwatch_indices_layout.longs != ACCWATCH_LONG_UNKNOWN;
}

typedef accwatch_pyobject *(*accwatch_get_item_fn)(accwatch_pyobject *sequence,
						   ssize_t index);

/* One item to an integer: exact ints read in place when the layout is
 * known, anything else through the C-API (which may run __index__). */
static int accwatch_indices_value(const struct accwatch_capi *api,
				  accwatch_pyobject *item, long long *value,
				  int *ran_python)
{
	int overflow = 0;

	if (accwatch_pylayout_long(&accwatch_indices_layout, item, value))
		return 1;
	*ran_python = 1;
	*value = api->PyLong_AsLongLongAndOverflow(item, &overflow);
	if (*value == -1 && api->PyErr_Occurred())
		return 0;
	if (overflow)
		*value = overflow > 0 ? INT64_MAX : INT64_MIN;
	return 1;
}

/* Converts items [offset, offset + count) into buffer->wide; returns 1 when
 * all of them fit uint32_t (then buffer->narrow holds them too), 0 when not,
 * -1 when an item is not an integer. Leading small ints go straight to
 * narrow; items are read in place until Python code has run (it may resize
 * the list), then through get_item. */
static int accwatch_indices_convert(const struct accwatch_capi *api,
				    accwatch_pyobject *sequence,
				    accwatch_get_item_fn get_item,
				    uint32_t offset, uint32_t count,
				    struct accwatch_indices_buffer *buffer)
{
	accwatch_pyobject *const *items =
	    accwatch_pylayout_items(&accwatch_indices_layout, sequence);
	int narrow = 1, ran_python = 0;
	uint32_t i, done = 0;

	if (items) {
		done = accwatch_pylayout_small(&accwatch_indices_layout,
					       items + offset, count,
					       buffer->narrow);
		if (done == count)
			goto end;
		for (i = 0; i < done; i++)
			buffer->wide[i] = buffer->narrow[i];
	}
	for (i = done; i < count; i++) {
		ssize_t at = (ssize_t)offset + i;
		accwatch_pyobject *item =
		    items && !ran_python ? items[at] : get_item(sequence, at);
		long long value;

		if (!item ||
		    !accwatch_indices_value(api, item, &value, &ran_python)) {
			narrow = -1;
			goto end;
		}
		buffer->wide[i] = value;
		if (value < 0 || value > UINT32_MAX)
			narrow = 0;
	}
	if (narrow) {
		for (i = done; i < count; i++)
			buffer->narrow[i] = (uint32_t)buffer->wide[i];
	}
end:
	return narrow;
}

static enum accwatch_indices_status
accwatch_indices_sequence(const struct accwatch_capi *api,
			  accwatch_pyobject *sequence, ssize_t length,
			  accwatch_get_item_fn get_item, uint32_t chunk_max,
			  struct accwatch_indices_buffer *buffer,
			  accwatch_indices_chunk_fn chunk, void *context)
{
	enum accwatch_indices_status status = ACCWATCH_INDICES_OK;
	uint32_t total, offset = 0;

	if (length < 0) {
		status = ACCWATCH_INDICES_NOT_INTEGERS;
		goto end;
	}
	if ((uint64_t)length > UINT32_MAX) {
		status = ACCWATCH_INDICES_TOO_LONG;
		goto end;
	}
	total = (uint32_t)length;
	if (total == 0) {
		chunk(context, 0, 0, 0, buffer->narrow, NULL);
		goto end;
	}
	while (offset < total) {
		uint32_t count =
		    total - offset < chunk_max ? total - offset : chunk_max;
		int narrow = accwatch_indices_convert(api, sequence, get_item,
						      offset, count, buffer);

		if (narrow < 0) {
			status = ACCWATCH_INDICES_NOT_INTEGERS;
			goto end;
		}
		chunk(context, offset, total, count,
		      narrow ? buffer->narrow : NULL,
		      narrow ? NULL : buffer->wide);
		offset += count;
	}
end:
	return status;
}

static enum accwatch_indices_status
accwatch_indices_walk_buffer(const struct accwatch_capi *api,
			     accwatch_pyobject *batch, uint32_t chunk_max,
			     struct accwatch_indices_buffer *buffer,
			     accwatch_indices_chunk_fn chunk, void *context)
{
	enum accwatch_indices_status status;
	accwatch_pyobject *type = api->PyObject_Type(batch);
	accwatch_pyobject *list = NULL;
	int overflow = 0;
	long long value;

	if (type == api->PyList_Type) {
		status = accwatch_indices_sequence(
		    api, batch, api->PyList_Size(batch), api->PyList_GetItem,
		    chunk_max, buffer, chunk, context);
		goto end;
	}
	if (type == api->PyTuple_Type) {
		status = accwatch_indices_sequence(
		    api, batch, api->PyTuple_Size(batch), api->PyTuple_GetItem,
		    chunk_max, buffer, chunk, context);
		goto end;
	}
	/* One index (batch_size=None): int, numpy integer, 0-d tensor. */
	value = api->PyLong_AsLongLongAndOverflow(batch, &overflow);
	if (!(value == -1 && api->PyErr_Occurred())) {
		if (overflow)
			value = overflow > 0 ? INT64_MAX : INT64_MIN;
		buffer->wide[0] = value;
		buffer->narrow[0] = (uint32_t)value;
		if (value < 0 || value > UINT32_MAX)
			chunk(context, 0, 1, 1, NULL, buffer->wide);
		else
			chunk(context, 0, 1, 1, buffer->narrow, NULL);
		status = ACCWATCH_INDICES_OK;
		goto end;
	}
	api->PyErr_Clear();
	list = api->PySequence_List(batch);
	if (!list) {
		status = ACCWATCH_INDICES_NOT_INTEGERS;
		goto end;
	}
	status = accwatch_indices_sequence(api, list, api->PyList_Size(list),
					   api->PyList_GetItem, chunk_max,
					   buffer, chunk, context);
end:
	accwatch_py_drop(api, list);
	accwatch_py_drop(api, type);
	if (api->PyErr_Occurred())
		api->PyErr_Clear();
	return status;
}

enum accwatch_indices_status
accwatch_indices_walk(const struct accwatch_capi *api, accwatch_pyobject *batch,
		      uint32_t chunk_max,
		      struct accwatch_indices_buffer *buffer,
		      accwatch_indices_chunk_fn chunk, void *context)
{
	struct accwatch_indices_buffer *own = NULL;
	enum accwatch_indices_status status;

	if (chunk_max == 0 || chunk_max > ACCWATCH_CHUNK_MAX)
		chunk_max = ACCWATCH_CHUNK_MAX;
	if (buffer->busy) {
		own = malloc(sizeof(*own));
		if (!own) {
			status = ACCWATCH_INDICES_NO_MEMORY;
			goto end;
		}
		buffer = own;
	}
	buffer->busy = 1;
	status = accwatch_indices_walk_buffer(api, batch, chunk_max, buffer,
					      chunk, context);
	buffer->busy = 0;
end:
	free(own);
	return status;
}
