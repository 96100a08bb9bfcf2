/* SPDX-License-Identifier: MIT */
/* The HTML report: one self-contained page (Chart.js and the page's own
 * script inlined, no network when it is viewed). The JSON report is its
 * data, with what the plots need besides, computed here from the model:
 * per loader and epoch the samples ranks share, how many ranks read each
 * sample, and when each rank drew its batches. Past AW_HTML_ROWS ranks,
 * ranks are drawn in blocks of consecutive ranks, so that the page stays
 * small and quick at a thousand ranks. */
#include <inttypes.h>
#include <jansson.h>
#include <roaring/roaring.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "answers.h"
#include "html_assets.h"
#include "iteration.h"
#include "render.h"
#include "sample_set.h"
#include "util.h"

/* Rows of the matrix and the timeline, bars of the per-rank charts. */
#define AW_HTML_ROWS 64
#define AW_HTML_BARS 128
#define AW_HTML_TIME_BINS 120
/* The read-count histogram counts per index: up to this many indices. */
#define AW_HTML_HISTOGRAM_INDICES (1u << 25)

/* Cells [first, first + count) of an epoch drawn as one row. */
struct aw_html_block {
	size_t first, count;
};

/* Splits n cells into at most max blocks of consecutive ones. */
static size_t aw_html_blocks(size_t n, size_t max, struct aw_html_block *out)
{
	size_t per = (n + max - 1) / max, blocks = 0;

	if (per == 0)
		per = 1;
	for (size_t first = 0; first < n; first += per)
		out[blocks++] =
		    (struct aw_html_block){first, AW_MIN(per, n - first)};
	return blocks;
}

static json_t *aw_html_block_label(const struct aw_epoch *e,
				   const struct aw_html_block *b)
{
	int32_t first = e->cells[b->first].rank;
	int32_t last = e->cells[b->first + b->count - 1].rank;
	char label[48];

	if (b->count == 1)
		snprintf(label, sizeof(label), "%" PRId32, first);
	else
		snprintf(label, sizeof(label), "%" PRId32 "-%" PRId32, first,
			 last);
	return json_string(label);
}

/* The distinct samples of a block of ranks (a new bitmap). */
static roaring_bitmap_t *aw_html_block_set(const struct aw_epoch *e,
					   const struct aw_html_block *b)
{
	roaring_bitmap_t *set = roaring_bitmap_create();

	for (size_t i = b->first; i < b->first + b->count; i++)
		if (e->cells[i].set)
			roaring_bitmap_or_inplace(
			    set, aw_sample_set_bitmap(e->cells[i].set));
	return set;
}

/* Shared samples: cell (i, j) the distinct samples rows i and j both read,
 * the diagonal a row's own distinct samples. */
static json_t *aw_html_matrix(const struct aw_epoch *e,
			      const struct aw_html_block *blocks, size_t n)
{
	roaring_bitmap_t **sets = aw_xcalloc(n, sizeof(*sets));
	json_t *labels = json_array(), *rows = json_array();

	for (size_t i = 0; i < n; i++) {
		sets[i] = aw_html_block_set(e, &blocks[i]);
		json_array_append_new(labels,
				      aw_html_block_label(e, &blocks[i]));
	}
	/* Symmetric: each pair is intersected once. */
	uint64_t *shared = aw_xcalloc(n * n, sizeof(*shared));
	for (size_t i = 0; i < n; i++) {
		shared[i * n + i] = roaring_bitmap_get_cardinality(sets[i]);
		for (size_t j = i + 1; j < n; j++)
			shared[i * n + j] = shared[j * n + i] =
			    roaring_bitmap_and_cardinality(sets[i], sets[j]);
	}
	for (size_t i = 0; i < n; i++) {
		json_t *row = json_array();
		for (size_t j = 0; j < n; j++)
			json_array_append_new(
			    row, json_integer((json_int_t)shared[i * n + j]));
		json_array_append_new(rows, row);
	}
	free(shared);
	for (size_t i = 0; i < n; i++)
		roaring_bitmap_free(sets[i]);
	free(sets);
	return json_pack("{s:o,s:o,s:b}", "labels", labels, "cells", rows,
			 "blocks", n < e->n_cells);
}

/* Batches and samples per rank; past AW_HTML_BARS ranks, per block the
 * least and the most of its ranks. */
static json_t *aw_html_bars(const struct aw_epoch *e)
{
	struct aw_html_block *blocks =
	    aw_xcalloc(AW_HTML_BARS, sizeof(*blocks));
	size_t n = aw_html_blocks(e->n_cells, AW_HTML_BARS, blocks);
	json_t *labels = json_array(), *batches = json_array(),
	       *samples = json_array();

	for (size_t b = 0; b < n; b++) {
		uint64_t min_batches = UINT64_MAX, max_batches = 0;
		uint64_t min_samples = UINT64_MAX, max_samples = 0;
		for (size_t i = blocks[b].first;
		     i < blocks[b].first + blocks[b].count; i++) {
			const struct aw_cell *c = &e->cells[i];
			min_batches = AW_MIN(min_batches, c->batches);
			max_batches = AW_MAX(max_batches, c->batches);
			min_samples = AW_MIN(min_samples, c->samples);
			max_samples = AW_MAX(max_samples, c->samples);
		}
		json_array_append_new(labels,
				      aw_html_block_label(e, &blocks[b]));
		if (blocks[b].count == 1) {
			json_array_append_new(
			    batches, json_integer((json_int_t)max_batches));
			json_array_append_new(
			    samples, json_integer((json_int_t)max_samples));
		} else {
			json_array_append_new(
			    batches, json_pack("[I,I]", (json_int_t)min_batches,
					       (json_int_t)max_batches));
			json_array_append_new(
			    samples, json_pack("[I,I]", (json_int_t)min_samples,
					       (json_int_t)max_samples));
		}
	}
	free(blocks);
	return json_pack("{s:o,s:o,s:o,s:b}", "labels", labels, "batches",
			 batches, "samples", samples, "blocks", n < e->n_cells);
}

struct aw_html_counts {
	uint16_t *counts;
};

static bool aw_html_count_one(uint32_t index, void *context)
{
	struct aw_html_counts *c = context;
	if (c->counts[index] < UINT16_MAX)
		c->counts[index]++;
	return true;
}

/* counts[k]: the samples k ranks read (k = 0 .. ranks); counts[0] the
 * missing ones when they are known (the dataset's length, a whole epoch).
 * null when the indices span more than AW_HTML_HISTOGRAM_INDICES. */
static json_t *aw_html_histogram(const struct aw_epoch *e)
{
	const roaring_bitmap_t *all = aw_sample_set_bitmap(&e->all);
	/* In 64 bits: the index 2^32 - 1 spans 2^32. */
	uint64_t span = roaring_bitmap_is_empty(all)
			    ? 0
			    : (uint64_t)roaring_bitmap_maximum(all) + 1;
	struct aw_html_counts c;
	uint64_t *by_ranks;
	json_t *counts;
	bool known;

	if (span > AW_HTML_HISTOGRAM_INDICES)
		return json_null();
	c.counts = aw_xcalloc(span ? span : 1, sizeof(*c.counts));
	by_ranks = aw_xcalloc(e->n_cells + 1, sizeof(*by_ranks));
	for (size_t i = 0; i < e->n_cells; i++)
		if (e->cells[i].set)
			roaring_iterate(aw_sample_set_bitmap(e->cells[i].set),
					aw_html_count_one, &c);
	for (uint64_t index = 0; index < span; index++)
		if (c.counts[index] > 0)
			by_ranks[AW_MIN(c.counts[index], e->n_cells)]++;
	/* As the JSON report: a partial epoch says nothing about coverage. */
	known = e->exhausted && e->missing >= 0;
	by_ranks[0] = known ? (uint64_t)e->missing : 0;
	counts = json_array();
	for (size_t k = 0; k <= e->n_cells; k++)
		json_array_append_new(counts,
				      json_integer((json_int_t)by_ranks[k]));
	free(by_ranks);
	free(c.counts);
	return json_pack("{s:o,s:b}", "counts", counts, "known_missing", known);
}

/* The batches a cell's own process drew, with their times: none for a
 * share rebuilt from rank 0's reads (rank 0 drew them). Of a rank read by
 * several processes, the first one's. */
static const struct aw_iteration *aw_html_drawn(const struct aw_model *model,
						const struct aw_cell *c)
{
	return c->rebuilt ? NULL : &model->iterations[c->iteration];
}

/* When each row drew its batches: [bin, row, batches] for every bin with
 * some, bins of bin_ns from t0 (ns of the trace clock). */
static json_t *aw_html_timeline(const struct aw_model *model,
				const struct aw_epoch *e,
				const struct aw_html_block *blocks, size_t n)
{
	int64_t t0 = INT64_MAX, t1 = INT64_MIN;
	json_t *labels = json_array(), *points = json_array();
	uint64_t *bins;
	int64_t bin_ns;

	for (size_t i = 0; i < e->n_cells; i++) {
		const struct aw_iteration *it =
		    aw_html_drawn(model, &e->cells[i]);
		for (size_t k = 0; it && k < it->n_batch_ns; k++) {
			t0 = AW_MIN(t0, it->batch_ns[k]);
			t1 = AW_MAX(t1, it->batch_ns[k]);
		}
	}
	for (size_t b = 0; b < n; b++)
		json_array_append_new(labels,
				      aw_html_block_label(e, &blocks[b]));
	if (t0 > t1)
		return json_pack("{s:o,s:o,s:I,s:I}", "labels", labels,
				 "points", points, "t0", (json_int_t)0,
				 "bin_ns", (json_int_t)0);
	bin_ns = (t1 - t0) / AW_HTML_TIME_BINS + 1;
	bins = aw_xcalloc(AW_HTML_TIME_BINS, sizeof(*bins));
	for (size_t b = 0; b < n; b++) {
		memset(bins, 0, AW_HTML_TIME_BINS * sizeof(*bins));
		for (size_t i = blocks[b].first;
		     i < blocks[b].first + blocks[b].count; i++) {
			const struct aw_iteration *it =
			    aw_html_drawn(model, &e->cells[i]);
			for (size_t k = 0; it && k < it->n_batch_ns; k++)
				bins[(it->batch_ns[k] - t0) / bin_ns] +=
				    it->batch_ns_stride ? it->batch_ns_stride
							: 1;
		}
		for (size_t t = 0; t < AW_HTML_TIME_BINS; t++)
			if (bins[t])
				json_array_append_new(
				    points, json_pack("[I,I,I]", (json_int_t)t,
						      (json_int_t)b,
						      (json_int_t)bins[t]));
	}
	free(bins);
	return json_pack("{s:o,s:o,s:I,s:I}", "labels", labels, "points",
			 points, "t0", (json_int_t)t0, "bin_ns",
			 (json_int_t)bin_ns);
}

static json_t *aw_html_epoch(const struct aw_model *model,
			     const struct aw_epoch *e)
{
	struct aw_html_block *blocks =
	    aw_xcalloc(AW_HTML_ROWS, sizeof(*blocks));
	size_t n = aw_html_blocks(e->n_cells, AW_HTML_ROWS, blocks);
	json_t *epoch =
	    json_pack("{s:I,s:o,s:o,s:o,s:o}", "epoch", (json_int_t)e->epoch,
		      "matrix", aw_html_matrix(e, blocks, n), "bars",
		      aw_html_bars(e), "histogram", aw_html_histogram(e),
		      "timeline", aw_html_timeline(model, e, blocks, n));

	free(blocks);
	return epoch;
}

/* {loader id: [epoch plots]} for the loaders the report shows. */
static json_t *aw_html_plots(const struct aw_model *model,
			     const struct aw_query_watch *watch)
{
	json_t *plots = json_object();

	for (size_t g = 0; g < model->n_loaders_global; g++) {
		const struct aw_global_loader *l = &model->loaders_global[g];
		json_t *epochs;

		if (!aw_answers_loader_shown(model, watch, (uint32_t)g))
			continue;
		epochs = json_array();
		for (size_t e = 0; e < l->n_epochs; e++)
			json_array_append_new(
			    epochs, aw_html_epoch(model, &l->epochs[e]));
		json_object_set_new(plots, l->id, epochs);
	}
	return plots;
}

/* JSON inside <script>: no "</script" or "<!--" can end it early ('<'
 * only occurs in strings, where \u003c means the same). */
static int aw_html_put_json(FILE *out, const json_t *value)
{
	char *text = json_dumps(value, JSON_COMPACT | JSON_REAL_PRECISION(6));

	if (!text)
		aw_out_of_memory(0);
	for (const char *p = text; *p; p++) {
		if (*p == '<' ? fputs("\\u003c", out) < 0
			      : fputc(*p, out) == EOF) {
			free(text);
			return -1;
		}
	}
	free(text);
	return 0;
}

enum aw_render_status aw_render_html(FILE *out, const struct aw_model *model,
				     const struct aw_findings *findings,
				     const struct aw_query_watch *watch,
				     const char *version)
{
	json_t *report = aw_render_json_object(model, findings, watch);
	json_t *plots = aw_html_plots(model, watch);
	int failed = 0;

	json_object_set_new(report, "version", json_string(version));
	failed |=
	    fputs("<!doctype html>\n<html lang=\"en\">\n<head>\n"
		  "<meta charset=\"utf-8\">\n"
		  "<meta name=\"viewport\" content=\"width=device-width\">\n"
		  "<title>accwatch report</title>\n<style>\n",
		  out) < 0;
	failed |=
	    fwrite(aw_html_css, 1, aw_html_css_len, out) != aw_html_css_len;
	failed |= fputs("</style>\n</head>\n<body>\n<main id=\"report\">"
			"</main>\n<script type=\"application/json\" "
			"id=\"accwatch-report\">",
			out) < 0;
	failed |= aw_html_put_json(out, report) < 0;
	failed |= fputs("</script>\n<script type=\"application/json\" "
			"id=\"accwatch-plots\">",
			out) < 0;
	failed |= aw_html_put_json(out, plots) < 0;
	/* Chart.js (Debian's libjs-chart.js), then the page's script. */
	failed |= fputs("</script>\n<script>\n", out) < 0;
	failed |= fwrite(aw_html_chartjs, 1, aw_html_chartjs_len, out) !=
		  aw_html_chartjs_len;
	failed |= fputs("\n</script>\n<script>\n", out) < 0;
	failed |= fwrite(aw_html_js, 1, aw_html_js_len, out) != aw_html_js_len;
	failed |= fputs("\n</script>\n</body>\n</html>\n", out) < 0;
	json_decref(plots);
	json_decref(report);
	return failed ? AW_RENDER_WRITE_ERROR : AW_RENDER_OK;
}
