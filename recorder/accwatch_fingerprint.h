/* SPDX-License-Identifier: MIT */
/* Content fingerprints (xxh64) of the items an IterableDataset produces: the
 * bytes where the item exposes a buffer, its elements for lists, tuples and
 * dicts, its repr otherwise. Equal content, equal fingerprint. */
#ifndef ACCWATCH_FINGERPRINT_H
#define ACCWATCH_FINGERPRINT_H

#include <stdint.h>

#include "accwatch_capi.h"

/* Containers nested deeper than this hash as one constant. */
#define ACCWATCH_FINGERPRINT_DEPTH_MAX 8

struct accwatch_fingerprint_context {
	const struct accwatch_capi *api;
	/* view(item) -> an object with a contiguous buffer holding the item's
	 * content (tensor, non-contiguous array), or None; may be NULL. */
	accwatch_pyobject *view_fn;
};

/* Never fails and leaves no Python error set (GIL held). */
uint64_t
accwatch_fingerprint(const struct accwatch_fingerprint_context *context,
		     accwatch_pyobject *item);

#endif
