/* SPDX-License-Identifier: MIT */
/* See accwatch_pylayout.h. Offsets are those of PyObject_HEAD (refcount,
 * type) and PyObject_VAR_HEAD (+ size) in release GIL builds of CPython 3.8
 * to 3.13; the probe checks each against the C-API before any is trusted. */
#include <string.h>

#include "accwatch_pylayout.h"

/* Values with 0, 1 and 2 digits of both signs, and digit boundaries. */
static const long long accwatch_probe_values[] = {
    0,
    1,
    5,
    (1LL << 30) - 1,
    1LL << 30,
    (1LL << 31) + 7,
    (1LL << 32) - 1,
    1LL << 32,
    (1LL << 45) + 3,
    (1LL << 60) - 1,
    -1,
    -(1LL << 30) - 9,
    -(1LL << 40),
};
#define ACCWATCH_PROBES                                                        \
	(sizeof(accwatch_probe_values) / sizeof(accwatch_probe_values[0]))

/* The one layout that decodes every probe, else UNKNOWN. */
static enum accwatch_long_layout
accwatch_probe_longs(const struct accwatch_capi *api,
		     accwatch_pyobject *const *probes)
{
	enum accwatch_long_layout found = ACCWATCH_LONG_UNKNOWN;
	int candidate;

	for (candidate = ACCWATCH_LONG_SIZE; candidate <= ACCWATCH_LONG_TAG;
	     candidate++) {
		size_t i;

		for (i = 0; i < ACCWATCH_PROBES; i++) {
			long long value;

			if (accwatch_pylayout_type(probes[i]) !=
				api->PyLong_Type ||
			    !accwatch_pylayout_decode(candidate, probes[i],
						      &value) ||
			    value != accwatch_probe_values[i])
				break;
		}
		if (i < ACCWATCH_PROBES)
			continue;
		if (found != ACCWATCH_LONG_UNKNOWN)
			return ACCWATCH_LONG_UNKNOWN; /* ambiguous */
		found = candidate;
	}
	return found;
}

/* Whether items in place agree with PyList_GetItem / PyTuple_GetItem. */
static int accwatch_probe_sequence(const struct accwatch_capi *api,
				   const struct accwatch_pylayout *layout,
				   accwatch_pyobject *sequence, int is_list)
{
	accwatch_pyobject *const *items =
	    accwatch_pylayout_items(layout, sequence);
	ssize_t size =
	    is_list ? api->PyList_Size(sequence) : api->PyTuple_Size(sequence);
	int64_t stored;
	ssize_t i;

	memcpy(&stored, accwatch_pylayout_field(sequence, ACCWATCH_OFFSET_SIZE),
	       sizeof(stored));
	if (!items || size != 3 || stored != size)
		return 0;
	for (i = 0; i < size; i++) {
		accwatch_pyobject *expected =
		    is_list ? api->PyList_GetItem(sequence, i)
			    : api->PyTuple_GetItem(sequence, i);

		if (items[i] != expected)
			return 0;
	}
	return 1;
}

void accwatch_pylayout_probe(const struct accwatch_capi *api,
			     struct accwatch_pylayout *layout)
{
	accwatch_pyobject *probes[ACCWATCH_PROBES] = {0};
	accwatch_pyobject *tuple = NULL, *list = NULL;
	struct accwatch_pylayout found = {
	    .sequences = 1,
	    .list_type = api->PyList_Type,
	    .tuple_type = api->PyTuple_Type,
	    .long_type = api->PyLong_Type,
	};
	size_t i;

	memset(layout, 0, sizeof(*layout));
	for (i = 0; i < ACCWATCH_PROBES; i++) {
		probes[i] = api->PyLong_FromLongLong(accwatch_probe_values[i]);
		if (!probes[i])
			goto end;
	}
	tuple = api->PyTuple_Pack(3, probes[1], probes[3], probes[4]);
	list = tuple ? api->PySequence_List(tuple) : NULL;
	if (!list || !accwatch_probe_sequence(api, &found, tuple, 0) ||
	    !accwatch_probe_sequence(api, &found, list, 1))
		found.sequences = 0;
	found.longs = accwatch_probe_longs(api, probes);
	if (found.sequences && found.longs != ACCWATCH_LONG_UNKNOWN)
		*layout = found;
end:
	accwatch_py_drop(api, list);
	accwatch_py_drop(api, tuple);
	for (i = 0; i < ACCWATCH_PROBES; i++)
		accwatch_py_drop(api, probes[i]);
	if (api->PyErr_Occurred())
		api->PyErr_Clear();
}
