/* SPDX-License-Identifier: MIT */
/* A loader every rank reads whole whose samples are exactly what a sharded
 * loader over the same dataset left out (drop_last's remainder, read on
 * every rank so that an evaluation counts it): that design, told as an
 * info (shared-remainder), not `unsharded`. */
#include <inttypes.h>

#include "checks_private.h"

/* The sharded loader whose remainder an epoch is, and its epoch. */
struct aw_remainder {
	uint32_t main; /* global loader */
	const struct aw_epoch *main_epoch;
	const struct aw_sampler_link *link; /* its sharding link */
	int64_t dataset_len;                /* of the dataset both read */
};

/* Whether every cell of the epoch read all of the epoch's samples. */
static bool aw_every_rank_read_all(const struct aw_epoch *e)
{
	if (e->n_cells < 2)
		return false;
	for (size_t c = 0; c < e->n_cells; c++)
		if (e->cells[c].unique != e->union_count)
			return false;
	return true;
}

/* An epoch of `g` disjoint from `tail` whose union with it is the whole
 * dataset of `n` samples once. */
static const struct aw_epoch *
aw_epoch_completed_by(const struct aw_global_loader *g,
		      const struct aw_epoch *tail, int64_t n)
{
	for (size_t i = g->n_epochs; i-- > 0;) {
		const struct aw_epoch *e = &g->epochs[i];
		if (e->exhausted &&
		    e->union_count + tail->union_count == (uint64_t)n &&
		    aw_sample_set_overlap(&e->all, &tail->all) == 0)
			return e;
	}
	return NULL;
}

/* A loader of the same process over the same dataset (base_id), sharded
 * with drop_last, one of whose epochs the tail completes. */
static bool aw_remainder_of(const struct aw_check_input *in,
			    const struct aw_loader *tail,
			    struct aw_remainder *out)
{
	const struct aw_model *model = in->model;
	for (size_t k = 0; k < model->n_drop_last_shards; k++) {
		const struct aw_loader *l =
		    &model->loaders[model->drop_last_shards[k]];
		if (l->process != tail->process ||
		    l->base_id != tail->base_id || l->global == tail->global ||
		    l->global >= model->n_loaders_global)
			continue;
		const struct aw_sampler_link *link = aw_shard_link(l);
		if (!link || link->drop_last != 1 || l->dataset_len < 0)
			continue;
		const struct aw_epoch *e =
		    aw_epoch_completed_by(&model->loaders_global[l->global],
					  in->epoch, l->dataset_len);
		if (e) {
			*out = (struct aw_remainder){l->global, e, link,
						     l->dataset_len};
			return true;
		}
	}
	return false;
}

static bool aw_epoch_remainder(const struct aw_check_input *in,
			       struct aw_remainder *out)
{
	if (in->desc->iterable || !in->epoch->exhausted ||
	    !aw_every_rank_read_all(in->epoch))
		return false;
	/* The loader objects this epoch's passes read. */
	const struct aw_loader *l;
	for (size_t k = 0; (l = aw_input_loader(in, k)); k++)
		if (l->base_id && aw_remainder_of(in, l, out))
			return true;
	return false;
}

bool aw_epoch_is_remainder(const struct aw_check_input *in)
{
	struct aw_remainder r;
	return aw_epoch_remainder(in, &r);
}

void aw_check_shared_remainder(const struct aw_check_input *in,
			       struct aw_findings *out)
{
	struct aw_remainder r;
	if (!aw_epoch_remainder(in, &r))
		return;
	const struct aw_global_loader *main =
	    &in->model->loaders_global[r.main];
	struct aw_finding *f =
	    aw_epoch_finding(in, out, "shared-remainder", AW_SEVERITY_INFO);
	aw_add_all_ranks(f, in->epoch);
	aw_finding_add_integer(f, "remainder", (int64_t)in->epoch->union_count);
	aw_finding_set_message(
	    f,
	    "every rank read the %" PRIu64 " samples of epoch %u, which are "
	    "exactly what %s (%s), sharded by %s with drop_last=True over the "
	    "same dataset, left out in its epoch %u: the remainder read on "
	    "every rank on purpose, not a sharding bug",
	    in->epoch->union_count, in->epoch->epoch, main->id, main->site,
	    aw_short_class(r.link->class_name), r.main_epoch->epoch);
	aw_finding_add_evidence(f,
				"%s read %" PRIu64 " of the %" PRId64
				" samples, this loader the other %" PRIu64
				", none in common",
				main->id, r.main_epoch->union_count,
				r.dataset_len, in->epoch->union_count);
	aw_finding_set_fix(f, "nothing to change; a metric summed over the "
			      "ranks counts these samples once a rank, so "
			      "count them once (e.g. on rank 0 alone)");
}
