/* SPDX-License-Identifier: MIT */
/* accwatch-report's command line: options, usage text and exit status. */
#ifndef AW_CLI_H
#define AW_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "formats.h"
#include "query.h"
#include "suppress.h"

enum aw_fail_on {
	AW_FAIL_ON_ERROR,
	AW_FAIL_ON_WARNING,
};

/* Exit statuses of accwatch-report. */
enum aw_exit {
	AW_EXIT_CLEAN =
	    0, /* no error found (or no warning with --fail-on warning) */
	AW_EXIT_FINDINGS =
	    1, /* errors found (or warnings with --fail-on warning) */
	AW_EXIT_USAGE =
	    2, /* bad arguments, unreadable trace, no accwatch events */
	AW_EXIT_NOTHING =
	    3, /* nothing to judge: no process iterated a loader */
};

struct aw_options {
	enum aw_format format;
	enum aw_fail_on fail_on;
	const char *output; /* NULL: stdout */
	const char **paths; /* borrowed from argv; owned array */
	size_t n_paths;
	bool help, version;
	/* --sample, --rank with --epoch, --loader (borrowed from argv). */
	struct aw_query query;
	bool rank_given, epoch_given;
	/* --suppress FILE (again for more): their rules, read while parsing
	 * so that a bad line stops before any trace is read. */
	struct aw_suppressions suppressions;
	bool show_suppressed; /* --show-suppressed: print them (text) */
	/* --live URL (borrowed from argv), --fail-fast, --live-start. */
	const char *live;
	bool fail_fast;
	double live_start; /* Unix time, 0: when the reading starts */
};

enum aw_cli_status {
	AW_CLI_OK,
	AW_CLI_USAGE, /* message in the error buffer */
};

/* Parses argv; options and paths may be mixed, "--" ends the options.
 * Reads the suppression files --suppress names. Free with aw_options_fini
 * (also after an error). */
enum aw_cli_status aw_cli_parse(int argc, char **argv, struct aw_options *opts,
				char *error, size_t error_size);
void aw_options_fini(struct aw_options *opts);
void aw_cli_usage(FILE *out);
/* What --help says, the man page and the completion are made of. */
struct accwatch_doc;
const struct accwatch_doc *aw_cli_doc_get(void);
/* judged: some process iterated a loader (aw_model_judged). */
enum aw_exit aw_cli_exit_status(const struct aw_options *opts, size_t errors,
				size_t warnings, bool judged);

#endif
