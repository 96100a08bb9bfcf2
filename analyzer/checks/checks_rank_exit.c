/* SPDX-License-Identifier: MIT */
/* How ranks ended: an end that cut a pass short (rank-died), or one that
 * came after their data was read (rank-ended-after-data, an info). Each
 * finding quotes what the rank was reading and the peers it left. */
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "checks_private.h"
#include "util.h"

/* A rank process whose end the trace holds. */
static bool aw_rank_ended(const struct aw_process *p)
{
	return !p->is_worker && p->rank >= 0 && p->exited;
}

/* A rank that ended by a signal, with status > 0, or by an uncaught
 * exception. */
static bool aw_rank_ended_badly(const struct aw_process *p)
{
	return aw_rank_ended(p) &&
	       (p->exit_signal > 0 || p->exit_status > 0 || p->exception_type);
}

/* A rank that exited with status 0 of its own accord: no signal, no
 * exception (os._exit(0), sys.exit() inside the loop). */
static bool aw_rank_ended_cleanly(const struct aw_process *p)
{
	return aw_rank_ended(p) && !aw_rank_ended_badly(p) &&
	       p->exit_status == 0;
}

/* Which of a process's passes aw_newest_pass looks for. */
enum aw_pass_kind {
	AW_PASS_OPEN,         /* no iter_end: open when the process ended */
	AW_PASS_AT_EXCEPTION, /* open when its uncaught exception came */
	AW_PASS_UNFINISHED,   /* its loader's newest pass, not run to the end */
};

static bool aw_pass_is(const struct aw_model *model, uint32_t index,
		       enum aw_pass_kind kind)
{
	const struct aw_iteration *it = &model->iterations[index];
	switch (kind) {
	case AW_PASS_OPEN:
		return !it->ended;
	case AW_PASS_AT_EXCEPTION:
		return it->open_at_exception;
	default:
		return model->loaders[it->loader].last_iteration == index &&
		       !(it->ended && it->exhausted);
	}
}

/* The newest pass of a process of that kind, AW_NONE. */
static uint32_t aw_newest_pass(const struct aw_model *model, uint32_t process,
			       enum aw_pass_kind kind)
{
	for (size_t i = model->n_iterations; i-- > 0;)
		if (model->loaders[model->iterations[i].loader].process ==
			process &&
		    aw_pass_is(model, (uint32_t)i, kind))
			return (uint32_t)i;
	return AW_NONE;
}

/* The report's epoch a pass is part of, NULL. */
static const struct aw_epoch *aw_pass_epoch(const struct aw_model *model,
					    const struct aw_iteration *it)
{
	const struct aw_loader *l = &model->loaders[it->loader];
	if (l->global >= model->n_loaders_global)
		return NULL;
	return aw_model_find_epoch(&model->loaders_global[l->global],
				   it->epoch);
}

/* Another rank went further than `batches` in the epoch: it ran the epoch
 * to its end, or consumed more batches. */
static bool aw_went_further(const struct aw_cell *cell, int32_t rank,
			    uint64_t batches)
{
	return cell->rank != rank &&
	       (cell->exhausted || cell->batches > batches);
}

/* The peer that went furthest, NULL. */
static const struct aw_cell *aw_furthest_peer(const struct aw_epoch *e,
					      int32_t rank, uint64_t batches)
{
	const struct aw_cell *best = NULL;
	for (size_t c = 0; c < e->n_cells; c++) {
		const struct aw_cell *cell = &e->cells[c];
		if (aw_went_further(cell, rank, batches) &&
		    (!best || cell->batches > best->batches))
			best = cell;
	}
	return best;
}

/* The rank's cell of an epoch, NULL. */
static const struct aw_cell *aw_rank_cell(const struct aw_epoch *e,
					  int32_t rank)
{
	for (size_t c = 0; c < e->n_cells; c++)
		if (e->cells[c].rank == rank)
			return &e->cells[c];
	return NULL;
}

/* Trace clock when a cell's pass drew its last batch, -1 unknown. */
static int64_t aw_last_draw_ns(const struct aw_model *model,
			       const struct aw_cell *cell)
{
	const struct aw_iteration *it = &model->iterations[cell->iteration];
	return it->n_batch_ns ? it->last_batch_ns : -1;
}

/* A peer that went further drew a batch of the epoch after p ended: p was
 * gone while the others still read. That peer, NULL (or no clock). */
static const struct aw_cell *aw_peer_read_after(const struct aw_model *model,
						const struct aw_epoch *e,
						const struct aw_process *p,
						uint64_t batches)
{
	if (p->exit_ns < 0)
		return NULL;
	for (size_t c = 0; c < e->n_cells; c++) {
		const struct aw_cell *cell = &e->cells[c];
		if (aw_went_further(cell, p->rank, batches) &&
		    aw_last_draw_ns(model, cell) > p->exit_ns)
			return cell;
	}
	return NULL;
}

/* The pass a rank's end cut short, and how we know. */
struct aw_rank_end {
	uint32_t iteration; /* the pass */
	uint64_t batches;   /* what it consumed */
	bool inside; /* it ended inside it (open at its exception or end) */
	/* The peer that went furthest in that epoch; the one still reading
	 * after the rank had exited (the rank left its loop and exited
	 * cleanly): NULL where none. */
	const struct aw_cell *peer, *later;
};

/* Whether a rank's end cut one of its passes short, from facts:
 * - it ended inside the pass: the pass was open when its uncaught
 *   exception came, or when it ended by a signal or status > 0;
 * - or the pass did not run to its end (its loader's newest, open or left
 *   early) while another rank went further in that epoch, and the rank
 *   then ended badly, ended with the pass open (os._exit(0) in the loop),
 *   or exited while that rank still drew batches of the epoch.
 * Ranks that all stopped at one batch (max_steps) cut nothing short; a
 * rank that left its loop early, lived on and exited cleanly after its
 * peers' last batch of the epoch stopped reading by choice, not by dying;
 * without clock records that order is unknown and nothing is said. */
static bool aw_rank_cut_short(const struct aw_model *model, uint32_t process,
			      struct aw_rank_end *end)
{
	const struct aw_process *p = &model->processes[process];
	memset(end, 0, sizeof(*end));
	if (!aw_rank_ended(p))
		return false;
	bool badly = aw_rank_ended_badly(p);
	uint32_t index = AW_NONE;
	if (p->exception_type)
		index = aw_newest_pass(model, process, AW_PASS_AT_EXCEPTION);
	if (index == AW_NONE && badly)
		index = aw_newest_pass(model, process, AW_PASS_OPEN);
	end->inside = index != AW_NONE;
	if (index == AW_NONE)
		index = aw_newest_pass(model, process, AW_PASS_UNFINISHED);
	if (index == AW_NONE)
		return false;
	const struct aw_iteration *it = &model->iterations[index];
	const struct aw_epoch *e = aw_pass_epoch(model, it);
	end->iteration = index;
	end->batches = aw_iteration_batches(it);
	end->peer = e ? aw_furthest_peer(e, p->rank, end->batches) : NULL;
	if (end->inside)
		return true;
	/* What its loop got in that epoch is its cell's: accelerate's
	 * dispatcher rebuilds a rank's share from rank 0's reads while the
	 * rank's own iterator only primed. A cell that ran to the end was
	 * read whatever the pass itself drew. */
	const struct aw_cell *own = e ? aw_rank_cell(e, p->rank) : NULL;
	if (own && own->exhausted)
		return false;
	if (own) {
		end->batches = own->batches;
		end->peer = aw_furthest_peer(e, p->rank, own->batches);
	}
	if (!end->peer)
		return false;
	if (badly || !it->ended)
		return true;
	end->later = aw_peer_read_after(model, e, p, end->batches);
	return end->later != NULL;
}

static const char *aw_rank_death_fix(const struct aw_process *p)
{
	if (aw_stop_signal(p->exit_signal))
		return "it was stopped from outside (the launcher once another "
		       "rank failed, the scheduler's time limit, Ctrl-C): if "
		       "a rank died first, fix that one; else resume from a "
		       "checkpoint, the epoch's counts are partial";
	if (p->exception_type)
		return "the exception ended the rank (its traceback is in the "
		       "rank's stderr): when it came from the dataset or "
		       "collate_fn, reproduce it with the indices of that "
		       "batch (num_workers=0, dataset[i] for each) and fix the "
		       "sample or the code that reads it";
	if (aw_rank_ended_cleanly(p))
		return "the rank ended itself with status 0 (os._exit() or "
		       "sys.exit() inside the loop, or a library's exit) while "
		       "the other ranks read on: let every rank leave the loop "
		       "at the same batch (decide to stop together, e.g. "
		       "all_reduce a stop flag) and end after the epoch";
	switch (p->exit_signal) {
	case SIGKILL:
		return "SIGKILL is most often the kernel's out-of-memory "
		       "killer "
		       "(check `dmesg`) or a scheduler killing the job: look "
		       "at the memory the rank and its workers hold while "
		       "reading that batch";
	case -1:
	case 0:
		return "the rank exited with an error while iterating: look "
		       "for its error in its stderr, and reproduce with the "
		       "indices of its last batch";
	default:
		return "a crash in native code while the rank read or "
		       "trained on that batch: reproduce with its indices "
		       "(num_workers=0) under gdb or with faulthandler on";
	}
}

/* With workers, the main process draws prefetch_factor x num_workers
 * batches ahead of the loop: the last batch drawn is not the one the loop
 * was at. */
static void aw_evidence_draw_ahead(struct aw_finding *f,
				   const struct aw_loader *l)
{
	if (l->num_workers <= 0)
		return;
	int32_t prefetch = l->prefetch_factor > 0 ? l->prefetch_factor : 2;
	aw_finding_add_evidence(f,
				"with num_workers=%d the main process draws "
				"up to %d batches ahead of the loop: the loop "
				"itself was up to that many batches earlier",
				l->num_workers, prefetch * l->num_workers);
}

/* How far the pass got, continuing "in epoch 0 of L0 (...) ": what it
 * consumed and its last batch drawn, quoted. An ended pass counts what its
 * loop got; without workers, a batch drawn beyond those is one whose fetch
 * or collate_fn never returned. */
static void aw_pass_progress(struct aw_finding *f, const struct aw_model *model,
			     const struct aw_rank_end *end, struct aw_text *t)
{
	const struct aw_iteration *it = &model->iterations[end->iteration];
	const struct aw_loader *l = &model->loaders[it->loader];
	uint64_t n = end->batches;
	char list[192] = "";
	if (it->last_drawn.any) {
		aw_index_head_format(&it->last_drawn, list, sizeof(list));
		aw_finding_add_integer(f, "batch", it->last_drawn.ordinal);
		if (it->last_drawn.n)
			aw_finding_add_integer(f, "first_index",
					       it->last_drawn.head[0]);
		aw_finding_add_evidence(
		    f, "its last batch drawn: #%" PRIu32 ", indices %s",
		    it->last_drawn.ordinal, list);
		aw_evidence_draw_ahead(f, l);
	}
	bool beyond =
	    it->ended && it->last_drawn.any && it->last_drawn.ordinal >= n;
	if (n == 0)
		aw_text_add(t, "before its first batch");
	else if (it->ended)
		aw_text_add(t, "after its loop got %" PRIu64 " batch%s", n,
			    n == 1 ? "" : "es");
	else
		aw_text_add(t, "after drawing %" PRIu64 " batch%s", n,
			    n == 1 ? "" : "es");
	if (beyond && l->num_workers <= 0)
		aw_text_add(t,
			    " (the next, #%" PRIu32 " with indices %s, was "
			    "drawn and never handed to it: its fetch or "
			    "collate_fn did not return)",
			    it->last_drawn.ordinal, list);
	else if (beyond)
		aw_text_add(t,
			    " (batches were drawn up to #%" PRIu32
			    " with indices %s)",
			    it->last_drawn.ordinal, list);
	else if (it->last_drawn.any)
		aw_text_add(t, ", the last #%" PRIu32 " with indices %s",
			    it->last_drawn.ordinal, list);
}

/* Appends before + "raised T: message" when the rank's exception is
 * known. */
static void aw_add_raised(struct aw_text *t, const char *before,
			  const struct aw_process *p)
{
	if (!p->exception_type)
		return;
	aw_text_add(t, "%sraised %s%s%s", before, p->exception_type,
		    *p->exception_message ? ": " : "", p->exception_message);
}

/* The peers the rank left behind, and its exception, as evidence. */
static void aw_evidence_rank_end(struct aw_finding *f,
				 const struct aw_model *model,
				 const struct aw_process *p,
				 const struct aw_rank_end *end)
{
	if (p->exception_type) {
		struct aw_text raised = {0};
		aw_add_raised(&raised, "it ", p);
		aw_finding_add_evidence(
		    f, "%s%s%s (the uncaught exception that ended it)",
		    aw_text_str(&raised), *p->exception_site ? " at " : "",
		    p->exception_site);
		aw_text_fini(&raised);
	}
	if (!end->peer)
		return;
	const struct aw_epoch *e =
	    aw_pass_epoch(model, &model->iterations[end->iteration]);
	for (size_t c = 0, told = 0; e && c < e->n_cells; c++) {
		const struct aw_cell *cell = &e->cells[c];
		if (!aw_went_further(cell, p->rank, end->batches))
			continue;
		if (told++ == AW_EVIDENCE_RANKS)
			break;
		aw_finding_add_evidence(
		    f,
		    "rank %d (pid %d) went further in this epoch: %" PRIu64
		    " batches%s",
		    cell->rank, cell->pid, cell->batches,
		    cell->exhausted
			? ", to its end"
			: (cell->complete ? " (its loop left early)"
					  : " (no end of epoch seen)"));
	}
	if (end->later)
		aw_finding_add_evidence(
		    f,
		    "it exited %.3f s before rank %d drew its last batch of "
		    "this epoch",
		    (double)(aw_last_draw_ns(model, end->later) - p->exit_ns) /
			1e9,
		    end->later->rank);
}

/* One rank's death in a pass: its finding. */
static struct aw_finding *aw_rank_died_finding(const struct aw_model *model,
					       const struct aw_process *p,
					       const struct aw_rank_end *end,
					       struct aw_findings *out)
{
	const struct aw_iteration *it = &model->iterations[end->iteration];
	const struct aw_loader *l = &model->loaders[it->loader];
	struct aw_finding *f = aw_findings_add(
	    out, "rank-died", AW_SEVERITY_ERROR, l->global, it->epoch);
	aw_finding_add_rank(f, p->rank);
	aw_finding_add_integer(f, "pid", p->pid);
	char how[64], name[128];
	aw_how_ended(f, p, how, sizeof(how));
	aw_loader_name(model, it->loader, name, sizeof(name));
	aw_finding_add_integer(f, "batches", (int64_t)end->batches);
	struct aw_text message = {0};
	aw_text_add(&message, "rank %d (pid %d) %s in epoch %" PRIu32 " of %s ",
		    p->rank, p->pid, how, it->epoch, name);
	aw_pass_progress(f, model, end, &message);
	if (end->peer) {
		aw_finding_add_integer(f, "peer_rank", end->peer->rank);
		aw_finding_add_integer(f, "peer_batches",
				       (int64_t)end->peer->batches);
		aw_text_add(
		    &message,
		    ", while rank %d went further (%" PRIu64 " batches%s)",
		    end->peer->rank, end->peer->batches,
		    end->peer->exhausted ? ", to the end of the epoch" : "");
	} else {
		const struct aw_epoch *e = aw_pass_epoch(model, it);
		aw_text_add(&message, "; its epoch is cut short%s",
			    e && e->n_cells > 1
				? " and the other ranks wait for it at their "
				  "next collective"
				: "");
	}
	aw_add_raised(&message, "; it ", p);
	aw_finding_set_message(f, "%s", aw_text_str(&message));
	aw_text_fini(&message);
	aw_evidence_rank_end(f, model, p, end);
	aw_finding_set_fix(f, "%s", aw_rank_death_fix(p));
	return f;
}

/* A rank stopped by a stop signal, told under another rank's finding. */
static void aw_evidence_stopped(struct aw_finding *f,
				const struct aw_model *model,
				const struct aw_process *p,
				const struct aw_rank_end *end)
{
	const struct aw_iteration *it = &model->iterations[end->iteration];
	char name[128];
	aw_loader_name(model, it->loader, name, sizeof(name));
	aw_finding_add_evidence(
	    f,
	    "rank %d (pid %d) was stopped by %s too, in epoch %" PRIu32
	    " of %s after %" PRIu64 " batches (most likely by the launcher)",
	    p->rank, p->pid, aw_signal_name(p->exit_signal), it->epoch, name,
	    end->batches);
}

/* Ranks that ended badly without cutting a pass short (an exception in
 * the training step after their loop, say): why a launcher stopped the
 * others, told as evidence. */
static void aw_evidence_failed_elsewhere(struct aw_finding *f,
					 const struct aw_model *model)
{
	for (size_t i = 0; i < model->n_processes; i++) {
		const struct aw_process *p = &model->processes[i];
		struct aw_rank_end end;
		if (!aw_rank_ended_badly(p) || aw_stop_signal(p->exit_signal) ||
		    aw_rank_cut_short(model, (uint32_t)i, &end))
			continue;
		struct aw_text said = {0};
		aw_text_add(&said, "rank %d (pid %d) ", p->rank, p->pid);
		if (p->exit_signal > 0)
			aw_text_add(&said, "was killed by %s",
				    aw_signal_name(p->exit_signal));
		else
			aw_text_add(&said, "exited with status %d",
				    p->exit_status);
		aw_text_add(&said, " outside any pass over a loader");
		aw_add_raised(&said, " (it ", p);
		aw_finding_add_evidence(f, "%s%s: its error comes first",
					aw_text_str(&said),
					p->exception_type ? ")" : "");
		aw_text_fini(&said);
	}
}

/* --- rank-ended-after-data ------------------------------------------------ */

/* The newest pass of a rank process, AW_NONE when it began none. */
static uint32_t aw_last_pass(const struct aw_model *model, uint32_t process)
{
	for (size_t i = model->n_iterations; i-- > 0;)
		if (model->loaders[model->iterations[i].loader].process ==
		    process)
			return (uint32_t)i;
	return AW_NONE;
}

/* What a rank read last: its newest pass, and its cell of that pass's
 * epoch; for a rank whose share another process read (accelerate's
 * dispatcher on rank 0), the cell of its pid whose pass drew last. */
struct aw_last_read {
	uint32_t global, epoch;
	const struct aw_iteration *pass; /* NULL: the cell alone */
	const struct aw_cell *cell;      /* NULL: the pass alone */
};

static const struct aw_cell *aw_newest_cell_of(const struct aw_model *model,
					       const struct aw_process *p,
					       uint32_t *global,
					       uint32_t *epoch)
{
	const struct aw_cell *best = NULL;
	for (size_t g = 0; g < model->n_loaders_global; g++) {
		const struct aw_global_loader *l = &model->loaders_global[g];
		for (size_t e = 0; e < l->n_epochs; e++)
			for (size_t c = 0; c < l->epochs[e].n_cells; c++) {
				const struct aw_cell *cell =
				    &l->epochs[e].cells[c];
				if (cell->pid != p->pid ||
				    (best && aw_last_draw_ns(model, cell) <
						 aw_last_draw_ns(model, best)))
					continue;
				best = cell;
				*global = (uint32_t)g;
				*epoch = l->epochs[e].epoch;
			}
	}
	return best;
}

static bool aw_rank_last_read(const struct aw_model *model, uint32_t process,
			      struct aw_last_read *out)
{
	const struct aw_process *p = &model->processes[process];
	memset(out, 0, sizeof(*out));
	uint32_t index = aw_last_pass(model, process);
	if (index == AW_NONE) {
		out->cell =
		    aw_newest_cell_of(model, p, &out->global, &out->epoch);
		return out->cell != NULL;
	}
	out->pass = &model->iterations[index];
	out->global = model->loaders[out->pass->loader].global;
	out->epoch = out->pass->epoch;
	const struct aw_epoch *e = aw_pass_epoch(model, out->pass);
	out->cell = e ? aw_rank_cell(e, p->rank) : NULL;
	return true;
}

/* A rank that read and then ended badly or was stopped, none of its
 * passes cut short by that end. */
static bool aw_rank_ended_after_data(const struct aw_model *model,
				     uint32_t process)
{
	const struct aw_process *p = &model->processes[process];
	struct aw_rank_end end;
	struct aw_last_read last;
	return aw_rank_ended_badly(p) &&
	       aw_rank_last_read(model, process, &last) &&
	       !aw_rank_cut_short(model, process, &end);
}

/* "its last: epoch 1 of L0 (train.py:10), 8 batches, to its end" */
static void aw_last_read_said(const struct aw_model *model,
			      const struct aw_last_read *last,
			      struct aw_text *t)
{
	uint64_t n =
	    last->cell ? last->cell->batches : aw_iteration_batches(last->pass);
	bool to_end =
	    last->cell ? last->cell->exhausted : last->pass->exhausted;
	char of[160];
	aw_of_loader(model, last->global, of, sizeof(of));
	aw_text_add(t, "its last: epoch %" PRIu32 "%s, %" PRIu64 " batch%s%s",
		    last->epoch, of, n, n == 1 ? "" : "es",
		    to_end ? ", to its end" : ", its loop left it");
}

static const char *aw_after_data_fix(const struct aw_process *p)
{
	if (p->exit_signal == SIGABRT)
		return "nothing to change in the data path; the abort is in "
		       "the rank's stderr. With torch 2.x over gloo, "
		       "\"terminate called without an active exception\" "
		       "at exit is a gloo worker thread releasing a "
		       "collective's work while the interpreter shuts down (a "
		       "race in torch and CPython before 3.14); ending the "
		       "rank with os._exit(0) after destroy_process_group() "
		       "avoids it";
	if (p->exception_type)
		return "nothing to change in the data path: fix the exception "
		       "where its traceback (the rank's stderr) points";
	if (aw_stop_signal(p->exit_signal))
		return "nothing to change in the data path: the rank was "
		       "stopped from outside (a launcher once another rank "
		       "failed, a scheduler, Ctrl-C) after reading its data";
	return "nothing to change in the data path: why the rank ended is "
	       "in its stderr";
}

/* One finding for a rank that ended after its data, its message. */
static struct aw_finding *aw_after_data_finding(const struct aw_model *model,
						uint32_t process,
						struct aw_findings *out)
{
	const struct aw_process *p = &model->processes[process];
	struct aw_last_read last;
	aw_rank_last_read(model, process, &last);
	struct aw_finding *f =
	    aw_findings_add(out, "rank-ended-after-data", AW_SEVERITY_INFO,
			    last.global, last.epoch);
	aw_finding_add_rank(f, p->rank);
	aw_finding_add_integer(f, "pid", p->pid);
	char how[64];
	aw_how_ended(f, p, how, sizeof(how));
	struct aw_text message = {0};
	aw_text_add(&message,
		    "rank %d (pid %d) %s after every pass it began had ended (",
		    p->rank, p->pid, how);
	aw_last_read_said(model, &last, &message);
	aw_text_add(&message, ")");
	aw_add_raised(&message, "; it ", p);
	aw_text_add(&message, ": what it read is complete, this is not a "
			      "data-loading problem");
	aw_finding_set_message(f, "%s", aw_text_str(&message));
	aw_text_fini(&message);
	int64_t drawn =
	    last.pass && last.pass->n_batch_ns ? last.pass->last_batch_ns : -1;
	double after = aw_seconds(drawn, p->exit_ns);
	if (after >= 0)
		aw_finding_add_evidence(f,
					"it ended %.3f s after the last batch "
					"of that pass was drawn",
					after);
	if (p->exception_type && *p->exception_site)
		aw_finding_add_evidence(f, "the exception was raised at %s",
					p->exception_site);
	aw_finding_set_fix(f, "%s", aw_after_data_fix(p));
	return f;
}

/* Ranks that ended badly or were stopped after reading, none of them
 * inside a pass: one finding for each that failed, the stopped ones
 * told under the first (the launcher stopped them), or, when none
 * failed, one finding for all. */
static void aw_check_ended_after_data(const struct aw_model *model,
				      struct aw_findings *out)
{
	struct aw_finding *first = NULL;
	for (int stopped = 0; stopped < 2; stopped++) {
		for (size_t i = 0; i < model->n_processes; i++) {
			const struct aw_process *p = &model->processes[i];
			if (aw_stop_signal(p->exit_signal) != stopped ||
			    !aw_rank_ended_after_data(model, (uint32_t)i))
				continue;
			if (!first || !stopped) {
				struct aw_finding *f = aw_after_data_finding(
				    model, (uint32_t)i, out);
				first = first ? first : f;
				continue;
			}
			struct aw_text said = {0};
			struct aw_last_read last;
			aw_rank_last_read(model, (uint32_t)i, &last);
			aw_last_read_said(model, &last, &said);
			aw_finding_add_rank(first, p->rank);
			aw_finding_add_evidence(
			    first,
			    "rank %d (pid %d) was stopped by %s after its "
			    "passes ended too (%s): most likely by the "
			    "launcher",
			    p->rank, p->pid, aw_signal_name(p->exit_signal),
			    aw_text_str(&said));
			aw_text_fini(&said);
		}
	}
}

/* rank-died: a rank whose end cut one of its passes over a loader short
 * (aw_rank_cut_short says when). A rank that crashed, raised or ended
 * itself is a finding of its own; ranks stopped by SIGTERM, SIGINT or
 * SIGHUP (whatever Python raised on the way: SIGINT's KeyboardInterrupt)
 * are told under the first of those, or, without one, together in a
 * single finding. */
/* What a stop signal raises in Python (SIGINT), or how it exits. */
static bool aw_stop_exception(const char *type)
{
	if (!strncmp(type, "builtins.", 9))
		type += 9;
	return !strcmp(type, "KeyboardInterrupt") ||
	       !strcmp(type, "SystemExit");
}

/* Whether the whole job was stopped from outside (a scheduler's or the
 * user's SIGTERM or Ctrl-C to every rank, a `timeout`): two ranks or more,
 * every one of them ended by a stop signal (with at most the
 * KeyboardInterrupt or SystemExit it raised), none failed otherwise. A
 * launcher stopping the others after one failed leaves that one's own
 * death: not this. */
static bool aw_stopped_from_outside(const struct aw_model *model)
{
	size_t ranks = 0;
	for (size_t i = 0; i < model->n_processes; i++) {
		const struct aw_process *p = &model->processes[i];
		if (p->rank < 0 || p->is_worker)
			continue;
		if (!p->exited || !aw_stop_signal(p->exit_signal))
			return false;
		if (p->exception_type && !aw_stop_exception(p->exception_type))
			return false;
		ranks++;
	}
	return ranks >= 2;
}

/* rank-died of a job stopped from outside: an info that the epoch was
 * cut, not a data-loading error. */
static void aw_said_stopped_from_outside(struct aw_finding *f,
					 const struct aw_process *p)
{
	f->severity = AW_SEVERITY_INFO;
	aw_finding_set_message(
	    f,
	    "the job was stopped from outside: every rank ended by a stop "
	    "signal (%s for rank %d), as a scheduler's stop, a timeout or "
	    "Ctrl-C ends a whole job, and none failed on its own; its epoch "
	    "was cut, which is not a data-loading problem",
	    aw_signal_name(p->exit_signal), p->rank);
	aw_finding_set_fix(f, "nothing to change in the data path; resume the "
			      "job from its last checkpoint");
}

void aw_check_rank_died(const struct aw_check_input *in,
			struct aw_findings *out)
{
	const struct aw_model *model = in->model;
	size_t first = out->n;
	bool any = false, crashed = false;
	bool outside = aw_stopped_from_outside(model);
	for (int stopped = 0; stopped < 2; stopped++) {
		for (size_t i = 0; i < model->n_processes; i++) {
			const struct aw_process *p = &model->processes[i];
			struct aw_rank_end end;
			if (aw_stop_signal(p->exit_signal) != stopped ||
			    !aw_rank_cut_short(model, (uint32_t)i, &end))
				continue;
			if (stopped && any) {
				struct aw_finding *f = &out->items[first];
				aw_evidence_stopped(f, model, p, &end);
				if (!crashed) /* the finding of the stopped */
					aw_finding_add_rank(f, p->rank);
				continue;
			}
			struct aw_finding *f =
			    aw_rank_died_finding(model, p, &end, out);
			if (outside)
				aw_said_stopped_from_outside(f, p);
			else if (stopped)
				aw_evidence_failed_elsewhere(f, model);
			crashed |= !stopped;
			any = true;
		}
	}
	if (!any)
		aw_check_ended_after_data(model, out);
}
