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
/* Stores value (not AW_NONE) for key, replacing any previous one. */
void aw_index_map_put(struct aw_index_map *map, uint64_t key, uint32_t value);

static inline size_t aw_index_map_slot(uint64_t key, size_t capacity)
{
	/* splitmix64 finalizer: pids and ordinals are small and clustered. */
	key ^= key >> 30;
	key *= 0xbf58476d1ce4e5b9ULL;
	key ^= key >> 27;
	key *= 0x94d049bb133111ebULL;
	key ^= key >> 31;
	return (size_t)key & (capacity - 1);
}

/* The value stored for key, or AW_NONE; inline: every event looks up its
 * process, loader and iteration. */
static inline uint32_t aw_index_map_get(const struct aw_index_map *map,
					uint64_t key)
{
	if (map->capacity == 0)
		return AW_NONE;
	for (size_t i = aw_index_map_slot(key, map->capacity);;
	     i = (i + 1) & (map->capacity - 1)) {
		if (map->values[i] == AW_NONE)
			return AW_NONE;
		if (map->keys[i] == key)
			return map->values[i];
	}
}

static inline uint64_t aw_key2(uint32_t high, uint32_t low)
{
	return (uint64_t)high << 32 | low;
}

#endif
