/* SPDX-License-Identifier: MIT */
/* The order checks, per loader: the same order every epoch (same-order),
 * and persistent workers that kept an old epoch of their dataset
 * (worker-stale-epoch). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks_private.h"
#include "util.h"

/* --- same-order ---------------------------------------------------------- */

/* The message of a same-order finding: `count` samples or items of each
 * rank named read alike in epochs a and b, `pairs` times over ranks and
 * epochs, although `shuffler` shuffles. */
static void aw_same_order_said(struct aw_finding *f, const char *unit,
			       uint64_t count, uint32_t a, uint32_t b,
			       size_t pairs, const char *shuffler)
{
	struct aw_text ranks = {0};
	aw_format_ranks(f->ranks, f->n_ranks, &ranks);
	aw_finding_set_message(
	    f,
	    "%s%s read its %" PRIu64 " %s in exactly the same order in "
	    "epochs %u and %u (%zu repeat%s over ranks and epochs) although %s "
	    "shuffles: every epoch repeats the first",
	    f->n_ranks > 1 ? "each of " : "", aw_text_str(&ranks), count, unit,
	    a, b, pairs, pairs == 1 ? "" : "s", shuffler);
	aw_text_fini(&ranks);
	aw_finding_add_integer(f, "samples", (int64_t)count);
	aw_finding_add_integer(f, "epoch_pairs", (int64_t)pairs);
}

static bool aw_sources_repeat(const struct aw_model *m, uint32_t g, uint32_t a,
			      uint32_t b, int32_t rank, bool main_too,
			      uint64_t *items, uint32_t *workers);

/* An IterableDataset that says it shuffles (its own `shuffle` flag) gave
 * every source of a rank the same items in the same order in consecutive
 * epochs, its epoch unchanged (a changed one its persistent workers did
 * not see is worker-stale-epoch). */
static void aw_same_item_order(const struct aw_check_input *in,
			       struct aw_findings *out)
{
	const struct aw_global_loader *g = in->loader;
	struct aw_finding *f = NULL;
	uint64_t first_items = 0;
	uint32_t first_a = 0, first_b = 0;
	size_t pairs = 0;
	for (size_t e = 0; e + 1 < g->n_epochs; e++) {
		const struct aw_epoch *a = &g->epochs[e],
				      *b = &g->epochs[e + 1];
		for (size_t c = 0; c < b->n_cells; c++) {
			const struct aw_cell *later = &b->cells[c];
			const struct aw_cell *earlier =
			    aw_model_cell(g, a->epoch, later->rank);
			uint64_t items;
			uint32_t sources;
			if (!earlier ||
			    in->model->iterations[earlier->iteration]
				    .dataset_epoch !=
				in->model->iterations[later->iteration]
				    .dataset_epoch ||
			    !aw_sources_repeat(in->model, in->loader_index,
					       a->epoch, b->epoch, later->rank,
					       true, &items, &sources))
				continue;
			if (!f) {
				f = aw_findings_add(out, "same-order",
						    AW_SEVERITY_WARNING,
						    in->loader_index, b->epoch);
				first_items = later->samples;
				first_a = a->epoch;
				first_b = b->epoch;
			}
			aw_finding_add_rank(f, later->rank);
			if (pairs++ < AW_EVIDENCE_RANKS)
				aw_finding_add_evidence(
				    f,
				    "rank %d, epochs %u and %u: each of its %u "
				    "reading process%s produced the same "
				    "items in the same order (up to %" PRIu64
				    " each)",
				    later->rank, a->epoch, b->epoch, sources,
				    sources == 1 ? "" : "es", items);
		}
	}
	if (!f)
		return;
	char *who = aw_xasprintf("its dataset (%s) says it",
				 aw_short_class(in->desc->dataset_type));
	aw_same_order_said(f, "items", first_items, first_a, first_b, pairs,
			   who);
	free(who);
	aw_finding_set_fix(
	    f, "move the dataset's shuffle on every epoch: give it the epoch "
	       "(its set_epoch(epoch), before the workers start) or a new "
	       "seed; a streaming dataset that advances only under its own "
	       "DataLoader class needs that class");
}

void aw_check_same_order(const struct aw_check_input *in,
			 struct aw_findings *out)
{
	const struct aw_global_loader *g = in->loader;
	const struct aw_loader *d = in->desc;
	if (d->shuffle != 1 || g->n_epochs < 2)
		return;
	if (d->iterable) {
		aw_same_item_order(in, out);
		return;
	}
	struct aw_finding *f = NULL;
	const struct aw_cell *first = NULL;
	uint32_t first_a = 0, first_b = 0;
	size_t pairs = 0, shown = 0;
	bool late = false;
	for (size_t e = 0; e + 1 < g->n_epochs; e++) {
		const struct aw_epoch *a = &g->epochs[e],
				      *b = &g->epochs[e + 1];
		for (size_t c = 0; c < b->n_cells; c++) {
			const struct aw_cell *later = &b->cells[c];
			const struct aw_cell *earlier =
			    aw_model_cell(g, a->epoch, later->rank);
			if (!earlier || !earlier->has_order ||
			    !later->has_order || earlier->samples < 2 ||
			    earlier->samples != later->samples ||
			    earlier->order_hash != later->order_hash)
				continue;
			if (!f) {
				f = aw_findings_add(out, "same-order",
						    AW_SEVERITY_WARNING,
						    in->loader_index, b->epoch);
				first = later;
				first_a = a->epoch;
				first_b = b->epoch;
			}
			aw_finding_add_rank(f, later->rank);
			pairs++;
			/* The epoch moved on by the pass after: set_epoch
			 * was called, after this pass had begun drawing. */
			const struct aw_cell *next =
			    e + 2 < g->n_epochs
				? aw_model_cell(g, g->epochs[e + 2].epoch,
						later->rank)
				: NULL;
			bool after =
			    earlier->sampler_epoch >= 0 &&
			    earlier->sampler_epoch == later->sampler_epoch &&
			    next && next->sampler_epoch > later->sampler_epoch;
			late |= after;
			if (shown++ >= AW_EVIDENCE_RANKS)
				continue;
			if (after)
				aw_finding_add_evidence(
				    f,
				    "rank %d, epochs %u and %u: the same order "
				    "(xxh64 %016" PRIx64 "); the sampler's "
				    "epoch was %" PRId64
				    " at the start of both and %" PRId64
				    " at the start of epoch %u: set_epoch() "
				    "was called after epoch %u's pass had "
				    "begun drawing",
				    later->rank, a->epoch, b->epoch,
				    later->order_hash, later->sampler_epoch,
				    next->sampler_epoch, g->epochs[e + 2].epoch,
				    b->epoch);
			else if (earlier->sampler_epoch >= 0 &&
				 earlier->sampler_epoch == later->sampler_epoch)
				aw_finding_add_evidence(
				    f,
				    "rank %d, epochs %u and %u: the same order "
				    "(xxh64 %016" PRIx64 "); the sampler's "
				    "epoch was %" PRId64
				    " at the start of both: set_epoch() was "
				    "not called",
				    later->rank, a->epoch, b->epoch,
				    later->order_hash, later->sampler_epoch);
			else
				aw_finding_add_evidence(
				    f,
				    "rank %d, epochs %u and %u: the same order "
				    "(xxh64 %016" PRIx64 ")",
				    later->rank, a->epoch, b->epoch,
				    later->order_hash);
		}
	}
	if (!f)
		return;
	aw_same_order_said(f, "samples", first->samples, first_a, first_b,
			   pairs, aw_short_class(d->sampler_class));
	if (late)
		aw_finding_set_fix(
		    f, "draw each epoch after its set_epoch(epoch): a loader "
		       "that keeps one iterator across epochs draws the next "
		       "epoch's first batches ahead (its workers prefetch), "
		       "before the loop calls set_epoch; use "
		       "DataLoader(persistent_workers=True) instead, which "
		       "keeps the workers and starts each epoch's draw at "
		       "iter(), or call set_epoch for the next epoch before "
		       "the current one's last batches are drawn");
	else if (d->sampler_class && strstr(d->sampler_class, "Distributed"))
		aw_finding_set_fix(
		    f, "call sampler.set_epoch(epoch) at the start of every "
		       "epoch: DistributedSampler draws its permutation from "
		       "seed + epoch");
	else
		aw_finding_set_fix(
		    f, "give the sampler a new epoch or seed every epoch "
		       "(set_epoch(epoch), or a generator that is not reseeded "
		       "with the same value before each epoch)");
}

/* --- worker-stale-epoch ----------------------------------------------------
 */

/* The item stream of a rank's worker in one epoch of global loader g, or
 * NULL. */
static const struct aw_item_stream *aw_worker_stream(const struct aw_model *m,
						     const struct aw_epoch *e,
						     int32_t rank,
						     int32_t worker_id)
{
	for (size_t i = 0; e && i < e->n_item_streams; i++) {
		const struct aw_item_stream *s =
		    &m->items.streams[e->item_streams[i]];
		if (s->rank == rank && s->worker_id == worker_id)
			return s;
	}
	return NULL;
}

/* Whether every worker of the rank (and its main process, with
 * main_too) read the same items in the same order in both epochs (*items:
 * how many, the most of one source). */
static bool aw_sources_repeat(const struct aw_model *m, uint32_t g, uint32_t a,
			      uint32_t b, int32_t rank, bool main_too,
			      uint64_t *items, uint32_t *workers)
{
	*items = 0;
	*workers = 0;
	const struct aw_global_loader *gl = &m->loaders_global[g];
	const struct aw_epoch *ea = aw_model_find_epoch(gl, a);
	const struct aw_epoch *eb = aw_model_find_epoch(gl, b);
	for (size_t i = 0; eb && i < eb->n_item_streams; i++) {
		const struct aw_item_stream *s =
		    &m->items.streams[eb->item_streams[i]];
		if (s->rank != rank || (s->worker_id < 0 && !main_too))
			continue;
		const struct aw_item_stream *t =
		    aw_worker_stream(m, ea, rank, s->worker_id);
		if (!t || t->n != s->n || s->n < 2 ||
		    memcmp(t->hashes, s->hashes, s->n * sizeof(*s->hashes)))
			return false;
		*items = AW_MAX(*items, (uint64_t)s->n);
		(*workers)++;
	}
	return *workers > 0;
}

void aw_check_worker_stale_epoch(const struct aw_check_input *in,
				 struct aw_findings *out)
{
	const struct aw_global_loader *g = in->loader;
	const struct aw_loader *d = in->desc;
	if (!d->iterable || d->persistent_workers != 1 || d->num_workers < 1)
		return;
	struct aw_finding *f = NULL;
	size_t shown = 0, pairs = 0, first = 0;
	for (size_t e = 0; e + 1 < g->n_epochs; e++) {
		const struct aw_epoch *b = &g->epochs[e + 1];
		for (size_t c = 0; c < b->n_cells; c++) {
			const struct aw_cell *later = &b->cells[c];
			const struct aw_cell *earlier =
			    aw_model_cell(g, g->epochs[e].epoch, later->rank);
			if (!earlier)
				continue;
			int64_t was = in->model->iterations[earlier->iteration]
					  .dataset_epoch,
				now = in->model->iterations[later->iteration]
					  .dataset_epoch;
			uint64_t items;
			uint32_t workers;
			if (was < 0 || now < 0 || was == now ||
			    !aw_sources_repeat(
				in->model, in->loader_index, g->epochs[e].epoch,
				b->epoch, later->rank, false, &items, &workers))
				continue;
			pairs++;
			if (!f) {
				first = e;
				f = aw_findings_add(out, "worker-stale-epoch",
						    AW_SEVERITY_WARNING,
						    in->loader_index, b->epoch);
				aw_finding_set_message(
				    f,
				    "the main process set the dataset's epoch "
				    "to %" PRId64 " for epoch %u (it was "
				    "%" PRId64 "), but the %d persistent "
				    "workers read their own copy of the "
				    "dataset, made when they started: each "
				    "read "
				    "the same items in the same order in both "
				    "epochs",
				    now, b->epoch, was, d->num_workers);
			}
			aw_finding_add_rank(f, later->rank);
			if (e == first && shown++ < AW_EVIDENCE_RANKS)
				aw_finding_add_evidence(
				    f,
				    "rank %d, epochs %u and %u: dataset epoch "
				    "%" PRId64 " then %" PRId64 " in the main "
				    "process; its %u workers' streams are the "
				    "same (up to %" PRIu64 " items each)",
				    later->rank, g->epochs[e].epoch, b->epoch,
				    was, now, workers, items);
		}
	}
	if (!f)
		return;
	aw_finding_add_integer(f, "epoch_pairs", (int64_t)pairs);
	if (pairs > shown)
		aw_finding_add_evidence(f,
					"(%zu repeats over ranks and pairs of "
					"epochs in all)",
					pairs);
	aw_finding_set_fix(
	    f, "give the workers the epoch where they read it: keep it in "
	       "shared memory (a torch tensor made share_memory_(), or a "
	       "multiprocessing.Value, updated in set_epoch), as HF datasets "
	       "does, or build the workers anew each epoch "
	       "(persistent_workers=False)");
}
