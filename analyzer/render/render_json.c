/* SPDX-License-Identifier: MIT */
/* The JSON report, schema accwatch-report/1: the keys of the contract in
 * docs/json.md in that order, then extra keys; unknown values are null, never
 * -1. */
#include <jansson.h>
#include <string.h>

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>

#include "accwatch_events.h"
#include "answers.h"
#include "lineage.h"
#include "render.h"
#include "util.h"

static json_t *aw_json_known_int(int64_t value)
{
	return value >= 0 ? json_integer(value) : json_null();
}

static json_t *aw_json_tristate(int8_t value)
{
	return value < 0 ? json_null() : json_boolean(value);
}

static json_t *aw_json_string_or_null(const char *s)
{
	return s && *s ? json_string(s) : json_null();
}

/* One setter per kind of value, so that each key reads on one line. */
static void aw_json_set_int(json_t *object, const char *key, json_int_t value)
{
	json_object_set_new(object, key, json_integer(value));
}

static void aw_json_set_bool(json_t *object, const char *key, bool value)
{
	json_object_set_new(object, key, json_boolean(value));
}

static void aw_json_set_string(json_t *object, const char *key,
			       const char *value)
{
	json_object_set_new(object, key, json_string(value));
}

static void aw_json_set_known_int(json_t *object, const char *key,
				  int64_t value)
{
	json_object_set_new(object, key, aw_json_known_int(value));
}

static void aw_json_set_tristate(json_t *object, const char *key, int8_t value)
{
	json_object_set_new(object, key, aw_json_tristate(value));
}

static void aw_json_set_string_or_null(json_t *object, const char *key,
				       const char *value)
{
	json_object_set_new(object, key, aw_json_string_or_null(value));
}

static json_t *aw_json_rank_cell(const struct aw_model *model,
				 const struct aw_cell *cell)
{
	json_t *rank = json_object();
	aw_json_set_int(rank, "rank", cell->rank);
	aw_json_set_int(rank, "batches", cell->batches);
	aw_json_set_int(rank, "samples", cell->samples);
	aw_json_set_int(rank, "unique", cell->unique);
	aw_json_set_int(rank, "duplicates", cell->samples - cell->unique);
	aw_json_set_int(rank, "drawn", cell->drawn);
	(void)model;
	aw_json_set_known_int(rank, "pid", cell->pid);
	aw_json_set_int(rank, "processes", cell->n_iterations);
	aw_json_set_bool(rank, "incomplete", !cell->complete);
	aw_json_set_bool(rank, "exhausted", cell->exhausted);
	aw_json_set_int(rank, "prefetched_samples", cell->prefetched_samples);
	aw_json_set_int(rank, "lost_samples", cell->lost_samples);
	aw_json_set_int(rank, "unrepresentable", cell->unrepresentable);
	char hash[20];
	snprintf(hash, sizeof(hash), "%016" PRIx64, cell->order_hash);
	json_object_set_new(rank, "order_hash",
			    cell->has_order ? json_string(hash) : json_null());
	aw_json_set_known_int(rank, "sampler_epoch", cell->sampler_epoch);
	aw_json_set_bool(rank, "rebuilt", cell->rebuilt);
	aw_json_set_bool(rank, "from_items", cell->from_items);
	if (cell->from_items)
		aw_json_set_int(rank, "repeated_items", cell->repeated_items);
	return rank;
}

static json_t *aw_json_epoch(const struct aw_model *model,
			     const struct aw_loader *desc,
			     const struct aw_epoch *e)
{
	json_t *epoch = json_object();
	aw_json_set_int(epoch, "epoch", e->epoch);
	aw_json_set_int(epoch, "union", e->union_count);
	aw_json_set_int(epoch, "duplicates", e->duplicates);
	/* A partial epoch (a loop left early) says nothing about coverage. */
	json_object_set_new(epoch, "missing",
			    e->exhausted ? aw_json_known_int(e->missing)
					 : json_null());
	json_t *ranks = json_array();
	for (size_t c = 0; c < e->n_cells; c++)
		json_array_append_new(ranks,
				      aw_json_rank_cell(model, &e->cells[c]));
	json_object_set_new(epoch, "ranks", ranks);
	aw_json_set_int(epoch, "samples", e->samples);
	aw_json_set_int(epoch, "cross_rank_duplicates",
			e->cross_rank_duplicates);
	int64_t to_cover = aw_epoch_to_cover(desc, e);
	json_object_set_new(epoch, "coverage",
			    to_cover > 0
				? json_real(100.0 * (double)e->union_in_range /
					    (double)to_cover)
				: json_null());
	aw_json_set_int(epoch, "out_of_range", e->out_of_range);
	if (e->by_group) {
		/* Data-parallel groups: the ranks of each replica index. */
		json_t *groups = json_array();
		for (size_t r = 0; r < e->by_group->n_cells; r++)
			json_array_append_new(groups, json_array());
		for (size_t c = 0; c < e->n_cells; c++)
			json_array_append_new(
			    json_array_get(groups, e->group_of[c]),
			    json_integer(e->cells[c].rank));
		json_object_set_new(epoch, "data_parallel_groups", groups);
	}
	aw_json_set_bool(epoch, "complete", e->complete);
	aw_json_set_bool(epoch, "exhausted", e->exhausted);
	aw_json_set_bool(epoch, "partial", !e->exhausted);
	if (e->items) {
		json_t *items = json_object();
		aw_json_set_int(items, "reads", e->items->reads);
		aw_json_set_int(items, "distinct", e->items->distinct);
		aw_json_set_int(items, "repeated", e->items->repeated);
		aw_json_set_int(items, "repeated_reads",
				e->items->repeated_reads);
		aw_json_set_int(items, "across_workers",
				e->items->across_workers);
		aw_json_set_int(items, "across_ranks", e->items->across_ranks);
		json_object_set_new(epoch, "items", items);
	}
	return epoch;
}

static json_t *aw_json_len_calls(const struct aw_model *model,
				 const struct aw_global_loader *g)
{
	json_t *calls = json_array();
	for (size_t m = 0; m < g->n_members; m++) {
		const struct aw_loader *l = &model->loaders[g->members[m]];
		const struct aw_process *p = &model->processes[l->process];
		for (size_t c = 0; c < l->n_len_calls; c++) {
			json_t *call = json_object();
			aw_json_set_int(call, "rank", p->rank);
			aw_json_set_int(call, "pid", p->pid);
			aw_json_set_int(call, "value", l->len_calls[c].value);
			aw_json_set_string(call, "site", l->len_calls[c].site);
			aw_json_set_int(call, "count", l->len_calls[c].count);
			json_array_append_new(calls, call);
		}
	}
	return calls;
}

/* A loader object by the id of its global loader, or null. */
static json_t *aw_json_loader_ref(const struct aw_model *model, uint32_t l)
{
	if (l == AW_NONE || l >= model->n_loaders ||
	    model->loaders[l].global >= model->n_loaders_global)
		return json_null();
	return json_string(model->loaders_global[model->loaders[l].global].id);
}

/* The IterableDataset's splitting links, outermost first. */
static json_t *aw_json_stream_split(const struct aw_loader *d)
{
	json_t *links = json_array();
	for (uint32_t i = 0; i < d->n_stream; i++) {
		const struct aw_stream_link *s = &d->stream[i];
		json_t *link = json_object();
		aw_json_set_string_or_null(link, "class",
					   s->seen ? s->class_name : NULL);
		aw_json_set_known_int(link, "num_replicas", s->num_replicas);
		aw_json_set_known_int(link, "rank", s->rank);
		aw_json_set_known_int(link, "batch_size", s->batch_size);
		aw_json_set_tristate(link, "split_batches", s->split_batches);
		aw_json_set_known_int(link, "shards", s->shards);
		aw_json_set_tristate(link, "whole", s->whole);
		json_array_append_new(links, link);
	}
	return links;
}

/* The sampler chain, outermost first; a parameter a link lacks is null. */
static json_t *aw_json_sampler_chain(const struct aw_loader *d)
{
	json_t *chain = json_array();
	for (uint32_t i = 0; i < d->n_chain; i++) {
		const struct aw_sampler_link *s = &d->chain[i];
		json_t *link = json_object();
		aw_json_set_string_or_null(link, "class",
					   s->seen ? s->class_name : NULL);
		aw_json_set_known_int(link, "length", s->length);
		aw_json_set_known_int(link, "num_replicas", s->num_replicas);
		aw_json_set_known_int(link, "rank", s->rank);
		aw_json_set_tristate(link, "shuffle", s->shuffle);
		aw_json_set_known_int(link, "seed", s->seed);
		aw_json_set_known_int(link, "epoch", s->epoch);
		aw_json_set_tristate(link, "drop_last", s->drop_last);
		aw_json_set_tristate(link, "replacement", s->replacement);
		aw_json_set_known_int(link, "num_samples", s->num_samples);
		aw_json_set_known_int(link, "total_size", s->total_size);
		aw_json_set_known_int(link, "batch_size", s->batch_size);
		aw_json_set_known_int(link, "skip", s->skip);
		aw_json_set_tristate(link, "own_iter", s->own_iter);
		json_array_append_new(chain, link);
	}
	return chain;
}

static json_t *aw_json_loader(const struct aw_model *model,
			      const struct aw_global_loader *g)
{
	const struct aw_loader *d = aw_model_describe(model, g);
	json_t *loader = json_object();
	aw_json_set_string(loader, "id", g->id);
	aw_json_set_string(loader, "site", g->site);
	aw_json_set_string_or_null(loader, "class", d->loader_class);
	aw_json_set_string_or_null(loader, "sampler", d->sampler_class);
	aw_json_set_string_or_null(loader, "batch_sampler",
				   d->batch_sampler_class);
	aw_json_set_known_int(loader, "dataset_len", d->dataset_len);
	aw_json_set_known_int(loader, "batch_size", d->batch_size);
	aw_json_set_known_int(loader, "num_workers", d->num_workers);
	aw_json_set_tristate(loader, "persistent_workers",
			     d->persistent_workers);
	json_t *lens = json_array();
	for (size_t i = 0; i < g->n_len_reported; i++)
		json_array_append_new(lens, json_integer(g->len_reported[i]));
	json_object_set_new(loader, "len_reported", lens);
	json_t *epochs = json_array();
	for (size_t e = 0; e < g->n_epochs; e++)
		json_array_append_new(epochs,
				      aw_json_epoch(model, d, &g->epochs[e]));
	json_object_set_new(loader, "epochs", epochs);

	aw_json_set_int(loader, "site_ordinal", g->site_ordinal);
	aw_json_set_int(loader, "attempt", g->attempt);
	aw_json_set_bool(loader, "described", d->described);
	aw_json_set_string_or_null(loader, "dataset_type", d->dataset_type);
	aw_json_set_bool(loader, "iterable", d->iterable);
	aw_json_set_tristate(loader, "drop_last", d->drop_last);
	aw_json_set_tristate(loader, "shuffle", d->shuffle);
	aw_json_set_known_int(loader, "prefetch_factor", d->prefetch_factor);
	aw_json_set_string_or_null(loader, "start_method", d->start_method);
	aw_json_set_known_int(loader, "sampler_replicas", d->sampler_replicas);
	json_object_set_new(loader, "sampler_chain", aw_json_sampler_chain(d));
	json_object_set_new(loader, "stream_split", aw_json_stream_split(d));
	aw_json_set_string_or_null(loader, "wrap_kind",
				   d->wraps ? d->wrap_kind : NULL);
	aw_json_set_bool(loader, "dispatched", g->dispatched);
	aw_json_set_bool(loader, "rebuilt", g->rebuilt);
	aw_json_set_int(loader, "primed_iterations", g->primed_iterations);
	char dataset[24];
	snprintf(dataset, sizeof(dataset), "%#" PRIx64, d->dataset_id);
	json_object_set_new(loader, "dataset_id",
			    d->dataset_id ? json_string(dataset) : json_null());
	snprintf(dataset, sizeof(dataset), "%#" PRIx64, d->base_id);
	json_object_set_new(loader, "base_id",
			    d->base_id ? json_string(dataset) : json_null());
	aw_json_set_bool(loader, "sharded", d->sharded);
	json_object_set_new(loader, "built_from",
			    aw_json_loader_ref(model, d->built_from));
	json_object_set_new(
	    loader, "wraps",
	    aw_json_loader_ref(model,
			       d->wraps && d->wrap_inner != g->representative
				   ? d->wrap_inner
				   : AW_NONE));
	json_object_set_new(loader, "wrapped_by",
			    aw_json_loader_ref(model, d->wrapper));
	const struct aw_loader *wrap = aw_loader_wrap(model, d);
	if (wrap) {
		json_t *acc = json_object();
		aw_json_set_string_or_null(acc, "kind", wrap->wrap_kind);
		aw_json_set_tristate(acc, "split_batches", wrap->split_batches);
		aw_json_set_tristate(acc, "even_batches", wrap->even_batches);
		aw_json_set_known_int(acc, "num_processes",
				      wrap->wrap_num_processes);
		aw_json_set_tristate(acc, "dispatch_drop_last",
				     d->dispatch_drop_last);
		json_object_set_new(loader, "accelerate", acc);
	} else {
		json_object_set_new(loader, "accelerate", json_null());
	}
	aw_json_set_int(loader, "objects", g->n_members);
	json_object_set_new(loader, "len_calls", aw_json_len_calls(model, g));
	return loader;
}

static json_t *aw_json_finding(const struct aw_model *model,
			       const struct aw_finding *f)
{
	const struct aw_global_loader *g =
	    f->loader < model->n_loaders_global
		? &model->loaders_global[f->loader]
		: NULL;
	json_t *finding = json_object();
	aw_json_set_string(finding, "id", f->id);
	aw_json_set_string(finding, "severity", aw_severity_name(f->severity));
	json_object_set_new(finding, "loader",
			    g ? json_string(g->id) : json_null());
	json_object_set_new(finding, "epoch",
			    f->epoch >= 0 ? json_integer(f->epoch)
					  : json_null());
	json_t *ranks = json_array();
	for (size_t i = 0; i < f->n_ranks; i++)
		json_array_append_new(ranks, json_integer(f->ranks[i]));
	json_object_set_new(finding, "ranks", ranks);
	json_object_set_new(finding, "message",
			    json_string(f->message ? f->message : ""));

	json_object_set_new(finding, "site",
			    g ? json_string(g->site) : json_null());
	aw_json_set_string_or_null(finding, "fix", f->fix);
	json_t *evidence = json_array();
	for (const char *line = f->evidence; line && *line;) {
		const char *end = strchr(line, '\n');
		size_t len = end ? (size_t)(end - line) : strlen(line);
		json_array_append_new(evidence, json_stringn(line, len));
		line = end ? end + 1 : line + len;
	}
	json_object_set_new(finding, "evidence", evidence);
	json_t *numbers = json_object();
	for (size_t i = 0; i < f->n_numbers; i++) {
		const struct aw_number *n = &f->numbers[i];
		json_object_set_new(numbers, n->name,
				    n->real ? json_real(n->value)
					    : json_integer(n->integer));
	}
	json_object_set_new(finding, "numbers", numbers);
	aw_json_set_bool(finding, "suppressed",
			 f->suppressed != AW_NOT_SUPPRESSED);
	if (f->suppressed != AW_NOT_SUPPRESSED)
		json_object_set_new(
		    finding, "suppression",
		    json_pack("{s:s,s:s,s:s}", "kind",
			      aw_suppression_kind_name(f->suppressed), "at",
			      f->suppressed_at ? f->suppressed_at : "",
			      "justification",
			      f->justification ? f->justification : ""));
	return finding;
}

/* {type, message, site} of the uncaught exception that ended a process,
 * null when none was recorded. */
static json_t *aw_json_exception(const struct aw_process *p)
{
	if (!p->exception_type)
		return json_null();
	json_t *exception = json_object();
	json_object_set_new(exception, "type", json_string(p->exception_type));
	json_object_set_new(exception, "message",
			    json_string(p->exception_message));
	aw_json_set_string_or_null(exception, "site", p->exception_site);
	return exception;
}

static json_t *aw_json_processes(const struct aw_model *model)
{
	json_t *processes = json_array();
	for (size_t i = 0; i < model->n_processes; i++) {
		const struct aw_process *p = &model->processes[i];
		json_t *process = json_object();
		aw_json_set_int(process, "pid", p->pid);
		aw_json_set_known_int(process, "ppid", p->ppid);
		aw_json_set_known_int(process, "rank", p->rank);
		aw_json_set_string_or_null(process, "role", p->role);
		aw_json_set_bool(process, "worker", p->is_worker);
		aw_json_set_string_or_null(process, "host", p->host);
		aw_json_set_string_or_null(process, "rank_source",
					   p->rank_source);
		aw_json_set_bool(process, "rank_inferred", p->rank_inferred);
		aw_json_set_int(process, "iterations", p->iterations);
		aw_json_set_int(process, "events", p->events);
		json_object_set_new(process, "exit_status",
				    p->exited
					? aw_json_known_int(p->exit_status)
					: json_null());
		json_object_set_new(process, "exit_signal",
				    p->exited
					? aw_json_known_int(p->exit_signal)
					: json_null());
		aw_json_set_bool(process, "exited", p->exited);
		json_object_set_new(process, "exception", aw_json_exception(p));
		aw_json_set_bool(process, "exec", p->execed);
		json_object_set_new(process, "worker_id",
				    p->is_worker
					? aw_json_known_int(p->worker_id)
					: json_null());
		json_object_set_new(
		    process, "owner_pid",
		    p->owner != AW_NONE
			? json_integer(model->processes[p->owner].pid)
			: json_null());
		json_array_append_new(processes, process);
	}
	return processes;
}

static json_t *aw_json_trace(const struct aw_model *model)
{
	const struct aw_trace_stats *s = &model->stats;
	json_t *trace = json_object();
	aw_json_set_int(trace, "trace_dirs", s->trace_dirs);
	aw_json_set_int(trace, "streams", s->streams);
	aw_json_set_int(trace, "packets", s->packets);
	aw_json_set_int(trace, "events", s->events);
	aw_json_set_int(trace, "accwatch_events",
			aw_model_accwatch_events(model));
	aw_json_set_int(trace, "foreign_events", s->foreign_events);
	aw_json_set_int(trace, "unknown_accwatch_events",
			s->unknown_accwatch_events);
	aw_json_set_int(trace, "discarded_events", s->discarded_events);
	aw_json_set_int(trace, "discarded_events_messages",
			s->discarded_events_messages);
	aw_json_set_int(trace, "discarded_packets", s->discarded_packets);
	json_object_set_new(trace, "read_error",
			    s->read_error ? json_string(s->read_error_message)
					  : json_null());
	aw_json_set_int(trace, "incomplete_iterations",
			model->incomplete_iterations);
	aw_json_set_bool(trace, "ranks_inferred", model->ranks_inferred);
	aw_json_set_bool(trace, "ranks_from_samplers",
			 model->ranks_from_samplers);
	aw_json_set_int(trace, "mapping_parts_left_out",
			(json_int_t)model->mapping_parts_left_out);
	aw_json_set_int(trace, "unranked_processes", model->unranked_processes);
	aw_json_set_int(trace, "index_out_of_range", model->index_out_of_range);
	aw_json_set_int(trace, "index_unrepresentable",
			model->index_unrepresentable);
	aw_json_set_int(trace, "strings_cut", (json_int_t)model->strings_cut);
	aw_json_set_int(trace, "string_max_bytes", ACCWATCH_STR_MAX);
	json_t *runs = json_array();
	for (size_t i = 0; i < model->n_runs; i++)
		json_array_append_new(runs, json_integer(model->runs[i]));
	json_object_set_new(trace, "runs", runs);
	aw_json_set_int(trace, "other_run_events", s->other_run_events);
	json_t *streams = json_array();
	for (size_t i = 0; i < s->n_discards; i++) {
		json_t *d = json_object();
		aw_json_set_string(d, "stream", s->discards[i].stream);
		aw_json_set_int(d, "events", s->discards[i].events);
		aw_json_set_int(d, "messages", s->discards[i].messages);
		json_array_append_new(streams, d);
	}
	json_object_set_new(trace, "discarded_by_stream", streams);
	json_t *kinds = json_object();
	for (int k = 0; k < AW_EVENT_KIND_COUNT; k++)
		json_object_set_new(kinds,
				    aw_event_kind_name((enum aw_event_kind)k),
				    json_integer((json_int_t)s->by_kind[k]));
	json_object_set_new(trace, "events_by_kind", kinds);
	return trace;
}

/* The answers to --sample and --rank/--epoch, null when none was asked. */
static json_t *aw_json_query(const struct aw_model *model,
			     const struct aw_query_watch *watch)
{
	const struct aw_query *q = watch ? &watch->query : NULL;
	if (!q || (!q->by_sample && !q->by_sequence && !q->loader))
		return json_null();
	json_t *query = json_object();
	aw_json_set_string_or_null(query, "loader", q->loader);
	if (q->by_sample) {
		size_t n;
		struct aw_answer_read *reads =
		    aw_answers_sample_reads(model, watch, &n);
		json_t *list = json_array();
		for (size_t i = 0; i < n; i++) {
			const struct aw_hit *h = reads[i].hit;
			json_t *r = json_object();
			json_object_set_new(
			    r, "loader",
			    reads[i].global != AW_NONE
				? json_string(
				      model->loaders_global[reads[i].global].id)
				: json_null());
			json_object_set_new(r, "epoch",
					    reads[i].epoch == ACCWATCH_UNKNOWN
						? json_null()
						: json_integer(reads[i].epoch));
			aw_json_set_known_int(r, "rank", reads[i].rank);
			aw_json_set_string(r, "how",
					   aw_read_kind_name(h->kind));
			aw_json_set_int(r, "batch", h->batch);
			aw_json_set_int(r, "position", h->position);
			aw_json_set_known_int(r, "worker_id", h->worker_id);
			aw_json_set_int(r, "pid", reads[i].pid);
			json_array_append_new(list, r);
		}
		free(reads);
		aw_json_set_int(query, "sample", q->sample);
		json_object_set_new(query, "reads", list);
		aw_json_set_int(query, "reads_not_kept",
				watch->hits.hits_dropped);
	}
	if (q->by_sequence) {
		size_t n;
		struct aw_answer_sequence *seqs =
		    aw_answers_sequences(model, watch, &n);
		json_t *list = json_array();
		for (size_t i = 0; i < n; i++) {
			const struct aw_sequence *s = seqs[i].sequence;
			json_t *seq = json_object();
			aw_json_set_string(
			    seq, "loader",
			    model->loaders_global[seqs[i].global].id);
			aw_json_set_int(seq, "pid", seqs[i].pid);
			aw_json_set_bool(seq, "rebuilt", seqs[i].rebuilt);
			json_t *batches = json_array();
			size_t start = 0;
			for (size_t b = 0; b < s->n_batches; b++) {
				json_t *batch = json_array();
				for (size_t k = start; k < s->batch_ends[b];
				     k++)
					json_array_append_new(
					    batch, json_integer(s->indices[k]));
				json_array_append_new(batches, batch);
				start = s->batch_ends[b];
			}
			json_object_set_new(seq, "batches", batches);
			json_array_append_new(list, seq);
		}
		free(seqs);
		aw_json_set_int(query, "rank", q->rank);
		aw_json_set_int(query, "epoch", q->epoch);
		json_object_set_new(query, "sequences", list);
	}
	return query;
}

json_t *aw_render_json_object(const struct aw_model *model,
			      const struct aw_findings *findings,
			      const struct aw_query_watch *watch)
{
	json_t *report = json_object();
	aw_json_set_string(report, "schema", AW_JSON_SCHEMA);
	json_object_set_new(report, "world_size",
			    model->world_size > 0
				? json_integer(model->world_size)
				: json_null());
	json_t *ranks = json_array();
	for (size_t i = 0; i < model->n_ranks; i++)
		json_array_append_new(ranks, json_integer(model->ranks[i]));
	json_object_set_new(report, "ranks", ranks);
	json_t *loaders = json_array();
	for (size_t g = 0; g < model->n_loaders_global; g++)
		if (aw_answers_loader_shown(model, watch, (uint32_t)g))
			json_array_append_new(
			    loaders,
			    aw_json_loader(model, &model->loaders_global[g]));
	json_object_set_new(report, "loaders", loaders);
	json_t *list = json_array();
	for (size_t i = 0; i < findings->n; i++)
		json_array_append_new(
		    list, aw_json_finding(model, &findings->items[i]));
	json_object_set_new(report, "findings", list);
	json_t *summary = json_object();
	aw_json_set_int(summary, "errors",
			aw_findings_count(findings, AW_SEVERITY_ERROR));
	aw_json_set_int(summary, "warnings",
			aw_findings_count(findings, AW_SEVERITY_WARNING));
	aw_json_set_int(summary, "infos",
			aw_findings_count(findings, AW_SEVERITY_INFO));
	aw_json_set_int(summary, "suppressed",
			aw_findings_count_suppressed(findings));
	json_object_set_new(summary, "judged",
			    json_boolean(aw_model_judged(model)));
	json_object_set_new(report, "summary", summary);

	json_object_set_new(report, "processes", aw_json_processes(model));
	json_object_set_new(report, "trace", aw_json_trace(model));
	json_object_set_new(report, "query", aw_json_query(model, watch));
	return report;
}

enum aw_render_status aw_render_json(FILE *out, const struct aw_model *model,
				     const struct aw_findings *findings,
				     const struct aw_query_watch *watch)
{
	json_t *report = aw_render_json_object(model, findings, watch);
	int failed =
	    json_dumpf(report, out, JSON_INDENT(2) | JSON_REAL_PRECISION(6));
	json_decref(report);
	if (failed || fputc('\n', out) == EOF)
		return AW_RENDER_WRITE_ERROR;
	return AW_RENDER_OK;
}
