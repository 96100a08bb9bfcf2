/* Checks on what the trace itself holds: the same items from several
 * workers or ranks (iterable-duplicate) and a trace with holes
 * (trace-incomplete). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks_private.h"
#include "util.h"

/* --- iterable-duplicate ----------------------------------------------------
 */

static void aw_format_source(const struct aw_item_source *s, char *buf,
			     size_t size)
{
	if (s->worker_id >= 0)
		snprintf(buf, size, "rank %d worker %d (pid %d)", s->rank,
			 s->worker_id, s->pid);
	else
		snprintf(buf, size, "rank %d main process (pid %d)", s->rank,
			 s->pid);
}

/* Items read by more than one worker or rank in one epoch: beyond
 * IterableDatasetShard's padding (W*B-1, accelerate completes the last
 * buffer cyclically) and at least 1% of the distinct items, so that a few
 * equal items in the data are not taken for a replicated stream. */
void aw_check_iterable_duplicate(const struct aw_check_input *in,
				 struct aw_findings *out)
{
	const struct aw_epoch *e = in->epoch;
	const struct aw_item_epoch *items = e->items;
	if (!items || items->repeated == 0)
		return;
	bool shard = in->desc->dataset_type &&
		     strstr(in->desc->dataset_type, "IterableDatasetShard");
	uint64_t allowance =
	    shard ? aw_padding_allowance(in->world, in->batch_size) : 0;
	if (items->repeated <= allowance ||
	    items->repeated * 100 < items->distinct)
		return;
	struct aw_finding *f =
	    aw_epoch_finding(in, out, "iterable-duplicate", AW_SEVERITY_ERROR);
	for (size_t c = 0; c < e->n_cells; c++)
		if (e->cells[c].repeated_items)
			aw_finding_add_rank(f, e->cells[c].rank);
	aw_finding_add_integer(f, "repeated_items", (int64_t)items->repeated);
	aw_finding_add_integer(f, "repeated_reads",
			       (int64_t)items->repeated_reads);
	aw_finding_add_integer(f, "distinct_items", (int64_t)items->distinct);
	aw_finding_add_integer(f, "across_workers",
			       (int64_t)items->across_workers);
	aw_finding_add_integer(f, "across_ranks", (int64_t)items->across_ranks);
	aw_finding_set_message(
	    f,
	    "%" PRIu64 " of the %" PRIu64
	    " distinct items of epoch %u (%.1f%%) were read by more than one "
	    "worker or rank (%" PRIu64 " extra reads; %" PRIu64
	    " by several workers of one rank, %" PRIu64
	    " by several ranks): the IterableDataset is replicated, not "
	    "split",
	    items->repeated, items->distinct, e->epoch,
	    aw_percent(items->repeated, items->distinct), items->repeated_reads,
	    items->across_workers, items->across_ranks);
	for (size_t i = 0; i < items->n_examples; i++) {
		const struct aw_item_example *x = &items->examples[i];
		char a[96], b[96];
		aw_format_source(&x->first, a, sizeof(a));
		aw_format_source(&x->second, b, sizeof(b));
		aw_finding_add_evidence(
		    f, "item %016" PRIx64 ": read by %s and %s%s", x->hash, a,
		    b, x->sources > 2 ? " and others" : "");
	}
	for (size_t c = 0, shown = 0; c < e->n_cells; c++)
		if (e->cells[c].from_items && shown++ < AW_EVIDENCE_RANKS)
			aw_finding_add_evidence(
			    f,
			    "rank %d: %" PRIu64 " items read, %" PRIu64
			    " distinct, %" PRIu64 " also read elsewhere",
			    e->cells[c].rank, e->cells[c].samples,
			    e->cells[c].unique, e->cells[c].repeated_items);
	if (items->across_workers && !items->across_ranks)
		aw_finding_set_fix(
		    f, "split the stream by DataLoader worker in __iter__: "
		       "info = torch.utils.data.get_worker_info(), keep every "
		       "info.num_workers-th item from info.id (with ranks too: "
		       "shard rank * num_workers + id of world * num_workers)");
	else
		aw_finding_set_fix(
		    f, "split the stream by rank and by worker in __iter__ "
		       "(torch.distributed.get_rank() and "
		       "torch.utils.data.get_worker_info()), or let "
		       "accelerator.prepare() wrap it in IterableDatasetShard");
}

/* --- trace-incomplete ------------------------------------------------------
 */

/* A pass whose process vanished: no iter_end, and no exit of a rank. */
static bool aw_vanished(const struct aw_model *model,
			const struct aw_iteration *it)
{
	const struct aw_process *p =
	    &model->processes[model->loaders[it->loader].process];
	return !it->ended && !p->exited && !p->is_worker;
}

/* "rank 1: L0 epoch 0, last batch #5" for each vanished pass (the first
 * few), so that the message itself says which ranks to look at. */
static void aw_vanished_list(const struct aw_model *model, char *buf,
			     size_t size)
{
	enum { AW_NAMED = 4 };
	size_t used = 0, named = 0, more = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < model->n_iterations && used < size; i++) {
		const struct aw_iteration *it = &model->iterations[i];
		if (!aw_vanished(model, it))
			continue;
		if (named == AW_NAMED) {
			more++;
			continue;
		}
		const struct aw_loader *l = &model->loaders[it->loader];
		const struct aw_process *p = &model->processes[l->process];
		const char *id = l->global < model->n_loaders_global
				     ? model->loaders_global[l->global].id
				     : "?";
		used += (size_t)snprintf(
		    buf + used, size - used, "%srank %d: %s epoch %" PRIu32,
		    named ? "; " : "", p->rank, id, it->epoch);
		if (it->last_drawn.any && used < size)
			used += (size_t)snprintf(buf + used, size - used,
						 ", last batch #%" PRIu32,
						 it->last_drawn.ordinal);
		named++;
	}
	if (more && used < size)
		snprintf(buf + used, size - used, "; %zu more", more);
}

/* One line per vanished pass: the rank, the loader, and the last batch it
 * drew, which is what it was reading when it disappeared. */
static void aw_evidence_vanished(struct aw_finding *f,
				 const struct aw_model *model)
{
	size_t shown = 0;
	for (size_t i = 0; i < model->n_iterations; i++) {
		const struct aw_iteration *it = &model->iterations[i];
		if (!aw_vanished(model, it))
			continue;
		const struct aw_process *p =
		    &model->processes[model->loaders[it->loader].process];
		if (p->rank >= 0)
			aw_finding_add_rank(f, p->rank);
		if (shown++ >= AW_EVIDENCE_RANKS)
			continue;
		char name[96], last[256] = "";
		if (it->last_drawn.any) {
			char list[192];
			aw_index_head_format(&it->last_drawn, list,
					     sizeof(list));
			snprintf(last, sizeof(last),
				 "; the last batch it drew: #%" PRIu32
				 ", indices %s",
				 it->last_drawn.ordinal, list);
		}
		aw_finding_add_evidence(
		    f,
		    "rank %d (pid %d): epoch %u of %s ends after %u batches "
		    "in the trace, with no end of epoch and no exit%s",
		    p->rank, p->pid, it->epoch,
		    aw_loader_name(model, it->loader, name, sizeof(name)),
		    aw_iteration_batches(it), last);
	}
}

void aw_check_trace_incomplete(const struct aw_check_input *in,
			       struct aw_findings *out)
{
	const struct aw_model *model = in->model;
	const struct aw_trace_stats *s = &model->stats;
	bool discards = s->discarded_events || s->discarded_events_messages ||
			s->discarded_packets;
	uint32_t vanished = 0;
	for (size_t i = 0; i < model->n_iterations; i++)
		vanished += aw_vanished(model, &model->iterations[i]);
	if (!discards && !vanished && !s->read_error && !s->n_stalls)
		return;
	struct aw_finding *f = aw_findings_add(
	    out, "trace-incomplete", AW_SEVERITY_WARNING, AW_NONE, -1);
	aw_finding_add_integer(f, "discarded_events",
			       (int64_t)s->discarded_events);
	aw_finding_add_integer(f, "discarded_packets",
			       (int64_t)s->discarded_packets);
	aw_finding_add_integer(f, "vanished_iterations", vanished);
	aw_finding_add_integer(f, "stalled_processes", (int64_t)s->n_stalls);
	char parts[4][512];
	size_t n_parts = 0;
	if (discards)
		snprintf(
		    parts[n_parts++], sizeof(parts[0]),
		    "the tracer discarded %" PRIu64 " event%s (%" PRIu64
		    " discard record%s, %" PRIu64 " packet%s lost)",
		    s->discarded_events, s->discarded_events == 1 ? "" : "s",
		    s->discarded_events_messages,
		    s->discarded_events_messages == 1 ? "" : "s",
		    s->discarded_packets, s->discarded_packets == 1 ? "" : "s");
	if (vanished) {
		char which[384];
		aw_vanished_list(model, which, sizeof(which));
		snprintf(parts[n_parts++], sizeof(parts[0]),
			 "%u pass%s over a loader stopped mid-epoch with "
			 "neither an end of epoch nor an exit of the process "
			 "(%s)",
			 vanished, vanished == 1 ? "" : "es", which);
	}
	if (s->n_stalls)
		snprintf(parts[n_parts++], sizeof(parts[0]),
			 "%zu process%s stopped recording after an event "
			 "waited %" PRId64 " ms for buffer space (the trace's "
			 "consumer took nothing for that long)",
			 s->n_stalls, s->n_stalls == 1 ? "" : "es",
			 s->stalls[0].stall_ms);
	if (s->read_error)
		snprintf(parts[n_parts++], sizeof(parts[0]),
			 "reading the trace stopped early");
	aw_finding_set_message(
	    f,
	    "%s%s%s%s%s%s%s: the counts of this report are "
	    "lower bounds",
	    parts[0], n_parts > 1 ? "; " : "", n_parts > 1 ? parts[1] : "",
	    n_parts > 2 ? "; " : "", n_parts > 2 ? parts[2] : "",
	    n_parts > 3 ? "; " : "", n_parts > 3 ? parts[3] : "");
	for (size_t i = 0; i < s->n_stalls && i < AW_EVIDENCE_RANKS; i++) {
		const struct aw_stall_note *n = &s->stalls[i];
		if (n->batch >= 0)
			aw_finding_add_evidence(
			    f,
			    "pid %" PRId64
			    ": stopped recording at batch %" PRId64
			    " of its loader %" PRId64 ", pass %" PRId64
			    "; nothing after it is in the trace",
			    n->pid, n->batch, n->loader, n->iteration);
		else
			aw_finding_add_evidence(
			    f,
			    "pid %" PRId64 ": stopped recording at a %s event; "
			    "nothing after it is in the trace",
			    n->pid, n->event);
	}
	for (size_t i = 0; i < s->n_discards && i < 16; i++)
		aw_finding_add_evidence(
		    f, "stream %s: at least %" PRIu64 " events discarded",
		    s->discards[i].stream, s->discards[i].events);
	aw_evidence_vanished(f, model);
	if (s->read_error)
		aw_finding_add_evidence(f, "read error: %s",
					s->read_error_message);
	aw_finding_set_fix(
	    f, "record again with blocking or larger buffers (accwatch-run "
	       "blocks rather than discards by default) and let every "
	       "process end normally (no kill -9 of the ranks); a rank that "
	       "vanished was killed or crashed while reading its last batch "
	       "(start the ranks from a launcher that imports torch, like "
	       "torchrun, and the trace records how they ended); until then "
	       "read the counts as lower bounds");
}
