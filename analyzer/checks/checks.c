/* SPDX-License-Identifier: MIT */
/* The checks of the README's findings table (docs/findings.md), run in the
 * order of one table: the rules' shared formulas here, the checks in
 * checks_*.c. */
#include "checks.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "checks_private.h"
#include "lineage.h"
#include "util.h"

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
	/* accelerate's dispatcher with drop_last drops its last partial step:
	 * fewer than W batches of B. */
	if (desc->drop_last != 0 || desc->dispatch_drop_last == 1)
		return world * AW_MAX(batch_size, 1) - 1;
	if (desc->sampler_replicas > 1)
		return (uint64_t)desc->sampler_replicas - 1;
	return 0;
}

/* The padding a sharding sampler adds: DistributedSampler(drop_last=False)
 * draws num_samples = ceil(N/W) per rank, the W*num_samples - N extra ones
 * from the head of its order; with drop_last it cuts the tail instead. A
 * link that states its total_size (DistributedSampler and its subclasses,
 * e.g. one padding each length bucket with the bucket's own samples) draws
 * that many: what it draws beyond N is padding, whatever its rule. */
static uint64_t aw_sampler_padding(const struct aw_sampler_link *link,
				   int64_t n)
{
	if (n < 0)
		return 0;
	if (link->total_size >= 0)
		return (uint64_t)link->total_size > (uint64_t)n
			   ? (uint64_t)link->total_size - (uint64_t)n
			   : 0;
	if (link->drop_last == 1)
		return 0;
	uint64_t w = (uint64_t)link->num_replicas;
	uint64_t per_rank = link->num_samples >= 0 ? (uint64_t)link->num_samples
						   : ((uint64_t)n + w - 1) / w;
	uint64_t total = per_rank * w;
	return total > (uint64_t)n ? total - (uint64_t)n : 0;
}

/* The padding of accelerate's BatchSamplerShard with even_batches: every
 * rank gets ceil(nb/W) full batches of B, the last round completed from the
 * epoch's head; with drop_last on the batch sampler it drops that round
 * instead. n: the samples the batch sampler under it draws from. */
static uint64_t aw_even_batches_padding(const struct aw_sampler_link *shard,
					const struct aw_sampler_link *below,
					int64_t n)
{
	if (n < 0 || shard->batch_size <= 0 || (below && below->drop_last == 1))
		return 0;
	uint64_t w = (uint64_t)shard->num_replicas,
		 b = (uint64_t)shard->batch_size;
	uint64_t batches = ((uint64_t)n + b - 1) / b;
	uint64_t rounds = (batches + w - 1) / w;
	uint64_t total = rounds * w * b;
	return total > (uint64_t)n ? total - (uint64_t)n : 0;
}

/* The even_batches flag of the accelerate wrap around the loader (1 when
 * unknown: accelerate's default). */
static bool aw_even_batches(const struct aw_model *model,
			    const struct aw_loader *d)
{
	const struct aw_loader *wrap = aw_loader_wrap(model, d);
	return !wrap || wrap->even_batches != 0;
}

struct aw_padding aw_epoch_padding(const struct aw_check_input *in)
{
	struct aw_padding p = {.derived = true};
	const struct aw_loader *d = in->desc;
	if (in->world < 2)
		return p;
	if (in->loader->rebuilt) {
		p.dispatcher = true;
		for (size_t c = 0; c < in->epoch->n_cells; c++) {
			const struct aw_cell *cell = &in->epoch->cells[c];
			const struct aw_iteration *it =
			    &in->model->iterations[cell->iteration];
			if (cell->rank == 0 && it->dispatch)
				p.samples += it->dispatch->padded;
		}
		return p;
	}
	if (d->n_chain == 0) {
		/* A trace without the chain (an older recorder): the most
		 * either could add. */
		p.derived = false;
		p.samples = aw_padding_allowance(in->world, in->batch_size);
		return p;
	}
	/* From the innermost link out: what each sharding link draws from is
	 * what the one below it yields. */
	int64_t n = d->dataset_len;
	for (uint32_t i = d->n_chain; i-- > 0;) {
		const struct aw_sampler_link *link = &d->chain[i];
		if (!link->seen || link->num_replicas < 1 || link->rank < 0)
			continue;
		p.shards = true;
		if (link->total_size >= 0) {
			uint64_t pad = aw_sampler_padding(link, n);
			uint64_t w = (uint64_t)link->num_replicas;
			p.samples += pad;
			p.sampler += pad;
			if (n < 0 || link->drop_last == 1 ||
			    (uint64_t)link->total_size !=
				((uint64_t)n + w - 1) / w * w)
				p.stated = link;
			n = link->total_size / link->num_replicas;
		} else if (link->batch_size < 0) {
			uint64_t pad = aw_sampler_padding(link, n);
			p.samples += pad;
			p.sampler += pad;
			if (n >= 0)
				n = link->drop_last == 1
					? n / link->num_replicas
					: (n + (int64_t)pad) /
					      link->num_replicas;
		} else if (aw_even_batches(in->model, d)) {
			const struct aw_sampler_link *below =
			    i + 1 < d->n_chain ? &d->chain[i + 1] : NULL;
			uint64_t pad = aw_even_batches_padding(link, below, n);
			p.samples += pad;
			p.even_batches += pad;
		}
	}
	return p;
}

/* A link's len() as the coverage model may read it: how many it yields of
 * what flows in. A link with a rule of its own states it, but what it
 * yields is not known to be a part of that: -1 there. */
static int64_t aw_known_length(const struct aw_sampler_link *link)
{
	return link->own_iter == 1 ? -1 : link->length;
}

/* What one link of the chain leaves out of the samples flowing through it
 * (`per` in each of `streams` rank streams), innermost link first. */
static void aw_coverage_link(const struct aw_sampler_link *link, bool outermost,
			     uint64_t batch_size, uint64_t *per,
			     uint64_t *streams, struct aw_coverage *c)
{
	if (link->replacement == 1)
		c->promised = false;
	if (link->skip > 0 && link->batch_size < 0) {
		/* A skipping batch sampler (accelerate's SkipBatchSampler)
		 * leaves out its first batches of the ones below it. */
		uint64_t skipped =
		    AW_MIN((uint64_t)link->skip * AW_MAX(batch_size, 1), *per);
		c->by_skip += skipped * *streams;
		c->skip_each = skipped;
		c->skip_streams = *streams;
		*per -= skipped;
		return;
	}
	if (link->total_size >= 0 && link->num_replicas >= 1 &&
	    link->rank >= 0) {
		/* A sharding link that states its draws: what it leaves out
		 * of what flows in is what its total_size does not reach. */
		uint64_t w = (uint64_t)link->num_replicas,
			 total = (uint64_t)link->total_size;
		if (total < *per) {
			uint64_t *by = link->drop_last == 1 ? &c->by_drop_last
							    : &c->by_subset;
			*by += (*per - total) * *streams;
		}
		*per = total / w;
		*streams *= w;
		return;
	}
	if (link->batch_size < 0 && link->num_replicas >= 1 &&
	    link->rank >= 0) {
		uint64_t w = (uint64_t)link->num_replicas;
		if (link->drop_last == 1)
			c->by_drop_last += *per % w;
		*per = link->drop_last == 1 ? *per / w : (*per + w - 1) / w;
		*streams *= w;
		return;
	}
	if (link->batch_size < 0) {
		/* A sampler drawing fewer than it is given: a subset (its len)
		 * or num_samples of a random one. */
		int64_t length = aw_known_length(link);
		int64_t draws = length >= 0 ? length : link->num_samples;
		if (link->replacement != 1 && draws >= 0 &&
		    (uint64_t)draws < *per) {
			c->by_subset += (*per - (uint64_t)draws) * *streams;
			*per = (uint64_t)draws;
		}
		if (outermost && length < 0 && link->drop_last < 0) {
			/* A batch sampler of the user's: its drop rule is not
			 * known; at most one batch per rank is no error. */
			c->by_unknown_batches += batch_size * *streams;
		}
		return;
	}
	uint64_t b =
	    (uint64_t)link->batch_size ? (uint64_t)link->batch_size : 1;
	if (link->num_replicas >= 1 && link->rank >= 0) {
		/* accelerate's BatchSamplerShard: with drop_last it drops the
		 * last incomplete round of batches. */
		uint64_t w = (uint64_t)link->num_replicas;
		uint64_t batches =
		    link->drop_last == 1 ? *per / b : (*per + b - 1) / b;
		if (link->drop_last == 1)
			c->by_drop_last += (batches % w) * b * *streams;
		*per = (batches / w) * b;
		*streams *= w;
	} else if (link->drop_last == 1) {
		c->by_drop_last += (*per % b) * *streams;
		*per -= *per % b;
	}
	if (link->skip > 0) {
		uint64_t skipped = AW_MIN((uint64_t)link->skip * b, *per);
		c->by_skip += skipped * *streams;
		c->skip_each = skipped;
		c->skip_streams = *streams;
		*per -= skipped;
	}
}

/* Adds what one loader's chain leaves out of its dataset to c. */
static void aw_chain_coverage(const struct aw_loader *d, uint64_t batch_size,
			      struct aw_coverage *c)
{
	uint64_t per = d->dataset_len > 0 ? (uint64_t)d->dataset_len : 0;
	uint64_t streams = 1;
	for (uint32_t i = d->n_chain; i-- > 0;)
		if (d->chain[i].seen)
			aw_coverage_link(&d->chain[i], i == 0, batch_size, &per,
					 &streams, c);
}

/* Whether a link of the chain splits the data among replicas. */
static bool aw_chain_shards(const struct aw_loader *d)
{
	for (uint32_t i = 0; i < d->n_chain; i++)
		if (d->chain[i].seen && d->chain[i].num_replicas >= 1 &&
		    d->chain[i].rank >= 0)
			return true;
	return false;
}

/* A pass that resumed from a state_dict (a StatefulDataLoader after
 * load_state_dict) skips the batches its sampler had yielded before: left
 * out of this pass on purpose, read by the pass it resumes (an earlier
 * attempt's, or the same process's before the checkpoint). */
static void aw_resumed_coverage(const struct aw_check_input *in,
				struct aw_coverage *c)
{
	for (size_t i = 0; i < in->epoch->n_cells; i++) {
		const struct aw_iteration *it =
		    &in->model->iterations[in->epoch->cells[i].iteration];
		if (it->resumed > 0)
			c->by_skip +=
			    (uint64_t)it->resumed * AW_MAX(in->batch_size, 1);
	}
}

/* A skipping chain over a sampler that does not say how it shards (one of
 * the user's): each of the W ranks skipped its own first batches, which
 * the chain counted for fewer streams. */
static void aw_skip_per_rank(const struct aw_check_input *in,
			     struct aw_coverage *c)
{
	if (c->skip_each && in->world > c->skip_streams)
		c->by_skip += c->skip_each * (in->world - c->skip_streams);
}

struct aw_coverage aw_epoch_coverage(const struct aw_check_input *in)
{
	const struct aw_loader *d = in->desc;
	struct aw_coverage c = {.promised = true, .derived = true};
	if (aw_epoch_items_by_chance(in, true))
		c.promised = false; /* items drawn with replacement */
	if (d->n_chain == 0 || in->loader->rebuilt) {
		/* No chain (an older recorder), or accelerate's dispatcher,
		 * whose last step the loader's drop_last decides. */
		c.derived = false;
		c.by_drop_last =
		    aw_drop_allowance(d, in->world, in->batch_size);
		aw_resumed_coverage(in, &c);
		c.left_out = c.by_drop_last + c.by_skip;
		return c;
	}
	const struct aw_cell *a, *b;
	if (!aw_chain_shards(d) && aw_epoch_maps_differ(in, &a, &b)) {
		/* Each rank reads its own subset through its own chain: what
		 * each leaves out adds up. */
		for (size_t i = 0; i < in->epoch->n_cells; i++) {
			const struct aw_iteration *it =
			    &in->model
				 ->iterations[in->epoch->cells[i].iteration];
			aw_chain_coverage(&in->model->loaders[it->loader],
					  in->batch_size, &c);
		}
	} else {
		aw_chain_coverage(d, in->batch_size, &c);
		aw_skip_per_rank(in, &c);
	}
	aw_resumed_coverage(in, &c);
	c.left_out =
	    c.by_subset + c.by_drop_last + c.by_skip + c.by_unknown_batches;
	return c;
}

/* Whether a len() is `n` items, or `n` items in batches of `batch_size`. */
static bool aw_length_of(int64_t length, int64_t n, int64_t batch_size)
{
	if (length == n)
		return true;
	return batch_size > 0 && (length == n / batch_size ||
				  length == (n + batch_size - 1) / batch_size);
}

/* A link that draws with code of its own (own_iter) states a plain rule
 * when its numbers say what it yields: a sharding link DistributedSampler's
 * (num_replicas, rank, its num_samples each of total_size, a len() of
 * num_samples or none), any other a len() of all it draws from (`below`:
 * a shuffler or batcher of its own, as transformers' LengthGroupedSampler,
 * which the checks then hold to covering its input). */
static bool aw_link_states_split(const struct aw_sampler_link *s, int64_t below)
{
	if (s->num_replicas < 1 || s->rank < 0)
		return s->length >= 0 && below >= 0 &&
		       aw_length_of(s->length, below, s->batch_size);
	if (s->num_samples < 0 || s->total_size < 0 ||
	    s->num_samples * (int64_t)s->num_replicas != s->total_size)
		return false;
	return s->length < 0 ||
	       aw_length_of(s->length, s->num_samples, s->batch_size);
}

int64_t aw_link_below(const struct aw_loader *d, uint32_t i)
{
	if (i + 1 < d->n_chain)
		return d->chain[i + 1].seen ? d->chain[i + 1].length : -1;
	return d->dataset_len;
}

const struct aw_sampler_link *aw_own_rule_link(const struct aw_loader *d)
{
	for (uint32_t i = 0; i < d->n_chain; i++) {
		const struct aw_sampler_link *s = &d->chain[i];
		if (s->seen && s->own_iter == 1 &&
		    !aw_link_states_split(s, aw_link_below(d, i)))
			return s;
	}
	return NULL;
}

const struct aw_sampler_link *
aw_epoch_own_rule_link(const struct aw_check_input *in)
{
	const struct aw_sampler_link *own = aw_own_rule_link(in->desc);
	if (own)
		return own;
	for (uint32_t i = 0; i < in->desc->n_chain; i++) {
		const struct aw_sampler_link *s = &in->desc->chain[i];
		if (!s->seen || s->own_iter != 1 || s->num_samples < 0)
			continue;
		for (size_t c = 0; c < in->epoch->n_cells; c++) {
			const struct aw_cell *cell = &in->epoch->cells[c];
			if (cell->exhausted &&
			    cell->samples != (uint64_t)s->num_samples)
				return s;
		}
	}
	return NULL;
}

const struct aw_mapping_level *aw_epoch_own_map(const struct aw_check_input *in)
{
	for (size_t c = 0; c < in->epoch->n_cells; c++) {
		const struct aw_mapping_level *own = aw_mapping_own(
		    aw_model_cell_mapping(in->model, &in->epoch->cells[c]));
		if (own)
			return own;
	}
	return NULL;
}

/* Either link cuts the rank's part out of the positions of the rank's own
 * dataset. */
const struct aw_sampler_link *aw_shard_link(const struct aw_loader *d)
{
	for (uint32_t i = 0; i < d->n_chain; i++) {
		const struct aw_sampler_link *l = &d->chain[i];
		if (aw_link_cuts(l))
			return l;
	}
	return NULL;
}

bool aw_epoch_maps_differ(const struct aw_check_input *in,
			  const struct aw_cell **a, const struct aw_cell **b)
{
	const struct aw_epoch *e = in->epoch;
	*a = *b = NULL;
	if (!e->mapped)
		return false;
	const struct aw_mapping *first = NULL;
	for (size_t c = 0; c < e->n_cells && !*b; c++) {
		const struct aw_cell *cell = &e->cells[c];
		const struct aw_mapping *m =
		    aw_model_cell_mapping(in->model, cell);
		if (cell->n_iterations != 1 || !m)
			continue;
		if (!first) {
			first = m;
			*a = cell;
		} else if (!aw_mapping_equal(first, m)) {
			*b = cell;
		}
	}
	return *b != NULL;
}

bool aw_epoch_split_diverged(const struct aw_check_input *in,
			     const struct aw_cell **a, const struct aw_cell **b)
{
	*a = *b = NULL;
	return in->world >= 2 && aw_shard_link(in->desc) &&
	       !in->loader->rebuilt && aw_epoch_maps_differ(in, a, b);
}

const struct aw_sampler_link *aw_shuffling_link(const struct aw_loader *d)
{
	bool below_shard = false;
	for (uint32_t i = 0; i < d->n_chain; i++) {
		const struct aw_sampler_link *l = &d->chain[i];
		if (!l->seen)
			continue;
		below_shard |= l->num_replicas >= 1 && l->rank >= 0;
		if (below_shard && l->shuffle == 1)
			return l;
	}
	return NULL;
}

bool aw_epoch_order_diverged(const struct aw_check_input *in,
			     const struct aw_cell **a, const struct aw_cell **b)
{
	const struct aw_epoch *e = in->epoch;
	if (in->world < 2 || !aw_shuffling_link(in->desc) ||
	    in->loader->rebuilt)
		return false;
	*a = *b = NULL;
	for (size_t c = 0; c < e->n_cells && !*b; c++) {
		const struct aw_cell *cell = &e->cells[c];
		const struct aw_iteration *it =
		    &in->model->iterations[cell->iteration];
		/* A link without an epoch (a RandomSampler's generator)
		 * says -1 on every rank: only its seed can differ. */
		if (cell->n_iterations != 1 || it->seed < 0)
			continue;
		if (!*a) {
			*a = cell;
			continue;
		}
		const struct aw_iteration *first =
		    &in->model->iterations[(*a)->iteration];
		if (first->seed != it->seed ||
		    first->sampler_epoch != it->sampler_epoch)
			*b = cell;
	}
	return *b != NULL &&
	       e->cross_rank_duplicates > aw_epoch_padding(in).samples;
}

bool aw_epoch_items_by_chance(const struct aw_check_input *in, bool drawn)
{
	/* Groups' epochs (by_group) keep no items: the loader's own does. */
	const struct aw_epoch *e =
	    aw_model_find_epoch(in->loader, in->epoch->epoch);
	if (!e || !e->items)
		return false;
	bool from_items = false;
	for (size_t c = 0; c < e->n_cells; c++)
		from_items |= e->cells[c].from_items;
	enum aw_item_repeats v = e->items->rate.verdict;
	return from_items &&
	       (v == AW_REPEATS_DRAWN || (!drawn && v == AW_REPEATS_CHANCE));
}

/* A link of the chain splits the data among replicas or draws with
 * replacement (each rank then draws from everything by design). */
static bool aw_chain_splits(const struct aw_loader *l)
{
	for (uint32_t i = 0; i < l->n_chain; i++) {
		const struct aw_sampler_link *s = &l->chain[i];
		if ((s->seen && s->replacement == 1) || aw_link_cuts(s))
			return true;
	}
	return l->sharded || l->wraps || l->wrapped;
}

static bool aw_same_first_batch(const struct aw_first_batch *a,
				const struct aw_first_batch *b)
{
	return aw_first_batch_complete(a) && aw_first_batch_complete(b) &&
	       a->total == b->total &&
	       memcmp(a->indices, b->indices, a->total * sizeof(*a->indices)) ==
		   0;
}

/* The chain is recorded, no link of it draws with code of its own (a link
 * that may split by a rule its numbers do not state), and its innermost
 * link draws from the whole dataset (its len() is the dataset's: not a
 * list of indices given as sampler, a rank's own part). */
static bool aw_chain_draws_all(const struct aw_loader *l)
{
	const struct aw_sampler_link *innermost = NULL;
	for (uint32_t i = 0; i < l->n_chain; i++) {
		if (!l->chain[i].seen)
			continue;
		if (l->chain[i].own_iter == 1)
			return false;
		innermost = &l->chain[i];
	}
	return innermost && l->dataset_len > 0 &&
	       innermost->length == l->dataset_len;
}

/* Every rank has one pass in the epoch over a map-style dataset without
 * index maps, not rebuilt nor dispatched, whose chain does not split the
 * data nor draw with replacement (aw_chain_splits); and, with draws_all,
 * draws from all of it (aw_chain_draws_all). */
static bool aw_epoch_passes_unsplit(const struct aw_check_input *in,
				    bool draws_all)
{
	const struct aw_epoch *e = in->epoch;
	if (e->n_cells < 2 || e->by_group || e->mapped || in->desc->iterable ||
	    in->loader->dispatched || in->loader->rebuilt)
		return false;
	for (size_t c = 0; c < e->n_cells; c++) {
		const struct aw_cell *cell = &e->cells[c];
		const struct aw_loader *l =
		    aw_model_cell_loader(in->model, cell);
		if (cell->n_iterations != 1 || cell->rebuilt ||
		    cell->from_items || aw_chain_splits(l) ||
		    (draws_all && !aw_chain_draws_all(l)))
			return false;
	}
	return true;
}

bool aw_epoch_one_sequence(const struct aw_check_input *in)
{
	const struct aw_epoch *e = in->epoch;
	if (!aw_epoch_passes_unsplit(in, false))
		return false;
	const struct aw_iteration *first =
	    &in->model->iterations[e->cells[0].iteration];
	for (size_t c = 0; c < e->n_cells; c++) {
		const struct aw_iteration *it =
		    &in->model->iterations[e->cells[c].iteration];
		if (!aw_same_first_batch(&first->first, &it->first) ||
		    it->seed != first->seed ||
		    it->sampler_epoch != first->sampler_epoch)
			return false;
	}
	return true;
}

bool aw_epoch_unsplit_sharing(const struct aw_check_input *in)
{
	return aw_epoch_unsplit(in) &&
	       in->epoch->cross_rank_duplicates > aw_epoch_padding(in).samples;
}

bool aw_epoch_unsplit(const struct aw_check_input *in)
{
	return in->world >= 2 && aw_epoch_passes_unsplit(in, true);
}

const struct aw_cell *aw_epoch_cut(const struct aw_model *model,
				   const struct aw_epoch *e)
{
	for (size_t c = 0; c < e->n_cells; c++) {
		const struct aw_cell *cell = &e->cells[c];
		const struct aw_process *p = aw_model_cell_process(model, cell);
		if (!cell->complete ||
		    model->iterations[cell->iteration].open_at_exception ||
		    (!cell->exhausted && p->exited && p->exit_signal > 0))
			return cell;
	}
	return NULL;
}

bool aw_epoch_unsharded(const struct aw_check_input *in)
{
	const struct aw_epoch *e = in->epoch;
	if (in->world >= 2 && aw_epoch_cut(in->model, e) &&
	    aw_epoch_one_sequence(in))
		return true;
	if (aw_epoch_unsplit_sharing(in))
		return true;
	/* Drawing with replacement promises no share: each rank draws from
	 * everything, and reads it all when it is small. */
	if (in->world < 2 || e->union_count == 0 ||
	    aw_epoch_items_by_chance(in, true))
		return false;
	if (e->cross_rank_duplicates <= aw_epoch_padding(in).samples)
		return false;
	for (size_t c = 0; c < e->n_cells; c++)
		if (e->cells[c].unique * 100 <
		    e->union_count * AW_UNSHARDED_PERCENT)
			return false;
	return true;
}

/* One row a finding id, on one line each: the list reads as a table. Its
 * order is the report's within a severity: a cause above the symptoms it
 * explains (uneven-batches, worker-died and worker-stuck above rank-died). */
// clang-format off
static const struct aw_check aw_checks[] = {
	{"unsharded", AW_SEV(ERROR), "every rank read (almost) the whole dataset", AW_CHECK_EPOCH, aw_check_unsharded},
	{"split-diverged", AW_SEV(ERROR) | AW_SEV(WARNING), "the ranks hold different subsets of the data", AW_CHECK_EPOCH, aw_check_split_diverged},
	{"order-diverged", AW_SEV(ERROR) | AW_SEV(WARNING), "the ranks' shuffling samplers differ in seed or epoch", AW_CHECK_EPOCH, aw_check_order_diverged},
	{"overlap", AW_SEV(ERROR) | AW_SEV(WARNING), "ranks read the same samples beyond the padding", AW_CHECK_EPOCH, aw_check_overlap},
	{"missing", AW_SEV(ERROR) | AW_SEV(WARNING), "the ranks together did not cover the dataset", AW_CHECK_EPOCH, aw_check_missing},
	{"padding", AW_SEV(INFO), "samples repeated to even out the ranks' shares", AW_CHECK_EPOCH, aw_check_padding},
	{"shared-remainder", AW_SEV(INFO), "every rank read the remainder a sharded loader left out", AW_CHECK_EPOCH, aw_check_shared_remainder},
	{"group-diverged", AW_SEV(ERROR), "ranks of one data-parallel group read different data", AW_CHECK_RANKS, aw_check_group_diverged},
	{"uneven-batches", AW_SEV(ERROR) | AW_SEV(INFO), "ranks consumed different numbers of batches", AW_CHECK_RANKS, aw_check_uneven_batches},
	{"index-range", AW_SEV(ERROR), "a sampler produced an index outside the dataset", AW_CHECK_RANKS, aw_check_index_range},
	{"iterable-duplicate", AW_SEV(ERROR), "an IterableDataset gave the same items to several readers", AW_CHECK_RANKS, aw_check_iterable_duplicate},
	{"resampled", AW_SEV(INFO), "an IterableDataset drew items again", AW_CHECK_RANKS, aw_check_resampled},
	{"same-order", AW_SEV(WARNING), "a shuffling loader gave the same order every epoch", AW_CHECK_LOADER, aw_check_same_order},
	{"never-read", AW_SEV(WARNING), "every epoch stopped early: part of the data was never read", AW_CHECK_LOADER, aw_check_never_read},
	{"read-amplification", AW_SEV(WARNING) | AW_SEV(INFO), "every rank read the whole stream to keep its part", AW_CHECK_LOADER, aw_check_read_amplification},
	{"worker-stale-epoch", AW_SEV(WARNING), "persistent workers kept an old epoch of the dataset", AW_CHECK_LOADER, aw_check_worker_stale_epoch},
	{"unused-prepared", AW_SEV(ERROR), "a prepared loader is never used; the unsharded one is", AW_CHECK_TRACE, aw_check_unused_prepared},
	{"stale-len", AW_SEV(WARNING), "len() was taken of a loader that is never iterated", AW_CHECK_TRACE, aw_check_len},
	{"len-mismatch", AW_SEV(WARNING), "an iterated loader's len() differs from its batches", AW_CHECK_TRACE, NULL},
	{"resume-repeats-epoch", AW_SEV(ERROR), "a resumed pass replayed an epoch already trained", AW_CHECK_TRACE, aw_check_resume_repeats},
	{"fork-threads", AW_SEV(WARNING), "a worker was forked while the parent ran threads", AW_CHECK_TRACE, aw_check_forks},
	{"fork-cuda", AW_SEV(ERROR), "a worker was forked after CUDA was loaded", AW_CHECK_TRACE, NULL},
	{"worker-respawn", AW_SEV(WARNING), "workers were forked anew every epoch", AW_CHECK_TRACE, aw_check_worker_respawn},
	{"duplicate-rank", AW_SEV(ERROR), "several processes said they are the same rank", AW_CHECK_TRACE, aw_check_duplicate_rank},
	{"worker-died", AW_SEV(ERROR), "a DataLoader worker died", AW_CHECK_TRACE, aw_check_worker_died},
	{"worker-stuck", AW_SEV(ERROR), "a DataLoader worker never returned from a fetch", AW_CHECK_TRACE, aw_check_worker_stuck},
	{"rank-died", AW_SEV(ERROR) | AW_SEV(INFO), "a rank ended before its peers finished the epoch", AW_CHECK_TRACE, aw_check_rank_died},
	{"rank-ended-after-data", AW_SEV(INFO), "a rank failed or was stopped after its data was read", AW_CHECK_TRACE, NULL},
	{"trace-incomplete", AW_SEV(WARNING), "the trace lacks events: the report is partial", AW_CHECK_TRACE, aw_check_trace_incomplete},
};
// clang-format on

#define AW_N_CHECKS (sizeof(aw_checks) / sizeof(aw_checks[0]))

const char *aw_checks_finding_id(size_t i)
{
	return i < AW_N_CHECKS ? aw_checks[i].id : NULL;
}

const struct aw_check *aw_checks_find(const char *id)
{
	for (size_t i = 0; i < AW_N_CHECKS; i++)
		if (strcmp(aw_checks[i].id, id) == 0)
			return &aw_checks[i];
	return NULL;
}

bool aw_checks_known_id(const char *id)
{
	return aw_checks_find(id) != NULL;
}

static void aw_run_scope(struct aw_check_input *in, enum aw_check_scope scope,
			 struct aw_findings *out)
{
	for (size_t i = 0; i < AW_N_CHECKS; i++)
		if (aw_checks[i].scope == scope && aw_checks[i].run)
			aw_checks[i].run(in, out);
}

void aw_checks_run(const struct aw_model *model, struct aw_findings *out)
{
	struct aw_check_input in = {.model = model};
	/* Progress in epochs of all loaders: a run may have one loader of
	 * many epochs or many loaders of one. */
	size_t epochs = 0, done = 0;
	for (size_t g = 0; g < model->n_loaders_global; g++)
		epochs += model->loaders_global[g].n_epochs;
	aw_model_progress(model, "checks", 0, epochs);
	aw_run_scope(&in, AW_CHECK_TRACE, out);
	for (size_t g = 0; g < model->n_loaders_global; g++) {
		in.loader = &model->loaders_global[g];
		in.loader_index = (uint32_t)g;
		in.desc = aw_model_describe(model, in.loader);
		in.epoch = NULL;
		in.world = in.batch_size = 0;
		aw_run_scope(&in, AW_CHECK_LOADER, out);
		for (size_t e = 0; e < in.loader->n_epochs; e++) {
			const struct aw_epoch *epoch = &in.loader->epochs[e];
			aw_model_progress(model, "checks", done++, epochs);
			if (epoch->n_cells == 0)
				continue;
			in.batch_size = in.desc->batch_size > 0
					    ? (uint64_t)in.desc->batch_size
					    : AW_MAX(epoch->max_batch_len, 1);
			in.epoch = epoch->by_group ? epoch->by_group : epoch;
			in.world = in.epoch->n_cells;
			aw_run_scope(&in, AW_CHECK_EPOCH, out);
			in.epoch = epoch;
			in.world = epoch->n_cells;
			aw_run_scope(&in, AW_CHECK_RANKS, out);
		}
	}
	for (size_t i = 0; i < out->n; i++)
		for (uint32_t row = 0; row < AW_N_CHECKS; row++)
			if (!strcmp(aw_checks[row].id, out->items[i].id)) {
				out->items[i].row = row;
				break;
			}
	aw_findings_sort(out);
}
