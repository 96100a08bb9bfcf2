/* SPDX-License-Identifier: MIT */
/* Suppressions: a finding its loader's source allows, or a suppression
 * file names, is counted apart and sets no exit status; which sites a
 * file's PATH[:LINE] names; the ids a source allows that are no finding. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "checks.h"
#include "cli.h"
#include "stream.h"
#include "suppress.h"
#include "util.h"

/* Two ranks that each read all 100 samples: one unsharded error. */
static struct s_run unsharded_run(const char *site, const char *allow)
{
	struct s_loader_opts o = S_BASE_LOADER(0);
	o.site = site;
	o.allow = allow;
	return s_run_reading(2, &o,
			     S_READS({0, 0, 0, 100, 10}, {1, 0, 0, 100, 10}));
}

/* A suppression file holding text (a path of a temporary directory,
 * removed by the caller with unlink). */
static char *suppression_file(const char *text)
{
	char *path = strdup("/tmp/aw-suppress-XXXXXX");
	int fd = mkstemp(path);
	cr_assert_geq(fd, 0);
	FILE *out = fdopen(fd, "w");
	cr_assert(out);
	fputs(text, out);
	fclose(out);
	return path;
}

static void load_ok(struct aw_suppressions *s, const char *text)
{
	char error[256] = "";
	char *path = suppression_file(text);
	aw_suppressions_init(s);
	cr_assert_eq(aw_suppressions_load(s, path, error, sizeof(error)),
		     AW_SUPPRESS_OK, "%s", error);
	unlink(path);
	free(path);
}

static const struct aw_options fail_on_error = {.fail_on = AW_FAIL_ON_ERROR};

static enum aw_exit exit_status(const struct aw_findings *f)
{
	return aw_cli_exit_status(
	    &fail_on_error, aw_findings_count(f, AW_SEVERITY_ERROR),
	    aw_findings_count(f, AW_SEVERITY_WARNING), true);
}

Test(suppress, allowed_in_source_is_counted_apart_and_sets_no_exit_status)
{
	struct s_run r = unsharded_run("val.py:20", "overlap,unsharded");
	s_finish(&r);
	const struct aw_finding *f = s_get(&r, "unsharded");
	cr_assert_eq(f->suppressed, AW_NOT_SUPPRESSED);
	cr_expect_eq(exit_status(&r.findings), AW_EXIT_FINDINGS);

	cr_expect_eq(aw_suppress_findings(r.model, NULL, &r.findings), 1);
	f = s_get(&r, "unsharded");
	cr_expect_eq(f->suppressed, AW_SUPPRESSED_IN_SOURCE);
	cr_expect_str_eq(f->suppressed_at, "val.py:20");
	cr_expect(strstr(f->justification, "# accwatch: allow unsharded"), "%s",
		  f->justification);
	cr_expect_eq(aw_findings_count(&r.findings, AW_SEVERITY_ERROR), 0);
	cr_expect_eq(aw_findings_count_suppressed(&r.findings), 1);
	cr_expect_eq(exit_status(&r.findings), AW_EXIT_CLEAN);
	s_done(&r);
}

Test(suppress, a_source_allowing_other_ids_suppresses_nothing)
{
	/* "unsharded-ish" is not "unsharded": ids match whole. */
	struct s_run r = unsharded_run("val.py:20", "unsharded-ish,overlap");
	s_finish(&r);
	cr_expect_eq(aw_suppress_findings(r.model, NULL, &r.findings), 0);
	cr_expect_eq(s_get(&r, "unsharded")->suppressed, AW_NOT_SUPPRESSED);
	cr_expect_eq(exit_status(&r.findings), AW_EXIT_FINDINGS);
	s_done(&r);
}

Test(suppress, a_file_names_sites_by_the_end_of_their_path_and_line)
{
	struct {
		const char *rule, *site;
		bool names;
	} cases[] = {
	    {"unsharded", "/home/u/src/val.py:20", true},
	    {"unsharded val.py", "/home/u/src/val.py:20", true},
	    {"unsharded src/val.py:20", "/home/u/src/val.py:20", true},
	    {"unsharded ./src/val.py:20", "/home/u/src/val.py:20", true},
	    {"unsharded /home/u/src/val.py", "/home/u/src/val.py:20", true},
	    {"unsharded val.py", "val.py:20", true},
	    {"unsharded src/val.py:21", "/home/u/src/val.py:20", false},
	    {"unsharded l.py", "/home/u/src/val.py:20", false},
	    {"unsharded /src/val.py", "/home/u/src/val.py:20", false},
	    {"unsharded lib/src/val.py", "src/val.py:20", false},
	    {"unsharded val.py", "", false},
	    {"overlap val.py", "/home/u/src/val.py:20", false},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct aw_suppressions s;
		load_ok(&s, cases[i].rule);
		struct s_run r = unsharded_run(cases[i].site, NULL);
		s_finish(&r);
		cr_expect_eq(aw_suppress_findings(r.model, &s, &r.findings),
			     cases[i].names ? 1u : 0u, "'%s' and '%s'",
			     cases[i].rule, cases[i].site);
		if (cases[i].names) {
			const struct aw_finding *f = s_get(&r, "unsharded");
			cr_expect_eq(f->suppressed, AW_SUPPRESSED_BY_FILE);
			cr_expect(strstr(f->suppressed_at, ":1"), "%s",
				  f->suppressed_at);
		}
		s_done(&r);
		aw_suppressions_fini(&s);
	}
}

Test(suppress, a_rule_comment_is_the_justification)
{
	struct aw_suppressions s;
	load_ok(&s,
		"# intended findings of the evaluation job\n"
		"\n"
		"  unsharded   val.py:20   # every rank scores all of it\n");
	cr_assert_eq(s.n, 1);
	cr_expect_str_eq(s.rules[0].path, "val.py");
	cr_expect_eq(s.rules[0].line, 20);
	cr_expect(strstr(s.rules[0].file, ":3"), "%s", s.rules[0].file);
	struct s_run r = unsharded_run("/w/val.py:20", NULL);
	s_finish(&r);
	cr_expect_eq(aw_suppress_findings(r.model, &s, &r.findings), 1);
	const struct aw_finding *f = s_get(&r, "unsharded");
	cr_expect(strstr(f->justification, "every rank scores all of it"), "%s",
		  f->justification);
	s_done(&r);
	aw_suppressions_fini(&s);
}

/* trace-incomplete is about no loader: only a rule without a PATH names
 * it, and the source of no loader allows it. */
Test(suppress, findings_of_no_loader_only_by_an_id_alone)
{
	const char *rules[] = {"trace-incomplete train.py", "trace-incomplete"};
	for (size_t i = 0; i < 2; i++) {
		struct s_loader_opts o = S_BASE_LOADER(0);
		o.allow = "trace-incomplete";
		struct s_run r = s_run_of(2, &o);
		s_rank_reads(r.model, 0, 0, 0, 50, 10);
		s_rank_reads(r.model, 1, 0, 50, 100, 10);
		r.model->stats.discarded_events = 40;
		r.model->stats.discarded_events_messages = 2;
		s_finish(&r);
		const struct aw_finding *f = s_get(&r, "trace-incomplete");
		cr_assert_eq(f->loader, AW_NONE);
		struct aw_suppressions s;
		load_ok(&s, rules[i]);
		cr_expect_eq(aw_suppress_findings(r.model, &s, &r.findings), i,
			     "%s", rules[i]);
		s_done(&r);
		aw_suppressions_fini(&s);
	}
}

/* Suppressed findings sort after all others, so that reports list what
 * is to be fixed first. */
Test(suppress, suppressed_findings_sort_last)
{
	struct aw_findings f;
	aw_findings_init(&f);
	aw_findings_add(&f, "unsharded", AW_SEVERITY_ERROR, 0, 0);
	aw_findings_add(&f, "padding", AW_SEVERITY_INFO, 1, 0);
	aw_finding_suppress(&f.items[0], AW_SUPPRESSED_BY_FILE, "s.txt:1",
			    "intended");
	aw_findings_sort(&f);
	cr_expect_str_eq(f.items[0].id, "padding");
	cr_expect_str_eq(f.items[1].id, "unsharded");
	cr_expect_eq(aw_findings_count(&f, AW_SEVERITY_ERROR), 0);
	cr_expect_eq(aw_findings_count(&f, AW_SEVERITY_INFO), 1);
	aw_findings_fini(&f);
}

Test(suppress, ids_a_source_allows_that_are_no_finding_are_said_once)
{
	struct s_run r = unsharded_run("val.py:20", "unshraded,overlap,al");
	s_finish(&r);
	char *text = NULL;
	size_t size = 0;
	FILE *out = open_memstream(&text, &size);
	cr_assert(out);
	cr_expect_eq(aw_suppress_warn_unknown(r.model, out), 2,
		     "each of 2 ranks built it: said once per site and id");
	fclose(out);
	cr_expect(strstr(text, "val.py:20 allows 'unshraded'"), "%s", text);
	cr_expect(strstr(text, "'al'"), "%s", text);
	cr_expect_null(strstr(text, "'overlap'"), "%s", text);
	free(text);
	s_done(&r);
}

/* Every id a check gives its findings is a finding id, the two families
 * (len, fork) included; the table's names of nothing are not. */
/* What loading path says, refused. */
static void load_refused(const char *path, const char *says)
{
	struct aw_suppressions s;
	char error[256] = "";
	aw_suppressions_init(&s);
	cr_expect_eq(aw_suppressions_load(&s, path, error, sizeof(error)),
		     AW_SUPPRESS_BAD_FILE, "%s", path);
	cr_expect(strstr(error, says), "%s", error);
	aw_suppressions_fini(&s);
}

Test(suppress, only_a_regular_text_file_of_bounded_size_is_read)
{
	/* A device of endless bytes, a FIFO without a writer (it would hang),
	 * a directory: refused at once. Binary bytes (a terminal escape) are
	 * not echoed back; a file over 1 MiB is refused by its size. */
	load_refused("/dev/zero", "is not a regular file");
	load_refused("/tmp", "is not a regular file");
	char fifo[] = "/tmp/aw-suppress-fifo-XXXXXX";
	cr_assert(mkdtemp(fifo));
	char *pipe = aw_xasprintf("%s/pipe", fifo);
	cr_assert_eq(mkfifo(pipe, 0600), 0);
	load_refused(pipe, "is not a regular file");
	unlink(pipe);
	rmdir(fifo);
	free(pipe);
	char *binary = suppression_file("unsharded\x1b[31m red\n");
	load_refused(binary, "byte 0x1b: not a suppression file of text");
	unlink(binary);
	free(binary);
	char *big = suppression_file("");
	cr_assert_eq(truncate(big, (1 << 20) + 1), 0);
	load_refused(big, "more than the 1048576");
	unlink(big);
	free(big);
}

Test(suppress, finding_ids_are_those_of_the_checks_table)
{
	const char *known[] = {
	    "unsharded",    "padding",          "stale-len",
	    "len-mismatch", "fork-cuda",        "fork-threads",
	    "rank-died",    "trace-incomplete", "resampled"};
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		cr_expect(aw_checks_known_id(known[i]), "%s", known[i]);
	const char *unknown[] = {"len", "fork", "all", "", "Unsharded"};
	for (size_t i = 0; i < sizeof(unknown) / sizeof(unknown[0]); i++)
		cr_expect_not(aw_checks_known_id(unknown[i]), "%s", unknown[i]);
}

/* The README's findings table: its rows "| `id` | error, warning | ...",
 * each id once with the severities the checks' table gives it, and no id
 * of the checks' table left out. */
Test(suppress, the_readme_findings_table_is_the_checks_table)
{
	FILE *readme = fopen(AW_README, "r");
	cr_assert(readme, "cannot read %s", AW_README);
	char line[4096], id[64], severities[64], listed[4096] = ",";
	while (fgets(line, sizeof(line), readme)) {
		if (sscanf(line, "| `%63[a-z0-9-]` | %63[a-z, ] |", id,
			   severities) != 2)
			continue;
		const struct aw_check *c = aw_checks_find(id);
		cr_expect(c, "README lists %s, which no check gives", id);
		char key[80];
		snprintf(key, sizeof(key), ",%s,", id);
		cr_expect_null(strstr(listed, key), "README lists %s twice",
			       id);
		snprintf(listed + strlen(listed),
			 sizeof(listed) - strlen(listed), "%s,", id);
		char want[64] = "";
		for (int sev = AW_SEVERITY_ERROR; c && sev <= AW_SEVERITY_INFO;
		     sev++)
			if (c->severities & (1u << sev))
				snprintf(want + strlen(want),
					 sizeof(want) - strlen(want), "%s%s",
					 *want ? ", " : "",
					 aw_severity_name(sev));
		size_t len = strlen(severities);
		while (len && severities[len - 1] == ' ')
			severities[--len] = '\0';
		cr_expect_str_eq(severities, want, "README's %s", id);
	}
	fclose(readme);
	for (size_t i = 0; aw_checks_finding_id(i); i++) {
		char key[80];
		snprintf(key, sizeof(key), ",%s,", aw_checks_finding_id(i));
		cr_expect(strstr(listed, key),
			  "README's findings table lacks %s",
			  aw_checks_finding_id(i));
	}
}
