/* SPDX-License-Identifier: MIT */
/* The first few indices of one batch or one worker fetch, and how many it
 * had: what a finding quotes of the batch a process was drawing or reading
 * when it died or hung, without keeping every batch. */
#ifndef AW_INDEX_HEAD_H
#define AW_INDEX_HEAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "event.h"

/* Indices quoted; a batch longer than this is quoted with "..." and its
 * length. */
#define AW_INDEX_HEAD_MAX 8

struct aw_index_head {
	bool any;         /* a chunk was seen */
	uint32_t ordinal; /* the batch's (or fetch's) ordinal */
	uint32_t total;   /* its length, as its chunks claim */
	uint32_t n;       /* indices known of head[] (from the first chunk) */
	int64_t head[AW_INDEX_HEAD_MAX];
};

/* Forgets the batch kept: `ordinal` is the new one, no index known yet. */
void aw_index_head_start(struct aw_index_head *head, uint32_t ordinal);
/* Takes one chunk of the batch (exactly one of u32 and i64 non-NULL, or
 * count 0): the chunk at offset 0 gives the first indices, every chunk
 * the length. */
void aw_index_head_add(struct aw_index_head *head,
		       const struct aw_event_chunk *chunk, const uint32_t *u32,
		       const int64_t *i64, uint32_t count);
/* "[161, 165, 169]", or "[161, 165, ..., 189, ...] (64 indices)" when
 * longer than what is kept; "[?]" when no index is known. */
void aw_index_head_format(const struct aw_index_head *head, char *buf,
			  size_t size);

#endif
