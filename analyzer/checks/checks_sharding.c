/* SPDX-License-Identifier: MIT */
/* The sharding checks, per loader and epoch: every rank reading all
 * (unsharded), ranks holding different subsets or orders (split-diverged,
 * order-diverged), ranks sharing samples beyond padding (overlap,
 * padding) and coverage (missing). Balance is checks_uneven.c's, the
 * ranks of a data-parallel group checks_groups.c's, bounds
 * checks_bounds.c's. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks_private.h"
#include "lineage.h"
#include "util.h"

/* A dispatched loader whose shares could not be rebuilt: its ranks' own
 * draws only primed an iterator, they say nothing about sharding; or the
 * remainder of a sharded loader, read on every rank on purpose
 * (shared-remainder says so). */
/* A rank drew batches of which the trace holds no index: keys a map-style
 * dataset takes that are not integers (strings, floats: legal in torch),
 * which the recorder cannot place among the dataset's samples. */
static bool aw_epoch_unindexed(const struct aw_check_input *in)
{
	if (in->loader->dispatched)
		return false;
	for (size_t c = 0; c < in->epoch->n_cells; c++) {
		const struct aw_cell *cell = &in->epoch->cells[c];
		const struct aw_iteration *it =
		    &in->model->iterations[cell->iteration];
		if (cell->complete && cell->samples == 0 && it->yielded > 0 &&
		    it->batches_seen == 0 && !cell->from_items)
			return true;
	}
	return false;
}

bool aw_unjudgeable(const struct aw_check_input *in)
{
	return (in->loader->dispatched && !in->loader->rebuilt) ||
	       aw_epoch_is_remainder(in) || aw_epoch_unindexed(in);
}

/* Each rank's distinct samples as a part of `whole` (of_what names it). */
static void aw_evidence_shares(struct aw_finding *f, const struct aw_epoch *e,
			       uint64_t whole, const char *of_what)
{
	for (size_t c = 0; c < e->n_cells && c < AW_EVIDENCE_RANKS; c++)
		aw_finding_add_evidence(
		    f, "rank %d: %" PRIu64 " distinct samples, %.1f%% of %s",
		    e->cells[c].rank, e->cells[c].unique,
		    aw_percent(e->cells[c].unique, whole), of_what);
	aw_evidence_more(f, e);
}

/* No rank of the epoch initialised torch.distributed (no dist_init). */
static bool aw_epoch_without_group(const struct aw_check_input *in)
{
	const struct aw_epoch *e = in->epoch;
	for (size_t c = 0; c < e->n_cells; c++)
		if (aw_model_cell_process(in->model, &e->cells[c])
			->dist_world_size >= 1)
			return false;
	return e->n_cells > 0;
}

/* unsharded's fix, for what the program has: a stream to split, one shard
 * everyone was given, a loader prepare() built for fewer processes than
 * the ranks, processes that never joined a process group, or no sharding
 * at all. */
static void aw_unsharded_fix(const struct aw_check_input *in,
			     struct aw_finding *f)
{
	int32_t shard;
	const struct aw_cell *a, *b;
	bool accelerate = aw_model_uses_accelerate(in->model);
	const struct aw_loader *wrap = aw_loader_wrap(in->model, in->desc);
	if (wrap && wrap->wrap_num_processes >= 1 &&
	    (uint64_t)wrap->wrap_num_processes < in->world)
		aw_finding_set_fix(
		    f,
		    "this loader came out of accelerator.prepare(), which "
		    "built it for %d process%s (process_index %d) while "
		    "%" PRIu64
		    " ranks read it: the processes did not join one job. Start "
		    "them with `accelerate launch` or torchrun, and check that "
		    "Accelerator() sees num_processes=%" PRIu64
		    " (a backend that spans the processes: gloo on CPU)",
		    wrap->wrap_num_processes,
		    wrap->wrap_num_processes == 1 ? "" : "es",
		    wrap->wrap_process_index, in->world, in->world);
	else if (in->desc->iterable)
		aw_finding_set_fix(
		    f,
		    "split the stream by rank: in the IterableDataset's "
		    "__iter__, keep every %" PRIu64
		    "-th item from torch.distributed.get_rank() on (and by "
		    "get_worker_info() inside workers), or shard the source "
		    "with datasets' split_dataset_by_node(ds, rank, "
		    "world_size=%" PRIu64 ")",
		    in->world, in->world);
	else if (aw_epoch_maps_differ(in, &a, &b))
		aw_finding_set_fix(
		    f,
		    "the ranks' own index maps (Subset, ConcatDataset, a HF "
		    "dataset's shard or select) hold samples in common: make "
		    "them disjoint parts of the data, for every dataset a rank "
		    "concatenates, or give every rank the same dataset under "
		    "DistributedSampler(dataset, num_replicas=%" PRIu64
		    ", rank=r)",
		    in->world);
	else if (aw_ranks_share_one_shard(in, &shard))
		aw_finding_set_fix(
		    f,
		    "give each rank its own shard: DistributedSampler(dataset, "
		    "num_replicas=%" PRIu64
		    ", rank=<its own rank>), or leave both out and let it read "
		    "them from torch.distributed; every rank passed rank=%d",
		    in->world, shard);
	else if (aw_epoch_without_group(in))
		aw_finding_set_fix(
		    f,
		    "no rank initialised torch.distributed (no "
		    "init_process_group, no Accelerator spanning the "
		    "processes): the %" PRIu64
		    " processes each train alone on the whole data. Make them "
		    "one job: torch.distributed.init_process_group() in each "
		    "(under torchrun), then DistributedSampler(dataset) and "
		    "DistributedDataParallel; or run one process",
		    in->world);
	else if (accelerate)
		aw_finding_set_fix(f,
				   "pass the loader through "
				   "accelerator.prepare() and iterate what it "
				   "returns, or shard it with "
				   "DistributedSampler(dataset, "
				   "num_replicas=%" PRIu64 ", rank=r)",
				   in->world);
	else
		aw_finding_set_fix(
		    f,
		    "shard the data: use "
		    "DistributedSampler(dataset, num_replicas=%" PRIu64
		    ", rank=r) and call set_epoch() each epoch",
		    in->world);
}

void aw_check_unsharded(const struct aw_check_input *in,
			struct aw_findings *out)
{
	const struct aw_epoch *e = in->epoch;
	if (aw_unjudgeable(in) || !aw_epoch_unsharded(in))
		return;
	const struct aw_cell *least = &e->cells[0];
	for (size_t c = 1; c < e->n_cells; c++)
		if (e->cells[c].unique < least->unique)
			least = &e->cells[c];
	struct aw_finding *f =
	    aw_epoch_finding(in, out, "unsharded", AW_SEVERITY_ERROR);
	aw_add_all_ranks(f, e);
	aw_finding_add_integer(f, "least_rank_unique", (int64_t)least->unique);
	aw_finding_add_integer(f, "cross_rank_duplicates",
			       (int64_t)e->cross_rank_duplicates);
	/* The same part for all, or the whole: the union against the data. */
	int64_t n = aw_epoch_to_cover(in->desc, in->epoch);
	struct aw_text what = {0};
	if (n > 0 &&
	    e->union_in_range * 100 < (uint64_t)n * AW_UNSHARDED_PERCENT)
		aw_text_add(&what,
			    "every rank reads the same %.1f%% of the %" PRId64
			    " samples instead of a 1/%" PRIu64 " share of its "
			    "own",
			    aw_percent(e->union_in_range, (uint64_t)n), n,
			    in->world);
	else
		aw_text_add(&what,
			    "every rank goes through the whole data instead "
			    "of a 1/%" PRIu64 " share",
			    in->world);
	const struct aw_cell *open = aw_epoch_cut(in->model, e);
	if (open && aw_epoch_one_sequence(in))
		aw_finding_set_message(
		    f,
		    "epoch %u was cut short (rank %d's pass did not end "
		    "with its sampler), and every one of the %" PRIu64
		    " ranks drew the same first batch from a sampler chain "
		    "that does not split the data: each goes through the "
		    "sequence all the others read (%" PRIu64
		    " distinct samples between them so far, rank %d %.1f%% "
		    "of them) instead of a 1/%" PRIu64 " share",
		    e->epoch, open->rank, in->world, e->union_count,
		    least->rank, aw_percent(least->unique, e->union_count),
		    in->world);
	else if (least->unique * 100 < e->union_count * AW_UNSHARDED_PERCENT)
		aw_finding_set_message(
		    f,
		    "no rank's sampler chain splits the data, and the %" PRIu64
		    " ranks read %" PRIu64 " samples another rank also read "
		    "in epoch %u (%" PRIu64 " distinct between them so far, "
		    "rank %d %.1f%% of them): each draws from the whole data "
		    "instead of a 1/%" PRIu64 " share",
		    in->world, e->cross_rank_duplicates, e->epoch,
		    e->union_count, least->rank,
		    aw_percent(least->unique, e->union_count), in->world);
	else
		aw_finding_set_message(
		    f,
		    "each of the %" PRIu64
		    " ranks read at least %d%% of the %" PRIu64
		    " distinct samples of epoch %u (least: rank %d, %.1f%%): "
		    "%s",
		    in->world, AW_UNSHARDED_PERCENT, e->union_count, e->epoch,
		    least->rank, aw_percent(least->unique, e->union_count),
		    aw_text_str(&what));
	aw_text_fini(&what);
	aw_evidence_shares(f, e, e->union_count, "the union");
	aw_evidence_sampler(f, in);
	aw_unsharded_fix(in, f);
}

/* Per-rank shared counts of an epoch, in cell order (caller frees). */
static uint64_t *aw_epoch_shared(const struct aw_epoch *e, uint64_t *repeated)
{
	const struct aw_sample_set **sets =
	    aw_xcalloc(e->n_cells, sizeof(*sets));
	uint64_t *shared = aw_xcalloc(e->n_cells, sizeof(*shared));
	for (size_t c = 0; c < e->n_cells; c++)
		sets[c] = e->cells[c].set;
	*repeated = aw_sample_sets_shared(sets, e->n_cells, shared);
	free(sets);
	return shared;
}

/* The finding's ranks are those sharing samples; evidence per rank and, for
 * a few ranks, per pair. */
static void aw_evidence_sharing(struct aw_finding *f, const struct aw_epoch *e)
{
	uint64_t repeated = 0;
	uint64_t *shared = aw_epoch_shared(e, &repeated);
	aw_finding_add_integer(f, "samples_on_several_ranks",
			       (int64_t)repeated);
	size_t shown = 0;
	for (size_t c = 0; c < e->n_cells; c++) {
		if (!shared[c])
			continue;
		aw_finding_add_rank(f, e->cells[c].rank);
		if (shown++ < AW_EVIDENCE_RANKS)
			aw_finding_add_evidence(
			    f,
			    "rank %d: %" PRIu64 " of its %" PRIu64
			    " distinct samples also read by another rank",
			    e->cells[c].rank, shared[c], e->cells[c].unique);
	}
	if (e->n_cells <= AW_PAIRWISE_RANKS_MAX) {
		for (size_t a = 0; a < e->n_cells; a++)
			for (size_t b = a + 1; b < e->n_cells; b++) {
				uint64_t both = aw_sample_set_overlap(
				    e->cells[a].set, e->cells[b].set);
				if (both)
					aw_finding_add_evidence(
					    f,
					    "ranks %d and %d: %" PRIu64
					    " sample%s in common",
					    e->cells[a].rank, e->cells[b].rank,
					    both, both == 1 ? "" : "s");
			}
	}
	free(shared);
}

/* overlap and padding: the epoch's reads shared across ranks, against the
 * padding the data path adds, are their numbers. */
static struct aw_finding *aw_sharing_finding(const struct aw_check_input *in,
					     struct aw_findings *out,
					     const char *id,
					     enum aw_severity severity,
					     const struct aw_padding *pad)
{
	struct aw_finding *f = aw_epoch_finding(in, out, id, severity);
	aw_finding_add_integer(f, "cross_rank_duplicates",
			       (int64_t)in->epoch->cross_rank_duplicates);
	aw_finding_add_integer(f, "padding", (int64_t)pad->samples);
	return f;
}

/* Where the epoch's padding comes from, in one clause. */
static void aw_padding_source(const struct aw_check_input *in,
			      const struct aw_padding *pad, struct aw_text *out)
{
	const struct aw_loader *d = in->desc;
	if (!pad->derived) {
		aw_text_add(out,
			    "the trace has no sampler chain (an older "
			    "recorder): up to W*B-1 = %" PRIu64 " (W=%" PRIu64
			    ", B=%" PRIu64
			    ") that DistributedSampler or even_batches could "
			    "add",
			    pad->samples, in->world, in->batch_size);
		return;
	}
	if (pad->dispatcher) {
		aw_text_add(out,
			    "accelerate's dispatcher gave %" PRIu64
			    " of the epoch's first samples again to complete "
			    "its last step",
			    pad->samples);
		return;
	}
	if (pad->samples == 0) {
		aw_text_add(out, "no sampler of this loader pads: %s",
			    pad->shards ? "its sharding sampler has nothing to "
					  "add: the data divides evenly, or "
					  "drop_last drops the rest"
			    : d->n_chain ? "its chain has no sharding sampler"
					 : "its chain is not known");
		return;
	}
	const char *and = "";
	if (pad->sampler && pad->stated) {
		const char *name = pad->stated->class_name;
		const char *dot = strrchr(name, '.');
		aw_text_add(
		    out,
		    "%s states total_size=%" PRId64 " draws for N=%" PRId64
		    " samples (num_samples=%" PRId64 " per rank): %" PRIu64
		    " samples are drawn again",
		    dot ? dot + 1 : name, pad->stated->total_size,
		    d->dataset_len, pad->stated->num_samples, pad->sampler);
		and = "; and ";
	} else if (pad->sampler) {
		aw_text_add(
		    out,
		    "DistributedSampler(drop_last=False) repeats %" PRIu64
		    " of the first samples of its order so that every "
		    "rank gets ceil(N/W) (N=%" PRId64 ")",
		    pad->sampler, d->dataset_len);
		and = "; and ";
	}
	if (pad->even_batches)
		aw_text_add(out,
			    "%saccelerate's even_batches=True completes the "
			    "last round of batches with %" PRIu64
			    " of the epoch's first samples",
			    and, pad->even_batches);
}

/* The samples an epoch's index maps (or dataset) hold that no rank read:
 * of what the maps cover, also when the epoch is judged against the
 * dataset below them. */
static int64_t aw_unread_of_maps(const struct aw_epoch *e)
{
	return e->mapped
		   ? (int64_t)e->expected_count - (int64_t)e->union_in_range
		   : e->missing;
}

/* A finding of the one cause of an epoch's overlap and gaps: every rank,
 * both numbers; a warning when the ranks' maps are a dataset's of the
 * program's own (the caller adds aw_evidence_own_map). */
static struct aw_finding *aw_cause_finding(const struct aw_check_input *in,
					   struct aw_findings *out,
					   const char *id)
{
	const struct aw_epoch *e = in->epoch;
	struct aw_finding *f = aw_epoch_finding(
	    in, out, id,
	    aw_epoch_own_map(in) ? AW_SEVERITY_WARNING : AW_SEVERITY_ERROR);
	aw_add_all_ranks(f, e);
	aw_finding_add_integer(f, "cross_rank_duplicates",
			       (int64_t)e->cross_rank_duplicates);
	aw_finding_add_integer(f, "missing", aw_unread_of_maps(e));
	return f;
}

/* The cause that explains the epoch's overlap and gaps, when one does. */
static bool aw_one_cause(const struct aw_check_input *in)
{
	const struct aw_cell *a, *b;
	return aw_epoch_split_diverged(in, &a, &b) ||
	       aw_epoch_order_diverged(in, &a, &b);
}

void aw_check_split_diverged(const struct aw_check_input *in,
			     struct aw_findings *out)
{
	const struct aw_epoch *e = in->epoch;
	const struct aw_cell *a, *b;
	if (aw_unjudgeable(in) || aw_epoch_unsharded(in) ||
	    !aw_epoch_split_diverged(in, &a, &b))
		return;
	struct aw_finding *f = aw_cause_finding(in, out, "split-diverged");
	aw_finding_set_message(
	    f,
	    "the ranks hold different subsets of the dataset (rank %d's and "
	    "rank %d's index maps differ), and each cuts its %s "
	    "shard out of its own: %" PRIu64 " reads overlap and %" PRId64
	    " of the %" PRIu64 " samples the subsets cover are never read in "
	    "epoch %u",
	    a->rank, b->rank,
	    aw_short_class(aw_shard_link(in->desc)->class_name),
	    e->cross_rank_duplicates, AW_MAX(aw_unread_of_maps(e), 0),
	    e->expected_count, e->epoch);
	aw_evidence_shares(f, e, e->expected_count,
			   "the samples the ranks' subsets cover");
	const struct aw_mapping_level *part =
	    aw_mapping_parting(aw_model_cell_mapping(in->model, a),
			       aw_model_cell_mapping(in->model, b));
	if (part && part->own)
		aw_finding_set_fix(
		    f,
		    "shard once: a part of its own for each rank (the list "
		    "`%s`) and %s over it split the data twice; keep the "
		    "whole dataset under the sampler, or each rank's part "
		    "without it",
		    aw_own_map_name(part),
		    aw_short_class(aw_shard_link(in->desc)->class_name));
	else if (part && part->datasets)
		aw_finding_set_fix(
		    f, "split once, the same way on every rank: give the HF "
		       "datasets split or shuffle one seed on every rank "
		       "(train_test_split(..., seed=<one number>), "
		       "shuffle(seed=<one number>)), or split before the "
		       "processes start");
	else
		aw_finding_set_fix(
		    f, "split once, the same way on every rank: "
		       "random_split(dataset, lengths, "
		       "generator=torch.Generator().manual_seed(<one "
		       "number>)), or split before the processes start");
	const struct aw_mapping_level *own_map = aw_epoch_own_map(in);
	if (own_map)
		aw_evidence_own_map(f, own_map, NULL);
}

void aw_check_order_diverged(const struct aw_check_input *in,
			     struct aw_findings *out)
{
	const struct aw_epoch *e = in->epoch;
	const struct aw_cell *a, *b;
	if (aw_unjudgeable(in) || aw_epoch_unsharded(in) ||
	    aw_epoch_split_diverged(in, &a, &b) ||
	    !aw_epoch_order_diverged(in, &a, &b))
		return;
	const struct aw_iteration *ia = &in->model->iterations[a->iteration];
	const struct aw_iteration *ib = &in->model->iterations[b->iteration];
	struct aw_finding *f = aw_cause_finding(in, out, "order-diverged");
	bool seeds = ia->seed != ib->seed;
	const struct aw_sampler_link *shuffler = aw_shuffling_link(in->desc);
	bool own = shuffler->num_replicas >= 1 && shuffler->rank >= 0;
	aw_finding_set_message(
	    f,
	    "the ranks' %ss drew different permutations in "
	    "epoch %u (rank %d: %s %" PRId64 ", rank %d: %" PRId64
	    "): their shards overlap by %" PRIu64 " reads and leave %" PRId64
	    " samples unread, where one shared permutation cuts disjoint "
	    "shards",
	    aw_short_class(shuffler->class_name), e->epoch, a->rank,
	    seeds ? "seed" : "set_epoch", seeds ? ia->seed : ia->sampler_epoch,
	    b->rank, seeds ? ib->seed : ib->sampler_epoch,
	    e->cross_rank_duplicates, AW_MAX(aw_unread_of_maps(e), 0));
	for (size_t c = 0; c < e->n_cells && c < AW_EVIDENCE_RANKS; c++) {
		const struct aw_iteration *it =
		    &in->model->iterations[e->cells[c].iteration];
		aw_finding_add_evidence(f,
					"rank %d: seed %" PRId64
					", epoch %" PRId64 ", %" PRIu64
					" distinct samples",
					e->cells[c].rank, it->seed,
					it->sampler_epoch, e->cells[c].unique);
	}
	aw_evidence_more(f, e);
	if (seeds && !own)
		aw_finding_set_fix(
		    f,
		    "seed the shuffling sampler (%s) with one number on every "
		    "rank: its permutation comes from %s%s",
		    aw_short_class(shuffler->class_name),
		    "a generator seeded per process (the process's default "
		    "one when it has none): "
		    "RandomSampler(generator=torch.Generator().manual_seed(<"
		    "one "
		    "number>))",
		    aw_model_uses_accelerate(in->model)
			? ", or accelerate.utils.set_seed(<one number>) on "
			  "every rank before prepare()"
			: "");
	else
		aw_finding_set_fix(
		    f, seeds ? "pass the same seed to DistributedSampler on "
			       "every rank (seed=<one number>, not one drawn "
			       "per rank), and shuffle with set_epoch(epoch)"
			     : "call sampler.set_epoch(epoch) with the same "
			       "epoch on every rank before each epoch");
	const struct aw_mapping_level *own_map = aw_epoch_own_map(in);
	if (own_map)
		aw_evidence_own_map(f, own_map, NULL);
}

/* The links of the chain that cut a rank's part (num_replicas, rank). */
static uint32_t aw_shard_links(const struct aw_loader *d)
{
	uint32_t n = 0;
	for (uint32_t i = 0; i < d->n_chain; i++)
		n += aw_link_cuts(&d->chain[i]);
	return n;
}

/* A link below the chain's sharding link that may draw another order on
 * each rank (it shuffles, or draws with code of its own): the sharding
 * link cuts the ranks' parts out of what it yields. NULL none. */
static const struct aw_sampler_link *aw_order_source(const struct aw_loader *d)
{
	bool below = false;
	for (uint32_t i = 0; i < d->n_chain; i++) {
		const struct aw_sampler_link *l = &d->chain[i];
		if (!l->seen)
			continue;
		if (below && (l->shuffle == 1 || l->own_iter == 1))
			return l;
		below |= aw_link_cuts(l);
	}
	return NULL;
}

/* The fix of ranks whose shares overlap or leave samples out though the
 * chain shards: by what the chain has. Sharded twice: keep one; sharded
 * once over a link that may order each rank apart: one order for all;
 * else `fallback`. */
static void aw_sharing_fix(const struct aw_check_input *in,
			   struct aw_finding *f, const char *fallback)
{
	const struct aw_sampler_link *source = aw_order_source(in->desc);
	uint32_t shards = aw_shard_links(in->desc);
	if (shards == 1 && source)
		aw_finding_set_fix(
		    f,
		    "draw one order on every rank: %s cuts each rank's part "
		    "out of what %s yields, so ranks whose %s orders differ "
		    "read overlapping parts and leave samples out; seed it "
		    "(its generator) with one number on every rank%s",
		    aw_short_class(aw_shard_link(in->desc)->class_name),
		    aw_short_class(source->class_name),
		    aw_short_class(source->class_name),
		    aw_model_uses_accelerate(in->model)
			? " (accelerate.utils.set_seed(<one number>) on every "
			  "rank before the loader is built)"
			: "");
	else if (shards >= 2)
		aw_finding_set_fix(
		    f,
		    "shard exactly once: %u links of the chain each cut a "
		    "rank's part (%s ...); keep one, DistributedSampler with "
		    "num_replicas=%" PRIu64 " or accelerator.prepare(), not "
		    "both",
		    shards, aw_short_class(aw_shard_link(in->desc)->class_name),
		    in->world);
	else
		aw_finding_set_fix(f, "%s", fallback);
}

void aw_check_overlap(const struct aw_check_input *in, struct aw_findings *out)
{
	const struct aw_epoch *e = in->epoch;
	struct aw_padding pad = aw_epoch_padding(in);
	/* Ranks drawing with replacement share samples by chance; so do
	 * equal items of an IterableDataset, when no copy explains them. */
	if (in->world < 2 || e->cross_rank_duplicates <= pad.samples ||
	    aw_epoch_items_by_chance(in, false) || aw_epoch_unsharded(in) ||
	    aw_unjudgeable(in) || aw_one_cause(in) ||
	    !aw_epoch_coverage(in).promised)
		return;
	const struct aw_sampler_link *own = aw_epoch_own_rule_link(in);
	const struct aw_mapping_level *own_map = aw_epoch_own_map(in);
	struct aw_finding *f = aw_sharing_finding(
	    in, out, "overlap",
	    own || own_map ? AW_SEVERITY_WARNING : AW_SEVERITY_ERROR, &pad);
	struct aw_text source = {0};
	aw_padding_source(in, &pad, &source);
	if (pad.samples)
		aw_finding_set_message(
		    f,
		    "%" PRIu64 " reads in epoch %u were of samples another "
		    "rank also read, more than the %" PRIu64
		    " the data path pads with (%s)",
		    e->cross_rank_duplicates, e->epoch, pad.samples,
		    aw_text_str(&source));
	else
		aw_finding_set_message(f,
				       "%" PRIu64 " reads in epoch %u were of "
				       "samples another rank also read, and "
				       "none of them is padding (%s)",
				       e->cross_rank_duplicates, e->epoch,
				       aw_text_str(&source));
	aw_text_fini(&source);
	aw_evidence_sharing(f, e);
	aw_evidence_sampler(f, in);
	if (own)
		aw_evidence_own_rule(f, in, own, "overlap");
	else if (own_map)
		aw_evidence_own_map(f, own_map, "overlap");
	else if (in->desc->iterable || !aw_model_uses_accelerate(in->model))
		aw_unsharded_fix(in, f);
	else {
		char *fallback = aw_xasprintf(
		    "give every rank its own shard: "
		    "DistributedSampler(dataset, num_replicas=%" PRIu64
		    ", rank=<its rank>) with the same seed on all ranks "
		    "and set_epoch() on each, or accelerator.prepare() "
		    "alone, not both",
		    in->world);
		aw_sharing_fix(in, f, fallback);
		free(fallback);
	}
}

void aw_check_padding(const struct aw_check_input *in, struct aw_findings *out)
{
	const struct aw_epoch *e = in->epoch;
	struct aw_padding pad = aw_epoch_padding(in);
	if (in->world < 2 || e->cross_rank_duplicates == 0 ||
	    e->cross_rank_duplicates > pad.samples || aw_unjudgeable(in) ||
	    aw_epoch_items_by_chance(in, false))
		return;
	struct aw_finding *f =
	    aw_sharing_finding(in, out, "padding", AW_SEVERITY_INFO, &pad);
	struct aw_text source = {0};
	aw_padding_source(in, &pad, &source);
	aw_finding_set_message(
	    f,
	    "%" PRIu64 " read%s in epoch %u repeated samples of another "
	    "rank: not a duplication bug, padding (%s)",
	    e->cross_rank_duplicates, e->cross_rank_duplicates == 1 ? "" : "s",
	    e->epoch, aw_text_str(&source));
	aw_text_fini(&source);
	aw_evidence_sharing(f, e);
	if (aw_model_uses_accelerate(in->model))
		aw_finding_set_fix(f, "nothing to change for training; for "
				      "evaluation metrics drop the repeated "
				      "samples with "
				      "accelerator.gather_for_metrics()");
	else
		aw_finding_set_fix(f,
				   "nothing to change for training; for "
				   "evaluation metrics count each sample "
				   "once (the last %" PRIu64
				   " reads repeat the first ones)",
				   pad.samples);
}

/* Samplers that by design read only part of the dataset. */
/* Without a recorded chain: a subset sampler or a weighted one (with
 * replacement, as WeightedRandomSampler defaults to) promises no coverage,
 * as far as its class tells. */
static bool aw_sampler_subsets(const struct aw_loader *d)
{
	const char *names[] = {d->sampler_class, d->batch_sampler_class};
	for (size_t i = 0; i < 2; i++)
		if (names[i] && (strstr(names[i], "Subset") ||
				 strstr(names[i], "Weighted")))
			return true;
	return false;
}

/* What the chain leaves out, in one clause ("" when nothing). */
static void aw_left_out(const struct aw_coverage *c, struct aw_text *out)
{
	const char *sep = "";
	const struct {
		uint64_t n;
		const char *what;
	} parts[] = {
	    {c->by_subset, "drawn from a subset"},
	    {c->by_drop_last, "dropped by drop_last"},
	    {c->by_skip, "skipped by skip_first_batches"},
	    {c->by_unknown_batches, "one batch per rank a batch sampler of "
				    "its own may drop"},
	};
	for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
		if (!parts[i].n)
			continue;
		aw_text_add(out, "%s%" PRIu64 " %s", sep, parts[i].n,
			    parts[i].what);
		sep = ", ";
	}
}

/* "samples 88-99", "samples 3, 10-14 and 20-29, and 5 more runs": indices
 * as a finding names them. */
static void aw_runs_text(const struct aw_index_runs *runs, struct aw_text *out)
{
	uint64_t shown = AW_MIN(runs->n_runs, (uint64_t)AW_INDEX_RUNS_KEPT);
	aw_text_add(out, "sample%s ", runs->count == 1 ? "" : "s");
	for (uint64_t i = 0; i < shown; i++) {
		const char *sep = i == 0                  ? ""
				  : i + 1 == runs->n_runs ? " and "
							  : ", ";
		if (runs->first[i] == runs->last[i])
			aw_text_add(out, "%s%" PRIu64, sep, runs->first[i]);
		else
			aw_text_add(out, "%s%" PRIu64 "-%" PRIu64, sep,
				    runs->first[i], runs->last[i]);
	}
	if (runs->n_runs > shown)
		aw_text_add(out, ", and %" PRIu64 " more run%s",
			    runs->n_runs - shown,
			    runs->n_runs - shown == 1 ? "" : "s");
}

/* What the part every rank's maps share is, in a few words. */
#define AW_SHARED_PART                                                         \
	"the part every rank's index maps share below their own (a Subset or " \
	"a split made alike on every rank)"

/* The reasons an epoch's samples were never read, for missing's message:
 * the ranks' differing index maps leave some out of what they are cut
 * from (holes) or of the base (outside a shared part), and the ranks did
 * not read all that their maps cover (reads_short). */
static void aw_missing_reasons(const struct aw_check_input *in,
			       const struct aw_coverage *cover,
			       bool reads_short, int64_t unread,
			       struct aw_text *why)
{
	const struct aw_map_gaps *gaps = &in->epoch->gaps;
	const char *sep = "";
	if (gaps->judged && gaps->holes.count) {
		struct aw_text runs = {0};
		aw_runs_text(&gaps->holes, &runs);
		aw_text_add(why,
			    "%" PRIu64 " %s in no rank's index map (%s), left "
			    "out of the %" PRIu64 " samples the ranks' "
			    "differing maps are cut from (%s)",
			    gaps->holes.count,
			    gaps->holes.count == 1 ? "is" : "are",
			    aw_text_str(&runs), gaps->cut_from,
			    gaps->parent ? AW_SHARED_PART
					 : "the whole dataset below them");
		aw_text_fini(&runs);
		sep = "; ";
	}
	if (reads_short) {
		aw_text_add(why, "%s", sep);
		if (gaps->judged)
			aw_text_add(why,
				    "%" PRId64 " of the samples the maps cover "
				    "were never read, ",
				    unread);
		if (cover->derived) {
			aw_text_add(why,
				    "more than the %" PRIu64
				    " its sampler chain leaves out",
				    cover->left_out);
			struct aw_text parts = {0};
			aw_left_out(cover, &parts);
			if (*aw_text_str(&parts))
				aw_text_add(why, " (%s)", aw_text_str(&parts));
			aw_text_fini(&parts);
		} else {
			aw_text_add(why,
				    "more than drop_last explains (at most "
				    "%" PRIu64 ")",
				    cover->left_out);
		}
		sep = "; ";
	}
	if (gaps->judged && gaps->outside)
		aw_text_add(why,
			    "%s%" PRIu64 " %s outside the %" PRIu64
			    " samples of %s, which leaves them to another "
			    "loader (a validation split?)",
			    sep, gaps->outside,
			    gaps->outside == 1 ? "is" : "are", gaps->cut_from,
			    AW_SHARED_PART);
}

void aw_check_missing(const struct aw_check_input *in, struct aw_findings *out)
{
	const struct aw_epoch *e = in->epoch;
	const struct aw_loader *d = in->desc;
	const struct aw_map_gaps *gaps = &e->gaps;
	/* Only full epochs: a loop that stops early (max_steps, break) reads
	 * less by design, and a rank that died says nothing about coverage. */
	int64_t expected = aw_epoch_to_cover(in->desc, in->epoch);
	if (expected <= 0 || d->iterable || !e->exhausted ||
	    aw_unjudgeable(in) || aw_one_cause(in) || e->rank_left_trace)
		return;
	/* What the ranks read of what their maps (or the dataset) hold,
	 * against what the chain leaves out; no promise with replacement. */
	struct aw_coverage cover = aw_epoch_coverage(in);
	int64_t unread =
	    e->mapped ? (int64_t)e->expected_count - (int64_t)e->union_in_range
		      : e->missing;
	bool reads_short = cover.promised &&
			   !(!cover.derived && aw_sampler_subsets(d)) &&
			   unread >= 0 && (uint64_t)unread > cover.left_out;
	/* The ranks' own maps leave samples of the base out whatever they
	 * draw: holes in what they are cut from (an error), the rest of a
	 * split they all share (another loader's, a warning). */
	uint64_t holes = gaps->judged ? gaps->holes.count : 0;
	uint64_t outside = gaps->judged ? gaps->outside : 0;
	if (!reads_short && !holes && !outside)
		return;
	/* What a link with a rule of its own reads is its design or a bug:
	 * said, as a warning naming it. */
	const struct aw_sampler_link *own = aw_epoch_own_rule_link(in);
	const struct aw_mapping_level *own_map = aw_epoch_own_map(in);
	bool error = (reads_short || holes) && !own && !own_map &&
		     !aw_partly_unrecorded(in->model);
	double coverage = aw_percent(e->union_in_range, (uint64_t)expected);
	struct aw_finding *f =
	    aw_epoch_finding(in, out, "missing",
			     error ? AW_SEVERITY_ERROR : AW_SEVERITY_WARNING);
	aw_add_all_ranks(f, e);
	aw_finding_add_integer(f, "missing", e->missing);
	aw_finding_add_integer(f, "drop_allowance", (int64_t)cover.left_out);
	aw_finding_add_real(f, "coverage", coverage);
	if (gaps->judged) {
		aw_finding_add_integer(f, "in_no_map", (int64_t)holes);
		aw_finding_add_integer(f, "outside_shared_part",
				       (int64_t)outside);
	}
	struct aw_text why = {0};
	aw_missing_reasons(in, &cover, reads_short, unread, &why);
	aw_finding_set_message(
	    f,
	    "the %" PRIu64 " rank%s read %" PRIu64 " of the %" PRId64
	    " samples%s in epoch %u (coverage %.1f%%): %" PRId64
	    " were never read%s%s",
	    in->world, in->world == 1 ? "" : "s together", e->union_in_range,
	    expected,
	    gaps->judged ? " of the dataset below their index maps" : "",
	    e->epoch, coverage, e->missing, gaps->judged ? "; " : ", ",
	    aw_text_str(&why));
	aw_text_fini(&why);
	aw_evidence_shares(f, e, (uint64_t)expected,
			   gaps->judged ? "the dataset below the index maps"
			   : e->mapped  ? "the samples its index maps cover"
					: "the dataset");
	if (gaps->judged && gaps->parent)
		aw_finding_add_evidence(
		    f,
		    "the ranks' index maps differ: together they hold %" PRIu64
		    " of the %" PRId64 " samples of the dataset below them, "
		    "cut from the %" PRIu64 " that %u inner level%s of every "
		    "rank's maps, alike on all, stand%s for",
		    e->expected_count, e->base_len, gaps->cut_from,
		    gaps->parent, gaps->parent == 1 ? "" : "s",
		    gaps->parent == 1 ? "s" : "");
	else if (gaps->judged)
		aw_finding_add_evidence(
		    f,
		    "the ranks' index maps differ: together they hold %" PRIu64
		    " of the %" PRId64 " samples of the dataset below them, "
		    "cut from the whole of it (no inner level is alike on "
		    "every rank)",
		    e->expected_count, e->base_len);
	aw_evidence_sampler(f, in);
	if (d->sampler_replicas > 0)
		aw_finding_add_evidence(
		    f, "the sampler shards %d ways (rank %d of them)",
		    d->sampler_replicas, d->sampler_rank);
	if (holes) {
		aw_finding_set_fix(
		    f,
		    "cut the ranks' parts so that together they hold every "
		    "sample: Subset(dataset, range(rank, len(dataset), "
		    "%" PRIu64 ")) on each rank, or the same dataset on every "
		    "rank under DistributedSampler(dataset, "
		    "num_replicas=%" PRIu64 ", rank=r)",
		    in->world, in->world);
		if (own_map)
			aw_evidence_own_map(f, own_map, NULL);
	} else if (own)
		aw_evidence_own_rule(f, in, own, "missing");
	else if (own_map)
		aw_evidence_own_map(f, own_map, "missing");
	else if (!reads_short)
		aw_finding_set_fix(
		    f, "nothing to change if another loader reads the rest "
		       "(say so with `# accwatch: allow missing` on this "
		       "loader's line); else give the ranks parts of the "
		       "whole dataset, not of one part of its split");
	else
		aw_sharing_fix(in, f,
			       "shard exactly once and completely: a "
			       "DistributedSampler over the whole dataset "
			       "with num_replicas the world size, or "
			       "accelerator.prepare()");
	aw_evidence_unrecorded(f, in->model);
}
