/* The JSON report, schema accwatch-report/1: the keys of DESIGN.md's contract
 * in that order, then extra keys; unknown values are null, never -1. */
#include <jansson.h>
#include <string.h>

#include <inttypes.h>
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

static json_t *aw_json_rank_cell(const struct aw_model *model,
				 const struct aw_cell *cell)
{
	json_t *rank = json_object();
	json_object_set_new(rank, "rank", json_integer(cell->rank));
	json_object_set_new(rank, "batches",
			    json_integer((json_int_t)cell->batches));
	json_object_set_new(rank, "samples",
			    json_integer((json_int_t)cell->samples));
	json_object_set_new(rank, "unique",
			    json_integer((json_int_t)cell->unique));
	json_object_set_new(
	    rank, "duplicates",
	    json_integer((json_int_t)(cell->samples - cell->unique)));
	json_object_set_new(rank, "drawn",
			    json_integer((json_int_t)cell->drawn));
	(void)model;
	json_object_set_new(rank, "pid", aw_json_known_int(cell->pid));
	json_object_set_new(rank, "processes",
			    json_integer(cell->n_iterations));
	json_object_set_new(rank, "incomplete", json_boolean(!cell->complete));
	json_object_set_new(rank, "exhausted", json_boolean(cell->exhausted));
	json_object_set_new(rank, "prefetched_samples",
			    json_integer((json_int_t)cell->prefetched_samples));
	json_object_set_new(rank, "lost_samples",
			    json_integer((json_int_t)cell->lost_samples));
	json_object_set_new(rank, "unrepresentable",
			    json_integer((json_int_t)cell->unrepresentable));
	char hash[20];
	snprintf(hash, sizeof(hash), "%016" PRIx64, cell->order_hash);
	json_object_set_new(rank, "order_hash",
			    cell->has_order ? json_string(hash) : json_null());
	json_object_set_new(rank, "sampler_epoch",
			    aw_json_known_int(cell->sampler_epoch));
	json_object_set_new(rank, "rebuilt", json_boolean(cell->rebuilt));
	json_object_set_new(rank, "from_items", json_boolean(cell->from_items));
	if (cell->from_items)
		json_object_set_new(
		    rank, "repeated_items",
		    json_integer((json_int_t)cell->repeated_items));
	return rank;
}

static json_t *aw_json_epoch(const struct aw_model *model,
			     const struct aw_loader *desc,
			     const struct aw_epoch *e)
{
	json_t *epoch = json_object();
	json_object_set_new(epoch, "epoch", json_integer(e->epoch));
	json_object_set_new(epoch, "union",
			    json_integer((json_int_t)e->union_count));
	json_object_set_new(epoch, "duplicates",
			    json_integer((json_int_t)e->duplicates));
	/* A partial epoch (a loop left early) says nothing about coverage. */
	json_object_set_new(epoch, "missing",
			    e->exhausted ? aw_json_known_int(e->missing)
					 : json_null());
	json_t *ranks = json_array();
	for (size_t c = 0; c < e->n_cells; c++)
		json_array_append_new(ranks,
				      aw_json_rank_cell(model, &e->cells[c]));
	json_object_set_new(epoch, "ranks", ranks);
	json_object_set_new(epoch, "samples",
			    json_integer((json_int_t)e->samples));
	json_object_set_new(epoch, "cross_rank_duplicates",
			    json_integer((json_int_t)e->cross_rank_duplicates));
	json_object_set_new(epoch, "coverage",
			    desc->dataset_len > 0
				? json_real(100.0 * (double)e->union_in_range /
					    (double)desc->dataset_len)
				: json_null());
	json_object_set_new(epoch, "out_of_range",
			    json_integer((json_int_t)e->out_of_range));
	json_object_set_new(epoch, "complete", json_boolean(e->complete));
	json_object_set_new(epoch, "exhausted", json_boolean(e->exhausted));
	json_object_set_new(epoch, "partial", json_boolean(!e->exhausted));
	if (e->items) {
		json_t *items = json_object();
		json_object_set_new(items, "reads",
				    json_integer((json_int_t)e->items->reads));
		json_object_set_new(
		    items, "distinct",
		    json_integer((json_int_t)e->items->distinct));
		json_object_set_new(
		    items, "repeated",
		    json_integer((json_int_t)e->items->repeated));
		json_object_set_new(
		    items, "repeated_reads",
		    json_integer((json_int_t)e->items->repeated_reads));
		json_object_set_new(
		    items, "across_workers",
		    json_integer((json_int_t)e->items->across_workers));
		json_object_set_new(
		    items, "across_ranks",
		    json_integer((json_int_t)e->items->across_ranks));
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
			json_object_set_new(call, "rank",
					    json_integer(p->rank));
			json_object_set_new(call, "pid", json_integer(p->pid));
			json_object_set_new(
			    call, "value", json_integer(l->len_calls[c].value));
			json_object_set_new(call, "site",
					    json_string(l->len_calls[c].site));
			json_object_set_new(
			    call, "count",
			    json_integer((json_int_t)l->len_calls[c].count));
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

static json_t *aw_json_loader(const struct aw_model *model,
			      const struct aw_global_loader *g)
{
	const struct aw_loader *d = aw_model_describe(model, g);
	json_t *loader = json_object();
	json_object_set_new(loader, "id", json_string(g->id));
	json_object_set_new(loader, "site", json_string(g->site));
	json_object_set_new(loader, "class",
			    aw_json_string_or_null(d->loader_class));
	json_object_set_new(loader, "sampler",
			    aw_json_string_or_null(d->sampler_class));
	json_object_set_new(loader, "batch_sampler",
			    aw_json_string_or_null(d->batch_sampler_class));
	json_object_set_new(loader, "dataset_len",
			    aw_json_known_int(d->dataset_len));
	json_object_set_new(loader, "batch_size",
			    aw_json_known_int(d->batch_size));
	json_object_set_new(loader, "num_workers",
			    aw_json_known_int(d->num_workers));
	json_object_set_new(loader, "persistent_workers",
			    aw_json_tristate(d->persistent_workers));
	json_t *lens = json_array();
	for (size_t i = 0; i < g->n_len_reported; i++)
		json_array_append_new(lens, json_integer(g->len_reported[i]));
	json_object_set_new(loader, "len_reported", lens);
	json_t *epochs = json_array();
	for (size_t e = 0; e < g->n_epochs; e++)
		json_array_append_new(epochs,
				      aw_json_epoch(model, d, &g->epochs[e]));
	json_object_set_new(loader, "epochs", epochs);

	json_object_set_new(loader, "site_ordinal",
			    json_integer(g->site_ordinal));
	json_object_set_new(loader, "described", json_boolean(d->described));
	json_object_set_new(loader, "dataset_type",
			    aw_json_string_or_null(d->dataset_type));
	json_object_set_new(loader, "iterable", json_boolean(d->iterable));
	json_object_set_new(loader, "drop_last",
			    aw_json_tristate(d->drop_last));
	json_object_set_new(loader, "shuffle", aw_json_tristate(d->shuffle));
	json_object_set_new(loader, "prefetch_factor",
			    aw_json_known_int(d->prefetch_factor));
	json_object_set_new(loader, "start_method",
			    aw_json_string_or_null(d->start_method));
	json_object_set_new(loader, "sampler_replicas",
			    aw_json_known_int(d->sampler_replicas));
	json_object_set_new(
	    loader, "wrap_kind",
	    aw_json_string_or_null(d->wraps ? d->wrap_kind : NULL));
	json_object_set_new(loader, "dispatched", json_boolean(g->dispatched));
	json_object_set_new(loader, "rebuilt", json_boolean(g->rebuilt));
	json_object_set_new(loader, "primed_iterations",
			    json_integer(g->primed_iterations));
	char dataset[24];
	snprintf(dataset, sizeof(dataset), "%#" PRIx64, d->dataset_id);
	json_object_set_new(loader, "dataset_id",
			    d->dataset_id ? json_string(dataset) : json_null());
	json_object_set_new(loader, "sharded", json_boolean(d->sharded));
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
	const struct aw_loader *wrap =
	    d->wraps
		? d
		: (d->wrapper != AW_NONE ? &model->loaders[d->wrapper] : NULL);
	if (wrap) {
		json_t *acc = json_object();
		json_object_set_new(acc, "kind",
				    aw_json_string_or_null(wrap->wrap_kind));
		json_object_set_new(acc, "split_batches",
				    aw_json_tristate(wrap->split_batches));
		json_object_set_new(acc, "even_batches",
				    aw_json_tristate(wrap->even_batches));
		json_object_set_new(
		    acc, "num_processes",
		    aw_json_known_int(wrap->wrap_num_processes));
		json_object_set_new(acc, "dispatch_drop_last",
				    aw_json_tristate(d->dispatch_drop_last));
		json_object_set_new(loader, "accelerate", acc);
	} else {
		json_object_set_new(loader, "accelerate", json_null());
	}
	json_object_set_new(loader, "objects",
			    json_integer((json_int_t)g->n_members));
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
	json_object_set_new(finding, "id", json_string(f->id));
	json_object_set_new(finding, "severity",
			    json_string(aw_severity_name(f->severity)));
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
	json_object_set_new(finding, "fix", aw_json_string_or_null(f->fix));
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
	return finding;
}

static json_t *aw_json_processes(const struct aw_model *model)
{
	json_t *processes = json_array();
	for (size_t i = 0; i < model->n_processes; i++) {
		const struct aw_process *p = &model->processes[i];
		json_t *process = json_object();
		json_object_set_new(process, "pid", json_integer(p->pid));
		json_object_set_new(process, "ppid",
				    aw_json_known_int(p->ppid));
		json_object_set_new(process, "rank",
				    aw_json_known_int(p->rank));
		json_object_set_new(process, "role",
				    aw_json_string_or_null(p->role));
		json_object_set_new(process, "worker",
				    json_boolean(p->is_worker));
		json_object_set_new(process, "host",
				    aw_json_string_or_null(p->host));
		json_object_set_new(process, "rank_source",
				    aw_json_string_or_null(p->rank_source));
		json_object_set_new(process, "rank_inferred",
				    json_boolean(p->rank_inferred));
		json_object_set_new(process, "iterations",
				    json_integer(p->iterations));
		json_object_set_new(process, "events",
				    json_integer((json_int_t)p->events));
		json_object_set_new(process, "exit_status",
				    p->exited
					? aw_json_known_int(p->exit_status)
					: json_null());
		json_object_set_new(process, "exit_signal",
				    p->exited
					? aw_json_known_int(p->exit_signal)
					: json_null());
		json_object_set_new(process, "exited", json_boolean(p->exited));
		json_object_set_new(process, "exec", json_boolean(p->execed));
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
	json_object_set_new(trace, "trace_dirs",
			    json_integer((json_int_t)s->trace_dirs));
	json_object_set_new(trace, "streams",
			    json_integer((json_int_t)s->streams));
	json_object_set_new(trace, "packets",
			    json_integer((json_int_t)s->packets));
	json_object_set_new(trace, "events",
			    json_integer((json_int_t)s->events));
	json_object_set_new(
	    trace, "accwatch_events",
	    json_integer((json_int_t)aw_model_accwatch_events(model)));
	json_object_set_new(trace, "foreign_events",
			    json_integer((json_int_t)s->foreign_events));
	json_object_set_new(
	    trace, "unknown_accwatch_events",
	    json_integer((json_int_t)s->unknown_accwatch_events));
	json_object_set_new(trace, "discarded_events",
			    json_integer((json_int_t)s->discarded_events));
	json_object_set_new(
	    trace, "discarded_events_messages",
	    json_integer((json_int_t)s->discarded_events_messages));
	json_object_set_new(trace, "discarded_packets",
			    json_integer((json_int_t)s->discarded_packets));
	json_object_set_new(trace, "read_error",
			    s->read_error ? json_string(s->read_error_message)
					  : json_null());
	json_object_set_new(trace, "incomplete_iterations",
			    json_integer(model->incomplete_iterations));
	json_object_set_new(trace, "ranks_inferred",
			    json_boolean(model->ranks_inferred));
	json_object_set_new(trace, "unranked_processes",
			    json_integer(model->unranked_processes));
	json_object_set_new(
	    trace, "index_out_of_range",
	    json_integer((json_int_t)model->index_out_of_range));
	json_object_set_new(
	    trace, "index_unrepresentable",
	    json_integer((json_int_t)model->index_unrepresentable));
	json_t *runs = json_array();
	for (size_t i = 0; i < model->n_runs; i++)
		json_array_append_new(runs, json_integer(model->runs[i]));
	json_object_set_new(trace, "runs", runs);
	json_object_set_new(trace, "other_run_events",
			    json_integer((json_int_t)s->other_run_events));
	json_t *streams = json_array();
	for (size_t i = 0; i < s->n_discards; i++) {
		json_t *d = json_object();
		json_object_set_new(d, "stream",
				    json_string(s->discards[i].stream));
		json_object_set_new(
		    d, "events",
		    json_integer((json_int_t)s->discards[i].events));
		json_object_set_new(
		    d, "messages",
		    json_integer((json_int_t)s->discards[i].messages));
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
static json_t *aw_json_query(const struct aw_model *model)
{
	const struct aw_query *q = &model->query;
	if (!q->by_sample && !q->by_sequence && !q->loader)
		return json_null();
	json_t *query = json_object();
	json_object_set_new(query, "loader", aw_json_string_or_null(q->loader));
	if (q->by_sample) {
		size_t n;
		struct aw_answer_read *reads =
		    aw_answers_sample_reads(model, &n);
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
					    h->iteration == ACCWATCH_UNKNOWN
						? json_null()
						: json_integer(h->iteration));
			json_object_set_new(r, "rank",
					    aw_json_known_int(reads[i].rank));
			json_object_set_new(
			    r, "how", json_string(aw_hit_kind_name(h->kind)));
			json_object_set_new(r, "batch", json_integer(h->batch));
			json_object_set_new(r, "position",
					    json_integer(h->position));
			json_object_set_new(r, "worker_id",
					    aw_json_known_int(h->worker_id));
			json_object_set_new(r, "pid",
					    json_integer(reads[i].pid));
			json_array_append_new(list, r);
		}
		free(reads);
		json_object_set_new(query, "sample", json_integer(q->sample));
		json_object_set_new(query, "reads", list);
		json_object_set_new(
		    query, "reads_not_kept",
		    json_integer((json_int_t)model->answers.hits_dropped));
	}
	if (q->by_sequence) {
		size_t n;
		struct aw_answer_sequence *seqs =
		    aw_answers_sequences(model, &n);
		json_t *list = json_array();
		for (size_t i = 0; i < n; i++) {
			const struct aw_sequence *s = seqs[i].sequence;
			json_t *seq = json_object();
			json_object_set_new(
			    seq, "loader",
			    json_string(
				model->loaders_global[seqs[i].global].id));
			json_object_set_new(seq, "pid",
					    json_integer(seqs[i].pid));
			json_object_set_new(seq, "rebuilt",
					    json_boolean(seqs[i].rebuilt));
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
		json_object_set_new(query, "rank", json_integer(q->rank));
		json_object_set_new(query, "epoch", json_integer(q->epoch));
		json_object_set_new(query, "sequences", list);
	}
	return query;
}

json_t *aw_render_json_object(const struct aw_model *model,
			      const struct aw_findings *findings)
{
	json_t *report = json_object();
	json_object_set_new(report, "schema", json_string(AW_JSON_SCHEMA));
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
		if (aw_answers_loader_shown(model, (uint32_t)g))
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
	json_object_set_new(summary, "errors",
			    json_integer((json_int_t)aw_findings_count(
				findings, AW_SEVERITY_ERROR)));
	json_object_set_new(summary, "warnings",
			    json_integer((json_int_t)aw_findings_count(
				findings, AW_SEVERITY_WARNING)));
	json_object_set_new(summary, "infos",
			    json_integer((json_int_t)aw_findings_count(
				findings, AW_SEVERITY_INFO)));
	json_object_set_new(report, "summary", summary);

	json_object_set_new(report, "processes", aw_json_processes(model));
	json_object_set_new(report, "trace", aw_json_trace(model));
	json_object_set_new(report, "query", aw_json_query(model));
	return report;
}

enum aw_render_status aw_render_json(FILE *out, const struct aw_model *model,
				     const struct aw_findings *findings)
{
	json_t *report = aw_render_json_object(model, findings);
	int failed =
	    json_dumpf(report, out, JSON_INDENT(2) | JSON_REAL_PRECISION(6));
	json_decref(report);
	if (failed || fputc('\n', out) == EOF)
		return AW_RENDER_WRITE_ERROR;
	return AW_RENDER_OK;
}
