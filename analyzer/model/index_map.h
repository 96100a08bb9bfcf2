/* SPDX-License-Identifier: MIT */
/* A hash map from 64-bit keys to 32-bit indices into the model's arrays:
 * how events find their process, loader and iteration in constant time. */
#ifndef AW_INDEX_MAP_H
#define AW_INDEX_MAP_H

#include <stddef.h>
#include <stdint.h>

#define AW_NONE UINT32_MAX

struct aw_index_map {
	uint64_t *keys;
	uint32_t *values; /* AW_NONE marks a free slot */
	size_t capacity;  /* a power of two, or 0 */
	size_t count;
};

void aw_index_map_init(struct aw_index_map *map);
void aw_index_map_fini(struct aw_index_map *map);
/* The value stored for key, or AW_NONE. */
uint32_t aw_index_map_get(const struct aw_index_map *map, uint64_t key);
/* Stores value (not AW_NONE) for key, replacing any previous one. */
void aw_index_map_put(struct aw_index_map *map, uint64_t key, uint32_t value);

static inline uint64_t aw_key2(uint32_t high, uint32_t low)
{
	return (uint64_t)high << 32 | low;
}

#endif
