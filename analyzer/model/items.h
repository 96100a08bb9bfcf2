/* SPDX-License-Identifier: MIT */
/* Item fingerprints (item_fetch, xxh64 of what an IterableDataset produced):
 * kept per (process, loader, iteration) until ranks are known, then compared
 * across the workers and ranks of each epoch. */
#ifndef AW_ITEMS_H
#define AW_ITEMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "index_map.h"

/* Where one fetch's fingerprints end in its stream, and its batch: in a
 * worker the task's number in the pass (the order the loader yields). */
struct aw_item_mark {
	uint32_t batch;
	size_t end;
};

/* The fingerprints one process produced for one pass of one loader. */
struct aw_item_stream {
	uint32_t process;
	uint32_t loader_id; /* the per-process id the event carried */
	uint32_t iteration; /* ACCWATCH_UNKNOWN in spawn workers */
	int32_t worker_id;  /* -1: the main process */
	uint64_t *hashes;
	size_t n, cap;
	struct aw_item_mark *marks; /* one per fetch, in the order fetched */
	size_t n_marks, marks_cap;
	uint32_t next_of_process; /* chain of the process's streams */
	/* Resolved by aw_model_finish: where the reads count. */
	uint32_t global; /* global loader, AW_NONE: left out */
	uint32_t epoch;
	int32_t rank;
	uint32_t pass;  /* the rank's iteration it belongs to, AW_NONE */
	size_t counted; /* the first reads that count: what the loop got */
};

struct aw_item_streams {
	struct aw_item_stream *streams;
	size_t n, cap;
	struct aw_index_map first_of_process; /* process -> first stream */
};

/* Who read an item: a rank's worker, or the rank's main process (-1). */
struct aw_item_source {
	int32_t rank, worker_id, pid;
};

/* An item read by two sources, for the evidence. */
struct aw_item_example {
	uint64_t hash;
	uint32_t sources;
	struct aw_item_source first, second;
};

#define AW_ITEM_EXAMPLES 3

/* What an epoch's repeated items are (items_rate.c). */
enum aw_item_repeats {
	AW_REPEATS_NONE, /* no item read by two sources */
	/* equal items in sources that are no copies, none read twice by
	 * one source: chance */
	AW_REPEATS_CHANCE,
	/* drawn with replacement: sources read items twice themselves, and
	 * any copy among them repeats at the rate such draws give */
	AW_REPEATS_DRAWN,
	/* copies with fewer repeats inside a source than drawing with
	 * replacement gives: a replicated stream */
	AW_REPEATS_REPLICATED,
};

/* The facts the verdict comes from. A source is one worker or main process
 * stream. Under drawing with replacement a source draws an item again as
 * readily as another source does; replication hands other sources the
 * same items and no source any item twice. */
struct aw_item_rate {
	uint64_t within_pairs; /* pairs of reads of an item in one source */
	uint64_t across_pairs; /* ... in two sources */
	/* Copies: repeated items whose sources include one that read
	 * nothing but items those same sources read (its whole read is
	 * also elsewhere), judged item by item. */
	uint64_t copied_items;
	uint64_t copied_repeated; /* of them, read twice by one source */
	double copied_expected;   /* ... what drawing with replacement gives */
	double copied_chance;     /* its chance of copied_repeated or fewer */
	enum aw_item_repeats verdict;
};

/* One epoch of an iterable loader, all ranks. */
struct aw_item_epoch {
	uint64_t reads;    /* fingerprints, duplicates included */
	uint64_t distinct; /* distinct fingerprints */
	uint64_t repeated; /* distinct items read by more than one source */
	uint64_t repeated_reads; /* reads beyond the first source's */
	uint64_t across_ranks;   /* repeated items read by several ranks */
	uint64_t across_workers; /* ... by several sources of one rank */
	uint32_t sources;        /* streams (processes) in the epoch */
	struct aw_item_rate rate;
	struct aw_item_example examples[AW_ITEM_EXAMPLES];
	size_t n_examples;
};

void aw_item_streams_init(struct aw_item_streams *items);
void aw_item_streams_fini(struct aw_item_streams *items);
void aw_item_streams_add(struct aw_item_streams *items, uint32_t process,
			 uint32_t loader_id, uint32_t iteration,
			 int32_t worker_id, uint32_t batch,
			 const uint64_t *hashes, size_t count);
/* Counts, of the streams of one pass, the fetches of the `consumed` lowest
 * batch numbers (their `counted`): what the loop got of a pass it left early,
 * not what the workers had fetched ahead (their tasks are numbered in the order
 * the loader yields). */
void aw_item_streams_keep_consumed(struct aw_item_streams *items,
				   const uint32_t *streams, size_t n,
				   uint32_t consumed);

/* One read of an epoch: its fingerprint and its source (an index into the
 * epoch's streams). */
struct aw_item_read {
	uint64_t hash;
	uint32_t slot;
};

/* Below this chance, repeats are not what chance or drawing with
 * replacement gives: the rate of false replication verdicts accepted per
 * epoch. A probability, not a share of the data: the evidence needed
 * grows with the number of sources and shrinks with the repeats seen. */
#define AW_ITEM_CHANCE_LIMIT 1e-6

/* Judges the repeats of `total` reads sorted by (hash, slot), over
 * `n_sources` sources that read source_reads[s] each, source s of rank
 * source_rank[s]. */
void aw_item_rate_judge(const struct aw_item_read *reads, size_t total,
			const uint64_t *source_reads,
			const int32_t *source_rank, size_t n_sources,
			struct aw_item_rate *out);

/* Per-rank counts of one epoch, filled by aw_item_epoch_build. */
struct aw_item_rank_counts {
	int32_t rank;
	uint64_t reads, distinct;
	uint64_t repeated; /* of its distinct items, read by another source */
};

/* Compares the streams of one epoch (indices into items->streams). pids of
 * the streams' processes in `pids` (same order). Fills `counts` (one per
 * distinct rank, caller's array of n entries) and returns how many ranks. */
size_t aw_item_epoch_build(const struct aw_item_streams *items,
			   const uint32_t *streams, const int32_t *pids,
			   size_t n, struct aw_item_epoch *out,
			   struct aw_item_rank_counts *counts);

#endif
