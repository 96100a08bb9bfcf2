/* SPDX-License-Identifier: MIT */
/* Who each process of the run is, from the events taken: its parent, whether
 * it is a DataLoader worker (and whose), which rank it is, and which
 * attempt of the job it belongs to. Part of aw_model_finish. */
#include "processes.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

/* Parent chains are short; a longer one is a pid-reuse loop. */
#define AW_MAX_ANCESTRY 64

static bool aw_role_is(const struct aw_process *p, const char *role)
{
	return p->role && strcmp(p->role, role) == 0;
}

/* A process's own rank: torch.distributed's when it joined a process group
 * (mp.spawn sets the rank only there), else its rank variable when its
 * launcher gave it one (role "rank"). A variable a spawned or forked child
 * inherited (role "other") is its parent's, not its own. */
static int32_t aw_own_rank(const struct aw_process *p)
{
	if (p->dist_rank >= 0)
		return p->dist_rank;
	return aw_role_is(p, "rank") ? p->env_rank : -1;
}

static void aw_link_parents(struct aw_model *model)
{
	for (size_t i = 0; i < model->n_processes; i++) {
		struct aw_process *p = &model->processes[i];
		if (p->ppid > 0)
			p->parent = aw_index_map_get(
			    &model->process_index,
			    aw_key2(p->space, (uint32_t)p->ppid));
		if (p->parent == i)
			p->parent = AW_NONE;
	}
	/* A child whose `process` event was lost still has its parent's fork.
	 */
	for (size_t i = 0; i < model->n_forks; i++) {
		const struct aw_fork *f = &model->forks[i];
		const struct aw_process *parent = &model->processes[f->process];
		uint32_t child = aw_index_map_get(
		    &model->process_index,
		    aw_key2(parent->space, (uint32_t)f->child_pid));
		if (child == AW_NONE || child == f->process ||
		    model->processes[child].parent != AW_NONE)
			continue;
		model->processes[child].parent = f->process;
		model->processes[child].ppid = parent->pid;
	}
}

int32_t aw_process_world(const struct aw_process *p)
{
	return p->dist_world_size >= 0 ? p->dist_world_size : p->world_size;
}

/* Whether p has a rank variable of its own and is not a worker by its word:
 * what a process that said nothing is measured against. */
static bool aw_carries_rank(const struct aw_process *p)
{
	return aw_own_rank(p) >= 0 && !aw_role_is(p, "worker") &&
	       !p->started_worker;
}

/* A worker is a process that said it is one: its process event's role, or
 * worker_start. One that said something else ("other": a spawned or forked
 * child, mp.spawn's ranks among them) is not one for where it sits in the
 * tree. Only a process that said nothing (its process event lost) is taken
 * as a worker when it descends from a process with a rank of its own. */
static void aw_find_workers(struct aw_model *model)
{
	for (size_t i = 0; i < model->n_processes; i++) {
		struct aw_process *p = &model->processes[i];
		p->is_worker = aw_role_is(p, "worker") || p->started_worker;
		if (p->is_worker || p->role || p->dist_rank >= 0)
			continue;
		uint32_t up = p->parent;
		for (int depth = 0; up != AW_NONE && depth < AW_MAX_ANCESTRY;
		     depth++) {
			if (aw_carries_rank(&model->processes[up])) {
				p->is_worker = true;
				break;
			}
			up = model->processes[up].parent;
		}
	}
}

/* Whether a process acted as a rank: joined a process group or iterated
 * loaders of its own. */
static bool aw_acts_as_rank(const struct aw_process *p)
{
	return !p->is_worker && (p->dist_rank >= 0 || p->iterations > 0);
}

/* The launchers: processes above one that acted as a rank. */
static bool *aw_find_launchers(const struct aw_model *model)
{
	bool *launcher = aw_xcalloc(model->n_processes + 1, sizeof(*launcher));
	for (size_t i = 0; i < model->n_processes; i++) {
		if (!aw_acts_as_rank(&model->processes[i]))
			continue;
		uint32_t up = model->processes[i].parent;
		for (int depth = 0; up != AW_NONE && depth < AW_MAX_ANCESTRY;
		     depth++) {
			launcher[up] = true;
			up = model->processes[up].parent;
		}
	}
	return launcher;
}

/* A rank acted as one, or was given a rank by its launcher and started no
 * rank itself (a rank that died before it read, say); a launcher that
 * carries a rank variable (torchrun --nproc-per-node 1 running mp.spawn) is
 * not one. */
static bool aw_is_rank(const struct aw_process *p, bool launcher)
{
	return aw_acts_as_rank(p) ||
	       (!p->is_worker && !launcher && aw_role_is(p, "rank"));
}

/* A worker's rank process: the one that said whose loader it serves
 * (loader_pid: a forkserver's child names who asked for it), else its
 * nearest ancestor that is not a worker. */
static void aw_find_owners(struct aw_model *model)
{
	for (size_t i = 0; i < model->n_processes; i++) {
		struct aw_process *p = &model->processes[i];
		if (!p->is_worker)
			continue;
		if (p->worker_loader_pid > 0) {
			uint32_t owner = aw_index_map_get(
			    &model->process_index,
			    aw_key2(p->space, (uint32_t)p->worker_loader_pid));
			if (owner != AW_NONE &&
			    !model->processes[owner].is_worker) {
				p->owner = owner;
				continue;
			}
		}
		uint32_t up = p->parent;
		for (int depth = 0; up != AW_NONE && depth < AW_MAX_ANCESTRY;
		     depth++) {
			if (!model->processes[up].is_worker) {
				p->owner = up;
				break;
			}
			up = model->processes[up].parent;
		}
	}
}

static int32_t aw_ancestor_rank(const struct aw_model *model,
				const struct aw_process *p)
{
	uint32_t up = p->parent;
	for (int depth = 0; up != AW_NONE && depth < AW_MAX_ANCESTRY; depth++) {
		const struct aw_process *q = &model->processes[up];
		if (q->rank >= 0)
			return q->rank;
		up = q->parent;
	}
	return -1;
}

static int aw_compare_pid(const void *a, const void *b)
{
	const struct aw_process *p = *(const struct aw_process *const *)a;
	const struct aw_process *q = *(const struct aw_process *const *)b;
	if (p->space != q->space)
		return p->space < q->space ? -1 : 1;
	return (p->pid > q->pid) - (p->pid < q->pid);
}

/* The rank the samplers of a process's loaders say it is (a
 * DistributedSampler given rank=r), -1 when they say none or disagree. */
static int32_t aw_sampler_rank(const struct aw_model *model, uint32_t process)
{
	int32_t rank = -1;
	for (size_t i = 0; i < model->n_loaders; i++) {
		const struct aw_loader *l = &model->loaders[i];
		if (l->process != process || !l->n_iterations ||
		    l->sampler_rank < 0)
			continue;
		if (rank >= 0 && rank != l->sampler_rank)
			return -1;
		rank = l->sampler_rank;
	}
	return rank;
}

/* No process has a rank of its own: the ranks are the processes that
 * iterated. When each one's sampler names a different rank those are the
 * ranks; otherwise they are numbered in pid order. */
static void aw_infer_ranks(struct aw_model *model)
{
	struct aw_process **order =
	    aw_xcalloc(model->n_processes + 1, sizeof(*order));
	int32_t *said = aw_xcalloc(model->n_processes + 1, sizeof(*said));
	size_t n = 0;
	bool samplers_say = true;
	for (size_t i = 0; i < model->n_processes; i++) {
		struct aw_process *p = &model->processes[i];
		if (!aw_acts_as_rank(p))
			continue;
		said[n] = aw_sampler_rank(model, (uint32_t)i);
		for (size_t k = 0; k < n && samplers_say; k++)
			samplers_say = said[k] != said[n];
		samplers_say &= said[n] >= 0;
		order[n++] = p;
	}
	if (!samplers_say)
		qsort(order, n, sizeof(*order), aw_compare_pid);
	for (size_t i = 0; i < n; i++) {
		order[i]->rank = samplers_say ? said[i] : (int32_t)i;
		order[i]->rank_inferred = true;
	}
	model->ranks_inferred = n > 0;
	model->ranks_from_samplers = n > 0 && samplers_say;
	free(said);
	free(order);
}

static void aw_resolve_ranks(struct aw_model *model)
{
	for (size_t i = 0; i < model->n_iterations; i++) {
		const struct aw_loader *l =
		    &model->loaders[model->iterations[i].loader];
		model->processes[l->process].iterations++;
	}

	bool any_rank = false;
	bool *launcher = aw_find_launchers(model);
	for (size_t i = 0; i < model->n_processes; i++) {
		struct aw_process *p = &model->processes[i];
		p->rank = aw_is_rank(p, launcher[i]) ? aw_own_rank(p) : -1;
		any_rank |= p->rank >= 0;
	}
	free(launcher);
	if (!any_rank)
		aw_infer_ranks(model);

	for (size_t i = 0; i < model->n_processes; i++) {
		struct aw_process *p = &model->processes[i];
		if (p->is_worker && p->rank < 0 && p->owner != AW_NONE)
			p->rank = model->processes[p->owner].rank;
		if (p->is_worker && p->rank < 0)
			p->rank = aw_ancestor_rank(model, p);
		if (!p->is_worker && p->rank < 0 && p->iterations)
			model->unranked_processes++;
	}

	/* The world the ranks say they are in: torch.distributed's when they
	 * joined a process group (what training used), else their launcher's;
	 * a launcher's or worker's variables are not a rank's word. */
	int32_t world = -1;
	for (size_t i = 0; i < model->n_processes; i++) {
		const struct aw_process *p = &model->processes[i];
		if (p->is_worker || p->rank < 0)
			continue;
		world = AW_MAX(world, aw_process_world(p));
		/* A rank of INT32_MAX (a damaged trace) must not overflow. */
		world =
		    AW_MAX(world, p->rank < INT32_MAX ? p->rank + 1 : p->rank);
		bool known = false;
		for (size_t r = 0; r < model->n_ranks && !known; r++)
			known = model->ranks[r] == p->rank;
		if (!known) {
			model->ranks = aw_xrealloc(model->ranks,
						   (model->n_ranks + 1) *
						       sizeof(*model->ranks));
			model->ranks[model->n_ranks++] = p->rank;
		}
	}
	aw_sort(model->ranks, model->n_ranks, sizeof(*model->ranks),
		aw_compare_int32);
	model->world_size = world;
}

/* A process's lifetime on the trace clock: its first event to its exit
 * (or its last event when no exit was seen). */
static int64_t aw_lifetime_end(const struct aw_process *p)
{
	return p->exit_ns >= 0 ? AW_MAX(p->exit_ns, p->last_ns) : p->last_ns;
}

/* A rank process, by rank and then start. */
struct aw_start {
	int32_t rank;
	int64_t first_ns;
	uint32_t process;
};

static int aw_compare_start(const void *a, const void *b)
{
	const struct aw_start *p = a, *q = b;
	if (p->rank != q->rank)
		return (p->rank > q->rank) - (p->rank < q->rank);
	if (p->first_ns != q->first_ns)
		return (p->first_ns > q->first_ns) -
		       (p->first_ns < q->first_ns);
	return (p->process > q->process) - (p->process < q->process);
}

/* Attempts: the processes of each rank, in the order they started; one that
 * starts after every earlier process of its rank has ended begins the next
 * attempt (torchrun's restart after a failure, or a second job resuming
 * the first: no process of the rank lives across the gap). Processes of a
 * rank that overlap in time are one attempt (several jobs at once are
 * duplicate-rank), and so is one started below a process of its rank (a
 * helper given the rank's variables). Without the trace clock everything
 * is attempt 0. */
/* Whether an ancestor of p claims p's rank: p is a process that one started
 * (a helper given the rank's variables), part of its attempt, never a new
 * one however late it starts. */
static bool aw_descends_from_its_rank(const struct aw_model *model,
				      const struct aw_process *p)
{
	uint32_t up = p->parent;
	for (int depth = 0; up != AW_NONE && depth < AW_MAX_ANCESTRY; depth++) {
		const struct aw_process *q = &model->processes[up];
		if (!q->is_worker && q->rank == p->rank)
			return true;
		up = q->parent;
	}
	return false;
}

static void aw_find_attempts(struct aw_model *model)
{
	struct aw_start *order =
	    aw_xcalloc(model->n_processes + 1, sizeof(*order));
	size_t n = 0;
	for (size_t i = 0; i < model->n_processes; i++) {
		const struct aw_process *p = &model->processes[i];
		if (!p->is_worker && p->rank >= 0 && p->first_ns >= 0)
			order[n++] = (struct aw_start){p->rank, p->first_ns,
						       (uint32_t)i};
	}
	aw_sort(order, n, sizeof(*order), aw_compare_start);
	int64_t end = 0;
	uint32_t attempt = 0;
	for (size_t k = 0; k < n; k++) {
		struct aw_process *p = &model->processes[order[k].process];
		bool first = k == 0 || order[k - 1].rank != p->rank;
		if (first)
			attempt = 0;
		else if (p->first_ns > end &&
			 !aw_descends_from_its_rank(model, p))
			attempt++;
		end = first ? aw_lifetime_end(p)
			    : AW_MAX(end, aw_lifetime_end(p));
		p->attempt = attempt;
		model->n_attempts = AW_MAX(model->n_attempts, attempt + 1);
	}
	for (size_t i = 0; i < model->n_processes; i++) {
		struct aw_process *p = &model->processes[i];
		if (p->is_worker && p->owner != AW_NONE)
			p->attempt = model->processes[p->owner].attempt;
	}
	free(order);
}

void aw_resolve_processes(struct aw_model *model)
{
	aw_link_parents(model);
	aw_find_workers(model);
	aw_find_owners(model);
	aw_resolve_ranks(model);
	aw_find_attempts(model);
}
