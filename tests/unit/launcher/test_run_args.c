/* SPDX-License-Identifier: MIT */
/* Unit tests of accwatch-run's command line: defaults, every option, sizes,
 * where options stop, and each typed error with the culprit it names. */
#include <criterion/criterion.h>
#include <string.h>

#include "accwatch_common.h"
#include "run_args.h"

#define ARGC(array) ((int)(sizeof(array) / sizeof(array[0])) - 1)

static enum accwatch_run_args_status
parse(int argc, char **argv, struct accwatch_run_options *options,
      struct accwatch_run_args_error *error)
{
	return accwatch_run_args_parse(argc, argv, options, error);
}

Test(run_args, defaults)
{
	char *argv[] = {"accwatch-run", "python", "train.py", NULL};
	struct accwatch_run_options options;
	struct accwatch_run_args_error error;

	cr_assert_eq(parse(ARGC(argv), argv, &options, &error),
		     ACCWATCH_RUN_ARGS_OK);
	cr_assert_null(options.output_dir);
	cr_assert_not(options.force);
	cr_assert_not(options.discard);
	cr_assert_not(options.quiet);
	cr_assert_eq(options.buffers, ACCWATCH_RUN_BUFFERS_PER_UID);
	cr_assert_eq(options.subbuf_size, 1024 * 1024);
	cr_assert_eq(options.num_subbuf, 4);
	cr_assert_eq(options.stall_seconds, 10);
	cr_assert_eq(options.command_argc, 2);
	cr_assert_str_eq(options.command[0], "python");
	cr_assert_str_eq(options.command[1], "train.py");
	cr_assert_null(options.command[2]);
}

Test(run_args, output_in_every_spelling)
{
	char *separate[] = {"accwatch-run", "-o", "trace", "cmd", NULL};
	char *joined[] = {"accwatch-run", "-otrace", "cmd", NULL};
	char *long_separate[] = {"accwatch-run", "--output", "trace", "cmd",
				 NULL};
	char *long_equals[] = {"accwatch-run", "--output=trace", "cmd", NULL};
	char **all[] = {separate, joined, long_separate, long_equals};
	int counts[] = {ARGC(separate), ARGC(joined), ARGC(long_separate),
			ARGC(long_equals)};
	struct accwatch_run_options options;
	struct accwatch_run_args_error error;

	for (size_t i = 0; i < 4; i++) {
		cr_assert_eq(parse(counts[i], all[i], &options, &error),
			     ACCWATCH_RUN_ARGS_OK, "spelling %zu", i);
		cr_assert_str_eq(options.output_dir, "trace", "spelling %zu",
				 i);
		cr_assert_str_eq(options.command[0], "cmd", "spelling %zu", i);
	}
}

Test(run_args, flags)
{
	char *argv[] = {"accwatch-run",  "--force", "--discard", "--quiet",
			"--buffers-pid", "cmd",     NULL};
	struct accwatch_run_options options;
	struct accwatch_run_args_error error;

	cr_assert_eq(parse(ARGC(argv), argv, &options, &error),
		     ACCWATCH_RUN_ARGS_OK);
	cr_assert(options.force);
	cr_assert(options.discard);
	cr_assert(options.quiet);
	cr_assert_eq(options.buffers, ACCWATCH_RUN_BUFFERS_PER_PID);
}

Test(run_args, grouped_short_flags_and_value)
{
	char *argv[] = {"accwatch-run", "-qfo", "dir", "cmd", NULL};
	struct accwatch_run_options options;
	struct accwatch_run_args_error error;

	cr_assert_eq(parse(ARGC(argv), argv, &options, &error),
		     ACCWATCH_RUN_ARGS_OK);
	cr_assert(options.quiet);
	cr_assert(options.force);
	cr_assert_str_eq(options.output_dir, "dir");
	cr_assert_str_eq(options.command[0], "cmd");
}

Test(run_args, last_buffers_option_wins)
{
	char *argv[] = {"accwatch-run", "--buffers-pid", "--buffers-uid", "cmd",
			NULL};
	struct accwatch_run_options options;
	struct accwatch_run_args_error error;

	cr_assert_eq(parse(ARGC(argv), argv, &options, &error),
		     ACCWATCH_RUN_ARGS_OK);
	cr_assert_eq(options.buffers, ACCWATCH_RUN_BUFFERS_PER_UID);
}

Test(run_args, sizes_with_suffixes)
{
	char *argv[] = {"accwatch-run",   "--subbuf-size", "256k",
			"--num-subbuf=8", "cmd",           NULL};
	char *mega[] = {"accwatch-run", "--subbuf-size=2M", "cmd", NULL};
	char *lower[] = {"accwatch-run", "--subbuf-size=4m", "cmd", NULL};
	char *plain[] = {"accwatch-run", "--subbuf-size=65536", "cmd", NULL};
	struct accwatch_run_options options;
	struct accwatch_run_args_error error;

	cr_assert_eq(parse(ARGC(argv), argv, &options, &error),
		     ACCWATCH_RUN_ARGS_OK);
	cr_assert_eq(options.subbuf_size, 256 * 1024);
	cr_assert_eq(options.num_subbuf, 8);
	cr_assert_eq(parse(ARGC(mega), mega, &options, &error),
		     ACCWATCH_RUN_ARGS_OK);
	cr_assert_eq(options.subbuf_size, 2 * 1024 * 1024);
	cr_assert_eq(parse(ARGC(lower), lower, &options, &error),
		     ACCWATCH_RUN_ARGS_OK);
	cr_assert_eq(options.subbuf_size, 4 * 1024 * 1024);
	cr_assert_eq(parse(ARGC(plain), plain, &options, &error),
		     ACCWATCH_RUN_ARGS_OK);
	cr_assert_eq(options.subbuf_size, 65536);
}

/* 2 CPUs of 4 KiB pages: 2 x (9 x 2 MiB + 8 pages) + 24 pages. */
#define BURST_BYTES_2_CPUS (2 * (9 * (INT64_C(2) << 20) + 8 * 4096) + 24 * 4096)

Test(run_args, buffers_bytes)
{
	cr_assert_eq(accwatch_run_buffers_bytes(2, 8, UINT64_C(2) << 20, 4096),
		     BURST_BYTES_2_CPUS);
	/* The measured 10320 KiB of 2 CPUs x 4 x 1 MiB, headers included. */
	cr_assert_geq(accwatch_run_buffers_bytes(2, 4, UINT64_C(1) << 20, 4096),
		      10320 * 1024);
}

Test(run_args, buffers_grow_with_room)
{
	char *argv[] = {"accwatch-run", "cmd", NULL};
	struct accwatch_run_options options;
	struct accwatch_run_args_error error;

	cr_assert_eq(parse(ARGC(argv), argv, &options, &error),
		     ACCWATCH_RUN_ARGS_OK);
	cr_assert_not(options.sizes_given);
	/* One byte short of eight times their room: the defaults stay. */
	cr_assert_not(accwatch_run_buffers_grow(
	    &options, 2, 8 * BURST_BYTES_2_CPUS - 1, 4096));
	cr_assert_eq(options.subbuf_size, 1024 * 1024);
	cr_assert_eq(options.num_subbuf, 4);
	cr_assert_not(accwatch_run_buffers_grow(&options, 2, -1, 4096));
	cr_assert(accwatch_run_buffers_grow(&options, 2, 8 * BURST_BYTES_2_CPUS,
					    4096));
	cr_assert_eq(options.subbuf_size, 2 * 1024 * 1024);
	cr_assert_eq(options.num_subbuf, 8);
}

Test(run_args, buffers_kept_when_chosen)
{
	char *size[] = {"accwatch-run", "--subbuf-size=256k", "cmd", NULL};
	char *count[] = {"accwatch-run", "--num-subbuf=2", "cmd", NULL};
	char *pid[] = {"accwatch-run", "--buffers-pid", "cmd", NULL};
	char **argvs[] = {size, count, pid};
	int argcs[] = {ARGC(size), ARGC(count), ARGC(pid)};
	struct accwatch_run_options options;
	struct accwatch_run_args_error error;

	for (size_t i = 0; i < 3; i++) {
		uint64_t subbuf_size, num_subbuf;

		cr_assert_eq(parse(argcs[i], argvs[i], &options, &error),
			     ACCWATCH_RUN_ARGS_OK);
		subbuf_size = options.subbuf_size;
		num_subbuf = options.num_subbuf;
		cr_assert_not(
		    accwatch_run_buffers_grow(&options, 2, INT64_MAX, 4096));
		cr_assert_eq(options.subbuf_size, subbuf_size);
		cr_assert_eq(options.num_subbuf, num_subbuf);
	}
}

Test(run_args, parse_size_cases)
{
	uint64_t value = 0;

	cr_assert_eq(accwatch_run_parse_size("1G", 1, &value),
		     ACCWATCH_RUN_SIZE_OK);
	cr_assert_eq(value, UINT64_C(1) << 30);
	cr_assert_eq(accwatch_run_parse_size("1K", 1, &value),
		     ACCWATCH_RUN_SIZE_OK);
	cr_assert_eq(value, 1024);
	cr_assert_eq(accwatch_run_parse_size("", 1, &value),
		     ACCWATCH_RUN_SIZE_SYNTAX);
	cr_assert_eq(accwatch_run_parse_size("abc", 1, &value),
		     ACCWATCH_RUN_SIZE_SYNTAX);
	cr_assert_eq(accwatch_run_parse_size("-4", 1, &value),
		     ACCWATCH_RUN_SIZE_SYNTAX);
	cr_assert_eq(accwatch_run_parse_size("1.5M", 1, &value),
		     ACCWATCH_RUN_SIZE_SYNTAX);
	cr_assert_eq(accwatch_run_parse_size("1MB", 1, &value),
		     ACCWATCH_RUN_SIZE_SYNTAX);
	cr_assert_eq(accwatch_run_parse_size("1x", 1, &value),
		     ACCWATCH_RUN_SIZE_SYNTAX);
	cr_assert_eq(accwatch_run_parse_size(" 1M", 1, &value),
		     ACCWATCH_RUN_SIZE_SYNTAX);
	cr_assert_eq(accwatch_run_parse_size("3000", 1, &value),
		     ACCWATCH_RUN_SIZE_NOT_POWER_OF_2);
	cr_assert_eq(accwatch_run_parse_size("0", 1, &value),
		     ACCWATCH_RUN_SIZE_NOT_POWER_OF_2);
	cr_assert_eq(accwatch_run_parse_size("2048", 4096, &value),
		     ACCWATCH_RUN_SIZE_TOO_SMALL);
	cr_assert_eq(accwatch_run_parse_size("99999999999999999999", 1, &value),
		     ACCWATCH_RUN_SIZE_OVERFLOW);
	cr_assert_eq(accwatch_run_parse_size("17179869184G", 1, &value),
		     ACCWATCH_RUN_SIZE_OVERFLOW);
}

Test(run_args, bad_sizes_are_refused_with_the_value)
{
	char *odd[] = {"accwatch-run", "--subbuf-size", "3000", "cmd", NULL};
	char *tiny[] = {"accwatch-run", "--subbuf-size=1k", "cmd", NULL};
	char *junk[] = {"accwatch-run", "--subbuf-size=lots", "cmd", NULL};
	char *count[] = {"accwatch-run", "--num-subbuf", "3", "cmd", NULL};
	char *one[] = {"accwatch-run", "--num-subbuf=1", "cmd", NULL};
	struct accwatch_run_options options;
	struct accwatch_run_args_error error;
	char line[256];

	cr_assert_eq(parse(ARGC(odd), odd, &options, &error),
		     ACCWATCH_RUN_ARGS_BAD_SIZE);
	cr_assert_str_eq(error.culprit, "3000");
	cr_assert_eq(error.size_status, ACCWATCH_RUN_SIZE_NOT_POWER_OF_2);
	accwatch_run_args_describe(ACCWATCH_RUN_ARGS_BAD_SIZE, &error, line,
				   sizeof(line));
	cr_assert(strstr(line, "--subbuf-size '3000'"), "%s", line);
	cr_assert(strstr(line, "power of two"), "%s", line);

	cr_assert_eq(parse(ARGC(tiny), tiny, &options, &error),
		     ACCWATCH_RUN_ARGS_BAD_SIZE);
	cr_assert_eq(error.size_status, ACCWATCH_RUN_SIZE_TOO_SMALL);
	cr_assert_eq(parse(ARGC(junk), junk, &options, &error),
		     ACCWATCH_RUN_ARGS_BAD_SIZE);
	cr_assert_eq(error.size_status, ACCWATCH_RUN_SIZE_SYNTAX);

	cr_assert_eq(parse(ARGC(count), count, &options, &error),
		     ACCWATCH_RUN_ARGS_BAD_COUNT);
	cr_assert_str_eq(error.culprit, "3");
	accwatch_run_args_describe(ACCWATCH_RUN_ARGS_BAD_COUNT, &error, line,
				   sizeof(line));
	cr_assert(strstr(line, "--num-subbuf '3'"), "%s", line);
	cr_assert_eq(parse(ARGC(one), one, &options, &error),
		     ACCWATCH_RUN_ARGS_BAD_COUNT);
	cr_assert_eq(error.size_status, ACCWATCH_RUN_SIZE_TOO_SMALL);
}

Test(run_args, stall_timeouts_in_whole_seconds)
{
	char *zero[] = {"accwatch-run", "--stall-timeout", "0", "cmd", NULL};
	char *two[] = {"accwatch-run", "--stall-timeout=2", "cmd", NULL};
	struct accwatch_run_options options;
	struct accwatch_run_args_error error;
	char line[256];

	cr_assert_eq(parse(ARGC(zero), zero, &options, &error),
		     ACCWATCH_RUN_ARGS_OK);
	cr_assert_eq(options.stall_seconds, 0);
	cr_assert_eq(parse(ARGC(two), two, &options, &error),
		     ACCWATCH_RUN_ARGS_OK);
	cr_assert_eq(options.stall_seconds, 2);
	const char *bad[] = {"1.5", "-1", "", "3601", "10s", "99999999999"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *argv[] = {"accwatch-run", "--stall-timeout",
				(char *)bad[i], "cmd", NULL};
		cr_assert_eq(parse(ARGC(argv), argv, &options, &error),
			     ACCWATCH_RUN_ARGS_BAD_STALL, "%s", bad[i]);
		cr_assert_str_eq(error.culprit, bad[i]);
	}
	accwatch_run_args_describe(ACCWATCH_RUN_ARGS_BAD_STALL, &error, line,
				   sizeof(line));
	cr_assert(strstr(line, "--stall-timeout '99999999999'"), "%s", line);
}

Test(run_args, if_unrecordable_fail_or_run)
{
	char *run[] = {"accwatch-run", "--if-unrecordable=run", "cmd", NULL};
	char *fail[] = {"accwatch-run", "--if-unrecordable", "fail", "cmd",
			NULL};
	char *bad[] = {"accwatch-run", "--if-unrecordable=skip", "cmd", NULL};
	char *none[] = {"accwatch-run", "cmd", NULL};
	struct accwatch_run_options options;
	struct accwatch_run_args_error error;
	char line[256];

	cr_assert_eq(parse(ARGC(none), none, &options, &error),
		     ACCWATCH_RUN_ARGS_OK);
	cr_assert_not(options.unrecordable_run, "refusing is the default");
	cr_assert_eq(parse(ARGC(run), run, &options, &error),
		     ACCWATCH_RUN_ARGS_OK);
	cr_assert(options.unrecordable_run);
	cr_assert_eq(parse(ARGC(fail), fail, &options, &error),
		     ACCWATCH_RUN_ARGS_OK);
	cr_assert_not(options.unrecordable_run);
	cr_assert_eq(parse(ARGC(bad), bad, &options, &error),
		     ACCWATCH_RUN_ARGS_BAD_UNRECORDABLE);
	accwatch_run_args_describe(ACCWATCH_RUN_ARGS_BAD_UNRECORDABLE, &error,
				   line, sizeof(line));
	cr_assert(strstr(line, "--if-unrecordable 'skip'"), "%s", line);
}

Test(run_args, missing_command)
{
	char *nothing[] = {"accwatch-run", NULL};
	char *only_options[] = {"accwatch-run", "-q", "-o", "dir", NULL};
	char *only_dashes[] = {"accwatch-run", "--force", "--", NULL};
	struct accwatch_run_options options;
	struct accwatch_run_args_error error;
	char line[256];

	cr_assert_eq(parse(ARGC(nothing), nothing, &options, &error),
		     ACCWATCH_RUN_ARGS_MISSING_COMMAND);
	cr_assert_eq(parse(ARGC(only_options), only_options, &options, &error),
		     ACCWATCH_RUN_ARGS_MISSING_COMMAND);
	cr_assert_eq(parse(ARGC(only_dashes), only_dashes, &options, &error),
		     ACCWATCH_RUN_ARGS_MISSING_COMMAND);
	accwatch_run_args_describe(ACCWATCH_RUN_ARGS_MISSING_COMMAND, &error,
				   line, sizeof(line));
	cr_assert(strstr(line, "no command"), "%s", line);
}

Test(run_args, double_dash_ends_options)
{
	char *argv[] = {"accwatch-run", "-q", "--", "--force", "-o", "x", NULL};
	struct accwatch_run_options options;
	struct accwatch_run_args_error error;

	cr_assert_eq(parse(ARGC(argv), argv, &options, &error),
		     ACCWATCH_RUN_ARGS_OK);
	cr_assert(options.quiet);
	cr_assert_not(options.force);
	cr_assert_null(options.output_dir);
	cr_assert_eq(options.command_argc, 3);
	cr_assert_str_eq(options.command[0], "--force");
}

Test(run_args, only_the_first_double_dash_is_ours)
{
	char *argv[] = {"accwatch-run", "--", "cmd", "--", "arg", NULL};
	struct accwatch_run_options options;
	struct accwatch_run_args_error error;

	cr_assert_eq(parse(ARGC(argv), argv, &options, &error),
		     ACCWATCH_RUN_ARGS_OK);
	cr_assert_eq(options.command_argc, 3);
	cr_assert_str_eq(options.command[1], "--");
}

Test(run_args, first_non_option_ends_options)
{
	char *argv[] = {"accwatch-run", "-f", "python", "-q",
			"--output",     "x",  NULL};
	struct accwatch_run_options options;
	struct accwatch_run_args_error error;

	cr_assert_eq(parse(ARGC(argv), argv, &options, &error),
		     ACCWATCH_RUN_ARGS_OK);
	cr_assert(options.force);
	cr_assert_not(options.quiet, "the command's -q is not ours");
	cr_assert_null(options.output_dir);
	cr_assert_eq(options.command_argc, 4);
	cr_assert_str_eq(options.command[0], "python");
	cr_assert_str_eq(options.command[1], "-q");
}

Test(run_args, lone_dash_is_the_command)
{
	char *argv[] = {"accwatch-run", "-", NULL};
	struct accwatch_run_options options;
	struct accwatch_run_args_error error;

	cr_assert_eq(parse(ARGC(argv), argv, &options, &error),
		     ACCWATCH_RUN_ARGS_OK);
	cr_assert_str_eq(options.command[0], "-");
}

Test(run_args, unknown_options)
{
	char *long_opt[] = {"accwatch-run", "--frobnicate=3", "cmd", NULL};
	char *short_opt[] = {"accwatch-run", "-x", "cmd", NULL};
	char *grouped[] = {"accwatch-run", "-qz", "cmd", NULL};
	char *prefix[] = {"accwatch-run", "--out", "dir", "cmd", NULL};
	struct accwatch_run_options options;
	struct accwatch_run_args_error error;
	char line[256];

	cr_assert_eq(parse(ARGC(long_opt), long_opt, &options, &error),
		     ACCWATCH_RUN_ARGS_UNKNOWN_OPTION);
	cr_assert_str_eq(error.culprit, "--frobnicate");
	accwatch_run_args_describe(ACCWATCH_RUN_ARGS_UNKNOWN_OPTION, &error,
				   line, sizeof(line));
	cr_assert_str_eq(line, "unknown option '--frobnicate'");

	cr_assert_eq(parse(ARGC(short_opt), short_opt, &options, &error),
		     ACCWATCH_RUN_ARGS_UNKNOWN_OPTION);
	cr_assert_str_eq(error.culprit, "-x");
	cr_assert_eq(parse(ARGC(grouped), grouped, &options, &error),
		     ACCWATCH_RUN_ARGS_UNKNOWN_OPTION);
	cr_assert_str_eq(error.culprit, "-z");
	cr_assert_eq(parse(ARGC(prefix), prefix, &options, &error),
		     ACCWATCH_RUN_ARGS_UNKNOWN_OPTION, "no abbreviations");
}

Test(run_args, missing_and_unexpected_values)
{
	char *short_end[] = {"accwatch-run", "-o", NULL};
	char *long_end[] = {"accwatch-run", "--subbuf-size", NULL};
	char *flag_value[] = {"accwatch-run", "--force=yes", "cmd", NULL};
	char *empty_dir[] = {"accwatch-run", "--output=", "cmd", NULL};
	struct accwatch_run_options options;
	struct accwatch_run_args_error error;

	cr_assert_eq(parse(ARGC(short_end), short_end, &options, &error),
		     ACCWATCH_RUN_ARGS_MISSING_VALUE);
	cr_assert_str_eq(error.culprit, "-o");
	cr_assert_eq(parse(ARGC(long_end), long_end, &options, &error),
		     ACCWATCH_RUN_ARGS_MISSING_VALUE);
	cr_assert_str_eq(error.culprit, "--subbuf-size");
	cr_assert_eq(parse(ARGC(flag_value), flag_value, &options, &error),
		     ACCWATCH_RUN_ARGS_UNEXPECTED_VALUE);
	cr_assert_str_eq(error.culprit, "--force");
	cr_assert_eq(parse(ARGC(empty_dir), empty_dir, &options, &error),
		     ACCWATCH_RUN_ARGS_EMPTY_OUTPUT);
}

Test(run_args, value_may_look_like_an_option)
{
	char *argv[] = {"accwatch-run", "-o", "--weird-dir", "cmd", NULL};
	struct accwatch_run_options options;
	struct accwatch_run_args_error error;

	cr_assert_eq(parse(ARGC(argv), argv, &options, &error),
		     ACCWATCH_RUN_ARGS_OK);
	cr_assert_str_eq(options.output_dir, "--weird-dir");
}

Test(run_args, help_and_version)
{
	char *help[] = {"accwatch-run", "--help", NULL};
	char *help_short[] = {"accwatch-run", "-h", "cmd", NULL};
	char *version[] = {"accwatch-run", "--version", NULL};
	char *version_short[] = {"accwatch-run", "-V", NULL};
	char *after_command[] = {"accwatch-run", "cmd", "--help", NULL};
	struct accwatch_run_options options;
	struct accwatch_run_args_error error;

	cr_assert_eq(parse(ARGC(help), help, &options, &error),
		     ACCWATCH_RUN_ARGS_HELP);
	cr_assert_eq(parse(ARGC(help_short), help_short, &options, &error),
		     ACCWATCH_RUN_ARGS_HELP);
	cr_assert_eq(parse(ARGC(version), version, &options, &error),
		     ACCWATCH_RUN_ARGS_VERSION);
	cr_assert_eq(
	    parse(ARGC(version_short), version_short, &options, &error),
	    ACCWATCH_RUN_ARGS_VERSION);
	cr_assert_eq(
	    parse(ARGC(after_command), after_command, &options, &error),
	    ACCWATCH_RUN_ARGS_OK, "--help after the command is the command's");
}

Test(run_args, usage_names_every_option)
{
	const char *expected[] = {
	    "-o, --output",   "-f, --force",   "--discard",
	    "--subbuf-size",  "--num-subbuf",  "--stall-timeout",
	    "--buffers-uid",  "--buffers-pid", "-q, --quiet",
	    "-h, --help",     "-V, --version", "ACCWATCH_PRELOAD",
	    "accwatch-report"};
	char *text = NULL;
	size_t size = 0;
	FILE *out = open_memstream(&text, &size);

	cr_assert_not_null(out);
	accwatch_run_args_usage(out);
	fclose(out);
	for (size_t i = 0; i < sizeof(expected) / sizeof(expected[0]); i++)
		cr_assert(strstr(text, expected[i]), "usage lacks %s",
			  expected[i]);
	free(text);
}

Test(run_args, relayd_and_run_id)
{
	char *argv[] = {"accwatch-run", "--relayd", "collector:5342:5343",
			"--run-id",     "job-42",   "torchrun",
			"x.py",         NULL};
	char *both[] = {"accwatch-run", "--relayd", "c", "-o", "t", "x", NULL};
	char *bad[] = {"accwatch-run", "--relayd", "a/b", "x", NULL};
	char *port[] = {"accwatch-run", "--relayd", "c:70000", "x", NULL};
	char *empty[] = {"accwatch-run", "--run-id=", "x", NULL};
	char *zero[] = {"accwatch-run", "--run-id", "0", "x", NULL};
	struct accwatch_run_options options;
	struct accwatch_run_args_error error;

	cr_assert_eq(parse(ARGC(argv), argv, &options, &error),
		     ACCWATCH_RUN_ARGS_OK);
	cr_assert_str_eq(options.relayd, "collector:5342:5343");
	cr_assert_str_eq(options.run_id, "job-42");
	cr_assert_eq(parse(ARGC(both), both, &options, &error),
		     ACCWATCH_RUN_ARGS_RELAYD_AND_OUTPUT);
	cr_assert_eq(parse(ARGC(bad), bad, &options, &error),
		     ACCWATCH_RUN_ARGS_BAD_RELAYD);
	cr_assert_str_eq(error.culprit, "a/b");
	cr_assert_eq(parse(ARGC(port), port, &options, &error),
		     ACCWATCH_RUN_ARGS_BAD_RELAYD);
	cr_assert_eq(parse(ARGC(empty), empty, &options, &error),
		     ACCWATCH_RUN_ARGS_BAD_RUN_ID);
	cr_assert_eq(parse(ARGC(zero), zero, &options, &error),
		     ACCWATCH_RUN_ARGS_BAD_RUN_ID);
}

Test(run_args, relayd_url)
{
	char url[64];

	cr_assert(accwatch_run_args_relayd_url("10.0.0.1", url, sizeof(url)));
	cr_assert_str_eq(url, "net://10.0.0.1");
	cr_assert(
	    accwatch_run_args_relayd_url("[fd00::1]:5342", url, sizeof(url)));
	cr_assert_str_eq(url, "net6://[fd00::1]:5342");
	cr_assert_not(accwatch_run_args_relayd_url("h:1:2:3", url, 64));
	cr_assert_not(accwatch_run_args_relayd_url("[]", url, 64));
	cr_assert_not(accwatch_run_args_relayd_url(":5342", url, 64));
	cr_assert_str_eq(url, "");
}

Test(run_args, run_id_from_number_or_word)
{
	uint32_t a = 0, b = 0;

	cr_assert(accwatch_run_id_of_word("4294967295", &a));
	cr_assert_eq(a, 4294967295u);
	cr_assert_not(accwatch_run_id_of_word("4294967296", &a));
	cr_assert_not(accwatch_run_id_of_word("-x", &a));
	cr_assert(accwatch_run_id_of_word("0", &a));
	cr_assert_eq(a, 0);
	cr_assert(accwatch_run_id_of_word("job-42", &a));
	cr_assert(accwatch_run_id_of_word("job-42", &b));
	cr_assert_eq(a, b);
	cr_assert(accwatch_run_id_of_word("job-43", &b));
	cr_assert_neq(a, b);
	cr_assert_not(accwatch_run_id_of_word("", &a));
}

Test(run_args, rendezvous_id_of_the_command)
{
	char *apart[] = {"torchrun", "--nnodes", "2", "--rdzv-id",
			 "j7",       "t.py",     NULL};
	char *joined[] = {"torchrun", "--rdzv_id=j8", "t.py", NULL};
	char *none[] = {"torchrun", "--rdzv-id", "none", "t.py", NULL};
	char *after[] = {"torchrun", "t.py", "--", "--rdzv-id", "x", NULL};

	cr_assert_str_eq(accwatch_run_args_rdzv_id(apart, NULL), "j7");
	cr_assert_str_eq(accwatch_run_args_rdzv_id(joined, "env"), "j8");
	cr_assert_null(accwatch_run_args_rdzv_id(none, NULL));
	cr_assert_str_eq(accwatch_run_args_rdzv_id(after, "env"), "env");
	cr_assert_null(accwatch_run_args_rdzv_id(after, "none"));
}
