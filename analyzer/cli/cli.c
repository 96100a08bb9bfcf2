/* SPDX-License-Identifier: MIT */
/* Command-line parsing without getopt's global state: a table of options,
 * each with a handler, so later ones (--sample, --rank, --epoch, --loader)
 * are one entry each. */
#include "cli.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "accwatch_common.h"
#include "accwatch_doc.h"
#include "accwatch_options.h"
#include "checks.h"
#include "util.h"

/* Returns false and fills error when the value is not acceptable. */
typedef bool (*aw_cli_apply_fn)(struct aw_options *opts, const char *value,
				char *error, size_t error_size);

static bool aw_cli_fail(char *error, size_t error_size, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(error, error_size, fmt, ap);
	va_end(ap);
	return false;
}

static bool aw_apply_format(struct aw_options *opts, const char *value,
			    char *error, size_t error_size)
{
	if (!aw_format_by_name(value, &opts->format))
		return aw_cli_fail(error, error_size,
				   "--format takes %s, not '%s'",
				   aw_format_choices(), value);
	return true;
}

static bool aw_apply_fail_on(struct aw_options *opts, const char *value,
			     char *error, size_t error_size)
{
	if (strcmp(value, "error") == 0)
		opts->fail_on = AW_FAIL_ON_ERROR;
	else if (strcmp(value, "warning") == 0)
		opts->fail_on = AW_FAIL_ON_WARNING;
	else
		return aw_cli_fail(error, error_size,
				   "--fail-on takes error or warning, not '%s'",
				   value);
	return true;
}

static bool aw_apply_output(struct aw_options *opts, const char *value,
			    char *error, size_t error_size)
{
	if (!*value)
		return aw_cli_fail(error, error_size, "-o needs a file name");
	opts->output = value;
	return true;
}

static bool aw_apply_help(struct aw_options *opts, const char *value,
			  char *error, size_t error_size)
{
	(void)value, (void)error, (void)error_size;
	opts->help = true;
	return true;
}

static bool aw_apply_version(struct aw_options *opts, const char *value,
			     char *error, size_t error_size)
{
	(void)value, (void)error, (void)error_size;
	opts->version = true;
	return true;
}

/* A whole number in [0, max]; false on anything else. */
static bool aw_parse_count(const char *value, uint64_t max, uint64_t *out)
{
	if (!*value || *value == '-' || *value == '+')
		return false;
	char *end;
	errno = 0;
	unsigned long long n = strtoull(value, &end, 10);
	if (errno || *end || n > max)
		return false;
	*out = n;
	return true;
}

static bool aw_apply_sample(struct aw_options *opts, const char *value,
			    char *error, size_t error_size)
{
	uint64_t n;
	if (!aw_parse_count(value, UINT32_MAX, &n))
		return aw_cli_fail(error, error_size,
				   "--sample takes a dataset index (0 to "
				   "%" PRIu32 "), not '%s'",
				   UINT32_MAX, value);
	opts->query.by_sample = true;
	opts->query.sample = (uint32_t)n;
	return true;
}

static bool aw_apply_rank(struct aw_options *opts, const char *value,
			  char *error, size_t error_size)
{
	uint64_t n;
	if (!aw_parse_count(value, INT32_MAX, &n))
		return aw_cli_fail(error, error_size,
				   "--rank takes a rank (0, 1, ...), not '%s'",
				   value);
	opts->query.rank = (int32_t)n;
	opts->rank_given = true;
	return true;
}

static bool aw_apply_epoch(struct aw_options *opts, const char *value,
			   char *error, size_t error_size)
{
	uint64_t n;
	if (!aw_parse_count(value, UINT32_MAX - 1, &n))
		return aw_cli_fail(error, error_size,
				   "--epoch takes an epoch (0, 1, ...), not "
				   "'%s'",
				   value);
	opts->query.epoch = (uint32_t)n;
	opts->epoch_given = true;
	return true;
}

static bool aw_apply_loader(struct aw_options *opts, const char *value,
			    char *error, size_t error_size)
{
	if (!*value)
		return aw_cli_fail(error, error_size,
				   "--loader takes a loader id (L0, L1, ...) "
				   "or its creation site (train.py:31)");
	opts->query.loader = value;
	return true;
}

/* --run ID (again for more) or --run all. */
static bool aw_apply_run(struct aw_options *opts, const char *value,
			 char *error, size_t error_size)
{
	uint32_t n;
	struct aw_run_choice *q = &opts->query.runs;
	if (strcmp(value, "all") == 0) {
		q->all = true;
		return true;
	}
	if (strcasecmp(value, "all") == 0 ||
	    !accwatch_run_id_of_word(value, &n))
		return aw_cli_fail(error, error_size,
				   "--run takes a run id (0 to %" PRIu32
				   ", or the word given to accwatch-run "
				   "--run-id, up to %d characters) or all, "
				   "not '%s'",
				   UINT32_MAX, ACCWATCH_RUN_WORD_MAX, value);
	if (aw_run_choice_names(q, n))
		return true;
	if (q->n_ids == AW_RUN_CHOICE_MAX)
		return aw_cli_fail(error, error_size,
				   "--run given more than %d times",
				   AW_RUN_CHOICE_MAX);
	q->ids[q->n_ids++] = n;
	return true;
}

static bool aw_apply_suppress(struct aw_options *opts, const char *value,
			      char *error, size_t error_size)
{
	if (!*value)
		return aw_cli_fail(error, error_size,
				   "--suppress needs a file name");
	return aw_suppressions_load(&opts->suppressions, value, error,
				    error_size) == AW_SUPPRESS_OK;
}

static bool aw_apply_show_suppressed(struct aw_options *opts, const char *value,
				     char *error, size_t error_size)
{
	(void)value, (void)error, (void)error_size;
	opts->show_suppressed = true;
	return true;
}

/* --live URL: a session on a relay daemon, read as it is recorded. */
static bool aw_apply_live(struct aw_options *opts, const char *value,
			  char *error, size_t error_size)
{
	if (strncmp(value, "net://", 6) != 0 &&
	    strncmp(value, "net6://", 7) != 0)
		return aw_cli_fail(error, error_size,
				   "--live takes the URL of a relay daemon, "
				   "net://HOST[:PORT], or of one live session, "
				   "net://HOST[:PORT]/host/HOSTNAME/SESSION, "
				   "not '%s'",
				   value);
	opts->live = value;
	return true;
}

static bool aw_apply_fail_fast(struct aw_options *opts, const char *value,
			       char *error, size_t error_size)
{
	(void)value, (void)error, (void)error_size;
	opts->fail_fast = true;
	return true;
}

/* --live-start SECONDS: the Unix time live times count from. */
static bool aw_apply_live_start(struct aw_options *opts, const char *value,
				char *error, size_t error_size)
{
	char *end = NULL;
	double start = strtod(value, &end);
	if (!*value || *end || !(start > 0))
		return aw_cli_fail(error, error_size,
				   "--live-start takes a Unix time in seconds, "
				   "not '%s'",
				   value);
	opts->live_start = start;
	return true;
}

enum aw_cli_option_id {
	AW_OPT_LIVE,
	AW_OPT_FAIL_FAST,
	AW_OPT_LIVE_START,
	AW_OPT_FORMAT,
	AW_OPT_SAMPLE,
	AW_OPT_RANK,
	AW_OPT_EPOCH,
	AW_OPT_LOADER,
	AW_OPT_RUN,
	AW_OPT_FAIL_ON,
	AW_OPT_SUPPRESS,
	AW_OPT_SHOW_SUPPRESSED,
	AW_OPT_OUTPUT,
	AW_OPT_HELP,
	AW_OPT_VERSION,
};

static const struct accwatch_option aw_cli_options[] = {
    {"format", 0, true, AW_OPT_FORMAT, "FORMAT",
     "the report's format, one of those listed under Formats", AW_FORMAT_WORDS},
    {"fail-on", 0, true, AW_OPT_FAIL_ON, "error|warning",
     "exit 1 on errors (default), or on warnings too", "error warning"},
    {"output", 'o', true, AW_OPT_OUTPUT, "FILE",
     "write the report to FILE instead of stdout (never among the "
     "files of a trace being read)",
     "@file"},
    {"run", 0, true, AW_OPT_RUN, "ID|all",
     "the events of one recording only: its run id (traces holding "
     "several runs need it; the error lists them; 0: a session of your own "
     "without accwatch-run; or the word given to accwatch-run --run-id); "
     "again for more runs, `all` for every run together",
     "all"},
    {"loader", 0, true, AW_OPT_LOADER, "ID",
     "one loader only: its id (L1) or creation site (train.py:31)", NULL},
    {"sample", 0, true, AW_OPT_SAMPLE, "N",
     "which ranks and workers read sample N, in which epoch and batch", NULL},
    {"rank", 0, true, AW_OPT_RANK, "R",
     "with --epoch E: the indices rank R consumed in epoch E, in order", NULL},
    {"epoch", 0, true, AW_OPT_EPOCH, "E", "the epoch of --rank", NULL},
    {"suppress", 0, true, AW_OPT_SUPPRESS, "FILE",
     "the findings FILE says are intended: a line `ID [PATH[:LINE]]` each "
     "(PATH: the end of a loader's site; none: every finding of ID), `#` "
     "comments; again for more files",
     "@file"},
    {"show-suppressed", 0, false, AW_OPT_SHOW_SUPPRESSED, NULL,
     "print the suppressed findings too (text), marked", NULL},
    {"live", 0, true, AW_OPT_LIVE, "URL",
     "while a session is recorded, print each finding the moment it is "
     "certain, one line each (errors and warnings); URL: "
     "net://HOST[:PORT]/host/HOSTNAME/SESSION of a lttng-relayd's live "
     "port, or net://HOST[:PORT]: every accwatch-run session it has (the "
     "nodes of a job; --run ID keeps one run); ends with the sessions",
     NULL},
    {"fail-fast", 0, false, AW_OPT_FAIL_FAST, NULL,
     "with --live: stop at the first error (exit 1)", NULL},
    {"live-start", 0, true, AW_OPT_LIVE_START, "T",
     "with --live: count the times from Unix time T", NULL},
    {"help", 'h', false, AW_OPT_HELP, NULL, "show this help", NULL},
    {"version", 'V', false, AW_OPT_VERSION, NULL, "show the version", NULL},
};

static const aw_cli_apply_fn aw_cli_apply[] = {
    [AW_OPT_LIVE] = aw_apply_live,
    [AW_OPT_FAIL_FAST] = aw_apply_fail_fast,
    [AW_OPT_LIVE_START] = aw_apply_live_start,
    [AW_OPT_FORMAT] = aw_apply_format,
    [AW_OPT_SAMPLE] = aw_apply_sample,
    [AW_OPT_RANK] = aw_apply_rank,
    [AW_OPT_EPOCH] = aw_apply_epoch,
    [AW_OPT_LOADER] = aw_apply_loader,
    [AW_OPT_RUN] = aw_apply_run,
    [AW_OPT_FAIL_ON] = aw_apply_fail_on,
    [AW_OPT_SUPPRESS] = aw_apply_suppress,
    [AW_OPT_SHOW_SUPPRESSED] = aw_apply_show_suppressed,
    [AW_OPT_OUTPUT] = aw_apply_output,
    [AW_OPT_HELP] = aw_apply_help,
    [AW_OPT_VERSION] = aw_apply_version,
};

#define AW_N_CLI_OPTIONS (sizeof(aw_cli_options) / sizeof(aw_cli_options[0]))

/* The finding ids for troff: one line, left-adjusted, none hyphenated. */
static void aw_cli_print_man_ids(FILE *out)
{
	const char *id;
	fputs(".ad l\n", out);
	for (size_t i = 0; (id = aw_checks_finding_id(i)); i++) {
		fputs(i ? ", \\%" : "\\%", out);
		for (const char *c = id; *c; c++) {
			if (*c == '-')
				fputs("\\-", out);
			else
				fputc(*c, out);
		}
	}
	fputs("\n.ad\n", out);
}

/* The finding ids of the checks' table, comma-separated: for a terminal
 * indented, in lines of at most 78 columns; or for troff. */
static void aw_cli_print_ids(FILE *out, bool man)
{
	const char *id, *next;
	size_t column = 0;
	if (man) {
		aw_cli_print_man_ids(out);
		return;
	}
	for (size_t i = 0; (id = aw_checks_finding_id(i)); i++) {
		next = aw_checks_finding_id(i + 1);
		size_t width = strlen(id) + (next ? 1 : 0); /* its comma */
		if (column && column + 1 + width > 78) {
			fputc('\n', out);
			column = 0;
		}
		fprintf(out, "%s%s%s", column ? " " : "  ", id,
			next ? "," : "\n");
		column += (column ? 1 : 2) + width;
	}
}

static const struct accwatch_doc_item aw_cli_doc_environment[] = {
    {"ACCWATCH_REPORT_TIMEOUT=S",
     "give up when the decoder is silent for S s, or the analysis after it "
     "takes more than S s (default 60, 1-86400, 0: never)"},
    {"ACCWATCH_REPORT_MEMORY=MIB",
     "the decoder's memory limit (default 4096, >= 64, 0: none)"},
    {"ACCWATCH_REPORT_NO_METADATA_CHECK=1", "skip the metadata framing check"},
};

static const struct accwatch_doc_section aw_cli_doc_sections[] = {
    {"Formats", "--format takes:", NULL, 0, aw_format_list},
    {"Environment", "babeltrace2 decodes the trace in a child process.",
     aw_cli_doc_environment,
     sizeof(aw_cli_doc_environment) / sizeof(aw_cli_doc_environment[0]), NULL},
    {"Suppressed findings",
     "Findings marked intended (`# accwatch: allow ID[, ID...]` on the line "
     "that builds the loader or in the comment lines right above it, or "
     "--suppress) are counted apart and set no exit status.\n\n"
     "Finding ids:",
     NULL, 0, aw_cli_print_ids},
    {"Exit status",
     "0 no error found, 1 errors found, 2 usage error, no readable trace, "
     "or a trace of several runs without --run, 3 nothing to judge (no "
     "process iterated a DataLoader: the report says how the processes "
     "ended).",
     NULL, 0, NULL},
    {"Example",
     "  accwatch-run -o trace -- torchrun --nproc-per-node 4 train.py\n"
     "  accwatch-report trace\n"
     "  accwatch-report --format html -o report.html trace",
     NULL, 0, NULL},
};

static const struct accwatch_doc aw_cli_doc = {
    .name = "accwatch-report",
    .summary = "find the data-loading bugs in traces of accwatch-run",
    .synopsis = "[--format FORMAT] [--fail-on error|warning] "
		"[-o FILE] [--run ID|all] [--loader ID] [--sample N] "
		"[--rank R --epoch E] [--suppress FILE] [--show-suppressed] "
		"PATH... | --live URL [--fail-fast] [--live-start T]",
    .description =
	"Reads the LTTng traces that accwatch-run recorded under each PATH "
	"(every directory holding a CTF `metadata` file, searched "
	"recursively; several paths, e.g. one per node, make one analysis) "
	"and reports the data-loading bugs it finds: unsharded or overlapping "
	"ranks, missing samples, uneven batches, stale len(), loaders "
	"prepare() returned but nobody iterated, the same order every epoch, "
	"forks with threads or CUDA, workers re-forked, dead or stuck in "
	"__getitem__, ranks that died mid-epoch, replicated "
	"IterableDatasets, indices out of range, holes in the trace.\n\n"
	"Options and paths may be mixed; all after -- are paths.",
    .options = aw_cli_options,
    .n_options = sizeof(aw_cli_options) / sizeof(aw_cli_options[0]),
    .sections = aw_cli_doc_sections,
    .n_sections = sizeof(aw_cli_doc_sections) / sizeof(aw_cli_doc_sections[0]),
    .operands = ACCWATCH_DOC_OPERANDS_DIRECTORIES,
    .see_also = "accwatch-run(1), babeltrace2(1), lttng-relayd(8)",
};

const struct accwatch_doc *aw_cli_doc_get(void)
{
	return &aw_cli_doc;
}

void aw_cli_usage(FILE *out)
{
	accwatch_doc_help(out, &aw_cli_doc);
}

/* One option found by the scanner, or its error. */
static bool aw_cli_option(enum accwatch_option_status status,
			  const struct accwatch_option_scan *scan,
			  const struct accwatch_option *option,
			  const char *value, struct aw_options *opts,
			  char *error, size_t error_size)
{
	switch (status) {
	case ACCWATCH_OPTION_FOUND:
		return aw_cli_apply[option->id](opts, value ? value : "", error,
						error_size);
	case ACCWATCH_OPTION_VALUE_NOT_TAKEN:
		return aw_cli_fail(error, error_size, "%s takes no value",
				   scan->written);
	case ACCWATCH_OPTION_MISSING_VALUE:
		return aw_cli_fail(error, error_size, "%s needs a value",
				   scan->written);
	default:
		return aw_cli_fail(error, error_size, "unknown option '%s'",
				   scan->written);
	}
}

enum aw_cli_status aw_cli_parse(int argc, char **argv, struct aw_options *opts,
				char *error, size_t error_size)
{
	memset(opts, 0, sizeof(*opts));
	opts->format = AW_FORMAT_TEXT;
	opts->fail_on = AW_FAIL_ON_ERROR;
	opts->paths = aw_xcalloc((size_t)AW_MAX(argc, 1), sizeof(*opts->paths));
	struct accwatch_option_scan scan;
	enum accwatch_option_status status;
	const struct accwatch_option *option;
	const char *value;
	accwatch_option_scan_init(&scan, argc, argv);
	/* Operands (the paths) may stand between options, and all after
	 * "--" are operands. */
	while ((status = accwatch_option_next(
		    &scan, aw_cli_options, AW_N_CLI_OPTIONS, &option,
		    &value)) != ACCWATCH_OPTION_DONE &&
	       status != ACCWATCH_OPTION_SEPARATOR) {
		if (status == ACCWATCH_OPTION_OPERAND)
			opts->paths[opts->n_paths++] = argv[scan.index++];
		else if (!aw_cli_option(status, &scan, option, value, opts,
					error, error_size))
			return AW_CLI_USAGE;
	}
	while (scan.index < argc)
		opts->paths[opts->n_paths++] = argv[scan.index++];
	if (opts->rank_given != opts->epoch_given) {
		aw_cli_fail(error, error_size,
			    "%s needs %s too: the indices of one rank in one "
			    "epoch",
			    opts->rank_given ? "--rank" : "--epoch",
			    opts->rank_given ? "--epoch" : "--rank");
		return AW_CLI_USAGE;
	}
	opts->query.by_sequence = opts->rank_given && opts->epoch_given;
	if ((opts->fail_fast || opts->live_start > 0) && !opts->live) {
		aw_cli_fail(error, error_size, "%s goes with --live URL",
			    opts->fail_fast ? "--fail-fast" : "--live-start");
		return AW_CLI_USAGE;
	}
	if (opts->live && opts->n_paths) {
		aw_cli_fail(error, error_size,
			    "--live reads a session, not a trace directory: "
			    "give one or the other");
		return AW_CLI_USAGE;
	}
	if (!opts->help && !opts->version && opts->n_paths == 0 &&
	    !opts->live) {
		aw_cli_fail(error, error_size,
			    "no trace given: pass the directory accwatch-run "
			    "wrote (-o DIR)");
		return AW_CLI_USAGE;
	}
	return AW_CLI_OK;
}

void aw_options_fini(struct aw_options *opts)
{
	aw_suppressions_fini(&opts->suppressions);
	free(opts->paths);
	opts->paths = NULL;
	opts->n_paths = 0;
}

enum aw_exit aw_cli_exit_status(const struct aw_options *opts, size_t errors,
				size_t warnings, bool judged)
{
	if (errors || (opts->fail_on == AW_FAIL_ON_WARNING && warnings))
		return AW_EXIT_FINDINGS;
	return judged ? AW_EXIT_CLEAN : AW_EXIT_NOTHING;
}
