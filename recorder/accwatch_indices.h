/* SPDX-License-Identifier: MIT */
/* Turns a batch of dataset indices, as Python gives it (list, tuple, tensor,
 * any iterable of integers, or one integer), into chunks of C integers. */
#ifndef ACCWATCH_INDICES_H
#define ACCWATCH_INDICES_H

#include <stdint.h>

#include "accwatch_capi.h"
#include "accwatch_events.h"

/* Exactly one of narrow and wide is set: narrow when every index of the
 * chunk fits uint32_t, wide otherwise. */
typedef void (*accwatch_indices_chunk_fn)(void *context, uint32_t offset,
					  uint32_t total, uint32_t count,
					  const uint32_t *narrow,
					  const int64_t *wide);

/* One reused buffer: no allocation per batch. */
struct accwatch_indices_buffer {
	int busy; /* set while a walk uses it (re-entrancy through __index__) */
	int64_t wide[ACCWATCH_CHUNK_MAX];
	uint32_t narrow[ACCWATCH_CHUNK_MAX];
};

enum accwatch_indices_status {
	ACCWATCH_INDICES_OK = 0,
	ACCWATCH_INDICES_NOT_INTEGERS, /* an item is not an integer */
	ACCWATCH_INDICES_TOO_LONG,     /* more than UINT32_MAX items */
	ACCWATCH_INDICES_NO_MEMORY,
};

/* Learns, once per process with the GIL held, whether lists, tuples and
 * ints may be read in place (accwatch_pylayout.h); before it, or when not,
 * every item goes through the C-API. Returns the enum accwatch_long_layout
 * found (0: none, C-API only). */
int accwatch_indices_probe(const struct accwatch_capi *api);

/* Whether the probe trusted the object layout (PyObject_HEAD is then
 * ACCWATCH_OFFSET_SIZE bytes long: accwatch_pylayout.h). */
int accwatch_indices_layout_known(void);

/* Calls chunk once per chunk_max (<= ACCWATCH_CHUNK_MAX) indices, in order.
 * A chunk is emitted only when all its items converted, so a batch of one
 * chunk is recorded whole or not at all. Leaves no Python error set. */
enum accwatch_indices_status
accwatch_indices_walk(const struct accwatch_capi *api, accwatch_pyobject *batch,
		      uint32_t chunk_max,
		      struct accwatch_indices_buffer *buffer,
		      accwatch_indices_chunk_fn chunk, void *context);

#endif
