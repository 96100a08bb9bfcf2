/* SPDX-License-Identifier: MIT */
/* An epoch of one loader over the ranks, one cell a rank: what the model
 * derives from the passes (finish.c) and the checks judge. */
#ifndef AW_EPOCH_H
#define AW_EPOCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "index_map.h"
#include "items.h"
#include "sample_set.h"

/* One rank's part of one epoch of one loader. */
struct aw_cell {
	int32_t rank;
	int32_t pid;                     /* of the process that iterated */
	uint32_t iteration;              /* index into aw_model.iterations */
	uint32_t n_iterations;           /* >1: several processes of the rank */
	const struct aw_sample_set *set; /* what the rank consumed */
	struct aw_sample_set merged;     /* owned when n_iterations > 1 */
	uint64_t batches, drawn, samples, unique, unrepresentable;
	uint64_t prefetched_samples, lost_samples;
	uint32_t max_batch_len;
	bool complete;  /* iter_end seen */
	bool exhausted; /* and the loop ran to the end of the sampler */
	/* xxh64 of the consumed index sequence; valid when has_order (one
	 * process, indices seen). Equal hashes: the same order. */
	bool has_order;
	uint64_t order_hash;
	int64_t sampler_epoch; /* at iter_begin, -1 unknown */
	/* The Join every pass of the cell drew all its batches inside (index
	 * into aw_model.joins), AW_NONE when a pass drew outside one or the
	 * passes had different ones. */
	uint32_t join;
	/* Rebuilt from rank 0's reads by accelerate's dispatcher rule. */
	bool rebuilt;
	/* Iterable datasets: counts from item fingerprints. */
	bool from_items;
	uint64_t repeated_items; /* its items another worker or rank read */
};

/* What the ranks' differing index maps leave of the dataset at the bottom
 * of them. They cut their parts from what the innermost levels they all
 * have alike stand for (a split every rank made the same way: `parent`
 * levels of them), else from the whole of it: `holes` are the samples of
 * that in no rank's map, `outside` those of the base outside that part. */
struct aw_map_gaps {
	bool judged; /* the maps differ, every rank has one, base_len known */
	uint32_t parent;   /* levels every map has alike, innermost; 0 none */
	uint64_t cut_from; /* distinct samples of the base they are cut from */
	struct aw_index_runs holes;
	uint64_t outside;
};

struct aw_epoch {
	uint32_t epoch;        /* the iteration ordinal */
	struct aw_cell *cells; /* sorted by rank */
	size_t n_cells;
	struct aw_sample_set all; /* union over ranks, samples summed */
	uint64_t union_count;     /* distinct indices read by any rank */
	uint64_t union_in_range;  /* of those, in [0, dataset_len) */
	uint64_t samples;         /* reads, all ranks */
	uint64_t duplicates;      /* samples - union_count */
	/* Sum of per-rank unique - union_count. */
	uint64_t cross_rank_duplicates;
	int64_t missing;       /* dataset_len - union_in_range; -1 unknown */
	uint64_t out_of_range; /* distinct indices >= dataset_len */
	uint32_t max_batch_len;
	bool complete;  /* every rank's iter_end seen */
	bool exhausted; /* every rank ran to the end */
	/* A rank that read an earlier epoch of the loader has no pass in
	 * this one, and the end of a process of its earlier passes was never
	 * recorded: its trace stopped, not its reading. */
	bool rank_left_trace;
	/* Loaders over index maps (Subset, random_split, HF indices): the
	 * dataset indices their positions stand for, over the ranks; then
	 * dataset_len, missing and out_of_range are of the dataset at the
	 * bottom (base_len) and of `expected` (expected_count of them). */
	bool mapped;
	struct aw_sample_set expected;
	uint64_t expected_count;
	int64_t base_len;
	uint64_t unmapped; /* consumed positions no map told */
	/* When every rank reads through an index map and the maps differ
	 * (each rank its own part: hand-made shards, a HF shard per rank),
	 * the epoch is judged against the dataset at the bottom (base_len):
	 * missing and the coverage are of it (aw_epoch_to_cover). */
	struct aw_map_gaps gaps;
	/* Iterable datasets: fingerprints of items read by several workers or
	 * ranks (NULL: no item_fetch events). */
	struct aw_item_epoch *items;
	/* The item streams (model->items) whose reads count in this epoch, in
	 * stream order: the checks comparing two epochs' workers look here,
	 * not through every stream of the run. */
	uint32_t *item_streams;
	size_t n_item_streams;
	/* Data-parallel groups (groups.h): the epoch seen one cell per group,
	 * NULL when every rank is its own; and each cell's group. */
	struct aw_epoch *by_group;
	uint32_t *group_of; /* per cell: the replica index its chain gave */
};

/* Frees what an epoch owns: its cells' merged sets, its sets, its item
 * view and its data-parallel group view. */
void aw_epoch_fini(struct aw_epoch *epoch);

#endif
