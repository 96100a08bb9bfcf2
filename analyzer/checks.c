/* The data-loading checks: sharding (unsharded, overlap, padding), coverage
 * (missing) and balance (uneven-batches), per loader and epoch. */
#include "checks.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

/* Per-rank lines of evidence shown at most; the rest is summarized. */
#define AW_EVIDENCE_RANKS 8

uint64_t aw_padding_allowance(uint64_t world, uint64_t batch_size)
{
	if (world < 2)
		return 0;
	return world * AW_MAX(batch_size, 1) - 1;
}

uint64_t aw_drop_allowance(const struct aw_loader *desc, uint64_t world,
			   uint64_t batch_size)
{
	if (world == 0)
		return 0;
	if (desc->drop_last != 0)
		return world * AW_MAX(batch_size, 1) - 1;
	if (desc->sampler_replicas > 1)
		return (uint64_t)desc->sampler_replicas - 1;
	return 0;
}

bool aw_epoch_unsharded(const struct aw_check_input *in)
{
	const struct aw_epoch *e = in->epoch;
	if (in->world < 2 || e->union_count == 0)
		return false;
	if (e->cross_rank_duplicates <=
	    aw_padding_allowance(in->world, in->batch_size))
		return false;
	for (size_t c = 0; c < e->n_cells; c++)
		if (e->cells[c].unique * 10 < e->union_count * 9)
			return false;
	return true;
}

static double aw_percent(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

static const char *aw_or_unknown(const char *s)
{
	return s && *s ? s : "?";
}

static void aw_add_all_ranks(struct aw_finding *f, const struct aw_epoch *e)
{
	for (size_t c = 0; c < e->n_cells; c++)
		aw_finding_add_rank(f, e->cells[c].rank);
}

static void aw_evidence_more(struct aw_finding *f, const struct aw_epoch *e)
{
	if (e->n_cells > AW_EVIDENCE_RANKS)
		aw_finding_add_evidence(
		    f, "... and %zu more ranks (see the table)",
		    e->n_cells - AW_EVIDENCE_RANKS);
}

/* The loader's classes and, for a sharding sampler, how every rank built it:
 * the same rank= on all ranks is the classic copy-paste bug. */
static void aw_evidence_sampler(struct aw_finding *f,
				const struct aw_check_input *in)
{
	const struct aw_loader *d = in->desc;
	aw_finding_add_evidence(
	    f, "loader %s, sampler %s, batch_sampler %s%s",
	    aw_or_unknown(d->loader_class), aw_or_unknown(d->sampler_class),
	    aw_or_unknown(d->batch_sampler_class),
	    d->sampler_replicas > 0 ? " (sharding sampler)" : "");
	if (d->sampler_replicas <= 0)
		return;
	int32_t first = -1;
	bool all_same = true;
	size_t ranks = 0;
	for (size_t m = 0; m < in->loader->n_members; m++) {
		const struct aw_loader *l =
		    &in->model->loaders[in->loader->members[m]];
		const struct aw_process *p = &in->model->processes[l->process];
		if (p->is_worker || p->rank < 0 || !l->described)
			continue;
		if (ranks++ == 0)
			first = l->sampler_rank;
		all_same &= l->sampler_rank == first;
	}
	if (ranks > 1 && all_same)
		aw_finding_add_evidence(
		    f,
		    "every rank built its sampler with num_replicas=%d, "
		    "rank=%d: the same shard everywhere",
		    d->sampler_replicas, first);
}

static struct aw_finding *aw_epoch_finding(const struct aw_check_input *in,
					   struct aw_findings *out,
					   const char *id,
					   enum aw_severity severity)
{
	struct aw_finding *f = aw_findings_add(
	    out, id, severity, in->loader_index, in->epoch->epoch);
	aw_finding_add_integer(f, "world", (int64_t)in->world);
	aw_finding_add_integer(f, "batch_size", (int64_t)in->batch_size);
	aw_finding_add_integer(f, "union", (int64_t)in->epoch->union_count);
	if (in->desc->dataset_len >= 0)
		aw_finding_add_integer(f, "dataset_len", in->desc->dataset_len);
	return f;
}

static void aw_check_unsharded(const struct aw_check_input *in,
			       struct aw_findings *out)
{
	const struct aw_epoch *e = in->epoch;
	if (!aw_epoch_unsharded(in))
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
	aw_finding_set_message(
	    f,
	    "each of the %" PRIu64 " ranks read at least 90%% of the %" PRIu64
	    " distinct samples of epoch %u (least: rank %d, %.1f%%): every "
	    "rank "
	    "goes through the whole data instead of a 1/%" PRIu64 " share",
	    in->world, e->union_count, e->epoch, least->rank,
	    aw_percent(least->unique, e->union_count), in->world);
	for (size_t c = 0; c < e->n_cells && c < AW_EVIDENCE_RANKS; c++)
		aw_finding_add_evidence(
		    f,
		    "rank %d: %" PRIu64
		    " distinct samples, %.1f%% of the union",
		    e->cells[c].rank, e->cells[c].unique,
		    aw_percent(e->cells[c].unique, e->union_count));
	aw_evidence_more(f, e);
	aw_evidence_sampler(f, in);
	aw_finding_set_fix(f,
			   "shard the data: use DistributedSampler(dataset, "
			   "num_replicas=%" PRIu64
			   ", rank=r) or pass the loader through "
			   "accelerator.prepare() and iterate what it returns",
			   in->world);
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
	if (e->n_cells <= 4) {
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

static void aw_check_overlap(const struct aw_check_input *in,
			     struct aw_findings *out)
{
	const struct aw_epoch *e = in->epoch;
	uint64_t allowance = aw_padding_allowance(in->world, in->batch_size);
	if (in->world < 2 || e->cross_rank_duplicates <= allowance ||
	    aw_epoch_unsharded(in))
		return;
	struct aw_finding *f =
	    aw_epoch_finding(in, out, "overlap", AW_SEVERITY_ERROR);
	aw_finding_add_integer(f, "cross_rank_duplicates",
			       (int64_t)e->cross_rank_duplicates);
	aw_finding_add_integer(f, "padding_allowance", (int64_t)allowance);
	aw_finding_set_message(
	    f,
	    "%" PRIu64
	    " reads in epoch %u were of samples another rank also read, more "
	    "than the padding of DistributedSampler or even_batches explains "
	    "(at most %" PRIu64 " = W*B-1 with W=%" PRIu64 ", B=%" PRIu64 ")",
	    e->cross_rank_duplicates, e->epoch, allowance, in->world,
	    in->batch_size);
	aw_evidence_sharing(f, e);
	aw_evidence_sampler(f, in);
	aw_finding_set_fix(f,
			   "give every rank its own shard: "
			   "DistributedSampler(dataset, num_replicas=%" PRIu64
			   ", rank=<its rank>) with the same seed on all ranks "
			   "and set_epoch() on each, or "
			   "accelerator.prepare() alone, not both",
			   in->world);
}

static void aw_check_padding(const struct aw_check_input *in,
			     struct aw_findings *out)
{
	const struct aw_epoch *e = in->epoch;
	uint64_t allowance = aw_padding_allowance(in->world, in->batch_size);
	if (in->world < 2 || e->cross_rank_duplicates == 0 ||
	    e->cross_rank_duplicates > allowance)
		return;
	struct aw_finding *f =
	    aw_epoch_finding(in, out, "padding", AW_SEVERITY_INFO);
	aw_finding_add_integer(f, "cross_rank_duplicates",
			       (int64_t)e->cross_rank_duplicates);
	aw_finding_add_integer(f, "padding_allowance", (int64_t)allowance);
	aw_finding_set_message(
	    f,
	    "%" PRIu64
	    " reads in epoch %u repeated samples of another rank, within the "
	    "padding DistributedSampler or even_batches adds so that all ranks "
	    "get the same "
	    "number of batches (at most %" PRIu64 " = W*B-1)",
	    e->cross_rank_duplicates, e->epoch, allowance);
	aw_evidence_sharing(f, e);
	aw_finding_set_fix(f, "nothing to change for training; for evaluation "
			      "metrics drop the repeated "
			      "samples with accelerator.gather_for_metrics() "
			      "or count them only once");
}

/* Samplers that by design read only part of the dataset. */
static bool aw_sampler_subsets(const struct aw_loader *d)
{
	const char *names[] = {d->sampler_class, d->batch_sampler_class};
	for (size_t i = 0; i < 2; i++)
		if (names[i] && (strstr(names[i], "Subset") ||
				 strstr(names[i], "Weighted")))
			return true;
	return false;
}

static void aw_check_missing(const struct aw_check_input *in,
			     struct aw_findings *out)
{
	const struct aw_epoch *e = in->epoch;
	const struct aw_loader *d = in->desc;
	/* Only full epochs: a loop that stops early (max_steps, break) reads
	 * less by design, and a rank that died says nothing about coverage. */
	if (d->dataset_len <= 0 || d->iterable || !e->exhausted ||
	    in->loader->dispatched || aw_sampler_subsets(d))
		return;
	uint64_t allowance = aw_drop_allowance(d, in->world, in->batch_size);
	if (e->missing < 0 || (uint64_t)e->missing <= allowance)
		return;
	double coverage =
	    aw_percent(e->union_in_range, (uint64_t)d->dataset_len);
	struct aw_finding *f =
	    aw_epoch_finding(in, out, "missing", AW_SEVERITY_ERROR);
	aw_add_all_ranks(f, e);
	aw_finding_add_integer(f, "missing", e->missing);
	aw_finding_add_integer(f, "drop_allowance", (int64_t)allowance);
	aw_finding_add_real(f, "coverage", coverage);
	aw_finding_set_message(
	    f,
	    "the %" PRIu64 " rank%s read %" PRIu64 " of the %" PRId64
	    " samples in epoch %u (coverage %.1f%%): %" PRId64
	    " were never read, more than drop_last explains (at most %" PRIu64
	    ")",
	    in->world, in->world == 1 ? "" : "s together", e->union_in_range,
	    d->dataset_len, e->epoch, coverage, e->missing, allowance);
	for (size_t c = 0; c < e->n_cells && c < AW_EVIDENCE_RANKS; c++)
		aw_finding_add_evidence(
		    f,
		    "rank %d: %" PRIu64
		    " distinct samples, %.1f%% of the dataset",
		    e->cells[c].rank, e->cells[c].unique,
		    aw_percent(e->cells[c].unique, (uint64_t)d->dataset_len));
	aw_evidence_more(f, e);
	aw_evidence_sampler(f, in);
	if (d->sampler_replicas > 0)
		aw_finding_add_evidence(
		    f, "the sampler shards %d ways (rank %d of them)",
		    d->sampler_replicas, d->sampler_rank);
	aw_finding_set_fix(
	    f,
	    "shard exactly once and completely: one DistributedSampler with "
	    "num_replicas=%" PRIu64
	    " (the world size) or accelerator.prepare(), not both",
	    (uint64_t)AW_MAX(in->model->world_size, 1));
}

static void aw_check_uneven_batches(const struct aw_check_input *in,
				    struct aw_findings *out)
{
	const struct aw_epoch *e = in->epoch;
	/* Without every rank's iter_end the counts are those of a crash. */
	if (in->world < 2 || !e->complete || in->loader->dispatched)
		return;
	const struct aw_cell *fewest = &e->cells[0], *most = &e->cells[0];
	for (size_t c = 1; c < e->n_cells; c++) {
		if (e->cells[c].batches < fewest->batches)
			fewest = &e->cells[c];
		if (e->cells[c].batches > most->batches)
			most = &e->cells[c];
	}
	if (fewest->batches == most->batches)
		return;
	struct aw_finding *f =
	    aw_epoch_finding(in, out, "uneven-batches", AW_SEVERITY_ERROR);
	aw_add_all_ranks(f, e);
	aw_finding_add_integer(f, "fewest_batches", (int64_t)fewest->batches);
	aw_finding_add_integer(f, "most_batches", (int64_t)most->batches);
	aw_finding_set_message(
	    f,
	    "ranks consumed different numbers of batches in epoch %u (%" PRIu64
	    " on rank %d, %" PRIu64
	    " on rank %d): a rank with more batches waits in a "
	    "collective the others never join",
	    e->epoch, fewest->batches, fewest->rank, most->batches, most->rank);
	for (size_t c = 0; c < e->n_cells && c < AW_EVIDENCE_RANKS; c++)
		aw_finding_add_evidence(
		    f, "rank %d: %" PRIu64 " batches%s", e->cells[c].rank,
		    e->cells[c].batches,
		    e->cells[c].exhausted ? "" : " (loop left early)");
	aw_evidence_more(f, e);
	aw_finding_set_fix(
	    f, "make every rank run the same number of batches: keep "
	       "DistributedSampler's "
	       "padding (drop_last=False) or accelerate's even_batches=True, "
	       "or wrap the loop "
	       "in accelerator.join_uneven_inputs() or DDP's join()");
}

static const struct aw_check aw_checks[] = {
    {"unsharded", AW_CHECK_EPOCH, aw_check_unsharded},
    {"overlap", AW_CHECK_EPOCH, aw_check_overlap},
    {"missing", AW_CHECK_EPOCH, aw_check_missing},
    {"padding", AW_CHECK_EPOCH, aw_check_padding},
    {"uneven-batches", AW_CHECK_EPOCH, aw_check_uneven_batches},
};

static void aw_run_scope(struct aw_check_input *in, enum aw_check_scope scope,
			 struct aw_findings *out)
{
	for (size_t i = 0; i < sizeof(aw_checks) / sizeof(aw_checks[0]); i++)
		if (aw_checks[i].scope == scope)
			aw_checks[i].run(in, out);
}

void aw_checks_run(const struct aw_model *model, struct aw_findings *out)
{
	struct aw_check_input in = {.model = model};
	aw_run_scope(&in, AW_CHECK_TRACE, out);
	for (size_t g = 0; g < model->n_loaders_global; g++) {
		in.loader = &model->loaders_global[g];
		in.loader_index = (uint32_t)g;
		in.desc = aw_model_describe(model, in.loader);
		in.epoch = NULL;
		in.world = in.batch_size = 0;
		aw_run_scope(&in, AW_CHECK_LOADER, out);
		for (size_t e = 0; e < in.loader->n_epochs; e++) {
			in.epoch = &in.loader->epochs[e];
			if (in.epoch->n_cells == 0)
				continue;
			in.world = in.epoch->n_cells;
			in.batch_size =
			    in.desc->batch_size > 0
				? (uint64_t)in.desc->batch_size
				: AW_MAX(in.epoch->max_batch_len, 1);
			aw_run_scope(&in, AW_CHECK_EPOCH, out);
		}
	}
	aw_findings_sort(out);
}
