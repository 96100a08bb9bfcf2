/* SPDX-License-Identifier: MIT */
/* Index maps below a loader's dataset: filled part by part, applied level
 * by level. */
#include "mapping.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

bool aw_mapping_add(struct aw_mapping *m, const struct aw_event *event,
		    uint64_t *budget)
{
	const struct aw_event_dataset_map *e = &event->u.dataset_map;
	if (e->depth >= AW_MAPPING_LEVELS_MAX || e->total == 0 ||
	    e->offset >= e->total)
		return false;
	struct aw_mapping_level *level = &m->levels[e->depth];
	if (level->n != e->total) {
		/* A first part, or one that contradicts the others: anew. */
		if (e->total > *budget)
			return false;
		*budget -= e->total;
		free(level->to);
		level->to = aw_xcalloc(e->total, sizeof(*level->to));
		memset(level->to, 0xff, (size_t)e->total * sizeof(*level->to));
		level->n = e->total;
	}
	level->base_len = e->base_len;
	level->datasets = e->kind && strcmp(e->kind, "datasets") == 0;
	free(level->own);
	level->own = e->kind && strncmp(e->kind, "own:", 4) == 0
			 ? aw_xstrdup(e->kind + 4)
			 : NULL;
	uint32_t count = AW_MIN(event->count, e->total - e->offset);
	bool wide = event->kind == AW_EVENT_DATASET_MAP_WIDE;
	for (uint32_t i = 0; i < count; i++) {
		int64_t to =
		    wide ? event->values.i64[i] : (int64_t)event->values.u32[i];
		level->to[e->offset + i] = to >= 0 ? (uint64_t)to : AW_UNMAPPED;
	}
	m->n_levels = AW_MAX(m->n_levels, e->depth + 1);
	return true;
}

void aw_mapping_free(struct aw_mapping *m)
{
	if (!m)
		return;
	for (uint32_t i = 0; i < AW_MAPPING_LEVELS_MAX; i++) {
		free(m->levels[i].to);
		free(m->levels[i].own);
	}
	free(m);
}

const struct aw_mapping_level *aw_mapping_own(const struct aw_mapping *m)
{
	for (uint32_t i = 0; m && i < m->n_levels; i++)
		if (m->levels[i].own)
			return &m->levels[i];
	return NULL;
}

/* A position of level `from` through the levels below it. */
static uint64_t aw_mapping_apply_from(const struct aw_mapping *m, uint32_t from,
				      uint64_t position)
{
	for (uint32_t i = from; i < m->n_levels; i++) {
		const struct aw_mapping_level *level = &m->levels[i];
		if (!level->to || position >= level->n)
			return AW_UNMAPPED;
		position = level->to[position];
		if (position == AW_UNMAPPED)
			return AW_UNMAPPED;
	}
	return position;
}

uint64_t aw_mapping_apply(const struct aw_mapping *m, uint64_t position)
{
	return aw_mapping_apply_from(m, 0, position);
}

void aw_mapping_image(const struct aw_mapping *m, struct aw_sample_set *out)
{
	aw_mapping_image_from(m, 0, out);
}

void aw_mapping_image_from(const struct aw_mapping *m, uint32_t from,
			   struct aw_sample_set *out)
{
	if (from >= m->n_levels)
		return;
	uint64_t chunk[1024];
	uint32_t n = 0;
	for (uint32_t p = 0; p < m->levels[from].n; p++) {
		uint64_t to = aw_mapping_apply_from(m, from, p);
		if (to == AW_UNMAPPED)
			continue;
		chunk[n++] = to;
		if (n == sizeof(chunk) / sizeof(chunk[0])) {
			aw_sample_set_add64(out, chunk, n);
			n = 0;
		}
	}
	aw_sample_set_add64(out, chunk, n);
}

int64_t aw_mapping_base_len(const struct aw_mapping *m)
{
	return m->n_levels ? m->levels[m->n_levels - 1].base_len : -1;
}

/* Whether two levels send every position to the same index. */
static bool aw_mapping_level_equal(const struct aw_mapping_level *x,
				   const struct aw_mapping_level *y)
{
	return x->n == y->n && x->to && y->to &&
	       memcmp(x->to, y->to, (size_t)x->n * sizeof(*x->to)) == 0;
}

uint32_t aw_mapping_common_levels(const struct aw_mapping *a,
				  const struct aw_mapping *b)
{
	uint32_t k = 0;
	while (k < a->n_levels && k < b->n_levels) {
		const struct aw_mapping_level
		    *x = &a->levels[a->n_levels - 1 - k],
		    *y = &b->levels[b->n_levels - 1 - k];
		if (x->base_len != y->base_len || !aw_mapping_level_equal(x, y))
			break;
		k++;
	}
	return k;
}

const struct aw_mapping_level *aw_mapping_parting(const struct aw_mapping *a,
						  const struct aw_mapping *b)
{
	uint32_t common = aw_mapping_common_levels(a, b);
	if (common >= a->n_levels)
		return NULL;
	return &a->levels[a->n_levels - 1 - common];
}

bool aw_mapping_equal(const struct aw_mapping *a, const struct aw_mapping *b)
{
	if (a->n_levels != b->n_levels)
		return false;
	for (uint32_t i = 0; i < a->n_levels; i++) {
		if (!aw_mapping_level_equal(&a->levels[i], &b->levels[i]))
			return false;
	}
	return true;
}
