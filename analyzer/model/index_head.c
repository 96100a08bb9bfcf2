/* SPDX-License-Identifier: MIT */
/* Quoting a batch: its first indices kept from its first chunk, printed as
 * a list that says when it is cut. */
#include "index_head.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "util.h"

void aw_index_head_start(struct aw_index_head *head, uint32_t ordinal)
{
	memset(head, 0, sizeof(*head));
	head->any = true;
	head->ordinal = ordinal;
}

void aw_index_head_add(struct aw_index_head *head,
		       const struct aw_event_chunk *chunk, const uint32_t *u32,
		       const int64_t *i64, uint32_t count)
{
	uint64_t end = (uint64_t)chunk->offset + count;
	uint64_t total = AW_MAX((uint64_t)chunk->total, end);
	head->total = (uint32_t)AW_MIN(AW_MAX(total, head->total), UINT32_MAX);
	/* Only the chunk at offset 0 says what the batch starts with; a lost
	 * first chunk leaves the head empty rather than wrong. */
	if (chunk->offset != 0 || head->n || (!u32 && !i64))
		return;
	head->n = AW_MIN(count, AW_INDEX_HEAD_MAX);
	if (!u32) {
		memcpy(head->head, i64, head->n * sizeof(*i64));
		return;
	}
	for (uint32_t i = 0; i < head->n; i++)
		head->head[i] = (int64_t)u32[i];
}

void aw_index_head_format(const struct aw_index_head *head, char *buf,
			  size_t size)
{
	size_t used = 0;
	if (size == 0)
		return;
	buf[0] = '\0';
	if (head->n == 0) {
		snprintf(buf, size, "[?]");
		return;
	}
	for (uint32_t i = 0; i < head->n && used < size; i++)
		used += (size_t)snprintf(buf + used, size - used, "%s%" PRId64,
					 i ? ", " : "[", head->head[i]);
	if (used >= size)
		return;
	if (head->total > head->n)
		snprintf(buf + used, size - used,
			 ", ...] (%" PRIu32 " indices)", head->total);
	else
		snprintf(buf + used, size - used, "]");
}
