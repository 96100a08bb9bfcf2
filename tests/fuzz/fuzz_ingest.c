/* SPDX-License-Identifier: MIT */
/* libFuzzer harness on the analyzer past babeltrace2: the input is an event
 * stream (analyzer/read/event_codec.h), the bytes the reader's child writes. It
 * is fed to the model, whose runs are checked (--run), which is finished,
 * checked and rendered both ways, then everything is freed, as
 * accwatch-report does. The input's last bytes also choose the questions
 * of a debugging session (--sample, --rank and --epoch, --loader), and
 * whether the model is snapshotted, checked and rendered half-way. A JSON
 * report missing a key of the accwatch-report/1 contract counts as a
 * crash. */
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "answers.h"
#include "checks.h"
#include "findings.h"
#include "ingest.h"
#include "model.h"
#include "render.h"
#include "runs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void require(json_t *object, const char *const *keys, const char *what)
{
	if (!json_is_object(object)) {
		fprintf(stderr, "fuzz_ingest: %s is not an object\n", what);
		abort();
	}
	/* The promised keys come first, in their order (jansson keeps the
	 * order keys were set in). */
	void *iter = json_object_iter(object);
	for (size_t i = 0; keys[i]; i++) {
		const char *key = iter ? json_object_iter_key(iter) : NULL;
		if (!key || strcmp(key, keys[i]) != 0) {
			fprintf(stderr,
				"fuzz_ingest: %s has \"%s\" where \"%s\" is "
				"promised\n",
				what, key ? key : "(no key)", keys[i]);
			abort();
		}
		iter = json_object_iter_next(object, iter);
	}
}

static void require_each(json_t *array, const char *const *keys,
			 const char *what)
{
	if (!json_is_array(array)) {
		fprintf(stderr, "fuzz_ingest: %s is not an array\n", what);
		abort();
	}
	size_t i;
	json_t *item;
	json_array_foreach(array, i, item) require(item, keys, what);
}

/* The keys the accwatch-report/1 schema promises, first and in this order
 * (docs/json.md). */
static void check_schema(json_t *report)
{
	static const char *const top[] = {"schema",  "world_size", "ranks",
					  "loaders", "findings",   "summary",
					  NULL};
	static const char *const loader[] = {
	    "id",           "site",          "class",
	    "sampler",      "batch_sampler", "dataset_len",
	    "batch_size",   "num_workers",   "persistent_workers",
	    "len_reported", "epochs",        NULL};
	static const char *const epoch[] = {"epoch",   "union", "duplicates",
					    "missing", "ranks", NULL};
	static const char *const rank[] = {"rank", "batches", "samples",
					   "unique", NULL};
	static const char *const finding[] = {
	    "id", "severity", "loader", "epoch", "ranks", "message", NULL};
	static const char *const summary[] = {"errors", "warnings", "infos",
					      NULL};
	require(report, top, "the report");
	require(json_object_get(report, "summary"), summary, "summary");
	require_each(json_object_get(report, "findings"), finding, "a finding");
	json_t *loaders = json_object_get(report, "loaders");
	require_each(loaders, loader, "a loader");
	size_t l, e;
	json_t *one, *ep;
	json_array_foreach(loaders, l, one)
	{
		json_t *epochs = json_object_get(one, "epochs");
		require_each(epochs, epoch, "an epoch");
		json_array_foreach(epochs, e, ep) require_each(
		    json_object_get(ep, "ranks"), rank, "an epoch's rank");
	}
}

/* The questions, from the last four bytes (they stay part of the stream). */
static void choose_query(const uint8_t *data, size_t size,
			 struct aw_query *query)
{
	memset(query, 0, sizeof(*query));
	if (size < 4)
		return;
	uint8_t flags = data[size - 1];
	query->by_sample = flags & 1;
	query->sample = data[size - 2] % 128;
	query->by_sequence = flags & 2;
	query->rank = data[size - 3] % 4;
	query->epoch = data[size - 4] % 3;
	if (flags & 4)
		query->loader = flags & 8 ? "train.py:10" : "L0";
}

/* What main.c does with the answers besides rendering them. */
static void answer(const struct aw_model *model,
		   const struct aw_query_watch *watch,
		   struct aw_findings *findings)
{
	size_t n;
	aw_answers_filter_findings(model, watch, findings);
	free(aw_answers_sample_reads(model, watch, &n));
	free(aw_answers_sequences(model, watch, &n));
}

/* Checks and both renderers on the model as it stands. */
static void report_now(struct aw_model *model,
		       const struct aw_query_watch *watch)
{
	struct aw_findings findings;
	aw_findings_init(&findings);
	aw_checks_run(model, &findings);
	FILE *text = fopen("/dev/null", "w");
	if (text) {
		aw_render_text(text, model, &findings, watch, false);
		fclose(text);
	}
	json_t *report = aw_render_json_object(model, &findings, watch);
	check_schema(report);
	json_decref(report);
	aw_findings_fini(&findings);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct aw_model *model = aw_model_create();
	struct aw_ingest ingest;
	struct aw_findings findings;
	struct aw_query query;
	struct aw_query_watch watch;
	size_t used;
	choose_query(data, size, &query);
	aw_query_watch_init(&watch, &query);
	struct aw_model_observer observer = aw_query_watch_observer(&watch);
	aw_model_observe(model, &observer);
	aw_ingest_init(&ingest, model, NULL);
	if (size >= 4 && data[size - 1] & 16) {
		/* A live report's way: the first half, a snapshot that is
		 * checked and rendered, then the rest. */
		aw_ingest_feed(&ingest, data, size / 2, &used);
		aw_model_snapshot(model);
		report_now(model, &watch);
		aw_ingest_feed(&ingest, data + used, size - used, &used);
	} else {
		aw_ingest_feed(&ingest, data, size, &used);
	}
	aw_ingest_fini(&ingest);
	/* main.c stops here on mixed runs; the rest must hold anyway. */
	char runs_error[512];
	aw_runs_check(model, runs_error, sizeof(runs_error));

	aw_model_finish(model);
	aw_findings_init(&findings);
	aw_checks_run(model, &findings);
	answer(model, &watch, &findings);

	FILE *text = fopen("/dev/null", "w");
	if (text) {
		aw_render_text(text, model, &findings, &watch, false);
		fclose(text);
	}
	json_t *report = aw_render_json_object(model, &findings, &watch);
	check_schema(report);
	char *dumped = json_dumps(report, JSON_INDENT(2));
	if (!dumped) {
		fprintf(stderr, "fuzz_ingest: the report did not serialize\n");
		abort();
	}
	free(dumped);
	json_decref(report);

	aw_findings_fini(&findings);
	aw_model_destroy(model);
	aw_query_watch_fini(&watch);
	return 0;
}
