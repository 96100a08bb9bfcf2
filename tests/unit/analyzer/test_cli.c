/* accwatch-report's argument parsing and exit status. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

	PARSE_OK(&o, "--run", "all", "--run", "7", "t");
	cr_expect(o.query.runs.all);
	cr_expect(aw_run_choice_keeps(&o.query.runs, 8), "all wins");
	aw_options_fini(&o);

	/* --help documents it, and the exit status it leads to. */
	char *text = NULL;
	size_t size = 0;
	FILE *out = open_memstream(&text, &size);
	cr_assert(out);
	aw_cli_usage(out);
	fclose(out);
	cr_expect(strstr(text, "--run ID|all"), "%s", text);
	cr_expect(strstr(text, "a trace of several runs without --run"), "%s",
		  text);
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
	     "--run takes a run id (0 to 4294967295) or all, not '-1'"},
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
	cr_expect_eq(aw_cli_exit_status(&o, 0, 0), AW_EXIT_CLEAN);
	cr_expect_eq(aw_cli_exit_status(&o, 0, 3), AW_EXIT_CLEAN);
	cr_expect_eq(aw_cli_exit_status(&o, 1, 0), AW_EXIT_FINDINGS);
	o.fail_on = AW_FAIL_ON_WARNING;
	cr_expect_eq(aw_cli_exit_status(&o, 0, 1), AW_EXIT_FINDINGS);
	cr_expect_eq(aw_cli_exit_status(&o, 0, 0), AW_EXIT_CLEAN);
	cr_expect_eq((int)AW_EXIT_USAGE, 2);
}
