/* SPDX-License-Identifier: MIT */
/* libFuzzer harness on the HTML and SARIF renderers (analyzer/render/
 * render_html.c, render_sarif.c): the input is an event stream
 * (analyzer/read/event_codec.h, as for fuzz_ingest), fed to the model,
 * which is finished, checked and rendered both ways. The SARIF log must be
 * JSON with the SARIF version and one run; the HTML page must hold exactly
 * the page's own <script> elements, however many "<script", "</script" or
 * "<!--" the trace's strings carry (a thread name, a site, a class), and
 * its two data blocks must be JSON. The input's last byte chooses a
 * --loader question, which both renderers honour. */
#define _GNU_SOURCE /* open_memstream, memmem */
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks.h"
#include "findings.h"
#include "answers.h"
#include "ingest.h"
#include "model.h"
#include "query.h"
#include "render.h"
#include "watch.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const aw_markers[] = {"<script", "</script", "<!--",
					 "<SCRIPT", "</SCRIPT"};
#define AW_N_MARKERS (sizeof(aw_markers) / sizeof(aw_markers[0]))
/* How often each marker occurs in the page of an empty report: the page's
 * own elements and scripts. */
static size_t aw_baseline[AW_N_MARKERS];
static int aw_have_baseline;

static size_t aw_count(const char *text, size_t len, const char *marker)
{
	size_t n = 0, m = strlen(marker);
	const char *p = text, *end = text + len;
	while ((p = memmem(p, (size_t)(end - p), marker, m))) {
		n++;
		p += m;
	}
	return n;
}

static void aw_fail(const char *what, const char *page, size_t len)
{
	fprintf(stderr, "fuzz_render: %s\n", what);
	(void)page;
	(void)len;
	abort();
}

/* The JSON between `id="ID">` and the next "</script". */
static void aw_check_block(const char *page, size_t len, const char *id)
{
	char open[64];
	snprintf(open, sizeof(open), "id=\"%s\">", id);
	const char *start = memmem(page, len, open, strlen(open));
	if (!start)
		aw_fail("a data block is missing", page, len);
	start += strlen(open);
	const char *end =
	    memmem(start, (size_t)(page + len - start), "</script", 8);
	if (!end)
		aw_fail("a data block is not closed", page, len);
	if (memchr(start, '<', (size_t)(end - start)))
		aw_fail("a '<' inside a data block", page, len);
	json_error_t error;
	json_t *value = json_loadb(start, (size_t)(end - start), 0, &error);
	if (!value) {
		fprintf(stderr, "fuzz_render: block %s: %s\n", id, error.text);
		aw_fail("a data block is no JSON", page, len);
	}
	json_decref(value);
}

static void aw_check_html(const char *page, size_t len)
{
	size_t counts[AW_N_MARKERS];
	for (size_t i = 0; i < AW_N_MARKERS; i++)
		counts[i] = aw_count(page, len, aw_markers[i]);
	if (!aw_have_baseline) {
		memcpy(aw_baseline, counts, sizeof(counts));
		aw_have_baseline = 1;
	}
	for (size_t i = 0; i < AW_N_MARKERS; i++)
		if (counts[i] != aw_baseline[i]) {
			fprintf(stderr,
				"fuzz_render: %zu \"%s\" in the page, "
				"%zu in an empty one\n",
				counts[i], aw_markers[i], aw_baseline[i]);
			aw_fail("the trace's text escaped into the page", page,
				len);
		}
	aw_check_block(page, len, "accwatch-report");
	aw_check_block(page, len, "accwatch-plots");
}

static void aw_check_sarif(const char *text, size_t len)
{
	json_error_t error;
	json_t *log = json_loadb(text, len, 0, &error);
	if (!log) {
		fprintf(stderr, "fuzz_render: SARIF: %s (line %d)\n",
			error.text, error.line);
		abort();
	}
	json_t *runs = json_object_get(log, "runs");
	if (!json_is_string(json_object_get(log, "version")) ||
	    strcmp(json_string_value(json_object_get(log, "version")),
		   "2.1.0") != 0 ||
	    !json_is_array(runs) || json_array_size(runs) != 1 ||
	    !json_is_array(
		json_object_get(json_array_get(runs, 0), "results"))) {
		fprintf(stderr, "fuzz_render: the SARIF log has no 2.1.0 "
				"version or no run with results\n");
		abort();
	}
	json_decref(log);
}

/* Renders the model both ways and checks what came out. */
static void aw_render_both(struct aw_model *model,
			   const struct aw_findings *findings,
			   const struct aw_query_watch *watch)
{
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	if (!out ||
	    aw_render_html(out, model, findings, watch, "fuzz") != AW_RENDER_OK)
		abort();
	fclose(out);
	aw_check_html(text, len);
	free(text);

	text = NULL;
	out = open_memstream(&text, &len);
	if (!out || aw_render_sarif(out, model, findings, watch, "fuzz") !=
			AW_RENDER_OK)
		abort();
	fclose(out);
	aw_check_sarif(text, len);
	free(text);
}

static void aw_once(const uint8_t *data, size_t size)
{
	struct aw_model *model = aw_model_create();
	struct aw_ingest ingest;
	struct aw_findings findings;
	struct aw_query query;
	struct aw_query_watch watch;
	size_t used;
	memset(&query, 0, sizeof(query));
	if (size > 0 && data[size - 1] & 4)
		query.loader = data[size - 1] & 8 ? "train.py:10" : "L0";
	aw_query_watch_init(&watch, &query);
	struct aw_model_observer observer = aw_query_watch_observer(&watch);
	aw_model_observe(model, &observer);
	aw_ingest_init(&ingest, model, NULL);
	aw_ingest_feed(&ingest, data, size, &used);
	aw_ingest_fini(&ingest);
	aw_model_finish(model);
	aw_findings_init(&findings);
	aw_checks_run(model, &findings);
	aw_answers_filter_findings(model, &watch, &findings);
	aw_render_both(model, &findings, &watch);
	aw_findings_fini(&findings);
	aw_model_destroy(model);
	aw_query_watch_fini(&watch);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!aw_have_baseline)
		aw_once(NULL, 0);
	aw_once(data, size);
	return 0;
}
