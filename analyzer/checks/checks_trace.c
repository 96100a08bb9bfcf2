/* SPDX-License-Identifier: MIT */
/* Checks on what the trace itself holds: the same items from several
 * workers or ranks (iterable-duplicate, or resampled when they were drawn
 * with replacement) and a trace with holes (trace-incomplete). */
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

/* The rate behind a verdict on repeated items, as evidence: what was seen
 * inside sources against what drawing with replacement gives. */
static void aw_evidence_rate(struct aw_finding *f, const struct aw_item_rate *r)
{
	aw_finding_add_evidence(f,
				"pairs of reads of one item: %" PRIu64
				" by one worker (or main process), %" PRIu64
				" by two",
				r->within_pairs, r->across_pairs);
	if (r->copied_items)
		aw_finding_add_evidence(
		    f,
		    "%" PRIu64 " repeated items have a source whose whole read "
		    "the same other sources read too (a copy): %" PRIu64
		    " of them read twice by one source, where drawing with "
		    "replacement gives about %.1f (chance of so few: %.2g)",
		    r->copied_items, r->copied_repeated, r->copied_expected,
		    r->copied_chance);
}

/* Each rank's reads, distinct items and those also read elsewhere. */
static void aw_evidence_item_ranks(struct aw_finding *f,
				   const struct aw_epoch *e)
{
	for (size_t c = 0, shown = 0; c < e->n_cells; c++)
		if (e->cells[c].from_items && shown++ < AW_EVIDENCE_RANKS)
			aw_finding_add_evidence(
			    f,
			    "rank %d: %" PRIu64 " items read, %" PRIu64
			    " distinct, %" PRIu64 " also read elsewhere",
			    e->cells[c].rank, e->cells[c].samples,
			    e->cells[c].unique, e->cells[c].repeated_items);
}

/* Items read by more than one worker or rank in one epoch, more than
 * chance or drawing with replacement gives (items_rate.c), and beyond
 * IterableDatasetShard's padding (W*B-1, accelerate completes the last
 * buffer cyclically). */
void aw_check_iterable_duplicate(const struct aw_check_input *in,
				 struct aw_findings *out)
{
	const struct aw_epoch *e = in->epoch;
	const struct aw_item_epoch *items = e->items;
	if (!items || items->repeated == 0 ||
	    items->rate.verdict != AW_REPEATS_REPLICATED)
		return;
	bool shard = in->desc->dataset_type &&
		     strstr(in->desc->dataset_type, "IterableDatasetShard");
	uint64_t allowance =
	    shard ? aw_padding_allowance(in->world, in->batch_size) : 0;
	if (items->repeated <= allowance)
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
	aw_finding_add_integer(f, "within_pairs",
			       (int64_t)items->rate.within_pairs);
	aw_finding_add_integer(f, "across_pairs",
			       (int64_t)items->rate.across_pairs);
	aw_finding_set_message(
	    f,
	    "%" PRIu64 " of the %" PRIu64
	    " distinct items of epoch %u (%.1f%%) were read by more than one "
	    "worker or rank (%" PRIu64 " extra reads; %" PRIu64
	    " by several workers of one rank, %" PRIu64
	    " by several ranks), more often than chance or drawing with "
	    "replacement gives: the IterableDataset is replicated, not split",
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
	aw_evidence_rate(f, &items->rate);
	aw_evidence_item_ranks(f, e);
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

/* --- resampled ---------------------------------------------------------------
 */

/* Repeats across workers and ranks that come with repeats inside them at
 * the rate drawing with replacement gives: random collisions of a stream
 * that draws again on purpose, not a copy. */
void aw_check_resampled(const struct aw_check_input *in,
			struct aw_findings *out)
{
	const struct aw_epoch *e = in->epoch;
	const struct aw_item_epoch *items = e->items;
	if (!items || items->repeated == 0 ||
	    items->rate.verdict != AW_REPEATS_DRAWN)
		return;
	const struct aw_item_rate *r = &items->rate;
	struct aw_finding *f =
	    aw_epoch_finding(in, out, "resampled", AW_SEVERITY_INFO);
	aw_add_all_ranks(f, e);
	aw_finding_add_integer(f, "repeated_items", (int64_t)items->repeated);
	aw_finding_add_integer(f, "distinct_items", (int64_t)items->distinct);
	aw_finding_add_integer(f, "within_pairs", (int64_t)r->within_pairs);
	aw_finding_add_integer(f, "across_pairs", (int64_t)r->across_pairs);
	aw_finding_set_message(
	    f,
	    "%" PRIu64 " of the %" PRIu64
	    " distinct items of epoch %u were read by more than one worker or "
	    "rank, and workers also read items twice themselves (%" PRIu64
	    " of the %" PRIu64
	    " pairs of reads of one item): each source draws items again "
	    "(with replacement, as resampling does, or a new pass of an "
	    "endless stream), and the repeats across workers and ranks come "
	    "at the rate such draws give, not from a replicated stream",
	    items->repeated, items->distinct, e->epoch, r->within_pairs,
	    r->within_pairs + r->across_pairs);
	aw_evidence_rate(f, r);
	if (!r->copied_items)
		aw_finding_add_evidence(
		    f, "no worker read only items that the same other workers "
		       "read too: none is a copy of another");
	bool everything = e->n_cells > 1;
	for (size_t c = 0; c < e->n_cells; c++)
		everything &= e->cells[c].unique == e->union_count;
	if (everything)
		aw_finding_add_evidence(
		    f,
		    "every rank read all %" PRIu64
		    " distinct items of the epoch: what they draw from holds "
		    "no more items than one rank reads",
		    e->union_count);
	aw_evidence_item_ranks(f, e);
	aw_finding_set_fix(
	    f, "nothing to change if drawing items again is meant "
	       "(resampling, or an endless stream cut into epochs: an epoch "
	       "is then a sample, not one pass over the data); to read every "
	       "item once per epoch, split the shards among ranks and "
	       "workers instead of drawing them again");
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

/* A host whose trace ends early (a node whose link to the collector broke,
 * or whose recording stopped): some process of it that is not a worker has
 * no recorded end, while a process of another host recorded its end after
 * the host's last event. Facts only: a job killed everywhere at once
 * records no end anywhere and names no host. */
struct aw_host_end {
	const char *host;
	int64_t last_ns;  /* its newest event */
	int64_t later_ns; /* the latest end of another host's process */
	const char *later_host;
	uint32_t unended; /* its non-worker processes without an end */
};

static bool aw_host_seen(const struct aw_model *model, size_t upto,
			 const char *host)
{
	for (size_t i = 0; i < upto; i++) {
		const char *h = model->processes[i].host;
		if (h && strcmp(h, host) == 0)
			return true;
	}
	return false;
}

static void aw_host_measure(const struct aw_model *model, struct aw_host_end *h)
{
	h->last_ns = -1;
	h->later_ns = -1;
	h->later_host = NULL;
	h->unended = 0;
	for (size_t i = 0; i < model->n_processes; i++) {
		const struct aw_process *p = &model->processes[i];
		if (!p->host || strcmp(p->host, h->host) != 0)
			continue;
		if (p->last_ns > h->last_ns)
			h->last_ns = p->last_ns;
		h->unended += !p->exited && !p->is_worker;
	}
	for (size_t i = 0; i < model->n_processes; i++) {
		const struct aw_process *p = &model->processes[i];
		if (p->host && p->host[0] && strcmp(p->host, h->host) != 0 &&
		    p->exited && p->exit_ns > h->later_ns) {
			h->later_ns = p->exit_ns;
			h->later_host = p->host;
		}
	}
}

/* The hosts whose trace ends early, at most `cap` of them. */
static size_t aw_hosts_ended_early(const struct aw_model *model,
				   struct aw_host_end *out, size_t cap)
{
	size_t n = 0;
	for (size_t i = 0; i < model->n_processes && n < cap; i++) {
		const char *host = model->processes[i].host;
		if (!host || !host[0] || aw_host_seen(model, i, host))
			continue;
		struct aw_host_end h = {.host = host};
		aw_host_measure(model, &h);
		if (h.unended && h.last_ns >= 0 && h.later_ns > h.last_ns)
			out[n++] = h;
	}
	return n;
}

/* Whether the processes come from more than one host. */
static bool aw_several_hosts(const struct aw_model *model)
{
	const char *first = NULL;
	for (size_t i = 0; i < model->n_processes; i++) {
		const char *h = model->processes[i].host;
		if (!h || !h[0])
			continue;
		if (first && strcmp(first, h) != 0)
			return true;
		first = h;
	}
	return false;
}

/* "node1, node2" into buf. */
static void aw_host_list(const struct aw_host_end *hosts, size_t n, char *buf,
			 size_t size)
{
	size_t used = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < n && used < size; i++)
		used += (size_t)snprintf(buf + used, size - used, "%s%s",
					 i ? ", " : "", hosts[i].host);
}

/* One line per host whose trace ends early, and its ranks on the finding. */
static void aw_evidence_hosts(struct aw_finding *f,
			      const struct aw_model *model,
			      const struct aw_host_end *hosts, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct aw_host_end *h = &hosts[i];
		for (size_t k = 0; k < model->n_processes; k++) {
			const struct aw_process *p = &model->processes[k];
			if (p->host && strcmp(p->host, h->host) == 0 &&
			    p->rank >= 0 && !p->is_worker)
				aw_finding_add_rank(f, p->rank);
		}
		aw_finding_add_evidence(
		    f,
		    "host %s: its trace ends %.1f s before a process of %s "
		    "ended; %u of its processes have no recorded end",
		    h->host, (double)(h->later_ns - h->last_ns) / 1e9,
		    h->later_host, h->unended);
	}
}

/* "rank 1: L0 epoch 0, last batch #5" for each vanished pass (the first
 * few), so that the message itself says which ranks to look at. */
static void aw_vanished_list(const struct aw_model *model, char *buf,
			     size_t size)
{
	enum { AW_NAMED = 4 };
	size_t used = 0, named = 0, more = 0;
	bool several_hosts = aw_several_hosts(model);
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
		    buf + used, size - used, "%srank %d%s%s: %s epoch %" PRIu32,
		    named ? "; " : "", p->rank,
		    several_hosts && p->host ? " on " : "",
		    several_hosts && p->host ? p->host : "", id, it->epoch);
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

/* The passes of map-style loaders that yielded batches of which the trace
 * holds no index (their keys are not integers); the first one's loader in
 * *first. */
static uint32_t aw_unindexed_passes(const struct aw_model *model,
				    uint32_t *first, bool *several)
{
	uint32_t n = 0;
	*several = false;
	for (size_t i = 0; i < model->n_iterations; i++) {
		const struct aw_iteration *it = &model->iterations[i];
		const struct aw_loader *l = &model->loaders[it->loader];
		if (l->iterable || it->yielded == 0 || it->batches_seen ||
		    it->consumed.samples || l->global == AW_NONE ||
		    model->loaders_global[l->global].dispatched)
			continue;
		if (!n++)
			*first = it->loader;
		else if (model->loaders[*first].global != l->global)
			*several = true;
	}
	return n;
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
	struct aw_host_end hosts[AW_EVIDENCE_RANKS];
	size_t n_hosts = aw_hosts_ended_early(model, hosts, AW_EVIDENCE_RANKS);
	uint32_t unindexed_loader = AW_NONE;
	bool several_unindexed;
	uint32_t unindexed =
	    aw_unindexed_passes(model, &unindexed_loader, &several_unindexed);
	if (!discards && !vanished && !s->read_error && !s->n_stalls &&
	    !s->n_unregistered && !n_hosts && !unindexed)
		return;
	struct aw_finding *f = aw_findings_add(
	    out, "trace-incomplete", AW_SEVERITY_WARNING, AW_NONE, -1);
	aw_finding_add_integer(f, "discarded_events",
			       (int64_t)s->discarded_events);
	aw_finding_add_integer(f, "discarded_packets",
			       (int64_t)s->discarded_packets);
	aw_finding_add_integer(f, "vanished_iterations", vanished);
	aw_finding_add_integer(f, "stalled_processes", (int64_t)s->n_stalls);
	aw_finding_add_integer(f, "hosts_ended_early", (int64_t)n_hosts);
	aw_finding_add_integer(f, "unregistered_processes",
			       (int64_t)s->n_unregistered);
	aw_finding_add_integer(f, "unindexed_passes", unindexed);
	char parts[7][512];
	size_t n_parts = 0;
	if (discards && !s->discarded_events && !s->discarded_packets)
		/* A record without a count (or with 0): some were lost,
		 * how many the trace does not say. */
		snprintf(parts[n_parts++], sizeof(parts[0]),
			 "the tracer lost events, how many it does not say "
			 "(%" PRIu64 " discard record%s)",
			 s->discarded_events_messages,
			 s->discarded_events_messages == 1 ? "" : "s");
	else if (discards)
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
	if (s->n_unregistered)
		snprintf(parts[n_parts++], sizeof(parts[0]),
			 "%zu process%s waited %" PRId64 " ms for the session "
			 "daemon to take %s and ran on unrecorded until it "
			 "did (a daemon slowed by a loaded machine or by many "
			 "processes started at once): what %s read before is "
			 "not in the trace",
			 s->n_unregistered, s->n_unregistered == 1 ? "" : "es",
			 s->unregistered[0].waited_ms,
			 s->n_unregistered == 1 ? "it" : "them",
			 s->n_unregistered == 1 ? "it" : "they");
	if (unindexed) {
		char name[160];
		snprintf(
		    parts[n_parts++], sizeof(parts[0]),
		    "%u pass%s of %s%s drew batches whose keys are not "
		    "integer indices (a map-style dataset indexed by "
		    "strings or floats): which samples they read is not "
		    "known, and their coverage and sharing are not "
		    "judged",
		    unindexed, unindexed == 1 ? "" : "es",
		    aw_loader_name(model, unindexed_loader, name, sizeof(name)),
		    several_unindexed ? " and other loaders" : "");
	}
	if (s->read_error)
		snprintf(parts[n_parts++], sizeof(parts[0]),
			 "reading the trace stopped early");
	if (n_hosts) {
		char which[256];
		aw_host_list(hosts, n_hosts, which, sizeof(which));
		snprintf(parts[n_parts++], sizeof(parts[0]),
			 "the trace of host%s %s ends early: %s processes "
			 "have no recorded end while other hosts' went on "
			 "(its link to the collector broke, or its recording "
			 "stopped)",
			 n_hosts == 1 ? "" : "s", which,
			 n_hosts == 1 ? "its" : "their");
	}
	char message[sizeof(parts) + 64] = "";
	size_t used = 0;
	for (size_t i = 0; i < n_parts && used < sizeof(message); i++)
		used += (size_t)snprintf(message + used, sizeof(message) - used,
					 "%s%s", i ? "; " : "", parts[i]);
	aw_finding_set_message(f,
			       "%s: the counts of this report are lower "
			       "bounds",
			       message);
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
	for (size_t i = 0; i < s->n_unregistered && i < AW_EVIDENCE_RANKS; i++)
		aw_finding_add_evidence(
		    f,
		    "pid %" PRId64 " (child of %" PRId64
		    "): not taken by the session daemon within %" PRId64
		    " ms of its start; nothing it did before is in the trace",
		    s->unregistered[i].pid, s->unregistered[i].parent,
		    s->unregistered[i].waited_ms);
	for (size_t i = 0; i < s->n_discards && i < 16; i++)
		aw_finding_add_evidence(
		    f, "stream %s: at least %" PRIu64 " events discarded",
		    s->discards[i].stream, s->discards[i].events);
	aw_evidence_hosts(f, model, hosts, n_hosts);
	aw_evidence_vanished(f, model);
	if (s->read_error)
		aw_finding_add_evidence(f, "read error: %s",
					s->read_error_message);
	if (unindexed && !discards && !vanished && !s->n_stalls &&
	    !s->n_unregistered && !n_hosts && !s->read_error)
		aw_finding_set_fix(
		    f, "nothing to change in the program; to have such a "
		       "loader judged, give its dataset integer indices (a "
		       "list of the keys, indexed by position) and let the "
		       "sampler draw positions");
	else if (s->n_unregistered && !discards && !vanished && !s->n_stalls &&
		 !n_hosts)
		aw_finding_set_fix(
		    f, "record again with fewer processes starting at once or "
		       "on a less loaded machine, or give the session daemon "
		       "longer to take each process (accwatch-run "
		       "--stall-timeout, the bound of that wait); until then "
		       "read the counts as lower bounds");
	else if (n_hosts && !discards && !s->n_stalls)
		aw_finding_set_fix(
		    f, "keep the network between the nodes and the "
		       "collector's lttng-relayd up for the whole run (the "
		       "node's accwatch-run said its session did not end "
		       "cleanly), or record each node into a directory of "
		       "its own (accwatch-run -o) and report on them "
		       "together; until then read the counts of the ranks of "
		       "that host as lower bounds");
	else
		aw_finding_set_fix(
		    f, "record again with blocking or larger buffers "
		       "(accwatch-run blocks rather than discards by default) "
		       "and let every process end normally (no kill -9 of the "
		       "ranks); a rank that vanished was killed or crashed "
		       "while reading its last batch (start the ranks from a "
		       "launcher that imports torch, like torchrun, and the "
		       "trace records how they ended); until then read the "
		       "counts as lower bounds");
}
