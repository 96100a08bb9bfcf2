/* SPDX-License-Identifier: MIT */
/* Open addressing with linear probing; the table doubles at half load, which
 * keeps probes short for the few thousand keys a trace has. */
#include "index_map.h"

#include <stdlib.h>

#include "util.h"

void aw_index_map_init(struct aw_index_map *map)
{
	map->keys = NULL;
	map->values = NULL;
	map->capacity = 0;
	map->count = 0;
}

void aw_index_map_fini(struct aw_index_map *map)
{
	free(map->keys);
	free(map->values);
	aw_index_map_init(map);
}

static void aw_index_map_insert(struct aw_index_map *map, uint64_t key,
				uint32_t value)
{
	size_t i = aw_index_map_slot(key, map->capacity);
	while (map->values[i] != AW_NONE && map->keys[i] != key)
		i = (i + 1) & (map->capacity - 1);
	if (map->values[i] == AW_NONE)
		map->count++;
	map->keys[i] = key;
	map->values[i] = value;
}

static void aw_index_map_rehash(struct aw_index_map *map, size_t capacity)
{
	struct aw_index_map old = *map;
	map->keys = aw_xmalloc(capacity * sizeof(*map->keys));
	map->values = aw_xmalloc(capacity * sizeof(*map->values));
	for (size_t i = 0; i < capacity; i++)
		map->values[i] = AW_NONE;
	map->capacity = capacity;
	map->count = 0;
	for (size_t i = 0; i < old.capacity; i++)
		if (old.values[i] != AW_NONE)
			aw_index_map_insert(map, old.keys[i], old.values[i]);
	free(old.keys);
	free(old.values);
}

void aw_index_map_put(struct aw_index_map *map, uint64_t key, uint32_t value)
{
	if ((map->count + 1) * 2 > map->capacity)
		aw_index_map_rehash(map,
				    map->capacity ? map->capacity * 2 : 64);
	aw_index_map_insert(map, key, value);
}
