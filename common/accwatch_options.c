/* SPDX-License-Identifier: MIT */
/* The command-line scanner both tools use (accwatch_options.h). */
#include "accwatch_options.h"

#include <stdio.h>
#include <string.h>

void accwatch_option_scan_init(struct accwatch_option_scan *scan, int argc,
			       char *const *argv)
{
	*scan = (struct accwatch_option_scan){
	    .argc = argc, .argv = argv, .index = 1};
}

static const struct accwatch_option *
accwatch_option_long(const struct accwatch_option *table, size_t count,
		     const char *name, size_t len)
{
	for (size_t i = 0; i < count; i++)
		if (strlen(table[i].long_name) == len &&
		    strncmp(table[i].long_name, name, len) == 0)
			return &table[i];
	return NULL;
}

static const struct accwatch_option *
accwatch_option_short(const struct accwatch_option *table, size_t count,
		      char name)
{
	for (size_t i = 0; i < count; i++)
		if (table[i].short_name == name)
			return &table[i];
	return NULL;
}

/* value: the rest of this argument when non-empty, else the next one. */
static enum accwatch_option_status
accwatch_option_value(struct accwatch_option_scan *scan, const char *rest,
		      const char **value)
{
	if (rest && *rest) {
		*value = rest;
	} else if (scan->index + 1 < scan->argc) {
		*value = scan->argv[++scan->index];
	} else {
		return ACCWATCH_OPTION_MISSING_VALUE;
	}
	return ACCWATCH_OPTION_FOUND;
}

static enum accwatch_option_status accwatch_option_next_long(
    struct accwatch_option_scan *scan, const struct accwatch_option *table,
    size_t count, const struct accwatch_option **option, const char **value)
{
	const char *name = scan->argv[scan->index] + 2;
	const char *equals = strchr(name, '=');
	size_t len = equals ? (size_t)(equals - name) : strlen(name);
	enum accwatch_option_status status = ACCWATCH_OPTION_FOUND;

	snprintf(scan->written, sizeof(scan->written), "--%.*s",
		 (int)(len < 40 ? len : 40), name);
	*option = accwatch_option_long(table, count, name, len);
	if (!*option)
		return ACCWATCH_OPTION_UNKNOWN;
	if (!(*option)->takes_value && equals)
		return ACCWATCH_OPTION_VALUE_NOT_TAKEN;
	if ((*option)->takes_value) {
		if (equals)
			*value = equals + 1;
		else
			status = accwatch_option_value(scan, NULL, value);
	}
	scan->index++;
	return status;
}

static enum accwatch_option_status accwatch_option_next_short(
    struct accwatch_option_scan *scan, const struct accwatch_option *table,
    size_t count, const struct accwatch_option **option, const char **value)
{
	const char *arg = scan->argv[scan->index];
	char letter = arg[scan->short_at];
	enum accwatch_option_status status = ACCWATCH_OPTION_FOUND;

	snprintf(scan->written, sizeof(scan->written), "-%c", letter);
	*option = accwatch_option_short(table, count, letter);
	if (!*option)
		return ACCWATCH_OPTION_UNKNOWN;
	scan->short_at++;
	if ((*option)->takes_value)
		status =
		    accwatch_option_value(scan, arg + scan->short_at, value);
	if ((*option)->takes_value || arg[scan->short_at] == '\0') {
		scan->short_at = 0;
		scan->index++;
	}
	return status;
}

enum accwatch_option_status
accwatch_option_next(struct accwatch_option_scan *scan,
		     const struct accwatch_option *table, size_t count,
		     const struct accwatch_option **option, const char **value)
{
	const char *arg;

	*option = NULL;
	*value = NULL;
	if (scan->short_at)
		return accwatch_option_next_short(scan, table, count, option,
						  value);
	if (scan->index >= scan->argc)
		return ACCWATCH_OPTION_DONE;
	arg = scan->argv[scan->index];
	if (strcmp(arg, "--") == 0) {
		scan->index++;
		return ACCWATCH_OPTION_SEPARATOR;
	}
	if (arg[0] != '-' || arg[1] == '\0')
		return ACCWATCH_OPTION_OPERAND;
	if (arg[1] == '-')
		return accwatch_option_next_long(scan, table, count, option,
						 value);
	scan->short_at = 1;
	return accwatch_option_next_short(scan, table, count, option, value);
}
