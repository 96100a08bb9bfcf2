/* accwatch-report: reads the traces accwatch-run recorded, rebuilds what
 * every rank read, and reports the data-loading bugs it finds. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "answers.h"
#include "checks.h"
#include "cli.h"
#include "findings.h"
#include "model.h"
#include "reader.h"
#include "render.h"
#include "suppress.h"
#include "watch.h"
#include "runs.h"

#ifndef ACCWATCH_VERSION
#define ACCWATCH_VERSION "unknown"
#endif

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

	if (aw_reader_read(opts->paths, opts->n_paths, model, error,
			   sizeof(error)) != AW_READER_OK) {
		fprintf(stderr, "accwatch-report: %s\n", error);
		goto end;
	}
	if (aw_runs_check(model, error, sizeof(error)) != AW_RUNS_OK) {
		fprintf(stderr, "accwatch-report: %s\n", error);
		goto end;
	}
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

	out = opts->output ? fopen(opts->output, "w") : stdout;
	if (!out) {
		fprintf(stderr, "accwatch-report: cannot write %s: %s\n",
			opts->output, strerror(errno));
		goto end;
	}
	if (opts->format == AW_FORMAT_JSON) {
		if (aw_render_json(out, model, &findings, &watch) !=
		    AW_RENDER_OK)
			goto write_error;
	} else if (opts->format == AW_FORMAT_HTML) {
		if (aw_render_html(out, model, &findings, &watch,
				   ACCWATCH_VERSION) != AW_RENDER_OK)
			goto write_error;
	} else if (opts->format == AW_FORMAT_SARIF) {
		if (aw_render_sarif(out, model, &findings, &watch,
				    ACCWATCH_VERSION) != AW_RENDER_OK)
			goto write_error;
	} else {
		aw_render_text(out, model, &findings, &watch,
			       opts->show_suppressed);
	}
	if (fflush(out) != 0 || ferror(out))
		goto write_error;
	status = aw_cli_exit_status(
	    opts, aw_findings_count(&findings, AW_SEVERITY_ERROR),
	    aw_findings_count(&findings, AW_SEVERITY_WARNING));
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
	} else {
		status = aw_report(&opts);
	}
	aw_options_fini(&opts);
	return (int)status;
}
