/* SPDX-License-Identifier: MIT */
/* The renderers: the JSON report against schema accwatch-report/1 (every
 * required key, with its type), the text report's order and content, and
 * the SARIF log made of the JSON report. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "render.h"
#include "stream.h"
#include "suppress.h"

/* The questions' watch of the test that asks some (NULL: none asked). */
static struct aw_query_watch *asked;

static const struct s_loader_opts base = S_BASE_LOADER(2);

/* Two loaders: L0 unsharded over 2 epochs with a padding-free layout, L1
 * (dataset_len unknown, never iterated, len() asked). */
static struct aw_model *sample_model(struct aw_findings *findings)
{
	struct aw_model *m = aw_model_create();
	s_ranks(m, 2, &base);
	struct s_loader_opts other = base;
	other.site = "eval.py:5";
	other.dataset_id = 7; /* another dataset: its len() is not stale */
	other.dataset_len = -1;
	other.batch_size = -1;
	for (int r = 0; r < 2; r++) {
		s_loader(m, 100 + r, 1, &other);
		s_loader_len(m, 100 + r, 1, 13);
	}
	for (uint32_t epoch = 0; epoch < 2; epoch++)
		for (int r = 0; r < 2; r++)
			s_rank_reads(m, r, epoch, 0, 100, 10);
	s_analyze(m, findings);
	return m;
}

static json_t *member(json_t *object, const char *key)
{
	json_t *value = json_object_get(object, key);
	cr_assert(value, "no key \"%s\"", key);
	return value;
}

static void expect_int(json_t *object, const char *key)
{
	cr_expect(json_is_integer(member(object, key)),
		  "\"%s\" is not an integer", key);
}

static void expect_int_or_null(json_t *object, const char *key)
{
	json_t *v = member(object, key);
	cr_expect(json_is_integer(v) || json_is_null(v),
		  "\"%s\" is not an integer or null", key);
}

static void expect_string(json_t *object, const char *key)
{
	cr_expect(json_is_string(member(object, key)), "\"%s\" is not a string",
		  key);
}

static void expect_string_or_null(json_t *object, const char *key)
{
	json_t *v = member(object, key);
	cr_expect(json_is_string(v) || json_is_null(v),
		  "\"%s\" is not a string or null", key);
}

static void expect_int_array(json_t *object, const char *key)
{
	json_t *array = member(object, key);
	cr_assert(json_is_array(array), "\"%s\" is not an array", key);
	size_t i;
	json_t *v;
	json_array_foreach(array, i, v) cr_expect(
	    json_is_integer(v), "\"%s\"[%zu] is not an integer", key, i);
}

static json_t *expect_array(json_t *object, const char *key)
{
	json_t *array = member(object, key);
	cr_assert(json_is_array(array), "\"%s\" is not an array", key);
	return array;
}

static void check_schema(json_t *report)
{
	cr_assert(json_is_object(report));
	cr_expect_str_eq(json_string_value(member(report, "schema")),
			 "accwatch-report/1");
	expect_int_or_null(report, "world_size");
	expect_int_array(report, "ranks");
	size_t i, j, k;
	json_t *loader, *epoch, *rank, *finding;
	json_array_foreach(expect_array(report, "loaders"), i, loader)
	{
		expect_string(loader, "id");
		expect_string(loader, "site");
		expect_string_or_null(loader, "class");
		expect_string_or_null(loader, "sampler");
		expect_string_or_null(loader, "batch_sampler");
		expect_int_or_null(loader, "dataset_len");
		expect_int_or_null(loader, "batch_size");
		expect_int_or_null(loader, "num_workers");
		json_t *pw = member(loader, "persistent_workers");
		cr_expect(json_is_boolean(pw) || json_is_null(pw));
		expect_int_array(loader, "len_reported");
		json_array_foreach(expect_array(loader, "epochs"), j, epoch)
		{
			expect_int(epoch, "epoch");
			expect_int(epoch, "union");
			expect_int(epoch, "duplicates");
			expect_int_or_null(epoch, "missing");
			json_array_foreach(expect_array(epoch, "ranks"), k,
					   rank)
			{
				expect_int(rank, "rank");
				expect_int(rank, "batches");
				expect_int(rank, "samples");
				expect_int(rank, "unique");
			}
		}
	}
	json_array_foreach(expect_array(report, "findings"), i, finding)
	{
		expect_string(finding, "id");
		const char *severity =
		    json_string_value(member(finding, "severity"));
		cr_assert(severity);
		cr_expect(strcmp(severity, "error") == 0 ||
			  strcmp(severity, "warning") == 0 ||
			  strcmp(severity, "info") == 0);
		expect_string_or_null(finding, "loader");
		expect_int_or_null(finding, "epoch");
		expect_int_array(finding, "ranks");
		expect_string(finding, "message");
		json_t *suppressed = member(finding, "suppressed");
		cr_expect(json_is_boolean(suppressed));
		if (json_is_true(suppressed)) {
			json_t *why = member(finding, "suppression");
			expect_string(why, "kind");
			expect_string(why, "at");
			expect_string(why, "justification");
		} else {
			cr_expect_null(json_object_get(finding, "suppression"));
		}
	}
	json_t *summary = member(report, "summary");
	cr_assert(json_is_object(summary));
	expect_int(summary, "errors");
	expect_int(summary, "warnings");
	expect_int(summary, "infos");
	expect_int(summary, "suppressed");
}

Test(render_json, required_keys_and_types)
{
	struct aw_findings findings;
	struct aw_model *m = sample_model(&findings);
	json_t *report = aw_render_json_object(m, &findings, asked);
	check_schema(report);

	cr_expect_eq(json_integer_value(member(report, "world_size")), 2);
	cr_expect_eq(json_array_size(member(report, "ranks")), 2);
	json_t *loaders = member(report, "loaders");
	cr_assert_eq(json_array_size(loaders), 2);
	json_t *l0 = json_array_get(loaders, 0),
	       *l1 = json_array_get(loaders, 1);
	cr_expect_str_eq(json_string_value(member(l0, "id")), "L0");
	cr_expect_str_eq(json_string_value(member(l0, "site")), "train.py:10");
	cr_expect_eq(json_integer_value(member(l0, "dataset_len")), 100);
	cr_expect_eq(json_array_size(member(l0, "epochs")), 2);
	json_t *e0 = json_array_get(member(l0, "epochs"), 0);
	cr_expect_eq(json_integer_value(member(e0, "union")), 100);
	cr_expect_eq(json_integer_value(member(e0, "duplicates")), 100);
	cr_expect_eq(json_integer_value(member(e0, "missing")), 0);
	json_t *r1 = json_array_get(member(e0, "ranks"), 1);
	cr_expect_eq(json_integer_value(member(r1, "rank")), 1);
	cr_expect_eq(json_integer_value(member(r1, "batches")), 10);
	cr_expect_eq(json_integer_value(member(r1, "samples")), 100);
	cr_expect_eq(json_integer_value(member(r1, "unique")), 100);
	cr_expect(json_is_false(member(r1, "incomplete")));

	cr_expect(json_is_null(member(l1, "dataset_len")));
	cr_expect(json_is_null(member(l1, "batch_size")));
	cr_expect_eq(json_array_size(member(l1, "epochs")), 0);
	cr_expect_eq(
	    json_integer_value(json_array_get(member(l1, "len_reported"), 0)),
	    13);

	json_t *list = member(report, "findings");
	cr_assert_eq(json_array_size(list), 2);
	json_t *f0 = json_array_get(list, 0);
	cr_expect_str_eq(json_string_value(member(f0, "id")), "unsharded");
	cr_expect_str_eq(json_string_value(member(f0, "severity")), "error");
	cr_expect_str_eq(json_string_value(member(f0, "loader")), "L0");
	cr_expect_eq(json_integer_value(member(f0, "epoch")), 0);
	cr_expect_eq(json_array_size(member(f0, "ranks")), 2);
	cr_expect(json_is_string(member(f0, "fix")));
	cr_expect(json_is_array(member(f0, "evidence")));
	cr_expect(json_is_object(member(f0, "numbers")));
	json_t *summary = member(report, "summary");
	cr_expect_eq(json_integer_value(member(summary, "errors")), 2);
	cr_expect_eq(json_integer_value(member(summary, "warnings")), 0);
	cr_expect_eq(json_integer_value(member(summary, "infos")), 0);
	json_t *trace = member(report, "trace");
	expect_int(trace, "discarded_events");
	expect_int(trace, "accwatch_events");

	json_decref(report);
	aw_findings_fini(&findings);
	aw_model_destroy(m);
}

Test(render_json, dump_is_valid_json_with_schema)
{
	struct aw_findings findings;
	struct aw_model *m = sample_model(&findings);
	char *text = NULL;
	size_t size = 0;
	FILE *out = open_memstream(&text, &size);
	cr_assert(out);
	cr_expect_eq(aw_render_json(out, m, &findings, asked), AW_RENDER_OK);
	fclose(out);
	json_error_t error;
	json_t *report = json_loads(text, 0, &error);
	cr_assert(report, "invalid JSON: %s", error.text);
	check_schema(report);
	json_decref(report);
	free(text);
	aw_findings_fini(&findings);
	aw_model_destroy(m);
}

Test(render_json, empty_model)
{
	struct aw_model *m = aw_model_create();
	struct aw_findings findings;
	s_analyze(m, &findings);
	json_t *report = aw_render_json_object(m, &findings, asked);
	check_schema(report);
	cr_expect(json_is_null(member(report, "world_size")));
	json_decref(report);
	aw_findings_fini(&findings);
	aw_model_destroy(m);
}

Test(render_json, a_process_says_the_exception_that_ended_it)
{
	struct aw_model *m = aw_model_create();
	s_ranks(m, 2, &base);
	s_exception(m, 101, "data.UnreadableSample", "sample 17", "/d.py:3");
	s_exit(m, 101, 101, 1, -1);
	struct aw_findings findings;
	s_analyze(m, &findings);
	json_t *report = aw_render_json_object(m, &findings, asked);
	json_t *process;
	size_t i, seen = 0;
	json_array_foreach(member(report, "processes"), i, process)
	{
		json_int_t pid = json_integer_value(member(process, "pid"));
		json_t *exception = member(process, "exception");
		if (pid != 101) {
			cr_expect(json_is_null(exception), "pid %lld",
				  (long long)pid);
			continue;
		}
		seen++;
		cr_expect_str_eq(json_string_value(member(exception, "type")),
				 "data.UnreadableSample");
		cr_expect_str_eq(
		    json_string_value(member(exception, "message")),
		    "sample 17");
		cr_expect_str_eq(json_string_value(member(exception, "site")),
				 "/d.py:3");
	}
	cr_expect_eq(seen, 1);
	json_decref(report);
	aw_findings_fini(&findings);
	aw_model_destroy(m);
}

static char *render_text_showing(const struct aw_model *m,
				 const struct aw_findings *findings,
				 bool show_suppressed)
{
	char *text = NULL;
	size_t size = 0;
	FILE *out = open_memstream(&text, &size);
	cr_assert(out);
	aw_render_text(out, m, findings, asked, show_suppressed);
	fclose(out);
	return text;
}

static char *render_text(const struct aw_model *m,
			 const struct aw_findings *findings)
{
	return render_text_showing(m, findings, false);
}

/* sample_model's findings (L0 unsharded in epochs 0 and 1), both
 * suppressed by a file's rule `unsharded train.py`. */
static struct aw_model *suppressed_model(struct aw_findings *findings)
{
	struct aw_model *m = sample_model(findings);
	struct aw_suppression_rule rule = {
	    .id = "unsharded", .path = "train.py", .file = "intended.txt:4"};
	struct aw_suppressions rules = {.rules = &rule, .n = 1};
	cr_assert_eq(aw_suppress_findings(m, &rules, findings), 2);
	return m;
}

/* Suppressed findings count apart: none of the errors the summary and the
 * exit status count; the text hides them, and says how many it hid, or
 * shows them marked with --show-suppressed. */
Test(render_text, suppressed_findings_counted_hidden_or_marked)
{
	struct aw_findings findings;
	struct aw_model *m = suppressed_model(&findings);
	char *text = render_text(m, &findings);
	cr_expect(strstr(text, "accwatch-report: 0 errors, 0 warnings, 0 "
			       "infos, 2 suppressed ("),
		  "%s", text);
	cr_expect(strstr(text, "No data-loading problem found."), "%s", text);
	cr_expect(strstr(text, "2 findings suppressed as intended "
			       "(--show-suppressed shows them)."),
		  "%s", text);
	cr_expect_null(strstr(text, "ERROR"), "%s", text);
	free(text);

	text = render_text_showing(m, &findings, true);
	const char *marked = strstr(text, "SUPPRESSED ERROR unsharded  L0 "
					  "(train.py:10), epochs 0-1");
	cr_expect(marked, "%s", text);
	cr_expect(strstr(text, "  suppressed: listed in the suppression "
			       "file intended.txt:4\n"),
		  "%s", text);
	cr_expect_null(strstr(text, "findings suppressed as intended"), "%s",
		       text);
	free(text);
	aw_findings_fini(&findings);
	aw_model_destroy(m);
}

/* The JSON keeps a suppressed finding, marked, with where and why; its
 * summary counts it apart (the keys of before unchanged). */
Test(render_json, suppressed_findings_are_kept_marked_and_counted)
{
	struct aw_findings findings;
	struct aw_model *m = suppressed_model(&findings);
	json_t *report = aw_render_json_object(m, &findings, asked);
	check_schema(report);
	json_t *list = member(report, "findings");
	cr_assert_eq(json_array_size(list), 2);
	json_t *f0 = json_array_get(list, 0);
	cr_expect_str_eq(json_string_value(member(f0, "id")), "unsharded");
	cr_expect_str_eq(json_string_value(member(f0, "severity")), "error");
	cr_expect(json_is_true(member(f0, "suppressed")));
	json_t *why = member(f0, "suppression");
	cr_expect_str_eq(json_string_value(member(why, "kind")), "external");
	cr_expect_str_eq(json_string_value(member(why, "at")),
			 "intended.txt:4");
	json_t *summary = member(report, "summary");
	cr_expect_eq(json_integer_value(member(summary, "errors")), 0);
	cr_expect_eq(json_integer_value(member(summary, "suppressed")), 2);
	json_decref(report);
	aw_findings_fini(&findings);
	aw_model_destroy(m);

	m = sample_model(&findings);
	report = aw_render_json_object(m, &findings, asked);
	f0 = json_array_get(member(report, "findings"), 0);
	cr_expect(json_is_false(member(f0, "suppressed")));
	cr_expect_eq(
	    json_integer_value(member(member(report, "summary"), "suppressed")),
	    0);
	json_decref(report);
	aw_findings_fini(&findings);
	aw_model_destroy(m);
}

Test(render_text, findings_first_then_tables)
{
	struct aw_findings findings;
	struct aw_model *m = sample_model(&findings);
	char *text = render_text(m, &findings);
	const char *verdict = strstr(text, "2 errors, 0 warnings, 0 infos");
	const char *finding = strstr(
	    text, "ERROR unsharded  L0 (train.py:10), epochs 0-1, ranks 0-1");
	const char *fix = strstr(text, "fix: shard the data");
	const char *table = strstr(text, "L0  DataLoader at train.py:10");
	const char *header = strstr(
	    text,
	    "epoch  rank  batches  samples  unique  duplicates  coverage");
	const char *never = strstr(text, "L1  DataLoader at eval.py:5");
	cr_assert(verdict && finding && fix && table && header && never, "%s",
		  text);
	cr_expect_lt(verdict, finding);
	cr_expect_lt(finding, fix);
	cr_expect_lt(fix, table);
	cr_expect(strstr(never, "never iterated"));
	cr_expect(
	    strstr(text, "all       20      200     100         100    100.0%"),
	    "%s", text);
	free(text);
	aw_findings_fini(&findings);
	aw_model_destroy(m);
}

Test(render_text, alike_findings_say_what_they_share)
{
	/* unsharded in epochs 0 and 1: one block for both epochs; two
	 * findings of one epoch on two ranks: one block, said as such. */
	struct aw_findings findings;
	struct aw_model *m = sample_model(&findings);
	for (int32_t rank = 0; rank < 2; rank++) {
		struct aw_finding *f = aw_findings_add(&findings, "rank-died",
						       AW_SEVERITY_ERROR, 0, 1);
		aw_finding_add_rank(f, rank);
		aw_finding_set_message(f, "rank %d died", rank);
	}
	char *text = render_text(m, &findings);
	cr_expect(strstr(text, "(epoch 0 shown; the same in 2 epochs)"), "%s",
		  text);
	cr_expect(strstr(text, "(the first of 2 alike findings shown, over 1 "
			       "epoch and 2 ranks)"),
		  "%s", text);
	free(text);
	aw_findings_fini(&findings);
	aw_model_destroy(m);
}

Test(render_text, incomplete_trace_and_notes)
{
	struct aw_model *m = aw_model_create();
	s_process(m, 300, 1, -1, -1, "other");
	s_loader(m, 300, 0, &base);
	uint32_t idx[100];
	s_range(idx, 0, 100, 1);
	struct s_epoch e = {
	    .indices = idx, .count = 100, .batch_size = 10, .end = false};
	s_epoch(m, 300, 0, 0, &e);
	m->stats.discarded_events = 12;
	m->stats.discarded_events_messages = 1;
	struct aw_findings findings;
	s_analyze(m, &findings);
	char *text = render_text(m, &findings);
	cr_expect(strstr(text, "0 errors, 1 warning"), "%s", text);
	cr_expect(strstr(text, "WARNING trace-incomplete"), "%s", text);
	cr_expect(strstr(text, "lower bounds"), "%s", text);
	cr_expect(strstr(text, "*: no end of epoch in the trace"), "%s", text);
	cr_expect(
	    strstr(text,
		   "each process that iterated a loader is taken as one rank"),
	    "%s", text);
	cr_expect(strstr(text, "discarded 12 events"), "%s", text);
	cr_expect(strstr(text, "10*"), "%s", text);
	free(text);
	aw_findings_fini(&findings);
	aw_model_destroy(m);
}

/* Two ranks, rank 1 left its loop early; a prepared loader beside. */
Test(render, partial_epochs_lineage_and_new_keys)
{
	struct aw_model *m = aw_model_create();
	s_ranks(m, 2, &base);
	struct s_loader_opts inner = base;
	inner.site = "train.py:33";
	inner.batch_sampler = "accelerate.data_loader.BatchSamplerShard";
	inner.sampler_replicas = 2;
	for (int r = 0; r < 2; r++) {
		s_loader(m, 100 + r, 1, &inner);
		s_loader_wrap(m, 100 + r, 1, 1, "shard", 0, 1, 2, r);
	}
	s_epoch(m, 100, 1, 0,
		&(struct s_epoch){.indices = (uint32_t[]){0, 1, 2, 3},
				  .count = 4,
				  .batch_size = 2,
				  .end = true,
				  .abandoned = true});
	s_epoch(m, 101, 1, 0,
		&(struct s_epoch){.indices = (uint32_t[]){4, 5},
				  .count = 2,
				  .batch_size = 2,
				  .end = true,
				  .abandoned = true});
	struct aw_findings findings;
	s_analyze(m, &findings);
	char *text = render_text(m, &findings);
	cr_expect(strstr(text, "partial epoch"), "%s", text);
	cr_expect(strstr(text, "partial: the loop left the epoch early"), "%s",
		  text);
	cr_expect(strstr(text, "built by accelerate's prepare() (shard, 2 "
			       "processes, even_batches=True) from L0"),
		  "%s", text);
	cr_expect_null(strstr(text, "missing"), "%s", text);
	free(text);

	json_t *report = aw_render_json_object(m, &findings, asked);
	check_schema(report);
	json_t *l1 = json_array_get(member(report, "loaders"), 1);
	cr_expect_str_eq(json_string_value(member(l1, "built_from")), "L0");
	cr_expect(json_is_true(member(l1, "sharded")));
	json_t *acc = member(l1, "accelerate");
	cr_expect_str_eq(json_string_value(member(acc, "kind")), "shard");
	json_t *e0 = json_array_get(member(l1, "epochs"), 0);
	cr_expect(json_is_true(member(e0, "partial")));
	cr_expect(json_is_false(member(e0, "exhausted")));
	cr_expect(json_is_null(member(e0, "missing")), "partial: not judged");
	json_t *r0 = json_array_get(member(e0, "ranks"), 0);
	cr_expect(json_is_false(member(r0, "exhausted")));
	cr_expect(json_is_string(member(r0, "order_hash")));
	cr_expect_eq(json_integer_value(member(r0, "pid")), 100);
	cr_expect(json_is_null(member(report, "query")));
	json_decref(report);
	aw_findings_fini(&findings);
	aw_model_destroy(m);
}

Test(render, answers_to_the_questions)
{
	struct aw_query q = {.by_sample = true,
			     .sample = 3,
			     .by_sequence = true,
			     .rank = 0,
			     .epoch = 0};
	struct aw_model *m = aw_model_create();
	struct aw_query_watch watch;
	aw_query_watch_init(&watch, &q);
	struct aw_model_observer observer = aw_query_watch_observer(&watch);
	aw_model_observe(m, &observer);
	asked = &watch;
	s_ranks(m, 1, &base);
	s_epoch(m, 100, 0, 0,
		&(struct s_epoch){.indices = (uint32_t[]){5, 3, 9, 1},
				  .count = 4,
				  .batch_size = 2,
				  .end = true});
	struct aw_findings findings;
	s_analyze(m, &findings);
	char *text = render_text(m, &findings);
	cr_expect(strstr(text, "sample 3: 1 read"), "%s", text);
	cr_expect(strstr(text, "rank 0 consumed it in batch 0 (position 1)"),
		  "%s", text);
	cr_expect(strstr(text, "batch 0: 5 3\n  batch 1: 9 1"), "%s", text);
	cr_expect_null(strstr(text, "accwatch-report:"),
		       "the answer only, no report: %s", text);
	cr_expect_null(strstr(text, "sampler chain:"), "no loader table: %s",
		       text);
	free(text);
	json_t *report = aw_render_json_object(m, &findings, asked);
	json_t *query = member(report, "query");
	cr_expect_eq(json_array_size(member(query, "reads")), 1);
	json_t *seq = json_array_get(member(query, "sequences"), 0);
	cr_expect_eq(json_array_size(member(seq, "batches")), 2);
	json_decref(report);
	aw_findings_fini(&findings);
	aw_model_destroy(m);
	aw_query_watch_fini(&watch);
}

/* Loader 0 of pid 100: a BatchSampler over a DistributedSampler. */
static void chain_of_two(struct aw_model *m)
{
	struct aw_event e = s_event(AW_EVENT_SAMPLER, 100);
	e.u.sampler = (struct aw_event_sampler){
	    .loader = 0,
	    .depth = 1,
	    .class_name = "torch.utils.data.distributed.DistributedSampler",
	    .length = 50,
	    .num_replicas = 2,
	    .rank = 0,
	    .shuffle = 1,
	    .seed = 3,
	    .epoch = 0,
	    .drop_last = 0,
	    .replacement = -1,
	    .num_samples = 50,
	    .batch_size = -1,
	    .skip = -1,
	    .total_size = 100};
	aw_model_add_event(m, &e); /* a link may come before the one above */
	e.u.sampler = (struct aw_event_sampler){
	    .loader = 0,
	    .depth = 0,
	    .class_name = "torch.utils.data.sampler.BatchSampler",
	    .length = 5,
	    .num_replicas = -1,
	    .rank = -1,
	    .shuffle = -1,
	    .seed = -1,
	    .epoch = -1,
	    .drop_last = 1,
	    .replacement = -1,
	    .num_samples = -1,
	    .batch_size = 10,
	    .skip = -1,
	    .total_size = -1};
	aw_model_add_event(m, &e);
}

Test(render, the_sampler_chain_in_both_reports)
{
	struct aw_model *m = aw_model_create();
	s_ranks(m, 2, &base);
	chain_of_two(m);
	for (int r = 0; r < 2; r++)
		s_rank_reads(m, r, 0, r * 50, r * 50 + 50, 10);
	struct aw_findings findings;
	s_analyze(m, &findings);
	char *text = render_text(m, &findings);
	cr_expect(strstr(text, "  sampler chain: BatchSampler(batch_size=10, "
			       "drop_last=True) over "
			       "DistributedSampler(num_replicas=2, rank=0, "
			       "shuffle=True, seed=3, num_samples=50, "
			       "total_size=100, drop_last=False)\n"),
		  "%s", text);
	free(text);
	json_t *report = aw_render_json_object(m, &findings, NULL);
	json_t *chain = member(json_array_get(member(report, "loaders"), 0),
			       "sampler_chain");
	cr_assert_eq(json_array_size(chain), 2);
	json_t *inner = json_array_get(chain, 1);
	cr_expect_eq(json_integer_value(member(inner, "num_replicas")), 2);
	cr_expect_eq(json_integer_value(member(inner, "total_size")), 100);
	cr_expect(json_is_true(member(inner, "shuffle")));
	cr_expect(json_is_null(member(inner, "replacement")));
	cr_expect(json_is_true(member(json_array_get(chain, 0), "drop_last")));
	json_decref(report);
	aw_findings_fini(&findings);
	aw_model_destroy(m);
}

Test(render_text, a_world_larger_than_the_ranks_traced_is_said)
{
	/* Rank 0 of 4 alone in the trace. */
	struct aw_model *m = aw_model_create();
	s_process(m, 100, 1, 0, 4, "rank");
	s_loader(m, 100, 0, &base);
	s_reads(m, 100, 0, 0, 0, 25, 5, true);
	struct aw_findings findings;
	s_analyze(m, &findings);
	char *text = render_text(m, &findings);
	cr_expect(strstr(text, "(1 rank, world size 4,"), "%s", text);
	cr_expect(strstr(text, "note: the ranks say the world has 4 ranks; 1 "
			       "of them is in the trace"),
		  "%s", text);
	free(text);
	aw_findings_fini(&findings);
	aw_model_destroy(m);
}

/* SARIF: a rule per id (its level and help from the first finding), a
 * result per finding with the id's rule index, sites relative to the root
 * given, others as file URIs, percent-encoded; no location without a line. */
Test(render_sarif, results_rules_and_locations)
{
	json_t *report = json_pack(
	    "{s:[{s:s,s:s,s:s,s:i,s:[i,i],s:s,s:s,s:s,s:[s],s:{s:i}},"
	    "{s:s,s:s,s:s,s:n,s:[],s:s,s:s,s:s,s:[],s:{}},"
	    "{s:s,s:s,s:s,s:i,s:[],s:s,s:s,s:s,s:[],s:{}},"
	    "{s:s,s:s,s:n,s:n,s:[],s:s,s:n,s:n,s:[],s:{}}]}",
	    "findings", "id", "unsharded", "severity", "error", "loader", "L0",
	    "epoch", 0, "ranks", 0, 1, "message", "all ranks read it all",
	    "site", "/repo/train.py:14", "fix", "shard it", "evidence",
	    "rank 0: 10", "numbers", "world", 2, "id", "same-order", "severity",
	    "warning", "loader", "L1", "epoch", "ranks", "message",
	    "same order", "site", "/elsewhere/my data.py:7", "fix", "set_epoch",
	    "evidence", "numbers", "id", "unsharded", "severity", "error",
	    "loader", "L2", "epoch", 1, "ranks", "message", "again", "site",
	    "/repo/train.py:30", "fix", "shard that one too", "evidence",
	    "numbers", "id", "trace-incomplete", "severity", "info", "loader",
	    "epoch", "ranks", "message", "events lost", "site", "fix",
	    "evidence", "numbers");
	cr_assert_not_null(report);
	json_t *sarif = aw_render_sarif_from_report(report, "1.2.3", "/repo/");
	json_t *run = json_array_get(json_object_get(sarif, "runs"), 0);
	cr_assert_str_eq(json_string_value(json_object_get(sarif, "version")),
			 "2.1.0");
	json_t *rules = json_object_get(
	    json_object_get(json_object_get(run, "tool"), "driver"), "rules");
	cr_assert_eq(json_array_size(rules), 3);
	json_t *rule = json_array_get(rules, 0);
	cr_assert_str_eq(json_string_value(json_object_get(rule, "id")),
			 "unsharded");
	cr_assert_str_eq(json_string_value(json_object_get(
			     json_object_get(rule, "help"), "text")),
			 "shard it");
	cr_assert_str_eq(json_string_value(json_object_get(
			     json_object_get(json_array_get(rules, 2),
					     "defaultConfiguration"),
			     "level")),
			 "note");
	json_t *results = json_object_get(run, "results");
	cr_assert_eq(json_array_size(results), 4);
	const int rule_index[] = {0, 1, 0, 2};
	const char *level[] = {"error", "warning", "error", "note"};
	const char *uri[] = {"train.py", "file:///elsewhere/my%20data.py",
			     "train.py", NULL};
	const int line[] = {14, 7, 30, 0};
	for (size_t i = 0; i < 4; i++) {
		json_t *result = json_array_get(results, i);
		cr_assert_eq(
		    json_integer_value(json_object_get(result, "ruleIndex")),
		    rule_index[i], "result %zu", i);
		cr_assert_str_eq(
		    json_string_value(json_object_get(result, "level")),
		    level[i]);
		json_t *locations = json_object_get(result, "locations");
		if (!uri[i]) {
			cr_assert_null(locations, "result %zu", i);
			continue;
		}
		json_t *physical = json_object_get(json_array_get(locations, 0),
						   "physicalLocation");
		json_t *artifact =
		    json_object_get(physical, "artifactLocation");
		cr_assert_str_eq(
		    json_string_value(json_object_get(artifact, "uri")),
		    uri[i]);
		cr_assert_eq(json_object_get(artifact, "uriBaseId") != NULL,
			     uri[i][0] != 'f', "result %zu", i);
		cr_assert_eq(
		    json_integer_value(json_object_get(
			json_object_get(physical, "region"), "startLine")),
		    line[i]);
	}
	json_t *first =
	    json_object_get(json_array_get(results, 0), "properties");
	cr_assert_str_eq(json_string_value(json_object_get(first, "fix")),
			 "shard it");
	cr_assert_eq(json_array_size(json_object_get(first, "ranks")), 2);
	cr_assert_str_eq(
	    json_string_value(json_object_get(
		json_object_get(json_object_get(run, "originalUriBaseIds"),
				"SRCROOT"),
		"uri")),
	    "file:///repo/");
	json_decref(sarif);
	json_decref(report);
}

/* SARIF's suppressions: none (an empty list: accwatch decided) for a
 * finding not suppressed, an accepted inSource one at the loader's line,
 * an accepted external one with the file's justification. */
Test(render_sarif, suppressions_of_results)
{
	json_t *report = json_pack(
	    "{s:[{s:s,s:s,s:s,s:s,s:s,s:b},"
	    "{s:s,s:s,s:s,s:s,s:s,s:b,s:{s:s,s:s,s:s}},"
	    "{s:s,s:s,s:n,s:s,s:n,s:b,s:{s:s,s:s,s:s}}]}",
	    "findings", "id", "overlap", "severity", "error", "loader", "L0",
	    "message", "ranks overlap", "site", "/repo/train.py:14",
	    "suppressed", 0, "id", "unsharded", "severity", "error", "loader",
	    "L1", "message", "every rank read it all", "site",
	    "/repo/val.py:20", "suppressed", 1, "suppression", "kind",
	    "inSource", "at", "/repo/val.py:20", "justification",
	    "allowed where the loader is built", "id", "duplicate-rank",
	    "severity", "error", "loader", "message", "two rank 0", "site",
	    "suppressed", 1, "suppression", "kind", "external", "at",
	    "ci/intended.txt:2", "justification", "two jobs on purpose");
	cr_assert_not_null(report);
	json_t *sarif = aw_render_sarif_from_report(report, "1.2.3", "/repo/");
	json_t *results = json_object_get(
	    json_array_get(json_object_get(sarif, "runs"), 0), "results");
	cr_assert_eq(json_array_size(results), 3);
	json_t *none =
	    json_object_get(json_array_get(results, 0), "suppressions");
	cr_assert(json_is_array(none));
	cr_expect_eq(json_array_size(none), 0);

	json_t *list =
	    json_object_get(json_array_get(results, 1), "suppressions");
	cr_assert_eq(json_array_size(list), 1);
	json_t *in_source = json_array_get(list, 0);
	cr_expect_str_eq(json_string_value(json_object_get(in_source, "kind")),
			 "inSource");
	cr_expect_str_eq(
	    json_string_value(json_object_get(in_source, "status")),
	    "accepted");
	cr_expect_str_eq(
	    json_string_value(json_object_get(in_source, "justification")),
	    "allowed where the loader is built");
	json_t *physical = json_object_get(
	    json_object_get(in_source, "location"), "physicalLocation");
	cr_expect_str_eq(
	    json_string_value(json_object_get(
		json_object_get(physical, "artifactLocation"), "uri")),
	    "val.py");
	cr_expect_eq(json_integer_value(json_object_get(
			 json_object_get(physical, "region"), "startLine")),
		     20);
	cr_expect_str_eq(json_string_value(json_object_get(
			     json_array_get(results, 1), "level")),
			 "error", "a suppressed result keeps its level");

	list = json_object_get(json_array_get(results, 2), "suppressions");
	cr_assert_eq(json_array_size(list), 1);
	json_t *external = json_array_get(list, 0);
	cr_expect_str_eq(json_string_value(json_object_get(external, "kind")),
			 "external");
	cr_expect_str_eq(
	    json_string_value(json_object_get(external, "justification")),
	    "two jobs on purpose");
	cr_expect_null(json_object_get(external, "location"));
	json_decref(sarif);
	json_decref(report);
}

/* The repository of a file is the nearest directory above it with a .git. */
Test(render_sarif, repository_of_a_file)
{
	char dir[] = "/tmp/aw-sarif-XXXXXX";
	cr_assert_not_null(mkdtemp(dir));
	char path[256];
	snprintf(path, sizeof(path), "%s/.git", dir);
	cr_assert_eq(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/src", dir);
	cr_assert_eq(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/src/train.py", dir);
	char *root = aw_sarif_repository_of(path);
	char want[256];
	snprintf(want, sizeof(want), "%s/", dir);
	cr_assert_str_eq(root, want);
	free(root);
	cr_assert_null(aw_sarif_repository_of("relative/train.py"));
	snprintf(path, sizeof(path), "rm -rf '%s'", dir);
	cr_assert_eq(system(path), 0);
}

/* The JSON block called id in an HTML page (a new reference). */
static json_t *html_block(const char *page, const char *id)
{
	char open[64];
	snprintf(open, sizeof(open), "id=\"%s\">", id);
	const char *start = strstr(page, open);
	cr_assert_not_null(start, "no block %s", id);
	start += strlen(open);
	const char *end = strstr(start, "</script>");
	cr_assert_not_null(end);
	json_error_t error;
	json_t *value = json_loadb(start, (size_t)(end - start), 0, &error);
	cr_assert_not_null(value, "block %s: %s", id, error.text);
	return value;
}

/* 130 ranks: the matrix and the timeline in blocks of 3 ranks (44 rows),
 * the bars in blocks of 2 (least and most); the read-count histogram over
 * every rank; a site holding "</script>" cannot end the page's data. */
Test(render_html, blocks_of_ranks_histogram_and_escaping)
{
	struct s_loader_opts o = base;
	o.site = "x</script><b>.py:3";
	o.dataset_len = 1300;
	o.batch_size = 5;
	struct aw_model *m = aw_model_create();
	struct aw_findings findings;
	s_ranks(m, 130, &o);
	for (int r = 0; r < 130; r++) {
		s_clock(m, 1.0 + r * 0.01);
		/* rank 7 reads rank 0's share, nobody reads 70..79 */
		uint32_t first = r == 7 ? 0 : 10u * (uint32_t)r;
		s_rank_reads(m, r, 0, first, first + 10, 5);
	}
	s_analyze(m, &findings);
	char *page = NULL;
	size_t size = 0;
	FILE *out = open_memstream(&page, &size);
	cr_assert_eq(aw_render_html(out, m, &findings, NULL, "t"),
		     AW_RENDER_OK);
	fclose(out);
	cr_assert_null(strstr(page, "<b>"),
		       "a site's markup got into the page");
	json_t *report = html_block(page, "accwatch-report");
	json_t *plots = html_block(page, "accwatch-plots");
	cr_assert_str_eq(
	    json_string_value(json_object_get(
		json_array_get(json_object_get(report, "loaders"), 0), "site")),
	    "x</script><b>.py:3");
	json_t *epoch = json_array_get(json_object_get(plots, "L0"), 0);
	json_t *matrix = json_object_get(epoch, "matrix");
	cr_assert_eq(json_array_size(json_object_get(matrix, "labels")), 44);
	cr_assert(json_is_true(json_object_get(matrix, "blocks")));
	cr_assert_str_eq(json_string_value(json_array_get(
			     json_object_get(matrix, "labels"), 0)),
			 "0-2");
	/* block 0-2 holds 0..29 and block 6-8 (rank 7) 0..9 again */
	json_t *row0 = json_array_get(json_object_get(matrix, "cells"), 0);
	cr_assert_eq(json_integer_value(json_array_get(row0, 0)), 30);
	cr_assert_eq(json_integer_value(json_array_get(row0, 2)), 10);
	cr_assert_eq(json_integer_value(json_array_get(row0, 1)), 0);
	json_t *bars = json_object_get(epoch, "bars");
	cr_assert_eq(json_array_size(json_object_get(bars, "labels")), 65);
	json_t *pair = json_array_get(json_object_get(bars, "batches"), 0);
	cr_assert_eq(json_array_size(pair), 2);
	cr_assert_eq(json_integer_value(json_array_get(pair, 1)), 2);
	json_t *counts =
	    json_object_get(json_object_get(epoch, "histogram"), "counts");
	cr_assert_eq(json_array_size(counts), 131);
	cr_assert_eq(json_integer_value(json_array_get(counts, 0)), 10);
	cr_assert_eq(json_integer_value(json_array_get(counts, 1)), 1280);
	cr_assert_eq(json_integer_value(json_array_get(counts, 2)), 10);
	json_t *timeline = json_object_get(epoch, "timeline");
	cr_assert_eq(json_array_size(json_object_get(timeline, "labels")), 44);
	json_int_t drawn = 0;
	size_t i;
	json_t *point;
	json_array_foreach(json_object_get(timeline, "points"), i, point)
	    drawn += json_integer_value(json_array_get(point, 2));
	cr_assert_eq(drawn, 130 * 2, "every batch on the timeline");
	json_decref(report);
	json_decref(plots);
	free(page);
	aw_findings_fini(&findings);
	aw_model_destroy(m);
}
