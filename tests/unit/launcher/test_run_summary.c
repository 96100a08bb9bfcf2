/* SPDX-License-Identifier: MIT */
/* Unit tests of the closing message: where the trace is, the report command
 * ready to paste (shell-quoted), warnings that survive --quiet. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "run_summary.h"

static char *render(const struct accwatch_run_summary *summary)
{
	char *text = NULL;
	size_t size = 0;
	FILE *out = open_memstream(&text, &size);

	cr_assert_not_null(out);
	accwatch_run_summary_print(out, summary);
	fclose(out);
	return text;
}

Test(run_summary, where_and_next_command)
{
	struct accwatch_run_summary summary = {.trace_path = "/data/trace-1"};
	char *text = render(&summary);

	cr_assert_str_eq(text, "accwatch-run: trace written to /data/trace-1\n"
			       "  accwatch-report /data/trace-1\n");
	free(text);
}

Test(run_summary, quiet_prints_nothing)
{
	struct accwatch_run_summary summary = {.trace_path = "/data/t",
					       .quiet = true};
	char *text = render(&summary);

	cr_assert_str_eq(text, "");
	free(text);
}

Test(run_summary, discarded_events_warn_even_when_quiet)
{
	struct accwatch_run_summary summary = {.trace_path = "/t",
					       .quiet = true,
					       .discarded = 12,
					       .discard_mode = true};
	char *text = render(&summary);

	cr_assert(strstr(text, "warning: 12 events were discarded"), "%s",
		  text);
	cr_assert(strstr(text, "without --discard"), "%s", text);
	cr_assert_null(strstr(text, "accwatch-report"));
	free(text);
}

/* Without --discard nothing is dropped for want of space: only an event
 * larger than a sub-buffer is lost, and --discard is not the advice. */
Test(run_summary, events_lost_without_discard_name_the_sub_buffer)
{
	struct accwatch_run_summary summary = {
	    .trace_path = "/t", .discarded = 1, .subbuf_size = 65536};
	char *text = render(&summary);

	cr_assert(strstr(text, "warning: 1 events were lost"), "%s", text);
	cr_assert(strstr(text, "larger than a sub-buffer (65536 bytes"), "%s",
		  text);
	cr_assert_null(strstr(text, "--discard"), "%s", text);
	free(text);
}

Test(run_summary, empty_trace_says_so)
{
	struct accwatch_run_summary summary = {.trace_path = "/t",
					       .trace_empty = true};
	char *text = render(&summary);

	cr_assert(strstr(text, "nothing was recorded in /t"), "%s", text);
	cr_assert_null(strstr(text, "accwatch-report"));
	free(text);
}

Test(run_summary, path_needing_quotes)
{
	struct accwatch_run_summary summary = {.trace_path =
						   "/home/ann/my trace"};
	char *text = render(&summary);

	cr_assert(strstr(text, "  accwatch-report '/home/ann/my trace'\n"),
		  "%s", text);
	free(text);
}

Test(run_summary, shell_quote)
{
	char out[64];

	cr_assert(accwatch_run_shell_quote("/a/b-c_d.e", out, sizeof(out)));
	cr_assert_str_eq(out, "/a/b-c_d.e");
	cr_assert(accwatch_run_shell_quote("it's", out, sizeof(out)));
	cr_assert_str_eq(out, "'it'\\''s'");
	cr_assert(accwatch_run_shell_quote("$HOME", out, sizeof(out)));
	cr_assert_str_eq(out, "'$HOME'");
	cr_assert(accwatch_run_shell_quote("", out, sizeof(out)));
	cr_assert_str_eq(out, "''");
	cr_assert_not(accwatch_run_shell_quote("a b", out, 4));
	cr_assert_str_eq(out, "");
	cr_assert(accwatch_run_shell_quote("a b", out, 6));
	cr_assert_str_eq(out, "'a b'");
}

Test(run_summary, full_disk_warns_even_when_quiet)
{
	struct accwatch_run_summary summary = {.trace_path = "/small/t",
					       .disk_full = true,
					       .free_bytes = 4096,
					       .quiet = true};
	char *text = render(&summary);

	cr_assert(strstr(text, "warning: the filesystem of /small/t is full "
			       "(4 KiB free)"),
		  "%s", text);
	cr_assert(!strstr(text, "nothing was recorded"), "%s", text);
	free(text);
}

Test(run_summary, a_process_that_stopped_recording_is_named_even_when_quiet)
{
	struct accwatch_run_summary summary = {
	    .trace_path = "/t",
	    .stalled = 2,
	    .stalled_note = "pid=41 run=7 event=batch loader=3 iteration=1 "
			    "batch=952 stall_ms=10000",
	    .teardown_stuck = true,
	    .quiet = true};
	char *text = render(&summary);

	cr_assert(strstr(text, "2 processes stopped recording after an event "
			       "waited 10000 ms"),
		  "%s", text);
	cr_assert(strstr(text, "pid 41 at batch 952 of its loader 3, pass 1 "
			       "the first"),
		  "%s", text);
	cr_assert(strstr(text, "the trace in /t may be incomplete"), "%s",
		  text);
	free(text);
}
