/* SPDX-License-Identifier: MIT */
/* accwatch-report's argument parsing and exit status. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "accwatch_common.h"
#include "checks.h"
#include "cli.h"

/* The program's arguments after its name, NULL-terminated. */
#define ARGS(...) ((char *[]){__VA_ARGS__, NULL})
#define NO_ARGS ((char *[]){NULL})

/* aw_cli_parse of accwatch-report followed by args. */
static enum aw_cli_status parse(struct aw_options *opts, char *error,
				char **args)
{
	char *argv[16] = {"accwatch-report"};
	int argc = 1;
	for (; args[argc - 1]; argc++) {
		cr_assert_lt(argc, 15, "too many arguments for this test");
		argv[argc] = args[argc - 1];
	}
	return aw_cli_parse(argc, argv, opts, error, 256);
}

/* parse that must succeed; its error, if any, is the failure's message. */
static void parse_ok(struct aw_options *opts, char **args)
{
	char error[256] = "";
	cr_assert_eq(parse(opts, error, args), AW_CLI_OK, "%s", error);
}

#define PARSE_OK(opts, ...) parse_ok(opts, ARGS(__VA_ARGS__))

/* What --help prints (the caller frees it). */
static char *usage_text(void)
{
	char *text = NULL;
	size_t size = 0;
	FILE *out = open_memstream(&text, &size);
	cr_assert(out);
	aw_cli_usage(out);
	fclose(out);
	return text;
}

Test(cli, defaults)
{
	struct aw_options o;
	PARSE_OK(&o, "trace/");
	cr_expect_eq(o.format, AW_FORMAT_TEXT);
	cr_expect_eq(o.fail_on, AW_FAIL_ON_ERROR);
	cr_expect_null(o.output);
	cr_assert_eq(o.n_paths, 1);
	cr_expect_str_eq(o.paths[0], "trace/");
	aw_options_fini(&o);
}

Test(cli, all_options_and_spellings)
{
	struct aw_options o;
	PARSE_OK(&o, "--format", "json", "a", "--fail-on=warning", "-o",
		 "out.json", "b");
	cr_expect_eq(o.format, AW_FORMAT_JSON);
	cr_expect_eq(o.fail_on, AW_FAIL_ON_WARNING);
	cr_expect_str_eq(o.output, "out.json");
	cr_assert_eq(o.n_paths, 2);
	cr_expect_str_eq(o.paths[1], "b");
	aw_options_fini(&o);

	PARSE_OK(&o, "--format=text", "-oreport.txt", "--output", "x.txt", "a");
	cr_expect_eq(o.format, AW_FORMAT_TEXT);
	cr_expect_str_eq(o.output, "x.txt");
	aw_options_fini(&o);

	PARSE_OK(&o, "--format=sarif", "a");
	cr_expect_eq(o.format, AW_FORMAT_SARIF);
	aw_options_fini(&o);
	PARSE_OK(&o, "--format", "html", "-o", "r.html", "a");
	cr_expect_eq(o.format, AW_FORMAT_HTML);
	aw_options_fini(&o);

	PARSE_OK(&o, "--", "-weird-dir", "--format");
	cr_expect_eq(o.n_paths, 2);
	cr_expect_str_eq(o.paths[0], "-weird-dir");
	aw_options_fini(&o);
}

Test(cli, questions)
{
	struct aw_options o;
	PARSE_OK(&o, "--sample", "17", "--rank=2", "--epoch", "0", "--loader",
		 "train.py:31", "t");
	cr_expect(o.query.by_sample);
	cr_expect_eq(o.query.sample, 17);
	cr_expect(o.query.by_sequence);
	cr_expect_eq(o.query.rank, 2);
	cr_expect_eq(o.query.epoch, 0);
	cr_expect_str_eq(o.query.loader, "train.py:31");
	aw_options_fini(&o);

	PARSE_OK(&o, "t");
	cr_expect_not(o.query.by_sample);
	cr_expect_not(o.query.by_sequence);
	cr_expect_null(o.query.loader);
	aw_options_fini(&o);

	PARSE_OK(&o, "--sample", "4294967295", "t");
	cr_expect_eq(o.query.sample, 4294967295u);
	aw_options_fini(&o);
}

Test(cli, help_and_version_need_no_path)
{
	struct aw_options o;
	PARSE_OK(&o, "--help");
	cr_expect(o.help);
	aw_options_fini(&o);
	PARSE_OK(&o, "-V");
	cr_expect(o.version);
	aw_options_fini(&o);
	PARSE_OK(&o, "-h");
	cr_expect(o.help);
	aw_options_fini(&o);
}

Test(cli, run_selection)
{
	struct aw_options o;
	PARSE_OK(&o, "t");
	cr_expect_eq(o.query.runs.n_ids, 0);
	cr_expect(!o.query.runs.all);
	cr_expect(aw_run_choice_keeps(&o.query.runs, 5), "no --run: every run");
	aw_options_fini(&o);

	PARSE_OK(&o, "--run", "4343", "t", "--run=0", "--run", "4343");
	cr_assert_eq(o.query.runs.n_ids, 2, "a run named twice counts once");
	cr_expect_eq(o.query.runs.ids[0], 4343);
	cr_expect_eq(o.query.runs.ids[1], 0);
	cr_expect(aw_run_choice_keeps(&o.query.runs, 0));
	cr_expect(!aw_run_choice_keeps(&o.query.runs, 4344));
	aw_options_fini(&o);

	PARSE_OK(&o, "--run", "job-42", "t");
	cr_assert_eq(o.query.runs.n_ids, 1);
	uint32_t word_id = 0;
	cr_assert(accwatch_run_id_of_word("job-42", &word_id));
	cr_expect_eq(o.query.runs.ids[0], word_id,
		     "a word names the run accwatch-run --run-id gave it");
	aw_options_fini(&o);

	PARSE_OK(&o, "--run", "all", "--run", "7", "t");
	cr_expect(o.query.runs.all);
	cr_expect(aw_run_choice_keeps(&o.query.runs, 8), "all wins");
	aw_options_fini(&o);

	/* --help documents it, and the exit status it leads to. */
	char *text = usage_text();
	cr_expect(strstr(text, "--run ID|all"), "%s", text);
	cr_expect(strstr(text, "several runs without --run"), "%s", text);
	free(text);
}

Test(cli, usage_errors)
{
	struct aw_options o;
	char error[256];
	struct {
		char **args;
		const char *says;
	} cases[] = {
	    {NO_ARGS, "no trace given"},
	    {ARGS("--format", "xml", "t"), "text, json, sarif or html"},
	    {ARGS("--fail-on", "info", "t"), "error or warning"},
	    {ARGS("t", "--format"), "needs a value"},
	    {ARGS("--bogus", "t"), "unknown option '--bogus'"},
	    {ARGS("-x", "t"), "unknown option '-x'"},
	    {ARGS("--help=yes"), "takes no value"},
	    {ARGS("-o", "", "t"), "needs a file name"},
	    {ARGS("--sample", "-1", "t"), "dataset index"},
	    {ARGS("--sample", "4294967296", "t"), "dataset index"},
	    {ARGS("--sample", "12x", "t"), "dataset index"},
	    {ARGS("--rank", "1", "t"), "--rank needs --epoch"},
	    {ARGS("--epoch", "1", "t"), "--epoch needs --rank"},
	    {ARGS("--rank", "x", "--epoch", "1", "t"), "takes a rank"},
	    {ARGS("--loader=", "t"), "takes a loader id"},
	    {ARGS("--run", "-1", "t"),
	     "--run takes a run id (0 to 4294967295, or the word given to "
	     "accwatch-run --run-id, up to 128 characters) or all, not '-1'"},
	    {ARGS("--run", "4294967296", "t"), "--run takes a run id"},
	    {ARGS("--run", "ALL", "t"), "--run takes a run id"},
	    {ARGS("t", "--run"), "--run needs a value"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		error[0] = '\0';
		cr_expect_eq(parse(&o, error, cases[i].args), AW_CLI_USAGE,
			     "case %zu", i);
		cr_expect(strstr(error, cases[i].says), "case %zu: '%s'", i,
			  error);
		aw_options_fini(&o);
	}
}

Test(cli, exit_status)
{
	struct aw_options o = {.fail_on = AW_FAIL_ON_ERROR};
	cr_expect_eq(aw_cli_exit_status(&o, 0, 0, true), AW_EXIT_CLEAN);
	cr_expect_eq(aw_cli_exit_status(&o, 0, 3, true), AW_EXIT_CLEAN);
	cr_expect_eq(aw_cli_exit_status(&o, 1, 0, true), AW_EXIT_FINDINGS);
	cr_expect_eq(aw_cli_exit_status(&o, 0, 0, false), AW_EXIT_NOTHING);
	cr_expect_eq(aw_cli_exit_status(&o, 1, 0, false), AW_EXIT_FINDINGS);
	o.fail_on = AW_FAIL_ON_WARNING;
	cr_expect_eq(aw_cli_exit_status(&o, 0, 1, true), AW_EXIT_FINDINGS);
	cr_expect_eq(aw_cli_exit_status(&o, 0, 0, true), AW_EXIT_CLEAN);
	cr_expect_eq((int)AW_EXIT_USAGE, 2);
	cr_expect_eq((int)AW_EXIT_NOTHING, 3);
}

/* A suppression file holding text, in a temporary directory (the caller
 * unlinks and frees the path). */
static char *suppression_file(const char *text)
{
	char *path = strdup("/tmp/aw-cli-suppress-XXXXXX");
	int fd = mkstemp(path);
	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	return path;
}

Test(cli, suppress_files_and_show_suppressed)
{
	struct aw_options o;
	char *a = suppression_file("# intended\nunsharded val.py:20  # eval\n"
				   "duplicate-rank\n");
	char *b = suppression_file("fork-threads data/loaders.py\n");
	PARSE_OK(&o, "--suppress", a, "t", "--show-suppressed", "--suppress",
		 b);
	cr_expect(o.show_suppressed);
	cr_assert_eq(o.suppressions.n, 3);
	const struct aw_suppression_rule *r = o.suppressions.rules;
	cr_expect_str_eq(r[0].id, "unsharded");
	cr_expect_str_eq(r[0].path, "val.py");
	cr_expect_eq(r[0].line, 20);
	cr_expect_str_eq(r[0].comment, "eval");
	cr_expect_str_eq(r[1].id, "duplicate-rank");
	cr_expect_null(r[1].path);
	cr_expect_str_eq(r[2].path, "data/loaders.py");
	cr_expect_eq(r[2].line, 0);
	char want[64];
	snprintf(want, sizeof(want), "%s:3", a);
	cr_expect_str_eq(r[1].file, want);
	aw_options_fini(&o);
	cr_expect_eq(o.suppressions.n, 0);

	PARSE_OK(&o, "t");
	cr_expect_not(o.show_suppressed);
	cr_expect_eq(o.suppressions.n, 0);
	aw_options_fini(&o);
	unlink(a);
	unlink(b);
	free(a);
	free(b);
}

/* A bad suppression file is a usage error naming the file and its line. */
Test(cli, suppress_file_errors)
{
	struct {
		const char *text, *says;
	} cases[] = {
	    {"unsharded\nunshraded val.py\n",
	     ":2: 'unshraded' is not a finding id"},
	    {"all\n", ":1: 'all' is not a finding id"},
	    {"len val.py\n", ":1: 'len' is not a finding id"},
	    {"\n\noverlap val.py:\n", ":3: 'val.py:' is not PATH:LINE"},
	    {"overlap val.py:0\n", ":1: 'val.py:0' is not PATH:LINE"},
	    {"overlap val.py:2x\n", ":1: 'val.py:2x' is not PATH:LINE"},
	    {"overlap :12\n", ":1: ':12' names no file"},
	    {"overlap val.py\n\0missing\n",
	     ":2: byte 0x00 (NUL): not a suppression file of text lines"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct aw_options o;
		char error[256] = "";
		char *path = suppression_file(cases[i].text);
		if (strstr(cases[i].says, "NUL")) {
			FILE *f = fopen(path, "w");
			fwrite("overlap val.py\n\0missing\n", 1, 25, f);
			fclose(f);
		}
		cr_expect_eq(parse(&o, error, ARGS("--suppress", path, "t")),
			     AW_CLI_USAGE, "case %zu", i);
		char want[256];
		snprintf(want, sizeof(want), "%s%s", path, cases[i].says);
		cr_expect(strstr(error, want), "case %zu: '%s', not '%s'", i,
			  error, want);
		aw_options_fini(&o);
		unlink(path);
		free(path);
	}
	struct aw_options o;
	char error[256] = "";
	cr_expect_eq(
	    parse(&o, error, ARGS("--suppress", "/nonexistent/aw-rules", "t")),
	    AW_CLI_USAGE);
	cr_expect(strstr(error, "cannot read the suppression file "
				"/nonexistent/aw-rules: No such file"),
		  "%s", error);
	aw_options_fini(&o);
	cr_expect_eq(parse(&o, error, ARGS("--suppress=", "t")), AW_CLI_USAGE);
	cr_expect(strstr(error, "--suppress needs a file name"), "%s", error);
	aw_options_fini(&o);
	cr_expect_eq(parse(&o, error, ARGS("t", "--suppress")), AW_CLI_USAGE);
	cr_expect(strstr(error, "--suppress needs a value"), "%s", error);
	aw_options_fini(&o);
	cr_expect_eq(parse(&o, error, ARGS("--show-suppressed=1", "t")),
		     AW_CLI_USAGE);
	aw_options_fini(&o);
}

Test(cli, help_lists_the_suppression_options_and_the_finding_ids)
{
	char *text = usage_text();
	const char *says[] = {"--suppress FILE", "--show-suppressed",
			      "# accwatch: allow ID[, ID...]"};
	for (size_t i = 0; i < sizeof(says) / sizeof(says[0]); i++)
		cr_expect(strstr(text, says[i]), "no '%s' in:\n%s", says[i],
			  text);
	const char *id;
	for (size_t i = 0; (id = aw_checks_finding_id(i)); i++)
		cr_expect(strstr(text, id), "no finding id %s in:\n%s", id,
			  text);
	/* The ids' lines fit a terminal of 80 columns. */
	const char *ids = strstr(text, "Finding ids:\n");
	cr_assert(ids, "%s", text);
	for (const char *line = strchr(ids, '\n') + 1; *line != '\n';) {
		const char *end = strchr(line, '\n');
		cr_assert(end);
		cr_expect_leq(end - line, 80, "%.*s", (int)(end - line), line);
		line = end + 1;
	}
	free(text);
}
