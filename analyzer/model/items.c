/* SPDX-License-Identifier: MIT */
/* Fingerprint streams and their comparison: all reads of an epoch sorted by
 * fingerprint, then each run of equal fingerprints counted by source. */
#include "items.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

void aw_item_streams_init(struct aw_item_streams *items)
{
	memset(items, 0, sizeof(*items));
	aw_index_map_init(&items->first_of_process);
}

void aw_item_streams_fini(struct aw_item_streams *items)
{
	for (size_t i = 0; i < items->n; i++) {
		free(items->streams[i].hashes);
		free(items->streams[i].marks);
	}
	free(items->streams);
	aw_index_map_fini(&items->first_of_process);
	memset(items, 0, sizeof(*items));
}

static struct aw_item_stream *
aw_item_stream_for(struct aw_item_streams *items, uint32_t process,
		   uint32_t loader_id, uint32_t iteration, int32_t worker_id)
{
	uint32_t first = aw_index_map_get(&items->first_of_process, process);
	for (uint32_t s = first; s != AW_NONE;
	     s = items->streams[s].next_of_process) {
		struct aw_item_stream *stream = &items->streams[s];
		if (stream->loader_id == loader_id &&
		    stream->iteration == iteration)
			return stream;
	}
	AW_GROW(items->streams, items->cap, items->n + 1);
	uint32_t index = (uint32_t)items->n++;
	struct aw_item_stream *stream = &items->streams[index];
	memset(stream, 0, sizeof(*stream));
	stream->process = process;
	stream->loader_id = loader_id;
	stream->iteration = iteration;
	stream->worker_id = worker_id;
	stream->global = AW_NONE;
	stream->rank = -1;
	stream->pass = AW_NONE;
	/* Newest first: a process's events come in runs of one stream. */
	stream->next_of_process = first;
	aw_index_map_put(&items->first_of_process, process, index);
	return stream;
}

void aw_item_streams_add(struct aw_item_streams *items, uint32_t process,
			 uint32_t loader_id, uint32_t iteration,
			 int32_t worker_id, uint32_t batch,
			 const uint64_t *hashes, size_t count)
{
	struct aw_item_stream *stream =
	    aw_item_stream_for(items, process, loader_id, iteration, worker_id);
	AW_GROW(stream->hashes, stream->cap, stream->n + count);
	memcpy(stream->hashes + stream->n, hashes, count * sizeof(*hashes));
	stream->n += count;
	struct aw_item_mark *last =
	    stream->n_marks ? &stream->marks[stream->n_marks - 1] : NULL;
	if (last && last->batch == batch) {
		last->end = stream->n; /* a fetch in several events */
		return;
	}
	AW_GROW(stream->marks, stream->marks_cap, stream->n_marks + 1);
	stream->marks[stream->n_marks++] =
	    (struct aw_item_mark){.batch = batch, .end = stream->n};
}

static int aw_compare_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

void aw_item_streams_keep_consumed(struct aw_item_streams *items,
				   const uint32_t *streams, size_t n,
				   uint32_t consumed)
{
	size_t total = 0;
	for (size_t i = 0; i < n; i++)
		total += items->streams[streams[i]].n_marks;
	if (total <= consumed)
		return;
	uint32_t *batches = aw_xcalloc(total ? total : 1, sizeof(*batches));
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		const struct aw_item_stream *s = &items->streams[streams[i]];
		for (size_t m = 0; m < s->n_marks; m++)
			batches[k++] = s->marks[m].batch;
	}
	qsort(batches, total, sizeof(*batches), aw_compare_u32);
	/* Tasks are numbered once per pass: the consumed are the lowest. */
	bool none = consumed == 0;
	uint32_t last = none ? 0 : batches[consumed - 1];
	free(batches);
	for (size_t i = 0; i < n; i++) {
		struct aw_item_stream *s = &items->streams[streams[i]];
		size_t keep = 0, end = 0;
		while (!none && keep < s->n_marks &&
		       s->marks[keep].batch <= last)
			end = s->marks[keep++].end;
		s->counted = end;
	}
}

static int aw_compare_reads(const void *a, const void *b)
{
	const struct aw_item_read *x = a, *y = b;
	if (x->hash != y->hash)
		return x->hash < y->hash ? -1 : 1;
	return (x->slot > y->slot) - (x->slot < y->slot);
}

static size_t aw_rank_slot(struct aw_item_rank_counts *counts, size_t *n,
			   int32_t rank)
{
	for (size_t i = 0; i < *n; i++)
		if (counts[i].rank == rank)
			return i;
	memset(&counts[*n], 0, sizeof(counts[*n]));
	counts[*n].rank = rank;
	return (*n)++;
}

size_t aw_item_epoch_build(const struct aw_item_streams *items,
			   const uint32_t *streams, const int32_t *pids,
			   size_t n, struct aw_item_epoch *out,
			   struct aw_item_rank_counts *counts)
{
	memset(out, 0, sizeof(*out));
	out->sources = (uint32_t)n;
	size_t n_ranks = 0, total = 0;
	size_t *rank_of = aw_xcalloc(n, sizeof(*rank_of));
	for (size_t i = 0; i < n; i++) {
		const struct aw_item_stream *s = &items->streams[streams[i]];
		rank_of[i] = aw_rank_slot(counts, &n_ranks, s->rank);
		counts[rank_of[i]].reads += s->counted;
		total += s->counted;
	}
	struct aw_item_read *reads = aw_xcalloc(total, sizeof(*reads));
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		const struct aw_item_stream *s = &items->streams[streams[i]];
		for (size_t j = 0; j < s->counted; j++)
			reads[k++] =
			    (struct aw_item_read){s->hashes[j], (uint32_t)i};
	}
	qsort(reads, total, sizeof(*reads), aw_compare_reads);
	out->reads = total;
	uint64_t *source_reads = aw_xcalloc(n ? n : 1, sizeof(*source_reads));
	int32_t *source_rank = aw_xcalloc(n ? n : 1, sizeof(*source_rank));
	for (size_t i = 0; i < n; i++) {
		source_reads[i] = items->streams[streams[i]].counted;
		source_rank[i] = items->streams[streams[i]].rank;
	}
	aw_item_rate_judge(reads, total, source_reads, source_rank, n,
			   &out->rate);
	free(source_rank);
	free(source_reads);

	bool *rank_seen = aw_xcalloc(n_ranks ? n_ranks : 1, sizeof(*rank_seen));
	for (size_t i = 0; i < total;) {
		size_t j = i;
		uint32_t sources = 0, ranks = 0;
		bool two_of_a_rank = false;
		memset(rank_seen, 0, n_ranks * sizeof(*rank_seen));
		for (; j < total && reads[j].hash == reads[i].hash; j++) {
			if (j > i && reads[j].slot == reads[j - 1].slot)
				continue; /* the same source again */
			sources++;
			size_t r = rank_of[reads[j].slot];
			if (rank_seen[r])
				two_of_a_rank = true;
			else
				ranks++;
			rank_seen[r] = true;
		}
		for (size_t r = 0; r < n_ranks; r++)
			counts[r].distinct += rank_seen[r];
		out->distinct++;
		if (sources > 1) {
			for (size_t r = 0; r < n_ranks; r++)
				counts[r].repeated += rank_seen[r];
			out->repeated++;
			out->repeated_reads += sources - 1;
			out->across_ranks += ranks > 1;
			out->across_workers += two_of_a_rank;
			if (out->n_examples < AW_ITEM_EXAMPLES) {
				struct aw_item_example *e =
				    &out->examples[out->n_examples++];
				const struct aw_item_stream *a =
				    &items->streams[streams[reads[i].slot]];
				size_t second = i + 1;
				while (reads[second].slot == reads[i].slot)
					second++;
				const struct aw_item_stream *b =
				    &items
					 ->streams[streams[reads[second].slot]];
				e->hash = reads[i].hash;
				e->sources = sources;
				e->first = (struct aw_item_source){
				    a->rank, a->worker_id, pids[reads[i].slot]};
				e->second = (struct aw_item_source){
				    b->rank, b->worker_id,
				    pids[reads[second].slot]};
			}
		}
		i = j;
	}
	free(rank_seen);
	free(reads);
	free(rank_of);
	return n_ranks;
}
