/* SPDX-License-Identifier: MIT */
/* accwatch-report: reads the traces accwatch-run recorded, rebuilds what
 * every rank read, and reports the data-loading bugs it finds. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "answers.h"
#include "checks.h"
#include "cli.h"
#include "deadline.h"
#include "findings.h"
#include "live.h"
#include "model.h"
#include "progress.h"
#include "reader.h"
#include "render.h"
#include "suppress.h"
#include "util.h"
#include "watch.h"
#include "runs.h"

#ifndef ACCWATCH_VERSION
#define ACCWATCH_VERSION "unknown"
#endif

static double aw_seconds(void)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)now.tv_sec + (double)now.tv_nsec / 1e9;
}

static void aw_analysis_progress(void *context, const char *stage, size_t done,
				 size_t total)
{
	aw_progress_step(context, stage, done, total, aw_seconds());
}

/* The analysis after the reading is bounded too (ACCWATCH_REPORT_TIMEOUT):
 * a report that cannot end in time says so and stops, removing a
 * half-written report, rather than run on with no word. seconds < 0: the
 * report is written, the deadline cleared. */
static void aw_bound_analysis(long long seconds)
{
	if (seconds < 0) {
		aw_deadline_clear();
		return;
	}
	char *message = aw_xasprintf(
	    "\raccwatch-report: the analysis after the reading took more "
	    "than %lld s and was stopped (%s=SECONDS sets the limit, 0 "
	    "none); the trace is read, so a longer limit will do\033[K\n",
	    seconds, AW_ENV_READ_TIMEOUT);
	aw_deadline_set(seconds, message, AW_EXIT_USAGE);
	free(message);
}

/* Whether the report file `output` would land among the files of a trace
 * being read: in a directory holding its `metadata` (the metadata, its
 * stream files, which a later read would also take a new file for), or
 * the `index` directory beside them. Both are resolved, the output by its
 * directory (it may not exist yet). A file elsewhere under a trace
 * directory (trace/report.txt) is no file of the trace. */
static bool aw_output_in_trace(const struct aw_options *opts)
{
	char *slash = strrchr(opts->output, '/');
	char *dir = slash ? aw_xasprintf("%.*s", (int)(slash - opts->output),
					 opts->output)
			  : aw_xstrdup(".");
	char *real_dir = realpath(*dir ? dir : "/", NULL);
	free(dir);
	if (!real_dir)
		return false;
	char *output =
	    aw_xasprintf("%s/%s", strcmp(real_dir, "/") ? real_dir : "",
			 slash ? slash + 1 : opts->output);
	char *metadata = aw_xasprintf("%s/metadata", real_dir);
	char *indexed = aw_xasprintf("%s/../metadata", real_dir);
	const char *base = strrchr(real_dir, '/');
	bool harmful =
	    access(metadata, F_OK) == 0 ||
	    (base && strcmp(base, "/index") == 0 && access(indexed, F_OK) == 0);
	free(metadata);
	free(indexed);
	free(real_dir);
	if (!harmful) {
		free(output);
		return false;
	}
	bool inside = false;
	for (size_t i = 0; i < opts->n_paths && !inside; i++) {
		char *trace = realpath(opts->paths[i], NULL);
		size_t len = trace ? strlen(trace) : 0;
		inside = trace && strncmp(output, trace, len) == 0 &&
			 (output[len] == '\0' || output[len] == '/' ||
			  strcmp(trace, "/") == 0);
		free(trace);
	}
	free(output);
	return inside;
}

static enum aw_exit aw_report(const struct aw_options *opts)
{
	enum aw_exit status = AW_EXIT_USAGE;
	char error[1024] = "";
	struct aw_findings findings;
	struct aw_model *model = aw_model_create();
	struct aw_query_watch watch;
	FILE *out = NULL;
	aw_findings_init(&findings);
	aw_query_watch_init(&watch, &opts->query);
	aw_model_take_runs(model, &opts->query.runs);
	struct aw_model_observer observer = aw_query_watch_observer(&watch);
	aw_model_observe(model, &observer);

	if (opts->output && aw_output_in_trace(opts)) {
		fprintf(stderr,
			"accwatch-report: will not write the report to %s: it "
			"is among the files of a trace being read, which it "
			"would damage; write it elsewhere\n",
			opts->output);
		goto end;
	}
	if (aw_reader_read(opts->paths, opts->n_paths, model, error,
			   sizeof(error)) != AW_READER_OK) {
		fprintf(stderr, "accwatch-report: %s\n", error);
		goto end;
	}
	if (aw_runs_check(model, error, sizeof(error)) != AW_RUNS_OK) {
		fprintf(stderr, "accwatch-report: %s\n", error);
		goto end;
	}
	struct aw_progress progress;
	aw_progress_start_analysis(&progress, stderr, aw_seconds());
	model->progress = aw_analysis_progress;
	model->progress_context = &progress;
	aw_bound_analysis(aw_reader_timeout());
	if (model->stats.read_error)
		fprintf(stderr,
			"accwatch-report: warning: reading stopped early (%s); "
			"the report covers the events "
			"before that point\n",
			model->stats.read_error_message);
	aw_model_finish(model);
	if (opts->query.loader && !aw_answers_loaders_shown(model, &watch)) {
		fprintf(stderr,
			"accwatch-report: no loader '%s' in the trace: give "
			"an id of the report (L0 to L%zu) or a creation site "
			"(train.py:31)\n",
			opts->query.loader,
			model->n_loaders_global ? model->n_loaders_global - 1
						: 0);
		goto end;
	}
	aw_checks_run(model, &findings);
	aw_answers_filter_findings(model, &watch, &findings);
	aw_suppress_warn_unknown(model, stderr);
	aw_suppress_findings(model, &opts->suppressions, &findings);
	aw_progress_end(&progress);

	out = opts->output ? fopen(opts->output, "w") : stdout;
	aw_deadline_remove(opts->output);
	if (!out) {
		fprintf(stderr, "accwatch-report: cannot write %s: %s\n",
			opts->output, strerror(errno));
		goto end;
	}
	struct aw_render_request request = {.model = model,
					    .findings = &findings,
					    .watch = &watch,
					    .version = ACCWATCH_VERSION,
					    .show_suppressed =
						opts->show_suppressed};
	if (aw_render_as(opts->format, out, &request) != AW_RENDER_OK)
		goto write_error;
	if (fflush(out) != 0 || ferror(out))
		goto write_error;
	aw_bound_analysis(-1);
	status = aw_cli_exit_status(
	    opts, aw_findings_count(&findings, AW_SEVERITY_ERROR),
	    aw_findings_count(&findings, AW_SEVERITY_WARNING),
	    aw_model_judged(model));
	goto end;

write_error:
	fprintf(stderr, "accwatch-report: cannot write the report to %s: %s\n",
		opts->output ? opts->output : "stdout", strerror(errno));
	status = AW_EXIT_USAGE;
end:
	if (out && out != stdout && fclose(out) != 0 &&
	    status != AW_EXIT_USAGE) {
		fprintf(stderr, "accwatch-report: cannot write %s: %s\n",
			opts->output, strerror(errno));
		status = AW_EXIT_USAGE;
	}
	aw_findings_fini(&findings);
	aw_model_destroy(model);
	aw_query_watch_fini(&watch);
	return status;
}

/* --live: the findings of a session as it is recorded, printed on stdout
 * as they become certain; 1 when an error was printed. */
static enum aw_exit aw_report_live(const struct aw_options *opts)
{
	enum aw_exit status = AW_EXIT_USAGE;
	char error[1024] = "";
	struct aw_model *model = aw_model_create();
	struct aw_live live;
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	double start = opts->live_start > 0
			   ? opts->live_start
			   : (double)now.tv_sec + (double)now.tv_nsec / 1e9;
	aw_live_init(&live, stdout, start, opts->fail_fast,
		     &opts->suppressions);
	aw_model_take_runs(model, &opts->query.runs);
	if (aw_reader_read_live(opts->live, model, aw_live_tick, &live, error,
				sizeof(error)) != AW_READER_OK) {
		fprintf(stderr, "accwatch-report: %s\n", error);
		goto end;
	}
	/* The events of the last batch, if no tick came after them. */
	if (!(opts->fail_fast && live.errors))
		aw_live_tick(&live, model);
	status = live.errors ? AW_EXIT_FINDINGS : AW_EXIT_CLEAN;
end:
	aw_live_fini(&live);
	aw_model_destroy(model);
	return status;
}

int main(int argc, char **argv)
{
	struct aw_options opts;
	char error[1024];
	enum aw_exit status;
	if (aw_cli_parse(argc, argv, &opts, error, sizeof(error)) !=
	    AW_CLI_OK) {
		fprintf(stderr,
			"accwatch-report: %s\nTry 'accwatch-report --help'.\n",
			error);
		status = AW_EXIT_USAGE;
	} else if (opts.help) {
		aw_cli_usage(stdout);
		status = AW_EXIT_CLEAN;
	} else if (opts.version) {
		printf("accwatch-report %s\n", ACCWATCH_VERSION);
		status = AW_EXIT_CLEAN;
	} else if (opts.live) {
		status = aw_report_live(&opts);
	} else {
		status = aw_report(&opts);
	}
	aw_options_fini(&opts);
	return (int)status;
}
