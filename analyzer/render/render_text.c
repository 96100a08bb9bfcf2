/* SPDX-License-Identifier: MIT */
/* The text report: a one-line verdict, the findings (errors first) with their
 * evidence and fix, then per loader a table of ranks x epochs. */
#include <inttypes.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "accwatch_events.h"
#include "answers.h"
#include "lineage.h"
#include "render.h"
#include "util.h"

/* A right-aligned table, built as strings, printed with column widths fit
 * to its content. */
#define AW_TABLE_COLUMNS 7

struct aw_table {
	char *(*rows)[AW_TABLE_COLUMNS];
	size_t n_rows, cap;
};

static void aw_table_row(struct aw_table *t,
			 const char *const cells[AW_TABLE_COLUMNS])
{
	AW_GROW(t->rows, t->cap, t->n_rows + 1);
	for (int c = 0; c < AW_TABLE_COLUMNS; c++)
		t->rows[t->n_rows][c] = aw_xstrdup(cells[c]);
	t->n_rows++;
}

static void aw_table_print(FILE *out, struct aw_table *t, const char *indent)
{
	size_t width[AW_TABLE_COLUMNS] = {0};
	for (size_t r = 0; r < t->n_rows; r++)
		for (int c = 0; c < AW_TABLE_COLUMNS; c++)
			width[c] = AW_MAX(width[c], strlen(t->rows[r][c]));
	for (size_t r = 0; r < t->n_rows; r++) {
		fputs(indent, out);
		for (int c = 0; c < AW_TABLE_COLUMNS; c++)
			fprintf(out, "%s%*s", c ? "  " : "", (int)width[c],
				t->rows[r][c]);
		fputc('\n', out);
		for (int c = 0; c < AW_TABLE_COLUMNS; c++)
			free(t->rows[r][c]);
	}
	free(t->rows);
	t->rows = NULL;
	t->n_rows = t->cap = 0;
}

/* "0-3,5,7-8" */
static void aw_print_ranges(FILE *out, const int64_t *values, size_t n)
{
	for (size_t i = 0; i < n;) {
		size_t j = i;
		while (j + 1 < n && values[j + 1] == values[j] + 1)
			j++;
		fprintf(out, "%s%" PRId64, i ? "," : "", values[i]);
		if (j > i)
			fprintf(out, "-%" PRId64, values[j]);
		i = j + 1;
	}
}

static int aw_compare_int64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

/* Sorts values and drops repeats; returns how many are left. */
static size_t aw_sort_unique(int64_t *values, size_t n)
{
	if (n == 0)
		return 0;
	qsort(values, n, sizeof(*values), aw_compare_int64);
	size_t kept = 1;
	for (size_t i = 1; i < n; i++)
		if (values[i] != values[kept - 1])
			values[kept++] = values[i];
	return kept;
}

static const char *aw_plural(uint64_t n)
{
	return n == 1 ? "" : "s";
}

static void aw_print_notes(FILE *out, const struct aw_model *model)
{
	if (model->n_runs > 1)
		fprintf(out,
			"note: %zu runs (recordings) are read together: "
			"their processes are told apart, their loaders "
			"joined by creation site\n",
			model->n_runs);
	if (model->strings_cut)
		fprintf(out,
			"note: %" PRIu64 " string%s cut at %u bytes when "
			"recorded (the first: %s.%s of pid %d, %" PRIu64
			" bytes), so that every event fits a sub-buffer\n",
			model->strings_cut, aw_plural(model->strings_cut),
			ACCWATCH_STR_MAX,
			model->cut_event ? model->cut_event : "?",
			model->cut_field ? model->cut_field : "?",
			model->cut_pid, model->cut_length);
	if (model->stats.other_run_events)
		fprintf(out,
			"note: %" PRIu64 " event%s of other runs left out "
			"(--run)\n",
			model->stats.other_run_events,
			aw_plural(model->stats.other_run_events));
	if (model->ranks_inferred)
		fprintf(out,
			"note: no process carried a rank of its own (RANK, "
			"torch.distributed): each process that iterated a "
			"loader is taken as one rank, %s\n",
			model->ranks_from_samplers
			    ? "the one its DistributedSampler was given"
			    : "in pid order");
	if (model->mapping_parts_left_out)
		fprintf(out,
			"note: %" PRIu64 " part%s of index maps (Subset, HF "
			"indices) left out (more entries than the report "
			"keeps, or a damaged trace): their loaders count "
			"positions, not dataset indices\n",
			model->mapping_parts_left_out,
			aw_plural(model->mapping_parts_left_out));
	if (model->world_size > 0 && model->n_ranks < (size_t)model->world_size)
		fprintf(out,
			"note: the ranks say the world has %d rank%s; %zu of "
			"them %s in the trace: the others ran where nothing "
			"recorded them (another node, a launcher that dropped "
			"LD_PRELOAD) or left no event, and the tables count "
			"only the ranks shown\n",
			model->world_size, model->world_size == 1 ? "" : "s",
			model->n_ranks, model->n_ranks == 1 ? "is" : "are");
	if (model->unranked_processes)
		fprintf(out,
			"note: %u process%s iterated a loader without a rank "
			"and %s left out of the tables\n",
			model->unranked_processes,
			model->unranked_processes == 1 ? "" : "es",
			model->unranked_processes == 1 ? "is" : "are");
}

static bool aw_same_problem(const struct aw_finding *a,
			    const struct aw_finding *b)
{
	return a->severity == b->severity && a->loader == b->loader &&
	       a->suppressed == b->suppressed && strcmp(a->id, b->id) == 0;
}

/* Prints findings[0 .. n): one problem (same id and loader) over n epochs, as
 * one block showing the first epoch's message, evidence and fix. */
static void aw_print_finding_group(FILE *out, const struct aw_model *model,
				   const struct aw_finding *group, size_t n)
{
	static const char *const labels[] = {"ERROR", "WARNING", "INFO"};
	const struct aw_finding *f = &group[0];
	size_t n_ranks = 0, ranks_cap = 0, n_epochs = 0;
	int64_t *ranks = NULL;
	int64_t *epochs = aw_xcalloc(n + 1, sizeof(*epochs));
	for (size_t i = 0; i < n; i++) {
		if (group[i].epoch >= 0)
			epochs[n_epochs++] = group[i].epoch;
		for (size_t r = 0; r < group[i].n_ranks; r++) {
			AW_GROW(ranks, ranks_cap, n_ranks + 1);
			ranks[n_ranks++] = group[i].ranks[r];
		}
	}
	n_epochs = aw_sort_unique(epochs, n_epochs);
	n_ranks = aw_sort_unique(ranks, n_ranks);

	fprintf(out, "%s%s %s",
		f->suppressed != AW_NOT_SUPPRESSED ? "SUPPRESSED " : "",
		labels[f->severity], f->id);
	if (f->loader < model->n_loaders_global) {
		const struct aw_global_loader *g =
		    &model->loaders_global[f->loader];
		char label[512];
		fprintf(out, "  %s",
			aw_global_loader_label(model, g, label, sizeof(label)));
	}
	if (n_epochs) {
		fprintf(out, ", epoch%s ", n_epochs == 1 ? "" : "s");
		aw_print_ranges(out, epochs, n_epochs);
	}
	if (n_ranks) {
		fprintf(out, ", rank%s ", n_ranks == 1 ? "" : "s");
		aw_print_ranges(out, ranks, n_ranks);
	}
	fprintf(out, "\n  %s\n", f->message ? f->message : "");
	for (const char *line = f->evidence; line && *line;) {
		const char *end = strchr(line, '\n');
		int len = end ? (int)(end - line) : (int)strlen(line);
		fprintf(out, "    %.*s\n", len, line);
		line += len + (end ? 1 : 0);
	}
	if (n > 1 && n_epochs == n)
		fprintf(out,
			"    (epoch %" PRId64
			" shown; the same in %zu epochs)\n",
			f->epoch, n);
	else if (n > 1)
		fprintf(out,
			"    (the first of %zu alike findings shown, over %zu "
			"epoch%s and %zu rank%s)\n",
			n, n_epochs, n_epochs == 1 ? "" : "s", n_ranks,
			n_ranks == 1 ? "" : "s");
	if (f->fix)
		fprintf(out, "  fix: %s\n", f->fix);
	if (f->suppressed != AW_NOT_SUPPRESSED)
		fprintf(out, "  suppressed: %s\n",
			f->justification ? f->justification : "");
	fputc('\n', out);
	free(ranks);
	free(epochs);
}

static void aw_format_coverage(char *buf, size_t size, uint64_t part,
			       int64_t dataset_len)
{
	if (dataset_len > 0)
		snprintf(buf, size, "%.1f%%",
			 100.0 * (double)part / (double)dataset_len);
	else
		snprintf(buf, size, "-");
}

/* "  sampler chain: ..." (lineage.h's words). */
static void aw_print_sampler_chain(FILE *out, const struct aw_loader *d)
{
	if (d->n_chain == 0)
		return;
	struct aw_text chain = {0};
	aw_sampler_chain_text(d, &chain);
	fprintf(out, "  sampler chain: %s\n", aw_text_str(&chain));
	aw_text_fini(&chain);
}

/* "  stream split: ..." for an IterableDataset that splits itself. */
static void aw_print_stream_links(FILE *out, const struct aw_loader *d)
{
	for (uint32_t i = 0; i < d->n_stream; i++) {
		const struct aw_stream_link *l = &d->stream[i];
		if (!l->seen)
			continue;
		const char *dot = strrchr(l->class_name, '.');
		fprintf(out, "  stream split: %s(num_replicas=%d, rank=%d",
			dot ? dot + 1 : l->class_name, l->num_replicas,
			l->rank);
		if (l->batch_size >= 0)
			fprintf(out, ", batch_size=%" PRId64, l->batch_size);
		if (l->shards >= 0)
			fprintf(out, ", shards=%" PRId64, l->shards);
		fprintf(out, ")%s\n",
			l->whole == 1   ? ": every replica reads the whole "
					  "source and keeps its part"
			: l->whole == 0 ? ": each replica reads its own shards"
					: "");
	}
}

/* "  data-parallel groups: ..." when an epoch has them (groups.h). */
static void aw_print_groups(FILE *out, const struct aw_global_loader *g)
{
	for (size_t e = 0; e < g->n_epochs; e++) {
		const struct aw_epoch *ep = &g->epochs[e];
		if (!ep->by_group)
			continue;
		fprintf(
		    out,
		    "  data-parallel groups: %zu, of %zu ranks each (the "
		    "samplers shard over %zu replicas, and the ranks of one "
		    "replica read the same data): sharding is judged across "
		    "groups\n",
		    ep->by_group->n_cells, ep->n_cells / ep->by_group->n_cells,
		    ep->by_group->n_cells);
		return;
	}
}

static void aw_print_loader_header(FILE *out, const struct aw_model *model,
				   const struct aw_global_loader *g,
				   const struct aw_loader *d)
{
	fprintf(out, "%s  %s at %s", g->id,
		d->loader_class && *d->loader_class ? d->loader_class
						    : "loader",
		*g->site ? g->site : "unknown site");
	if (model->n_attempts > 1)
		fprintf(out, ", attempt %u", (unsigned)g->attempt);
	/* The chain line below says what draws the indices; the loader's own
	 * .sampler may be a placeholder (accelerate's prepared loaders). */
	if (d->n_chain == 0 && d->sampler_class && *d->sampler_class)
		fprintf(out, ", sampler %s", d->sampler_class);
	if (d->batch_size >= 0)
		fprintf(out, ", batch_size %" PRId64, d->batch_size);
	if (d->dataset_len >= 0)
		fprintf(out, ", dataset_len %" PRId64, d->dataset_len);
	if (d->num_workers >= 0)
		fprintf(out, ", %d worker%s", d->num_workers,
			d->num_workers == 1 ? "" : "s");
	if (d->drop_last == 1)
		fputs(", drop_last", out);
	if (d->shuffle == 1)
		fputs(", shuffle", out);
	if (d->iterable)
		fputs(", IterableDataset", out);
	fputc('\n', out);
	aw_print_sampler_chain(out, d);
	aw_print_stream_links(out, d);
	aw_print_groups(out, g);

	/* Lineage: what accelerate built from what. */
	const char *kind = aw_loader_wrap_kind(model, d);
	const struct aw_loader *outer = aw_loader_wrap(model, d);
	if (outer && d->wraps && d->wrap_inner != AW_NONE &&
	    d->wrap_inner != g->representative) {
		const struct aw_loader *inner = &model->loaders[d->wrap_inner];
		fprintf(out,
			"  accelerate's %s loader around %s (the DataLoader it "
			"iterates)",
			kind ? kind : "outer",
			model->loaders_global[inner->global].id);
	} else if (outer) {
		fprintf(out, "  built by accelerate's prepare() (%s",
			kind ? kind : "wrap");
		if (outer->wrap_num_processes > 0)
			fprintf(out, ", %d processes",
				outer->wrap_num_processes);
		if (outer->split_batches == 1)
			fputs(", split_batches", out);
		if (outer->even_batches >= 0)
			fprintf(out, ", even_batches=%s",
				outer->even_batches ? "True" : "False");
		fputc(')', out);
	}
	if (outer) {
		if (d->built_from != AW_NONE)
			fprintf(
			    out, " from %s",
			    model
				->loaders_global[model->loaders[d->built_from]
						     .global]
				.id);
		fputc('\n', out);
	}
	if (g->dispatched && g->rebuilt)
		fprintf(out,
			"  accelerate dispatcher: rank 0 reads, every rank's "
			"share rebuilt from the slicing rule%s\n",
			g->primed_iterations
			    ? " (the other ranks' own draws only primed "
			      "the iterator and are not counted)"
			    : "");
	else if (g->dispatched)
		fputs("  accelerate dispatcher: rank 0 reads for all; its "
		      "reads are shown as they are (shares not rebuilt)\n",
		      out);
}

/* Legend marks of the table. */
struct aw_table_marks {
	bool incomplete, partial, rebuilt, items;
};

static void aw_print_epoch_rows(struct aw_table *table,
				const struct aw_loader *d,
				const struct aw_epoch *ep,
				struct aw_table_marks *marks)
{
	char epoch[16], rank[16], batches[32], samples[32], unique[32],
	    dups[32], coverage[48];
	snprintf(epoch, sizeof(epoch), "%u", ep->epoch);
	uint64_t batch_sum = 0;
	for (size_t c = 0; c < ep->n_cells; c++) {
		const struct aw_cell *cell = &ep->cells[c];
		snprintf(rank, sizeof(rank), "%d%s", cell->rank,
			 cell->rebuilt ? "^" : "");
		snprintf(batches, sizeof(batches), "%" PRIu64 "%s",
			 cell->batches, cell->complete ? "" : "*");
		snprintf(samples, sizeof(samples), "%" PRIu64 "%s",
			 cell->samples, cell->from_items ? "#" : "");
		snprintf(unique, sizeof(unique), "%" PRIu64, cell->unique);
		snprintf(dups, sizeof(dups), "%" PRIu64,
			 cell->samples - AW_MIN(cell->unique, cell->samples));
		aw_format_coverage(coverage, sizeof(coverage), cell->unique,
				   aw_epoch_to_cover(d, ep));
		if (!cell->exhausted && cell->complete) {
			strncat(coverage, " partial",
				sizeof(coverage) - strlen(coverage) - 1);
			marks->partial = true;
		}
		marks->incomplete |= !cell->complete;
		marks->rebuilt |= cell->rebuilt;
		marks->items |= cell->from_items;
		const char *row[AW_TABLE_COLUMNS] = {
		    c ? "" : epoch, rank, batches, samples,
		    unique,         dups, coverage};
		aw_table_row(table, row);
		batch_sum += cell->batches;
	}
	if (ep->n_cells > 1) {
		snprintf(batches, sizeof(batches), "%" PRIu64, batch_sum);
		snprintf(samples, sizeof(samples), "%" PRIu64, ep->samples);
		snprintf(unique, sizeof(unique), "%" PRIu64, ep->union_count);
		snprintf(dups, sizeof(dups), "%" PRIu64, ep->duplicates);
		aw_format_coverage(coverage, sizeof(coverage),
				   ep->union_in_range,
				   aw_epoch_to_cover(d, ep));
		if (!ep->exhausted)
			strncat(coverage, " partial epoch",
				sizeof(coverage) - strlen(coverage) - 1);
		const char *row[AW_TABLE_COLUMNS] = {
		    "", "all", batches, samples, unique, dups, coverage};
		aw_table_row(table, row);
	}
}

static void aw_print_loader(FILE *out, const struct aw_model *model,
			    const struct aw_global_loader *g)
{
	const struct aw_loader *d = aw_model_describe(model, g);
	aw_print_loader_header(out, model, g, d);
	struct aw_table_marks marks = {0};
	if (g->n_epochs == 0) {
		fputs("  never iterated by a rank\n", out);
	} else {
		struct aw_table table = {0};
		const char *header[AW_TABLE_COLUMNS] = {
		    "epoch",  "rank",       "batches", "samples",
		    "unique", "duplicates", "coverage"};
		aw_table_row(&table, header);
		for (size_t e = 0; e < g->n_epochs; e++)
			aw_print_epoch_rows(&table, d, &g->epochs[e], &marks);
		aw_table_print(out, &table, "  ");
	}
	if (marks.partial)
		fputs("  partial: the loop left the epoch early (break, "
		      "error); counts are as read, coverage is not judged\n",
		      out);
	if (marks.incomplete)
		fputs("  *: no end of epoch in the trace (the process stopped "
		      "or events were lost); every batch drawn is counted\n",
		      out);
	if (marks.rebuilt)
		fputs("  ^: the rank's share of what rank 0 read, cut by "
		      "accelerate's dispatcher rule\n",
		      out);
	if (marks.items)
		fputs("  #: items counted by their fingerprints (an "
		      "IterableDataset has no indices); coverage unknown\n",
		      out);
	if (g->n_len_reported) {
		fputs("  len() answered:", out);
		for (size_t i = 0; i < g->n_len_reported; i++)
			fprintf(out, "%s %" PRId64, i ? "," : "",
				g->len_reported[i]);
		fputc('\n', out);
	}
	fputc('\n', out);
}

/* --sample N: every read of the sample, one line each. */
static void aw_print_sample_answer(FILE *out, const struct aw_model *model,
				   const struct aw_query_watch *watch)
{
	size_t n;
	struct aw_answer_read *reads =
	    aw_answers_sample_reads(model, watch, &n);
	fprintf(out, "sample %u: ", watch->query.sample);
	if (n == 0)
		fputs("no rank or worker read it\n", out);
	else
		fprintf(out, "%zu read%s\n", n, aw_plural(n));
	for (size_t i = 0; i < n; i++) {
		const struct aw_answer_read *r = &reads[i];
		const struct aw_hit *h = r->hit;
		const char *loader = r->global != AW_NONE
					 ? model->loaders_global[r->global].id
					 : "loader ?";
		fprintf(out, "  %s epoch ", loader);
		if (r->epoch == UINT32_MAX)
			fputs("?", out);
		else
			fprintf(out, "%u", r->epoch);
		switch (h->kind) {
		case AW_READ_CONSUMED:
			fprintf(out,
				": rank %d consumed it in batch %u (position "
				"%u), pid %d\n",
				r->rank, h->batch, h->position, r->pid);
			break;
		case AW_READ_PREFETCHED:
			fprintf(out,
				": rank %d drew it in batch %u (position %u) "
				"but the loop never got that batch, pid %d\n",
				r->rank, h->batch, h->position, r->pid);
			break;
		case AW_READ_FETCHED:
			fprintf(out,
				": rank %d worker %d (pid %d) read it, its "
				"fetch #%u (position %u)\n",
				r->rank, h->worker_id, r->pid, h->batch,
				h->position);
			break;
		case AW_READ_DISPATCHED:
			fprintf(out,
				": rank %d got it from rank 0's reads in step "
				"%u (position %u of its slice)\n",
				r->rank, h->batch, h->position);
			break;
		}
	}
	if (watch->hits.hits_dropped)
		fprintf(out, "  ... and %" PRIu64 " more reads not kept\n",
			watch->hits.hits_dropped);
	fputc('\n', out);
	free(reads);
}

/* --rank R --epoch E: the indices in the order consumed, batch by batch. */
static void aw_print_sequence_answer(FILE *out, const struct aw_model *model,
				     const struct aw_query_watch *watch)
{
	const struct aw_query *q = &watch->query;
	size_t n;
	struct aw_answer_sequence *seqs =
	    aw_answers_sequences(model, watch, &n);
	if (n == 0)
		fprintf(out,
			"rank %d, epoch %u: no pass of this rank over a loader "
			"in this epoch\n\n",
			q->rank, q->epoch);
	for (size_t i = 0; i < n; i++) {
		const struct aw_sequence *s = seqs[i].sequence;
		const struct aw_global_loader *g =
		    &model->loaders_global[seqs[i].global];
		fprintf(out,
			"rank %d, epoch %u, %s (%s): %zu batch%s, %zu "
			"sample%s in the order consumed%s\n",
			seqs[i].rank, q->epoch, g->id, g->site, s->n_batches,
			s->n_batches == 1 ? "" : "es", s->n, aw_plural(s->n),
			seqs[i].rebuilt ? " (its share of rank 0's reads)"
					: "");
		size_t start = 0;
		for (size_t b = 0; b < s->n_batches; b++) {
			fprintf(out, "  batch %zu:", b);
			for (size_t k = start; k < s->batch_ends[b]; k++)
				fprintf(out, " %" PRId64, s->indices[k]);
			fputc('\n', out);
			start = s->batch_ends[b];
		}
		fputc('\n', out);
	}
	free(seqs);
}

/* No process iterated a loader: said, with what the processes did and how
 * they ended (the first few), never "no problem found". */
static void aw_print_nothing_judged(FILE *out, const struct aw_model *model)
{
	size_t shown = 0;
	fprintf(out,
		"Nothing to judge: no process iterated a DataLoader (%zu "
		"process%s recorded, %zu loader%s built).\n",
		model->n_processes, model->n_processes == 1 ? "" : "es",
		model->n_loaders_global, aw_plural(model->n_loaders_global));
	for (size_t i = 0; i < model->n_processes && shown < 8; i++) {
		const struct aw_process *p = &model->processes[i];
		if (p->exception_type) {
			fprintf(out,
				"  pid %d ended with an uncaught %s: %s (at "
				"%s)\n",
				p->pid, p->exception_type,
				p->exception_message ? p->exception_message
						     : "",
				p->exception_site ? p->exception_site : "?");
			shown++;
		} else if (p->exited && p->exit_signal > 0) {
			fprintf(out, "  pid %d was killed by signal %d\n",
				p->pid, p->exit_signal);
			shown++;
		} else if (p->exited && p->exit_status != 0) {
			fprintf(out, "  pid %d exited with status %d\n", p->pid,
				p->exit_status);
			shown++;
		}
	}
	if (!shown)
		fputs("  every recorded process ended normally without "
		      "reading through a DataLoader\n",
		      out);
	fputc('\n', out);
}

void aw_render_text(FILE *out, const struct aw_model *model,
		    const struct aw_findings *findings,
		    const struct aw_query_watch *watch, bool show_suppressed)
{
	size_t errors = aw_findings_count(findings, AW_SEVERITY_ERROR);
	size_t warnings = aw_findings_count(findings, AW_SEVERITY_WARNING);
	size_t infos = aw_findings_count(findings, AW_SEVERITY_INFO);
	size_t suppressed = aw_findings_count_suppressed(findings);
	/* A question (--sample, --rank/--epoch) gets its answer only. */
	if (watch && (watch->query.by_sample || watch->query.by_sequence)) {
		if (watch->query.by_sample)
			aw_print_sample_answer(out, model, watch);
		if (watch->query.by_sequence)
			aw_print_sequence_answer(out, model, watch);
		return;
	}
	fprintf(out, "accwatch-report: %zu error%s, %zu warning%s, %zu info%s",
		errors, aw_plural(errors), warnings, aw_plural(warnings), infos,
		aw_plural(infos));
	if (suppressed)
		fprintf(out, ", %zu suppressed", suppressed);
	fprintf(out, " (%zu rank%s", model->n_ranks, aw_plural(model->n_ranks));
	if (model->world_size > 0)
		fprintf(out, ", world size %d", model->world_size);
	fprintf(out, ", %zu loader%s, %" PRIu64 " events)\n",
		model->n_loaders_global, aw_plural(model->n_loaders_global),
		aw_model_accwatch_events(model));
	aw_print_notes(out, model);
	fputc('\n', out);
	if (!aw_model_judged(model))
		aw_print_nothing_judged(out, model);
	else if (findings->n == suppressed)
		fputs("No data-loading problem found.\n\n", out);
	for (size_t i = 0; i < findings->n;) {
		size_t n = 1;
		while (i + n < findings->n &&
		       aw_same_problem(&findings->items[i],
				       &findings->items[i + n]))
			n++;
		if (show_suppressed ||
		    findings->items[i].suppressed == AW_NOT_SUPPRESSED)
			aw_print_finding_group(out, model, &findings->items[i],
					       n);
		i += n;
	}
	if (suppressed && !show_suppressed)
		fprintf(out,
			"%zu finding%s suppressed as intended "
			"(--show-suppressed shows %s).\n\n",
			suppressed, aw_plural(suppressed),
			suppressed == 1 ? "it" : "them");

	for (size_t g = 0; g < model->n_loaders_global; g++)
		if (aw_answers_loader_shown(model, watch, (uint32_t)g))
			aw_print_loader(out, model, &model->loaders_global[g]);
}
