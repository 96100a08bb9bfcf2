/* SPDX-License-Identifier: MIT */
/* The resume checks: a pass that resumed (from a state_dict, or past the
 * batches skip_first_batches skips) judged with the pass it continues. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <xxhash.h>

#include "checks_private.h"
#include "util.h"

/* --- resume-repeats-epoch ---------------------------------------------------
 */

/* The batches a pass skips (accelerate's skip_first_batches in its loader's
 * chain, or a StatefulDataLoader resuming from a state_dict), 0 when none;
 * and whether a link of its chain shuffles. */
static int64_t aw_pass_skip(const struct aw_loader *l,
			    const struct aw_iteration *it, bool *shuffles)
{
	int64_t skip = it->resumed > 0 ? it->resumed : 0;
	*shuffles = false;
	for (uint32_t i = 0; i < l->n_chain; i++) {
		if (!l->chain[i].seen)
			continue;
		if (l->chain[i].skip > 0)
			skip = l->chain[i].skip;
		*shuffles |= l->chain[i].shuffle == 1;
	}
	return skip;
}

/* Whether pass q, before pass p of the same rank, read the same data:
 * loaders of the same site (in any attempt), or of the same dataset in the
 * same process. */
static bool aw_same_data(const struct aw_model *m, const struct aw_iteration *p,
			 const struct aw_iteration *q)
{
	const struct aw_loader *a = &m->loaders[p->loader];
	const struct aw_loader *b = &m->loaders[q->loader];
	if (m->processes[a->process].rank != m->processes[b->process].rank)
		return false;
	if (a->global != AW_NONE && b->global != AW_NONE &&
	    m->loaders_global[a->global].lineage ==
		m->loaders_global[b->global].lineage)
		return true;
	return a->process == b->process && a->dataset_id == b->dataset_id;
}

/* The finding of this id for a loader and epoch already in out, or NULL. */
static struct aw_finding *aw_finding_of(struct aw_findings *out, const char *id,
					uint32_t loader, int64_t epoch)
{
	for (size_t i = 0; i < out->n; i++) {
		struct aw_finding *f = &out->items[i];
		if (!strcmp(f->id, id) && f->loader == loader &&
		    f->epoch == epoch)
			return f;
	}
	return NULL;
}

/* The passes by sampler seed and epoch: key -> the first pass, next[i]
 * the pass after i with the same key, in pass order. A run of many
 * resumed passes then compares each with its likes, not with every pass. */
struct aw_pass_chains {
	struct aw_index_map first;
	uint32_t *next;
};

static uint64_t aw_pass_key(const struct aw_iteration *p)
{
	int64_t pair[2] = {p->seed, p->sampler_epoch};
	return XXH64(pair, sizeof(pair), 0);
}

static void aw_pass_chains_init(struct aw_pass_chains *c,
				const struct aw_model *m)
{
	aw_index_map_init(&c->first);
	c->next = aw_xcalloc(m->n_iterations + 1, sizeof(*c->next));
	for (size_t i = m->n_iterations; i-- > 0;) {
		uint64_t key = aw_pass_key(&m->iterations[i]);
		c->next[i] = aw_index_map_get(&c->first, key);
		aw_index_map_put(&c->first, key, (uint32_t)i);
	}
}

static void aw_pass_chains_fini(struct aw_pass_chains *c)
{
	aw_index_map_fini(&c->first);
	free(c->next);
}

/* An earlier pass of the same rank over the same data whose sampler had
 * the same seed and epoch, and which read every sample p read; or NULL. */
static const struct aw_iteration *
aw_repeated_pass(const struct aw_model *m, const struct aw_pass_chains *c,
		 size_t i)
{
	const struct aw_iteration *p = &m->iterations[i];
	uint64_t unique = aw_sample_set_unique(&p->consumed);
	for (uint32_t j = aw_index_map_get(&c->first, aw_pass_key(p));
	     j != AW_NONE && j < i; j = c->next[j]) {
		const struct aw_iteration *q = &m->iterations[j];
		if (q->seed == p->seed &&
		    q->sampler_epoch == p->sampler_epoch &&
		    aw_same_data(m, p, q) &&
		    aw_sample_set_overlap(&p->consumed, &q->consumed) == unique)
			return q;
	}
	return NULL;
}

static const char *aw_global_id(const struct aw_model *m, uint32_t loader)
{
	uint32_t g = m->loaders[loader].global;
	return g != AW_NONE ? m->loaders_global[g].id : "?";
}

void aw_check_resume_repeats(const struct aw_check_input *in,
			     struct aw_findings *out)
{
	const struct aw_model *m = in->model;
	struct aw_pass_chains chains;
	aw_pass_chains_init(&chains, m);
	for (size_t i = 0; i < m->n_iterations; i++) {
		const struct aw_iteration *p = &m->iterations[i];
		const struct aw_loader *l = &m->loaders[p->loader];
		const struct aw_process *proc = &m->processes[l->process];
		bool shuffles;
		int64_t skip = aw_pass_skip(l, p, &shuffles);
		if (skip <= 0 || !shuffles || proc->rank < 0 ||
		    proc->is_worker || p->seed < 0 || p->sampler_epoch < 0 ||
		    !p->consumed.samples || l->global == AW_NONE)
			continue;
		const struct aw_iteration *q = aw_repeated_pass(m, &chains, i);
		if (!q)
			continue;
		struct aw_finding *f = aw_finding_of(
		    out, "resume-repeats-epoch", l->global, p->epoch);
		if (!f) {
			f = aw_findings_add(out, "resume-repeats-epoch",
					    AW_SEVERITY_ERROR, l->global,
					    p->epoch);
			aw_finding_add_integer(f, "skip", skip);
			aw_finding_add_integer(f, "sampler_epoch",
					       p->sampler_epoch);
			bool state = p->resumed > 0;
			aw_finding_set_message(
			    f,
			    "a pass resumed after %" PRId64
			    " batches (%s) with its sampler at "
			    "epoch %" PRId64 " and seed %" PRId64
			    ", as in epoch %u of %s, already trained: it reads "
			    "that epoch's order again, not the epoch it "
			    "resumes",
			    skip,
			    state ? "load_state_dict" : "skip_first_batches",
			    p->sampler_epoch, p->seed, q->epoch,
			    aw_global_id(m, q->loader));
			aw_finding_set_fix(
			    f,
			    "save the epoch with the checkpoint and call "
			    "set_epoch(<the epoch resumed>) on the sampler "
			    "(or on the prepared loader) before %s, as the "
			    "pass that first trained that epoch did",
			    state ? "load_state_dict()"
				  : "skip_first_batches()");
		}
		aw_finding_add_rank(f, proc->rank);
		if (f->n_ranks <= AW_EVIDENCE_RANKS)
			aw_finding_add_evidence(
			    f,
			    "rank %d: each of the %" PRIu64 " samples of the "
			    "resumed pass (%s epoch %u) was read in %s epoch "
			    "%u, drawn from the same permutation after its "
			    "first %" PRId64 " batches",
			    proc->rank, aw_sample_set_unique(&p->consumed),
			    aw_global_id(m, p->loader), p->epoch,
			    aw_global_id(m, q->loader), q->epoch, skip);
	}
	aw_pass_chains_fini(&chains);
}
