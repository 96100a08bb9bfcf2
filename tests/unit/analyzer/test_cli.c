/* accwatch-report's argument parsing and exit status. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static enum aw_cli_status parse(struct aw_options *opts, char *error, int argc,
				char **argv)
{
	return aw_cli_parse(argc, argv, opts, error, 256);
}

#define ARGS(...) ((char *[]){"accwatch-report", __VA_ARGS__})
#define COUNT(...)                                                             \
	((int)(sizeof((char *[]){"accwatch-report", __VA_ARGS__}) /            \
	       sizeof(char *)))
#define PARSE(opts, error, ...)                                                \
	parse(opts, error, COUNT(__VA_ARGS__), ARGS(__VA_ARGS__))

Test(cli, defaults)
{
	struct aw_options o;
	char error[256] = "";
	cr_assert_eq(PARSE(&o, error, "trace/"), AW_CLI_OK, "%s", error);
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
	char error[256] = "";
	cr_assert_eq(PARSE(&o, error, "--format", "json", "a",
			   "--fail-on=warning", "-o", "out.json", "b"),
		     AW_CLI_OK, "%s", error);
	cr_expect_eq(o.format, AW_FORMAT_JSON);
	cr_expect_eq(o.fail_on, AW_FAIL_ON_WARNING);
	cr_expect_str_eq(o.output, "out.json");
	cr_assert_eq(o.n_paths, 2);
	cr_expect_str_eq(o.paths[1], "b");
	aw_options_fini(&o);

	cr_assert_eq(PARSE(&o, error, "--format=text", "-oreport.txt",
			   "--output", "x.txt", "a"),
		     AW_CLI_OK);
	cr_expect_eq(o.format, AW_FORMAT_TEXT);
	cr_expect_str_eq(o.output, "x.txt");
	aw_options_fini(&o);

	cr_assert_eq(PARSE(&o, error, "--", "-weird-dir", "--format"),
		     AW_CLI_OK);
	cr_expect_eq(o.n_paths, 2);
	cr_expect_str_eq(o.paths[0], "-weird-dir");
	aw_options_fini(&o);
}

Test(cli, questions)
{
	struct aw_options o;
	char error[256] = "";
	cr_assert_eq(PARSE(&o, error, "--sample", "17", "--rank=2", "--epoch",
			   "0", "--loader", "train.py:31", "t"),
		     AW_CLI_OK, "%s", error);
	cr_expect(o.query.by_sample);
	cr_expect_eq(o.query.sample, 17);
	cr_expect(o.query.by_sequence);
	cr_expect_eq(o.query.rank, 2);
	cr_expect_eq(o.query.epoch, 0);
	cr_expect_str_eq(o.query.loader, "train.py:31");
	aw_options_fini(&o);

	cr_assert_eq(PARSE(&o, error, "t"), AW_CLI_OK);
	cr_expect_not(o.query.by_sample);
	cr_expect_not(o.query.by_sequence);
	cr_expect_null(o.query.loader);
	aw_options_fini(&o);

	cr_assert_eq(PARSE(&o, error, "--sample", "4294967295", "t"),
		     AW_CLI_OK);
	cr_expect_eq(o.query.sample, 4294967295u);
	aw_options_fini(&o);
}

Test(cli, help_and_version_need_no_path)
{
	struct aw_options o;
	char error[256] = "";
	cr_assert_eq(PARSE(&o, error, "--help"), AW_CLI_OK);
	cr_expect(o.help);
	aw_options_fini(&o);
	cr_assert_eq(PARSE(&o, error, "-V"), AW_CLI_OK);
	cr_expect(o.version);
	aw_options_fini(&o);
	cr_assert_eq(PARSE(&o, error, "-h"), AW_CLI_OK);
	cr_expect(o.help);
	aw_options_fini(&o);
}

Test(cli, run_selection)
{
	struct aw_options o;
	char error[256] = "";
	cr_assert_eq(PARSE(&o, error, "t"), AW_CLI_OK);
	cr_expect_eq(o.query.n_runs, 0);
	cr_expect(!o.query.all_runs);
	cr_expect(aw_query_keeps_run(&o.query, 5), "no --run: every run");
	aw_options_fini(&o);

	cr_assert_eq(
	    PARSE(&o, error, "--run", "4343", "t", "--run=0", "--run", "4343"),
	    AW_CLI_OK, "%s", error);
	cr_assert_eq(o.query.n_runs, 2, "a run named twice counts once");
	cr_expect_eq(o.query.runs[0], 4343);
	cr_expect_eq(o.query.runs[1], 0);
	cr_expect(aw_query_keeps_run(&o.query, 0));
	cr_expect(!aw_query_keeps_run(&o.query, 4344));
	aw_options_fini(&o);

	cr_assert_eq(PARSE(&o, error, "--run", "all", "--run", "7", "t"),
		     AW_CLI_OK);
	cr_expect(o.query.all_runs);
	cr_expect(aw_query_keeps_run(&o.query, 8), "all wins");
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
		int argc;
		char **argv;
		const char *says;
	} cases[] = {
	    {1, ARGS(NULL), "no trace given"},
	    {COUNT("--format", "xml", "t"), ARGS("--format", "xml", "t"),
	     "text or json"},
	    {COUNT("--fail-on", "info", "t"), ARGS("--fail-on", "info", "t"),
	     "error or warning"},
	    {COUNT("t", "--format"), ARGS("t", "--format"), "needs a value"},
	    {COUNT("--bogus", "t"), ARGS("--bogus", "t"),
	     "unknown option '--bogus'"},
	    {COUNT("-x", "t"), ARGS("-x", "t"), "unknown option '-x'"},
	    {COUNT("--help=yes"), ARGS("--help=yes"), "takes no value"},
	    {COUNT("-o", "", "t"), ARGS("-o", "", "t"), "needs a file name"},
	    {COUNT("--sample", "-1", "t"), ARGS("--sample", "-1", "t"),
	     "dataset index"},
	    {COUNT("--sample", "4294967296", "t"),
	     ARGS("--sample", "4294967296", "t"), "dataset index"},
	    {COUNT("--sample", "12x", "t"), ARGS("--sample", "12x", "t"),
	     "dataset index"},
	    {COUNT("--rank", "1", "t"), ARGS("--rank", "1", "t"),
	     "--rank needs --epoch"},
	    {COUNT("--epoch", "1", "t"), ARGS("--epoch", "1", "t"),
	     "--epoch needs --rank"},
	    {COUNT("--rank", "x", "--epoch", "1", "t"),
	     ARGS("--rank", "x", "--epoch", "1", "t"), "takes a rank"},
	    {COUNT("--loader=", "t"), ARGS("--loader=", "t"),
	     "takes a loader id"},
	    {COUNT("--run", "-1", "t"), ARGS("--run", "-1", "t"),
	     "--run takes a run id (0 to 4294967295) or all, not '-1'"},
	    {COUNT("--run", "4294967296", "t"),
	     ARGS("--run", "4294967296", "t"), "--run takes a run id"},
	    {COUNT("--run", "ALL", "t"), ARGS("--run", "ALL", "t"),
	     "--run takes a run id"},
	    {COUNT("t", "--run"), ARGS("t", "--run"), "--run needs a value"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		error[0] = '\0';
		cr_expect_eq(parse(&o, error, cases[i].argc, cases[i].argv),
			     AW_CLI_USAGE, "case %zu", i);
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
