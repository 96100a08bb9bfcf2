/* SPDX-License-Identifier: MIT */
/* The command-line scanner of accwatch-run and accwatch-report: a table of
 * options, read one at a time without getopt's global state. Long options
 * are "--name", "--name=value" or "--name value"; short ones "-o value",
 * "-ovalue" and groups of flags "-qf" (a value ends the group). What an
 * option means, and what is done with operands, is the caller's. */
#ifndef ACCWATCH_OPTIONS_H
#define ACCWATCH_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>

struct accwatch_option {
	const char *long_name; /* without "--" */
	char short_name;       /* 0: none */
	bool takes_value;
	int id; /* the caller's */
	/* What --help, the man page and the shell completion say of it
	 * (accwatch_doc.h): */
	const char *arg;  /* the value's name ("DIR"); NULL for a flag */
	const char *help; /* what it does: one paragraph */
	/* How a shell completes its value: words ("text json"), "@file",
	 * "@dir" or "@hostname"; NULL: nothing to offer. */
	const char *complete;
};

enum accwatch_option_status {
	ACCWATCH_OPTION_FOUND,     /* *option, and *value if it takes one */
	ACCWATCH_OPTION_OPERAND,   /* argv[index] is no option ("-" alone is
				      none); index stays on it */
	ACCWATCH_OPTION_SEPARATOR, /* "--" (skipped): operands follow */
	ACCWATCH_OPTION_DONE,      /* no argument left */
	ACCWATCH_OPTION_UNKNOWN,   /* errors: written names the option */
	ACCWATCH_OPTION_VALUE_NOT_TAKEN, /* "--flag=value" */
	ACCWATCH_OPTION_MISSING_VALUE,
};

struct accwatch_option_scan {
	int argc;
	char *const *argv;
	int index;       /* the argument read next; from 1 */
	size_t short_at; /* the next letter of a group, 0 outside one */
	/* The last option as written ("--format", "-o"), for messages. */
	char written[64];
};

void accwatch_option_scan_init(struct accwatch_option_scan *scan, int argc,
			       char *const *argv);

/* The next option of argv, or what stands there instead. */
enum accwatch_option_status
accwatch_option_next(struct accwatch_option_scan *scan,
		     const struct accwatch_option *table, size_t count,
		     const struct accwatch_option **option, const char **value);

#endif
