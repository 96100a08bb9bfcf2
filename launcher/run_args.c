/* SPDX-License-Identifier: MIT */
/* Command line of accwatch-run: a table of options, a parser that stops at
 * the command (first non-option or "--"), and the usage text. */
#include "run_args.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "accwatch_common.h"
#include "accwatch_doc.h"
#include "accwatch_options.h"
#include "run_log.h"

/* Longest --relayd value taken. */
#define ACCWATCH_RUN_RELAYD_MAX 256

enum accwatch_run_option_id {
	ACCWATCH_RUN_OPT_OUTPUT,
	ACCWATCH_RUN_OPT_FORCE,
	ACCWATCH_RUN_OPT_DISCARD,
	ACCWATCH_RUN_OPT_SUBBUF_SIZE,
	ACCWATCH_RUN_OPT_NUM_SUBBUF,
	ACCWATCH_RUN_OPT_STALL_TIMEOUT,
	ACCWATCH_RUN_OPT_BUFFERS_UID,
	ACCWATCH_RUN_OPT_BUFFERS_PID,
	ACCWATCH_RUN_OPT_QUIET,
	ACCWATCH_RUN_OPT_IF_UNRECORDABLE,
	ACCWATCH_RUN_OPT_RELAYD,
	ACCWATCH_RUN_OPT_RUN_ID,
	ACCWATCH_RUN_OPT_LIVE,
	ACCWATCH_RUN_OPT_FAIL_FAST,
	ACCWATCH_RUN_OPT_HELP,
	ACCWATCH_RUN_OPT_VERSION,
};

static const struct accwatch_option accwatch_run_option_table[] = {
    {"output", 'o', true, ACCWATCH_RUN_OPT_OUTPUT, "DIR",
     "write the trace into DIR (created mode 0700); default "
     "./accwatch-trace-YYYYmmdd-HHMMSS",
     "@dir"},
    {"force", 'f', false, ACCWATCH_RUN_OPT_FORCE, NULL,
     "write into DIR even if it is not empty", NULL},
    {"discard", 0, false, ACCWATCH_RUN_OPT_DISCARD, NULL,
     "drop events when the buffers are full instead of making the program "
     "wait (faster, may lose data)",
     NULL},
    {"subbuf-size", 0, true, ACCWATCH_RUN_OPT_SUBBUF_SIZE, "SIZE",
     "size of one sub-buffer, a power of two with an optional k/M/G suffix "
     "(default 2M when 8 x 2M per CPU fit in an eighth of the free /dev/shm, "
     "else 1M)",
     "256k 512k 1M 2M 4M"},
    {"num-subbuf", 0, true, ACCWATCH_RUN_OPT_NUM_SUBBUF, "N",
     "sub-buffers per buffer, a power of two (default 8 with a 2M "
     "--subbuf-size chosen as above, else 4)",
     "2 4 8 16"},
    {"stall-timeout", 0, true, ACCWATCH_RUN_OPT_STALL_TIMEOUT, "SECONDS",
     "when the buffers stay full this long (the trace's consumer stopped, "
     "its disk stalled or it died), a process stops recording and runs on "
     "at full speed; its counts are then lower bounds (default 10, 0: wait "
     "as long as it takes)",
     NULL},
    {"buffers-uid", 0, false, ACCWATCH_RUN_OPT_BUFFERS_UID, NULL,
     "one buffer set per user (default)", NULL},
    {"buffers-pid", 0, false, ACCWATCH_RUN_OPT_BUFFERS_PID, NULL,
     "one buffer set per process", NULL},
    {"quiet", 'q', false, ACCWATCH_RUN_OPT_QUIET, NULL,
     "do not say where the trace was written", NULL},
    {"if-unrecordable", 0, true, ACCWATCH_RUN_OPT_IF_UNRECORDABLE, "fail|run",
     "when recording cannot work (/dev/shm full or read-only, no usable "
     "LTTNG_HOME/HOME for the session daemon), say why and exit 122 "
     "without starting COMMAND (fail, the default), or run it unrecorded "
     "(run)",
     "fail run"},
    {"relayd", 0, true, ACCWATCH_RUN_OPT_RELAYD, "HOST[:CTRL_PORT[:DATA_PORT]]",
     "stream the trace to the lttng-relayd of a collector (a live session: "
     "accwatch-report reads it there, under the relayd's -o, a directory "
     "per host)",
     "@hostname"},
    {"run-id", 0, true, ACCWATCH_RUN_OPT_RUN_ID, "ID",
     "the run id of this recording: give every node of one job the same "
     "(default with --relayd: torchrun's --rdzv-id or PET_RDZV_ID when the "
     "command has one, else a random one)",
     NULL},
    {"live", 0, false, ACCWATCH_RUN_OPT_LIVE, NULL,
     "while COMMAND runs, print each finding on stderr the moment it is "
     "certain (seconds since the start, id, loader and site, epoch, ranks); "
     "the trace goes through a lttng-relayd on loopback, private to this "
     "user, into DIR",
     NULL},
    {"fail-fast", 0, false, ACCWATCH_RUN_OPT_FAIL_FAST, NULL,
     "--live, and stop COMMAND at the first error as Ctrl-C does (SIGINT, "
     "SIGTERM after 10 s, SIGKILL 10 s later, to its process group), exit "
     "123",
     NULL},
    {"help", 'h', false, ACCWATCH_RUN_OPT_HELP, NULL, "show this help and exit",
     NULL},
    {"version", 'V', false, ACCWATCH_RUN_OPT_VERSION, NULL,
     "show the version and exit", NULL},
};

#define ACCWATCH_RUN_OPTION_COUNT                                              \
	(sizeof(accwatch_run_option_table) /                                   \
	 sizeof(accwatch_run_option_table[0]))

static void accwatch_run_args_set_culprit(struct accwatch_run_args_error *error,
					  const char *text, size_t len)
{
	if (len >= sizeof(error->culprit))
		len = sizeof(error->culprit) - 1;
	memcpy(error->culprit, text, len);
	error->culprit[len] = '\0';
}

enum accwatch_run_size_status
accwatch_run_parse_size(const char *text, uint64_t min, uint64_t *value)
{
	uint64_t number = 0;
	unsigned int shift = 0;
	const char *p = text;

	if (*p < '0' || *p > '9')
		return ACCWATCH_RUN_SIZE_SYNTAX;
	for (; *p >= '0' && *p <= '9'; p++) {
		unsigned int digit = (unsigned int)(*p - '0');
		if (number > (UINT64_MAX - digit) / 10)
			return ACCWATCH_RUN_SIZE_OVERFLOW;
		number = number * 10 + digit;
	}
	switch (*p) {
	case '\0':
		break;
	case 'k':
	case 'K':
		shift = 10;
		break;
	case 'm':
	case 'M':
		shift = 20;
		break;
	case 'g':
	case 'G':
		shift = 30;
		break;
	default:
		return ACCWATCH_RUN_SIZE_SYNTAX;
	}
	if (*p != '\0' && p[1] != '\0')
		return ACCWATCH_RUN_SIZE_SYNTAX;
	if (shift && number > (UINT64_MAX >> shift))
		return ACCWATCH_RUN_SIZE_OVERFLOW;
	number <<= shift;
	if (number == 0 || (number & (number - 1)) != 0)
		return ACCWATCH_RUN_SIZE_NOT_POWER_OF_2;
	if (number < min)
		return ACCWATCH_RUN_SIZE_TOO_SMALL;
	*value = number;
	return ACCWATCH_RUN_SIZE_OK;
}

int64_t accwatch_run_buffers_bytes(long cpus, uint64_t num_subbuf,
				   uint64_t subbuf_size, long page)
{
	int64_t per_cpu = (int64_t)((num_subbuf + 1) * subbuf_size) +
			  ACCWATCH_RUN_STREAM_PAGES * (int64_t)page;

	return per_cpu * cpus + ACCWATCH_RUN_SESSION_PAGES * (int64_t)page;
}

bool accwatch_run_buffers_grow(struct accwatch_run_options *options, long cpus,
			       int64_t free_bytes, long page)
{
	int64_t needed =
	    accwatch_run_buffers_bytes(cpus, ACCWATCH_RUN_BURST_NUM_SUBBUF,
				       ACCWATCH_RUN_BURST_SUBBUF_SIZE, page);

	if (options->sizes_given ||
	    options->buffers != ACCWATCH_RUN_BUFFERS_PER_UID ||
	    free_bytes < 0 ||
	    free_bytes / ACCWATCH_RUN_BURST_SHM_SHARE < needed)
		return false;
	options->subbuf_size = ACCWATCH_RUN_BURST_SUBBUF_SIZE;
	options->num_subbuf = ACCWATCH_RUN_BURST_NUM_SUBBUF;
	return true;
}

/* A power-of-two size option; `bad` is the status when it is not one. */
static enum accwatch_run_args_status
accwatch_run_args_size(const char *value, uint64_t min, uint64_t *size,
		       struct accwatch_run_args_error *error,
		       enum accwatch_run_args_status bad)
{
	enum accwatch_run_size_status status =
	    accwatch_run_parse_size(value, min, size);

	if (status == ACCWATCH_RUN_SIZE_OK)
		return ACCWATCH_RUN_ARGS_OK;
	accwatch_run_args_set_culprit(error, value, strlen(value));
	error->size_status = status;
	return bad;
}

/* --stall-timeout: whole seconds, 0 to ACCWATCH_RUN_MAX_STALL_SECONDS. */
static enum accwatch_run_args_status
accwatch_run_args_seconds(const char *value, uint32_t *seconds,
			  struct accwatch_run_args_error *error)
{
	uint64_t parsed = 0;
	size_t i = 0;

	for (; value[i] >= '0' && value[i] <= '9' && i < 8; i++)
		parsed = parsed * 10 + (uint64_t)(value[i] - '0');
	if (i > 0 && value[i] == '\0' &&
	    parsed <= ACCWATCH_RUN_MAX_STALL_SECONDS) {
		*seconds = (uint32_t)parsed;
		return ACCWATCH_RUN_ARGS_OK;
	}
	accwatch_run_args_set_culprit(error, value, strlen(value));
	return ACCWATCH_RUN_ARGS_BAD_STALL;
}

/* value when it names a rendezvous (not empty, not torchrun's "none"). */
static const char *accwatch_run_args_named(const char *value)
{
	return value && value[0] && strcmp(value, "none") != 0 ? value : NULL;
}

const char *accwatch_run_args_rdzv_id(char *const command[],
				      const char *env_value)
{
	static const char *const names[] = {"--rdzv-id", "--rdzv_id"};

	for (size_t i = 0; command[i]; i++) {
		if (strcmp(command[i], "--") == 0)
			break;
		for (size_t n = 0; n < 2; n++) {
			size_t len = strlen(names[n]);

			if (strcmp(command[i], names[n]) == 0 && command[i + 1])
				return accwatch_run_args_named(command[i + 1]);
			if (strncmp(command[i], names[n], len) == 0 &&
			    command[i][len] == '=')
				return accwatch_run_args_named(command[i] +
							       len + 1);
		}
	}
	return accwatch_run_args_named(env_value);
}

/* HOST (a name or IPv4 address) or [IPv6], then up to two :PORT. */
static bool accwatch_run_args_relayd_ok(const char *value)
{
	const char *p = value;
	int ports = 0;

	if (value[0] == '[') {
		p = strchr(value, ']');
		if (!p || p == value + 1)
			return false;
		for (const char *q = value + 1; q < p; q++)
			if (!strchr("0123456789abcdefABCDEF:.", *q))
				return false;
		p++;
	} else {
		for (; *p && *p != ':'; p++)
			if (!((*p >= 'a' && *p <= 'z') ||
			      (*p >= 'A' && *p <= 'Z') ||
			      (*p >= '0' && *p <= '9') || *p == '.' ||
			      *p == '-'))
				return false;
		if (p == value)
			return false;
	}
	while (*p == ':' && ports < 2) {
		unsigned long port = 0;
		int digits = 0;

		for (p++; *p >= '0' && *p <= '9' && digits < 6; p++, digits++)
			port = port * 10 + (unsigned long)(*p - '0');
		if (!digits || port == 0 || port > 65535)
			return false;
		ports++;
	}
	return *p == '\0';
}

bool accwatch_run_args_relayd_url(const char *value, char *url, size_t url_len)
{
	int length;

	url[0] = '\0';
	if (strlen(value) > ACCWATCH_RUN_RELAYD_MAX ||
	    !accwatch_run_args_relayd_ok(value))
		return false;
	length = snprintf(url, url_len, "%s://%s",
			  value[0] == '[' ? "net6" : "net", value);
	if (length < 0 || (size_t)length >= url_len) {
		url[0] = '\0';
		return false;
	}
	return true;
}

static enum accwatch_run_args_status
accwatch_run_args_relayd(const char *value,
			 struct accwatch_run_options *options,
			 struct accwatch_run_args_error *error)
{
	char url[ACCWATCH_RUN_RELAYD_MAX + 16];

	if (!accwatch_run_args_relayd_url(value, url, sizeof(url))) {
		accwatch_run_args_set_culprit(error, value, strlen(value));
		return ACCWATCH_RUN_ARGS_BAD_RELAYD;
	}
	options->relayd = value;
	return ACCWATCH_RUN_ARGS_OK;
}

static enum accwatch_run_args_status
accwatch_run_args_take_run_id(const char *value,
			      struct accwatch_run_options *options,
			      struct accwatch_run_args_error *error)
{
	uint32_t id;

	if (!accwatch_run_id_of_word(value, &id) || id == 0) {
		accwatch_run_args_set_culprit(error, value, strlen(value));
		return ACCWATCH_RUN_ARGS_BAD_RUN_ID;
	}
	options->run_id = value;
	return ACCWATCH_RUN_ARGS_OK;
}

/* Applies one recognised option; value is NULL for flags. */
static enum accwatch_run_args_status
accwatch_run_args_apply(const struct accwatch_option *option, const char *value,
			struct accwatch_run_options *options,
			struct accwatch_run_args_error *error)
{
	switch (option->id) {
	case ACCWATCH_RUN_OPT_OUTPUT:
		if (value[0] == '\0')
			return ACCWATCH_RUN_ARGS_EMPTY_OUTPUT;
		options->output_dir = value;
		break;
	case ACCWATCH_RUN_OPT_FORCE:
		options->force = true;
		break;
	case ACCWATCH_RUN_OPT_DISCARD:
		options->discard = true;
		break;
	case ACCWATCH_RUN_OPT_SUBBUF_SIZE:
		options->sizes_given = true;
		return accwatch_run_args_size(
		    value, ACCWATCH_RUN_MIN_SUBBUF_SIZE, &options->subbuf_size,
		    error, ACCWATCH_RUN_ARGS_BAD_SIZE);
	case ACCWATCH_RUN_OPT_NUM_SUBBUF:
		options->sizes_given = true;
		return accwatch_run_args_size(
		    value, ACCWATCH_RUN_MIN_NUM_SUBBUF, &options->num_subbuf,
		    error, ACCWATCH_RUN_ARGS_BAD_COUNT);
	case ACCWATCH_RUN_OPT_STALL_TIMEOUT:
		return accwatch_run_args_seconds(value, &options->stall_seconds,
						 error);
	case ACCWATCH_RUN_OPT_BUFFERS_UID:
		options->buffers = ACCWATCH_RUN_BUFFERS_PER_UID;
		break;
	case ACCWATCH_RUN_OPT_BUFFERS_PID:
		options->buffers = ACCWATCH_RUN_BUFFERS_PER_PID;
		break;
	case ACCWATCH_RUN_OPT_QUIET:
		options->quiet = true;
		break;
	case ACCWATCH_RUN_OPT_IF_UNRECORDABLE:
		if (strcmp(value, "fail") != 0 && strcmp(value, "run") != 0) {
			accwatch_run_args_set_culprit(error, value,
						      strlen(value));
			return ACCWATCH_RUN_ARGS_BAD_UNRECORDABLE;
		}
		options->unrecordable_run = strcmp(value, "run") == 0;
		break;
	case ACCWATCH_RUN_OPT_RELAYD:
		return accwatch_run_args_relayd(value, options, error);
	case ACCWATCH_RUN_OPT_RUN_ID:
		return accwatch_run_args_take_run_id(value, options, error);
	case ACCWATCH_RUN_OPT_LIVE:
		options->live = true;
		break;
	case ACCWATCH_RUN_OPT_FAIL_FAST:
		options->live = options->fail_fast = true;
		break;
	case ACCWATCH_RUN_OPT_HELP:
		return ACCWATCH_RUN_ARGS_HELP;
	case ACCWATCH_RUN_OPT_VERSION:
		return ACCWATCH_RUN_ARGS_VERSION;
	}
	return ACCWATCH_RUN_ARGS_OK;
}

/* The scanner's error for the option as written. */
static enum accwatch_run_args_status
accwatch_run_args_scan_error(enum accwatch_option_status status,
			     const struct accwatch_option_scan *scan,
			     struct accwatch_run_args_error *error)
{
	accwatch_run_args_set_culprit(error, scan->written,
				      strlen(scan->written));
	switch (status) {
	case ACCWATCH_OPTION_VALUE_NOT_TAKEN:
		return ACCWATCH_RUN_ARGS_UNEXPECTED_VALUE;
	case ACCWATCH_OPTION_MISSING_VALUE:
		return ACCWATCH_RUN_ARGS_MISSING_VALUE;
	default:
		return ACCWATCH_RUN_ARGS_UNKNOWN_OPTION;
	}
}

enum accwatch_run_args_status
accwatch_run_args_parse(int argc, char *const argv[],
			struct accwatch_run_options *options,
			struct accwatch_run_args_error *error)
{
	enum accwatch_run_args_status status = ACCWATCH_RUN_ARGS_OK;
	enum accwatch_option_status scanned = ACCWATCH_OPTION_FOUND;
	struct accwatch_option_scan scan;

	*options = (struct accwatch_run_options){
	    .buffers = ACCWATCH_RUN_BUFFERS_PER_UID,
	    .subbuf_size = ACCWATCH_RUN_DEFAULT_SUBBUF_SIZE,
	    .num_subbuf = ACCWATCH_RUN_DEFAULT_NUM_SUBBUF,
	    .stall_seconds = ACCWATCH_RUN_DEFAULT_STALL_SECONDS,
	};
	*error = (struct accwatch_run_args_error){0};
	accwatch_option_scan_init(&scan, argc, argv);
	/* The command starts at the first operand or after "--". */
	while (status == ACCWATCH_RUN_ARGS_OK &&
	       scanned == ACCWATCH_OPTION_FOUND) {
		const struct accwatch_option *option;
		const char *value;

		scanned = accwatch_option_next(&scan, accwatch_run_option_table,
					       ACCWATCH_RUN_OPTION_COUNT,
					       &option, &value);
		if (scanned == ACCWATCH_OPTION_FOUND)
			status = accwatch_run_args_apply(option, value, options,
							 error);
		else if (scanned != ACCWATCH_OPTION_OPERAND &&
			 scanned != ACCWATCH_OPTION_SEPARATOR &&
			 scanned != ACCWATCH_OPTION_DONE)
			status =
			    accwatch_run_args_scan_error(scanned, &scan, error);
	}
	if (status != ACCWATCH_RUN_ARGS_OK)
		return status;
	if (options->relayd && options->output_dir)
		return ACCWATCH_RUN_ARGS_RELAYD_AND_OUTPUT;
	if (scan.index >= argc)
		return ACCWATCH_RUN_ARGS_MISSING_COMMAND;
	options->command = &argv[scan.index];
	options->command_argc = argc - scan.index;
	return ACCWATCH_RUN_ARGS_OK;
}

static const char *
accwatch_run_size_reason(enum accwatch_run_size_status status)
{
	switch (status) {
	case ACCWATCH_RUN_SIZE_OK:
		return "";
	case ACCWATCH_RUN_SIZE_SYNTAX:
		return "not a number with an optional k, M or G suffix";
	case ACCWATCH_RUN_SIZE_OVERFLOW:
		return "too large";
	case ACCWATCH_RUN_SIZE_NOT_POWER_OF_2:
		return "not a power of two";
	case ACCWATCH_RUN_SIZE_TOO_SMALL:
		return "too small";
	}
	return "";
}

void accwatch_run_args_describe(enum accwatch_run_args_status status,
				const struct accwatch_run_args_error *error,
				char *line, size_t line_len)
{
	const char *culprit = error->culprit;

	switch (status) {
	case ACCWATCH_RUN_ARGS_OK:
	case ACCWATCH_RUN_ARGS_HELP:
	case ACCWATCH_RUN_ARGS_VERSION:
		snprintf(line, line_len, "no error");
		break;
	case ACCWATCH_RUN_ARGS_UNKNOWN_OPTION:
		snprintf(line, line_len, "unknown option '%s'", culprit);
		break;
	case ACCWATCH_RUN_ARGS_MISSING_VALUE:
		snprintf(line, line_len, "option '%s' needs a value", culprit);
		break;
	case ACCWATCH_RUN_ARGS_UNEXPECTED_VALUE:
		snprintf(line, line_len, "option '%s' takes no value", culprit);
		break;
	case ACCWATCH_RUN_ARGS_BAD_SIZE:
		snprintf(line, line_len,
			 "bad --subbuf-size '%s': %s; give a power of two of "
			 "at least 64k, e.g. 256k or 1M",
			 culprit, accwatch_run_size_reason(error->size_status));
		break;
	case ACCWATCH_RUN_ARGS_BAD_COUNT:
		snprintf(line, line_len,
			 "bad --num-subbuf '%s': %s; give a power of two of at "
			 "least 2, e.g. 4 or 8",
			 culprit, accwatch_run_size_reason(error->size_status));
		break;
	case ACCWATCH_RUN_ARGS_BAD_STALL:
		snprintf(line, line_len,
			 "bad --stall-timeout '%s': give whole seconds from 0 "
			 "(wait as long as it takes) to %u",
			 culprit, ACCWATCH_RUN_MAX_STALL_SECONDS);
		break;
	case ACCWATCH_RUN_ARGS_BAD_UNRECORDABLE:
		snprintf(line, line_len,
			 "bad --if-unrecordable '%s': give 'fail' (do not "
			 "start the command) or 'run' (run it unrecorded)",
			 culprit);
		break;
	case ACCWATCH_RUN_ARGS_EMPTY_OUTPUT:
		snprintf(line, line_len,
			 "the output directory (-o) must not be empty");
		break;
	case ACCWATCH_RUN_ARGS_BAD_RELAYD:
		snprintf(line, line_len,
			 "bad --relayd '%s': give the collector's host name "
			 "or address, and its control and data ports if not "
			 "the default ones (HOST, HOST:5342:5343, [::1]:5342)",
			 culprit);
		break;
	case ACCWATCH_RUN_ARGS_BAD_RUN_ID:
		snprintf(line, line_len,
			 "bad --run-id '%s': give a word of 1 to %d "
			 "characters other than 0 (a number from 1 to "
			 "4294967295 is the run id itself)",
			 culprit, ACCWATCH_RUN_WORD_MAX);
		break;
	case ACCWATCH_RUN_ARGS_RELAYD_AND_OUTPUT:
		snprintf(line, line_len,
			 "--relayd sends the trace to the collector's "
			 "lttng-relayd, which writes it under its own -o: "
			 "drop -o");
		break;
	case ACCWATCH_RUN_ARGS_MISSING_COMMAND:
		snprintf(line, line_len,
			 "no command to run (accwatch-run [options] [--] "
			 "COMMAND [ARG...])");
		break;
	}
}

static const struct accwatch_doc_item accwatch_run_doc_environment[] = {
    {"ACCWATCH_PRELOAD",
     "path of libaccwatch.so to preload (default: next to this program, in "
     "../lib or the install libdir)"},
    {"ACCWATCH_DEBUG=1", "say what accwatch-run does (session, run id, paths)"},
};

static const struct accwatch_doc_section accwatch_run_doc_sections[] = {
    {"Environment", NULL, accwatch_run_doc_environment,
     sizeof(accwatch_run_doc_environment) /
	 sizeof(accwatch_run_doc_environment[0]),
     NULL},
    {"Exit status",
     "The command's own status, 128+N if it died of signal N, 126 if it "
     "could not be executed, 127 if it was not found, 125 if accwatch-run "
     "itself failed, 122 if recording cannot work here (COMMAND not "
     "started; see --if-unrecordable), 123 if --fail-fast stopped COMMAND, "
     "2 on a usage error.",
     NULL, 0, NULL},
    {"Example",
     "  accwatch-run -o trace -- accelerate launch --num_processes 4 "
     "train.py\n"
     "  accwatch-report trace",
     NULL, 0, NULL},
};

static const struct accwatch_doc accwatch_run_doc = {
    .name = ACCWATCH_RUN_PROGRAM,
    .summary = "record which dataset indices a PyTorch job reads",
    .synopsis = "[options] [--] COMMAND [ARG...]",
    .description =
	"Run COMMAND with libaccwatch.so preloaded inside a new LTTng session "
	"that records which dataset indices every rank and DataLoader worker "
	"reads. Then read the trace with accwatch-report.\n\n"
	"The options stop at the first non-option or at --.",
    .options = accwatch_run_option_table,
    .n_options = ACCWATCH_RUN_OPTION_COUNT,
    .sections = accwatch_run_doc_sections,
    .n_sections = sizeof(accwatch_run_doc_sections) /
		  sizeof(accwatch_run_doc_sections[0]),
    .operands = ACCWATCH_DOC_OPERANDS_COMMAND,
    .see_also = "accwatch-report(1), lttng(1), lttng-relayd(8), "
		"babeltrace2(1)",
};

const struct accwatch_doc *accwatch_run_args_doc(void)
{
	return &accwatch_run_doc;
}

void accwatch_run_args_usage(FILE *out)
{
	accwatch_doc_help(out, &accwatch_run_doc);
}
