/* SPDX-License-Identifier: MIT */
/* uneven-batches: ranks that consumed different numbers of batches in an
 * epoch, and what settled it when something did (torch.distributed's Join,
 * shares uneven by design that the sampler chain states). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "checks_private.h"
#include "util.h"

/* A rank process that ended by a signal or with a status > 0. */
static bool aw_ended_badly(const struct aw_process *p)
{
	return p->exited && (p->exit_signal > 0 || p->exit_status > 0);
}

/* Why a rank did not come through cleanly, as evidence; false when it did:
 * its process ended well (or is not known to have ended), and, with
 * `pass` set, its pass ended (a rank still inside it when the trace ended
 * is the hang itself). */
static bool aw_rank_failed(const struct aw_model *model,
			   const struct aw_cell *cell, bool pass,
			   struct aw_text *why)
{
	const struct aw_process *p = aw_model_cell_process(model, cell);
	if (aw_ended_badly(p)) {
		if (p->exit_signal > 0)
			aw_text_add(why, "rank %d was ended by signal %d",
				    cell->rank, p->exit_signal);
		else
			aw_text_add(why, "rank %d exited with status %d",
				    cell->rank, p->exit_status);
		return true;
	}
	if (pass && !cell->complete) {
		aw_text_add(why,
			    "rank %d never ended its pass: it was still inside "
			    "it when %s",
			    cell->rank,
			    p->exited ? "it exited" : "the trace ended");
		return true;
	}
	return false;
}

/* What torch.distributed's Join did about an epoch's uneven ranks. */
enum aw_join_verdict {
	AW_JOIN_NONE,    /* no rank used one */
	AW_JOIN_SETTLED, /* it held: nothing hung */
	AW_JOIN_FAILED,  /* it was there but did not settle it */
	AW_JOIN_PENDING, /* a snapshot: a rank is still waiting inside it */
};

/* torch.distributed's Join around every rank's pass: the ranks that ran
 * out shadow the collectives of those still going, until all have joined.
 * It settled the epoch when every rank drew all its batches inside an
 * enabled Join and came out of it (Join.__exit__ returns only once every
 * rank joined), and no rank then died; the reason it did not goes to
 * `why`. A rank still inside its Join when a snapshot is taken of a trace
 * still being read has not hung yet: pending. */
static enum aw_join_verdict aw_join_settled(const struct aw_check_input *in,
					    struct aw_text *why,
					    int32_t *joinables)
{
	const struct aw_model *model = in->model;
	const struct aw_epoch *e = in->epoch;
	bool any = false, waiting = false;
	for (size_t c = 0; c < e->n_cells; c++)
		any |= e->cells[c].join < model->n_joins;
	if (!any)
		return AW_JOIN_NONE;
	*joinables = -1;
	for (size_t c = 0; c < e->n_cells; c++) {
		const struct aw_cell *cell = &e->cells[c];
		const struct aw_process *p = aw_model_cell_process(model, cell);
		const struct aw_join *j = cell->join < model->n_joins
					      ? &model->joins[cell->join]
					      : NULL;
		if (!j) {
			aw_text_add(why,
				    "rank %d drew batches outside any Join: "
				    "its collectives are not shadowed",
				    cell->rank);
			return AW_JOIN_FAILED;
		}
		if (j->enable != 1) {
			aw_text_add(why, "rank %d's Join was %s", cell->rank,
				    j->enable == 0 ? "disabled (enable=False)"
						   : "of unknown state");
			return AW_JOIN_FAILED;
		}
		if (aw_rank_failed(model, cell, false, why))
			return AW_JOIN_FAILED;
		if (!j->ended && !p->exited && !model->finished) {
			waiting = true;
		} else if (!j->ended) {
			aw_text_add(why,
				    "rank %d never left its Join: it was "
				    "still waiting for the other ranks when "
				    "%s",
				    cell->rank,
				    p->exited ? "it exited"
					      : "the trace ended");
			return AW_JOIN_FAILED;
		}
		*joinables = AW_MAX(*joinables, j->joinables);
	}
	return waiting ? AW_JOIN_PENDING : AW_JOIN_SETTLED;
}

/* The ranks that left a settling Join by an exception, which the program
 * then survived: with throw_on_early_termination every rank stops when the
 * first runs out. */
static void aw_evidence_join_raised(const struct aw_check_input *in,
				    struct aw_finding *f)
{
	const struct aw_epoch *e = in->epoch;
	for (size_t c = 0, shown = 0; c < e->n_cells; c++) {
		const struct aw_join *j = &in->model->joins[e->cells[c].join];
		if (j->raised != 1 || shown++ >= AW_EVIDENCE_RANKS)
			continue;
		aw_finding_add_evidence(
		    f, "rank %d left its Join by an exception%s",
		    e->cells[c].rank,
		    j->throw_on_early_termination == 1
			? " (throw_on_early_termination=True stops every "
			  "rank once the first runs out)"
			: "");
	}
}

/* A sharding link's share: its num_samples, else its len() (a sampler
 * that keeps only its rank and world, as detectron2's InferenceSampler,
 * states its share by its length); -1 none. */
static int64_t aw_link_share(const struct aw_sampler_link *s)
{
	return s->num_samples >= 0 ? s->num_samples : s->length;
}

/* What the shares of a sharding link are of: its total_size, else the
 * length of what it shards (`below`); -1 unknown. */
static int64_t aw_link_whole(const struct aw_sampler_link *s, int64_t below)
{
	return s->total_size >= 0 ? s->total_size : below;
}

/* The sharding link of a loader's chain that states the rank's share
 * (num_samples) of what all ranks draw together (total_size), NULL; *below
 * the length of what it shards (the link under it, or the dataset), -1
 * unknown. */
static const struct aw_sampler_link *aw_stated_share(const struct aw_loader *l,
						     int64_t *below)
{
	for (uint32_t i = 0; i < l->n_chain; i++) {
		const struct aw_sampler_link *s = &l->chain[i];
		if (!s->seen || s->num_replicas < 1 || s->rank < 0)
			continue;
		*below = aw_link_below(l, i);
		if (aw_link_share(s) < 0 || aw_link_whole(s, *below) < 0)
			return NULL;
		return s;
	}
	return NULL;
}

/* A chain uneven by design: each rank's sharding link states a share of
 * its own, the shares differ, and together they are the length it shards,
 * once, without padding (Lightning's UnrepeatedDistributedSampler, for
 * prediction). read_whole: and every rank read exactly its share (one pass,
 * not rebuilt, exhausted). The stated shares go to `shares` and the class
 * to class_name when they are given. */
static bool aw_shares_uneven(const struct aw_model *model,
			     const struct aw_epoch *e, bool read_whole,
			     struct aw_text *shares, const char **class_name)
{
	if (e->n_cells < 2)
		return false;
	bool *seen = aw_xcalloc(e->n_cells, sizeof(*seen));
	int64_t total = -1, sum = 0, first = -1;
	bool differ = false, ok = true;
	for (size_t c = 0; c < e->n_cells && ok; c++) {
		const struct aw_cell *cell = &e->cells[c];
		const struct aw_iteration *it =
		    &model->iterations[cell->iteration];
		int64_t below = -1;
		const struct aw_sampler_link *s =
		    aw_stated_share(&model->loaders[it->loader], &below);
		int64_t share = s ? aw_link_share(s) : -1,
			whole = s ? aw_link_whole(s, below) : -1;
		ok = s && (uint64_t)s->num_replicas == e->n_cells &&
		     (uint64_t)s->rank < e->n_cells && !seen[s->rank] &&
		     (total < 0 || whole == total) &&
		     (below < 0 || whole == below) &&
		     (!read_whole ||
		      (cell->n_iterations == 1 && !cell->rebuilt &&
		       cell->exhausted && cell->samples == (uint64_t)share));
		if (!ok)
			break;
		seen[s->rank] = true;
		total = whole;
		sum += share;
		differ |= first >= 0 && share != first;
		first = share;
		if (class_name)
			*class_name = s->class_name;
		if (shares && c < AW_EVIDENCE_RANKS)
			aw_text_add(shares, "%s%" PRId64, c ? ", " : "", share);
	}
	free(seen);
	if (shares && ok && e->n_cells > AW_EVIDENCE_RANKS)
		aw_text_add(shares, ", ...");
	return ok && differ && sum == total;
}

bool aw_epoch_stated_uneven(const struct aw_model *model,
			    const struct aw_epoch *e)
{
	return aw_shares_uneven(model, e, false, NULL, NULL);
}

void aw_check_uneven_batches(const struct aw_check_input *in,
			     struct aw_findings *out)
{
	const struct aw_epoch *e = in->epoch;
	if (in->world < 2 || aw_unjudgeable(in))
		return;
	/* Ranks whose sampler ran out must agree on their batch count; a rank
	 * that left early (break, crash) with fewer batches says nothing, but
	 * one that was still going past another rank's end is the hang of
	 * form 3b. */
	const struct aw_cell *fewest = NULL, *most = NULL;
	for (size_t c = 0; c < e->n_cells; c++) {
		const struct aw_cell *cell = &e->cells[c];
		if (cell->exhausted &&
		    (!fewest || cell->batches < fewest->batches))
			fewest = cell;
	}
	if (!fewest)
		return;
	for (size_t c = 0; c < e->n_cells; c++) {
		const struct aw_cell *cell = &e->cells[c];
		if ((cell->exhausted || cell->batches > fewest->batches) &&
		    (!most || cell->batches > most->batches))
			most = cell;
	}
	if (!most || most->batches == fewest->batches)
		return;

	/* What the program does about it, and whether that held: a Join
	 * every rank came out of, or shares uneven by design that every rank
	 * read to the end; either with no rank dying. */
	struct aw_text why = {0}, shares = {0};
	int32_t joinables = -1;
	const char *by_design = NULL;
	enum aw_join_verdict join = aw_join_settled(in, &why, &joinables);
	if (join == AW_JOIN_PENDING) {
		/* Judged once the rank leaves its Join, or never does. */
		aw_text_fini(&why);
		return;
	}
	bool joined = join == AW_JOIN_SETTLED;
	bool designed =
	    join == AW_JOIN_NONE &&
	    aw_shares_uneven(in->model, in->epoch, true, &shares, &by_design);
	for (size_t c = 0; designed && c < e->n_cells; c++)
		designed = !aw_rank_failed(in->model, &e->cells[c], true, &why);
	bool settled = joined || designed;

	enum aw_severity severity = settled ? AW_SEVERITY_INFO
				    : aw_partly_unrecorded(in->model)
					? AW_SEVERITY_WARNING
					: AW_SEVERITY_ERROR;
	struct aw_finding *f =
	    aw_epoch_finding(in, out, "uneven-batches", severity);
	aw_add_all_ranks(f, e);
	if (!settled)
		aw_evidence_unrecorded(f, in->model);
	aw_finding_add_integer(f, "fewest_batches", (int64_t)fewest->batches);
	aw_finding_add_integer(f, "most_batches", (int64_t)most->batches);
	if (joined)
		aw_finding_set_message(
		    f,
		    "ranks consumed different numbers of batches in epoch "
		    "%u (%" PRIu64 " on rank %d, %" PRIu64
		    " on rank %d), handled: every rank drew them inside "
		    "torch.distributed's Join (%d joinable%s), where the "
		    "ranks that ran out shadow the collectives of the others, "
		    "and every rank came out of it",
		    e->epoch, fewest->batches, fewest->rank, most->batches,
		    most->rank, joinables, joinables == 1 ? "" : "s");
	else if (designed)
		aw_finding_set_message(
		    f,
		    "ranks consumed different numbers of batches in epoch "
		    "%u (%" PRIu64 " on rank %d, %" PRIu64
		    " on rank %d), by design: their %s shards the data "
		    "unevenly and without padding (shares of %s samples, "
		    "together the whole once), and every rank finished its "
		    "pass, none waiting for another",
		    e->epoch, fewest->batches, fewest->rank, most->batches,
		    most->rank, aw_short_class(by_design),
		    aw_text_str(&shares));
	else
		aw_finding_set_message(
		    f,
		    "ranks consumed different numbers of batches in epoch "
		    "%u (%" PRIu64 " on rank %d, whose sampler ran out, "
		    "%" PRIu64 " on rank %d): a rank with more batches waits "
		    "in a collective the others never join",
		    e->epoch, fewest->batches, fewest->rank, most->batches,
		    most->rank);
	for (size_t c = 0; c < e->n_cells && c < AW_EVIDENCE_RANKS; c++)
		aw_finding_add_evidence(
		    f, "rank %d: %" PRIu64 " batches%s", e->cells[c].rank,
		    e->cells[c].batches,
		    e->cells[c].exhausted
			? ""
			: (e->cells[c].complete ? " (loop left early)"
						: " (no end of epoch seen)"));
	aw_evidence_more(f, e);
	if (joined)
		aw_evidence_join_raised(in, f);
	if (!settled && *aw_text_str(&why))
		aw_finding_add_evidence(f, "%s did not settle it: %s",
					*aw_text_str(&shares)
					    ? "sharding unevenly by design"
					    : "torch.distributed's Join",
					aw_text_str(&why));
	if (joined)
		aw_finding_set_fix(f, "nothing to change: Join lets the ranks "
				      "that ran out wait for the others");
	else if (designed)
		aw_finding_set_fix(
		    f, "nothing to change while the loop runs no collective "
		       "per batch (prediction, evaluation); to train on it, "
		       "give every rank the same count (DistributedSampler "
		       "pads) or wrap the loop in torch.distributed's Join");
	else
		aw_finding_set_fix(
		    f, "make every rank run the same number of batches: keep "
		       "DistributedSampler's padding (drop_last=False) or "
		       "accelerate's even_batches=True, or wrap the loop in "
		       "accelerator.join_uneven_inputs() or DDP's join()");
	aw_text_fini(&why);
	aw_text_fini(&shares);
}
