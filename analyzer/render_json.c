/* The JSON report, schema accwatch-report/1: the keys of DESIGN.md's contract
 * in that order, then extra keys; unknown values are null, never -1. */
#include <jansson.h>
#include <string.h>

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
	json_object_set_new(
	    rank, "pid", json_integer(aw_model_cell_process(model, cell)->pid));
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
	json_object_set_new(epoch, "missing", aw_json_known_int(e->missing));
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
	json_t *kinds = json_object();
	for (int k = 0; k < AW_EVENT_KIND_COUNT; k++)
		json_object_set_new(kinds,
				    aw_event_kind_name((enum aw_event_kind)k),
				    json_integer((json_int_t)s->by_kind[k]));
	json_object_set_new(trace, "events_by_kind", kinds);
	return trace;
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
		json_array_append_new(
		    loaders, aw_json_loader(model, &model->loaders_global[g]));
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
