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

/* The resume-repeats-epoch finding of rank pass p, whose sampler is at the
 * seed and epoch of q, an epoch already trained. */
static void aw_report_repeat(const struct aw_model *m,
			     const struct aw_iteration *p,
			     const struct aw_iteration *q, int64_t skip,
			     struct aw_findings *out)
{
	const struct aw_loader *l = &m->loaders[p->loader];
	int32_t rank = m->processes[l->process].rank;
	struct aw_finding *f =
	    aw_finding_of(out, "resume-repeats-epoch", l->global, p->epoch);
	if (!f) {
		f = aw_findings_add(out, "resume-repeats-epoch",
				    AW_SEVERITY_ERROR, l->global, p->epoch);
		aw_finding_add_integer(f, "skip", skip);
		aw_finding_add_integer(f, "sampler_epoch", p->sampler_epoch);
		bool state = p->resumed > 0;
		aw_finding_set_message(
		    f,
		    "a pass resumed after %" PRId64
		    " batches (%s) with its sampler at "
		    "epoch %" PRId64 " and seed %" PRId64
		    ", as in epoch %u of %s, already trained: it reads "
		    "that epoch's order again, not the epoch it "
		    "resumes",
		    skip, state ? "load_state_dict" : "skip_first_batches",
		    p->sampler_epoch, p->seed, q->epoch,
		    aw_global_id(m, q->loader));
		aw_finding_set_fix(
		    f,
		    "save the epoch with the checkpoint and call "
		    "set_epoch(<the epoch resumed>) on the sampler "
		    "(or on the prepared loader) before %s, as the "
		    "pass that first trained that epoch did",
		    state ? "load_state_dict()" : "skip_first_batches()");
	}
	aw_finding_add_rank(f, rank);
	if (f->n_ranks <= AW_EVIDENCE_RANKS)
		aw_finding_add_evidence(
		    f,
		    "rank %d: each of the %" PRIu64 " samples of the "
		    "resumed pass (%s epoch %u) was read in %s epoch "
		    "%u, drawn from the same permutation after its "
		    "first %" PRId64 " batches",
		    rank, aw_sample_set_unique(&p->consumed),
		    aw_global_id(m, p->loader), p->epoch,
		    aw_global_id(m, q->loader), q->epoch, skip);
}

/* --- a resumed pass joined with its head ---------------------------------
 */

/* The passes of each rank process's rank: prev[i] the pass of the same rank
 * before pass i, AW_NONE; workers' passes and unranked ones have none. */
static uint32_t *aw_rank_chains(const struct aw_model *m)
{
	uint32_t *prev = aw_xcalloc(m->n_iterations + 1, sizeof(*prev));
	struct aw_index_map newest;
	aw_index_map_init(&newest);
	for (size_t i = 0; i < m->n_iterations; i++) {
		const struct aw_process *p =
		    &m->processes[m->loaders[m->iterations[i].loader].process];
		prev[i] = AW_NONE;
		if (p->is_worker || p->rank < 0)
			continue;
		uint64_t key = (uint64_t)(uint32_t)p->rank;
		prev[i] = aw_index_map_get(&newest, key);
		aw_index_map_put(&newest, key, (uint32_t)i);
	}
	aw_index_map_fini(&newest);
	return prev;
}

/* The samples per batch of a pass of loader l: its batch_size, else its
 * chain's batch sampler's; 0 unknown (a batch sampler of the user's). */
static uint64_t aw_pass_batch_size(const struct aw_loader *l)
{
	if (l->batch_size > 0)
		return (uint64_t)l->batch_size;
	for (uint32_t i = 0; i < l->n_chain; i++)
		if (l->chain[i].seen && l->chain[i].batch_size > 0)
			return (uint64_t)l->chain[i].batch_size;
	return 0;
}

/* Whether pass q of p's rank may be what p resumes: the same data, read
 * before p by another process (an earlier attempt or job) or by p's own
 * process in a pass that ended (not a loader that wraps p's, or that p's
 * wraps), with the same sampler epoch when both know one, and at least
 * the `skip` batches p skipped. */
static bool aw_may_head(const struct aw_model *m, const struct aw_iteration *p,
			const struct aw_iteration *q, int64_t skip)
{
	const struct aw_loader *a = &m->loaders[p->loader];
	const struct aw_loader *b = &m->loaders[q->loader];
	if (!q->consumed.samples || !aw_same_data(m, p, q))
		return false;
	if (a->process == b->process &&
	    (!q->ended || (p->loader != q->loader &&
			   aw_model_iterated_loader(m, p->loader) ==
			       aw_model_iterated_loader(m, q->loader))))
		return false;
	if (p->sampler_epoch >= 0 && q->sampler_epoch >= 0 &&
	    p->sampler_epoch != q->sampler_epoch)
		return false;
	return aw_iteration_batches(q) >= (uint64_t)skip;
}

/* What joining resumed pass p with its head q shows: q read `head`
 * samples in the batches p skipped and `replayed` after them (read again
 * by p when both drew from one order); they share `shared`; so at least
 * `twice` = shared - replayed samples of q's head were read again by p,
 * and, the head and the rest of the epoch being its share, as many of
 * the share were read by neither. */
struct aw_resume_join {
	uint64_t head, replayed, shared, twice;
};

static bool aw_join(const struct aw_iteration *p, const struct aw_iteration *q,
		    int64_t skip, uint64_t batch_size, struct aw_resume_join *j)
{
	if (aw_sample_set_duplicates(&p->consumed) ||
	    aw_sample_set_duplicates(&q->consumed))
		return false; /* drawn with replacement: no permutation */
	uint64_t read = aw_sample_set_unique(&q->consumed);
	j->head = AW_MIN((uint64_t)skip * batch_size, read);
	j->replayed = read - j->head;
	j->shared = aw_sample_set_overlap(&p->consumed, &q->consumed);
	j->twice = j->shared > j->replayed ? j->shared - j->replayed : 0;
	return j->twice > 0;
}

/* The overlap or missing finding of a resumed pass p joined with q. */
static void aw_report_join(const struct aw_model *m,
			   const struct aw_iteration *p,
			   const struct aw_iteration *q, int64_t skip,
			   const struct aw_resume_join *j, const char *id,
			   struct aw_findings *out)
{
	const struct aw_loader *l = &m->loaders[p->loader];
	int32_t rank = m->processes[l->process].rank;
	bool twice = strcmp(id, "overlap") == 0;
	char of_q[96];
	aw_loader_name(m, q->loader, of_q, sizeof(of_q));
	struct aw_finding *f = aw_finding_of(out, id, l->global, p->epoch);
	if (!f) {
		f = aw_findings_add(out, id, AW_SEVERITY_ERROR, l->global,
				    p->epoch);
		aw_finding_add_integer(f, "skip", skip);
		aw_finding_set_message(
		    f,
		    "a pass resumed after %" PRId64 " batches (%s) continues "
		    "epoch %u of %s but draws its samples from another "
		    "order: joined with that pass's first %" PRId64
		    " batches, the epoch %s",
		    skip,
		    p->resumed > 0 ? "load_state_dict" : "skip_first_batches",
		    q->epoch, of_q, skip,
		    twice ? "reads samples twice"
			  : "leaves samples of the ranks' shares unread");
		aw_finding_set_fix(
		    f, "make the resumed process draw the order the first one "
		       "drew: seed the sampler's generator (and set its epoch) "
		       "the same way in every process, or use a sampler whose "
		       "state the checkpoint saves (a Stateful sampler)");
	}
	aw_finding_add_rank(f, rank);
	if (f->n_ranks > AW_EVIDENCE_RANKS)
		return;
	aw_finding_add_evidence(
	    f,
	    "rank %d: %s epoch %u read %" PRIu64 " samples in its first "
	    "%" PRId64 " batches and %" PRIu64 " after them; the resumed "
	    "pass (%s epoch %u) read %" PRIu64 ", %" PRIu64 " of them "
	    "among those: at least %" PRIu64 " of the %" PRIu64
	    " were read twice%s",
	    rank, aw_global_id(m, q->loader), q->epoch, j->head, skip,
	    j->replayed, aw_global_id(m, p->loader), p->epoch,
	    aw_sample_set_unique(&p->consumed), j->shared, j->twice, j->head,
	    twice ? "" : ", so as many of the rank's share were never read");
}

/* A resumed pass that did not repeat a trained epoch, joined with the pass
 * it continues (its head): the newest pass of its rank that may be one.
 * None (its head never recorded): judged alone, as the epoch checks do. */
static void aw_check_join(const struct aw_model *m, const uint32_t *prev,
			  size_t i, int64_t skip, struct aw_findings *out)
{
	const struct aw_iteration *p = &m->iterations[i];
	uint64_t batch_size = aw_pass_batch_size(&m->loaders[p->loader]);
	if (!batch_size || m->loaders[p->loader].iterable)
		return;
	for (uint32_t k = prev[i]; k != AW_NONE; k = prev[k]) {
		const struct aw_iteration *q = &m->iterations[k];
		if (!aw_may_head(m, p, q, skip))
			continue;
		struct aw_resume_join j;
		if (aw_join(p, q, skip, batch_size, &j)) {
			aw_report_join(m, p, q, skip, &j, "overlap", out);
			aw_report_join(m, p, q, skip, &j, "missing", out);
		}
		return;
	}
}

void aw_check_resume_repeats(const struct aw_check_input *in,
			     struct aw_findings *out)
{
	const struct aw_model *m = in->model;
	struct aw_pass_chains chains;
	aw_pass_chains_init(&chains, m);
	uint32_t *prev = aw_rank_chains(m);
	for (size_t i = 0; i < m->n_iterations; i++) {
		const struct aw_iteration *p = &m->iterations[i];
		const struct aw_loader *l = &m->loaders[p->loader];
		const struct aw_process *proc = &m->processes[l->process];
		bool shuffles;
		int64_t skip = aw_pass_skip(l, p, &shuffles);
		if (skip <= 0 || proc->rank < 0 || proc->is_worker ||
		    !p->consumed.samples || l->global == AW_NONE)
			continue;
		const struct aw_iteration *q =
		    shuffles && p->seed >= 0 && p->sampler_epoch >= 0
			? aw_repeated_pass(m, &chains, i)
			: NULL;
		if (q)
			aw_report_repeat(m, p, q, skip, out);
		else
			aw_check_join(m, prev, i, skip, out);
	}
	free(prev);
	aw_pass_chains_fini(&chains);
}
