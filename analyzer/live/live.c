/* SPDX-License-Identifier: MIT */
/* Live findings: which findings of a snapshot are certain, when to take a
 * snapshot, and the one line each printed finding gets. */
#include "live.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "checks.h"
#include "live_early.h"
#include "util.h"

/* Facts that happened: nothing recorded later takes them back. */
static const char *const aw_live_at_event[] = {"duplicate-rank"};
/* Forks of a loader's workers: settled once every rank of the world ended
 * the loader's first pass (its workers started in it); before, the loader
 * a fork belongs to and the ranks that forked are not all known. */
static const char *const aw_live_at_first_pass[] = {"fork-threads",
						    "fork-cuda"};
/* Verdicts on one epoch: settled once every rank of the world ended it. */
static const char *const aw_live_at_epoch_end[] = {
    "unsharded",      "overlap",        "missing",        "uneven-batches",
    "order-diverged", "split-diverged", "group-diverged", "same-order",
    "worker-died",    "index-range"};

static bool aw_live_listed(const char *id, const char *const *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(id, list[i]) == 0)
			return true;
	return false;
}

/* The epoch of a global loader, NULL when it has none such. */
static const struct aw_epoch *aw_live_epoch(const struct aw_model *model,
					    uint32_t loader, int64_t epoch)
{
	if (loader >= model->n_loaders_global || epoch < 0)
		return NULL;
	const struct aw_global_loader *g = &model->loaders_global[loader];
	for (size_t i = 0; i < g->n_epochs; i++)
		if (g->epochs[i].epoch == (uint32_t)epoch)
			return &g->epochs[i];
	return NULL;
}

/* An epoch accelerate's dispatcher cut into shares: its last step is
 * known to be last only at the end of the trace (aw_model_finish). */
static bool aw_live_dispatched(const struct aw_model *model,
			       const struct aw_epoch *epoch)
{
	for (size_t i = 0; i < epoch->n_cells; i++) {
		const struct aw_cell *cell = &epoch->cells[i];
		if (cell->rebuilt ||
		    (cell->iteration < model->n_iterations &&
		     model->iterations[cell->iteration].dispatch))
			return true;
	}
	return false;
}

int32_t aw_live_world(const struct aw_model *model)
{
	if (model->world_size < 1 || !model->ranks_inferred)
		return model->world_size;
	if (!model->ranks_from_samplers)
		return -1;
	for (size_t i = 0; i < model->n_loaders; i++) {
		const struct aw_loader *l = &model->loaders[i];
		if (l->n_iterations && l->sampler_rank >= 0 &&
		    l->sampler_replicas != model->world_size)
			return -1;
	}
	return model->world_size;
}

/* uneven-batches as an error before every rank ended the epoch: a rank's
 * sampler ran out and another drew more batches (counts only grow), every
 * rank drew outside any Join or one's Join already failed (neither is
 * taken back: the rule's Join would only settle it if every rank drew
 * inside one), and the chains state no shares uneven by design. */
static bool aw_live_uneven_now(const struct aw_model *model,
			       const struct aw_finding *finding,
			       const struct aw_epoch *epoch)
{
	if (strcmp(finding->id, "uneven-batches") != 0 ||
	    finding->severity != AW_SEVERITY_ERROR || !epoch ||
	    epoch->by_group || aw_live_world(model) < 2 ||
	    epoch->n_cells != (size_t)model->world_size ||
	    aw_live_dispatched(model, epoch) ||
	    aw_epoch_stated_uneven(model, epoch))
		return false;
	bool any_join = false, all_outside = true;
	for (size_t i = 0; i < epoch->n_cells; i++) {
		const struct aw_cell *cell = &epoch->cells[i];
		any_join |= cell->join < model->n_joins;
		all_outside &= cell->n_iterations == 1 &&
			       model->iterations[cell->iteration].outside_join;
	}
	return any_join || all_outside;
}

bool aw_live_certain(const struct aw_model *model,
		     const struct aw_finding *finding)
{
	if (finding->severity == AW_SEVERITY_INFO ||
	    finding->suppressed != AW_NOT_SUPPRESSED)
		return false;
	if (aw_live_listed(finding->id, aw_live_at_event,
			   sizeof(aw_live_at_event) /
			       sizeof(aw_live_at_event[0])))
		return true;
	if (aw_live_listed(finding->id, aw_live_at_first_pass,
			   sizeof(aw_live_at_first_pass) /
			       sizeof(aw_live_at_first_pass[0]))) {
		const struct aw_epoch *first =
		    finding->loader < model->n_loaders_global &&
			    model->loaders_global[finding->loader].n_epochs
			? &model->loaders_global[finding->loader].epochs[0]
			: NULL;
		return first && first->complete && aw_live_world(model) > 0 &&
		       first->n_cells == (size_t)model->world_size;
	}
	if (!aw_live_listed(finding->id, aw_live_at_epoch_end,
			    sizeof(aw_live_at_epoch_end) /
				sizeof(aw_live_at_epoch_end[0])))
		return false;
	const struct aw_epoch *epoch =
	    aw_live_epoch(model, finding->loader, finding->epoch);
	if (aw_live_uneven_now(model, finding, epoch))
		return true;
	return epoch && epoch->complete && !aw_live_dispatched(model, epoch) &&
	       aw_live_world(model) > 0 &&
	       epoch->n_cells == (size_t)model->world_size;
}

uint64_t aw_live_moments(const struct aw_model *model)
{
	uint64_t moments = model->n_processes + model->n_forks;
	for (size_t i = 0; i < model->n_iterations; i++) {
		const struct aw_iteration *it = &model->iterations[i];
		moments += (it->batches_seen > 0) + it->ended;
	}
	for (size_t i = 0; i < model->n_processes; i++)
		moments += model->processes[i].exited;
	return moments;
}

void aw_live_init(struct aw_live *live, FILE *out, double start, bool fail_fast,
		  const struct aw_suppressions *suppressions)
{
	memset(live, 0, sizeof(*live));
	live->out = out;
	live->start = start;
	live->fail_fast = fail_fast;
	live->suppressions = suppressions;
}

void aw_live_fini(struct aw_live *live)
{
	for (size_t i = 0; i < live->n_printed; i++)
		free(live->printed[i]);
	free(live->printed);
	memset(live, 0, sizeof(*live));
}

/* "0-3,5": the ranks as runs. */
static void aw_live_ranks(const struct aw_finding *f, char *out, size_t size)
{
	size_t used = 0;
	*out = '\0';
	for (size_t i = 0; i < f->n_ranks && used < size; i++) {
		size_t j = i;
		while (j + 1 < f->n_ranks && f->ranks[j + 1] == f->ranks[j] + 1)
			j++;
		int n = j > i ? snprintf(out + used, size - used, "%s%d-%d",
					 used ? "," : "", (int)f->ranks[i],
					 (int)f->ranks[j])
			      : snprintf(out + used, size - used, "%s%d",
					 used ? "," : "", (int)f->ranks[i]);
		if (n < 0)
			break;
		used += (size_t)n;
		i = j;
	}
}

/* The line: "accwatch live: 12.3 s: unsharded (error), L0 (train.py:31),
 * epoch 0, ranks 0-3"; the parts a finding has not are left out. */
static void aw_live_line(const struct aw_model *model,
			 const struct aw_finding *f, char *out, size_t size)
{
	char loader[512] = "", epoch[32] = "", ranks[256] = "";
	if (f->loader < model->n_loaders_global) {
		char label[480];
		snprintf(loader, sizeof(loader), ", %s",
			 aw_global_loader_label(
			     model, &model->loaders_global[f->loader], label,
			     sizeof(label)));
	}
	if (f->epoch >= 0)
		snprintf(epoch, sizeof(epoch), ", epoch %lld",
			 (long long)f->epoch);
	if (f->n_ranks) {
		char list[240];
		aw_live_ranks(f, list, sizeof(list));
		snprintf(ranks, sizeof(ranks), ", rank%s %s",
			 f->n_ranks > 1 ? "s" : "", list);
	}
	snprintf(out, size, "%s (%s)%s%s%s", f->id,
		 aw_severity_name(f->severity), loader, epoch, ranks);
}

static bool aw_live_was_printed(const struct aw_live *live, const char *key)
{
	for (size_t i = 0; i < live->n_printed; i++)
		if (strcmp(live->printed[i], key) == 0)
			return true;
	return false;
}

static double aw_live_now(void)
{
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	return (double)now.tv_sec + (double)now.tv_nsec / 1e9;
}

/* Prints the certain findings not printed yet. */
static void aw_live_print(struct aw_live *live, const struct aw_model *model,
			  const struct aw_findings *findings, bool early)
{
	for (size_t i = 0;
	     i < findings->n && !(live->fail_fast && live->errors); i++) {
		const struct aw_finding *f = &findings->items[i];
		char line[1024];
		if (early ? f->suppressed != AW_NOT_SUPPRESSED
			  : !aw_live_certain(model, f))
			continue;
		aw_live_line(model, f, line, sizeof(line));
		if (aw_live_was_printed(live, line))
			continue;
		AW_GROW(live->printed, live->printed_cap, live->n_printed + 1);
		live->printed[live->n_printed++] = aw_xstrdup(line);
		fprintf(live->out, "accwatch live: %.1f s: %s\n",
			aw_live_now() - live->start, line);
		fflush(live->out);
		if (f->severity == AW_SEVERITY_ERROR)
			live->errors++;
	}
}

/* The last epoch of a loader that some rank ended while another, still
 * running, is in it: the counts that tell uneven-batches move with every
 * batch, not at a moment. */
static bool aw_live_ending(const struct aw_model *model)
{
	for (size_t g = 0; g < model->n_loaders_global; g++) {
		const struct aw_global_loader *l = &model->loaders_global[g];
		if (!l->n_epochs)
			continue;
		const struct aw_epoch *e = &l->epochs[l->n_epochs - 1];
		size_t ended = 0, running = 0;
		for (size_t c = 0; c < e->n_cells; c++) {
			const struct aw_cell *cell = &e->cells[c];
			ended += cell->complete;
			running += !cell->complete &&
				   !aw_model_cell_process(model, cell)->exited;
		}
		if (ended && running)
			return true;
	}
	return false;
}

bool aw_live_tick(void *context, struct aw_model *model)
{
	struct aw_live *live = context;
	uint64_t moments = aw_live_moments(model);
	uint64_t events = aw_model_accwatch_events(model);
	double now = aw_live_now();
	/* Between moments, once a second while an epoch is ending and events
	 * come. */
	bool again = live->ending && events != live->events &&
		     now - live->snapshot_at >= 1.0;
	if (moments == live->moments && !again)
		return !(live->fail_fast && live->errors);
	live->moments = moments;
	live->events = events;
	live->snapshot_at = now;
	struct aw_findings findings, early;
	aw_findings_init(&findings);
	aw_findings_init(&early);
	aw_model_snapshot(model);
	aw_checks_run(model, &findings);
	aw_suppress_findings(model, live->suppressions, &findings);
	aw_live_early(model, &findings, &early);
	aw_suppress_findings(model, live->suppressions, &early);
	aw_live_print(live, model, &early, true);
	aw_live_print(live, model, &findings, false);
	live->ending = aw_live_ending(model);
	aw_findings_fini(&early);
	aw_findings_fini(&findings);
	return !(live->fail_fast && live->errors);
}
