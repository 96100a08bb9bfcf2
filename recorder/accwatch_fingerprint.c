/* SPDX-License-Identifier: MIT */
/* Item fingerprints: leaves hashed with a per-kind seed (bytes, text, int,
 * repr), containers as the stream of their elements' fingerprints. */
#define XXH_STATIC_LINKING_ONLY
#include <stddef.h>
#include <xxhash.h>

#include "accwatch_fingerprint.h"

/* Seeds: the same bytes as text or as a buffer hash differently. */
enum accwatch_fingerprint_kind {
	ACCWATCH_FP_BYTES = 1,
	ACCWATCH_FP_TEXT,
	ACCWATCH_FP_INT,
	ACCWATCH_FP_SEQUENCE,
	ACCWATCH_FP_DICT,
	ACCWATCH_FP_REPR,
	ACCWATCH_FP_NOTHING, /* repr failed, or nested too deep */
};

static uint64_t accwatch_fp_nothing(void)
{
	return XXH64(NULL, 0, ACCWATCH_FP_NOTHING);
}

static int accwatch_fp_is(const struct accwatch_capi *api,
			  accwatch_pyobject *item, accwatch_pyobject *kind)
{
	int result = api->PyObject_IsInstance(item, kind);

	if (result < 0) {
		api->PyErr_Clear();
		result = 0;
	}
	return result;
}

/* 1 and *hash when item exports a contiguous buffer. */
static int accwatch_fp_buffer(const struct accwatch_capi *api,
			      accwatch_pyobject *item, uint64_t *hash)
{
	struct accwatch_py_buffer view;

	if (api->PyObject_GetBuffer(item, &view, 0) < 0) {
		api->PyErr_Clear();
		return 0;
	}
	*hash = XXH64(view.buf, (size_t)view.len, ACCWATCH_FP_BYTES);
	api->PyBuffer_Release(&view);
	return 1;
}

static uint64_t accwatch_fp_text(const struct accwatch_capi *api,
				 accwatch_pyobject *text, uint64_t seed)
{
	ssize_t size = 0;
	const char *bytes = api->PyUnicode_AsUTF8AndSize(text, &size);

	if (!bytes) {
		api->PyErr_Clear();
		return accwatch_fp_nothing();
	}
	return XXH64(bytes, (size_t)size, seed);
}

static uint64_t accwatch_fp_repr(const struct accwatch_capi *api,
				 accwatch_pyobject *item)
{
	accwatch_pyobject *text = api->PyObject_Repr(item);
	uint64_t hash;

	if (!text) {
		api->PyErr_Clear();
		return accwatch_fp_nothing();
	}
	hash = accwatch_fp_text(api, text, ACCWATCH_FP_REPR);
	api->Py_DecRef(text);
	return hash;
}

static uint64_t accwatch_fp_item(const struct accwatch_fingerprint_context *c,
				 accwatch_pyobject *item, unsigned depth);

static uint64_t
accwatch_fp_sequence(const struct accwatch_fingerprint_context *c,
		     accwatch_pyobject *sequence, int is_list, unsigned depth)
{
	const struct accwatch_capi *api = c->api;
	XXH64_state_t state;
	ssize_t length, i;

	length =
	    is_list ? api->PyList_Size(sequence) : api->PyTuple_Size(sequence);
	XXH64_reset(&state, ACCWATCH_FP_SEQUENCE);
	XXH64_update(&state, &length, sizeof(length));
	for (i = 0; i < length; i++) {
		/* Borrowed, and the list may change under Python code run
		 * below: hold the element, stop if it is gone. */
		accwatch_pyobject *element =
		    is_list ? api->PyList_GetItem(sequence, i)
			    : api->PyTuple_GetItem(sequence, i);
		uint64_t hash;

		if (!element) {
			api->PyErr_Clear();
			break;
		}
		api->Py_IncRef(element);
		hash = accwatch_fp_item(c, element, depth + 1);
		api->Py_DecRef(element);
		XXH64_update(&state, &hash, sizeof(hash));
	}
	return XXH64_digest(&state);
}

static uint64_t accwatch_fp_dict(const struct accwatch_fingerprint_context *c,
				 accwatch_pyobject *dict, unsigned depth)
{
	const struct accwatch_capi *api = c->api;
	accwatch_pyobject *key, *value;
	ssize_t position = 0;
	XXH64_state_t state;

	XXH64_reset(&state, ACCWATCH_FP_DICT);
	while (api->PyDict_Next(dict, &position, &key, &value)) {
		uint64_t hashes[2];

		api->Py_IncRef(key);
		api->Py_IncRef(value);
		hashes[0] = accwatch_fp_item(c, key, depth + 1);
		hashes[1] = accwatch_fp_item(c, value, depth + 1);
		api->Py_DecRef(value);
		api->Py_DecRef(key);
		XXH64_update(&state, hashes, sizeof(hashes));
	}
	return XXH64_digest(&state);
}

/* The bytes of what view_fn makes of item (tensors), if anything. */
static int accwatch_fp_view(const struct accwatch_fingerprint_context *c,
			    accwatch_pyobject *item, uint64_t *hash)
{
	const struct accwatch_capi *api = c->api;
	accwatch_pyobject *arguments, *view;
	int found = 0;

	if (!c->view_fn)
		return 0;
	arguments = api->PyTuple_Pack(1, item);
	if (!arguments) {
		api->PyErr_Clear();
		return 0;
	}
	view = api->PyObject_CallObject(c->view_fn, arguments);
	api->Py_DecRef(arguments);
	if (!view) {
		api->PyErr_Clear();
		return 0;
	}
	if (view != api->Py_None)
		found = accwatch_fp_buffer(api, view, hash);
	api->Py_DecRef(view);
	return found;
}

static uint64_t accwatch_fp_item(const struct accwatch_fingerprint_context *c,
				 accwatch_pyobject *item, unsigned depth)
{
	const struct accwatch_capi *api = c->api;
	uint64_t hash;

	if (depth > ACCWATCH_FINGERPRINT_DEPTH_MAX)
		return accwatch_fp_nothing();
	if (accwatch_fp_is(api, item, api->PyUnicode_Type))
		return accwatch_fp_text(api, item, ACCWATCH_FP_TEXT);
	if (accwatch_fp_is(api, item, api->PyLong_Type)) {
		int overflow = 0;
		long long value =
		    api->PyLong_AsLongLongAndOverflow(item, &overflow);

		if (value == -1 && api->PyErr_Occurred())
			api->PyErr_Clear();
		else if (!overflow)
			return XXH64(&value, sizeof(value), ACCWATCH_FP_INT);
		return accwatch_fp_repr(api, item);
	}
	if (accwatch_fp_is(api, item, api->PyList_Type))
		return accwatch_fp_sequence(c, item, 1, depth);
	if (accwatch_fp_is(api, item, api->PyTuple_Type))
		return accwatch_fp_sequence(c, item, 0, depth);
	if (accwatch_fp_is(api, item, api->PyDict_Type))
		return accwatch_fp_dict(c, item, depth);
	if (accwatch_fp_buffer(api, item, &hash) ||
	    accwatch_fp_view(c, item, &hash))
		return hash;
	return accwatch_fp_repr(api, item);
}

uint64_t
accwatch_fingerprint(const struct accwatch_fingerprint_context *context,
		     accwatch_pyobject *item)
{
	return accwatch_fp_item(context, item, 0);
}
