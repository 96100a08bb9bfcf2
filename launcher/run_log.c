/* SPDX-License-Identifier: MIT */
/* Messages on stderr, never stdout: stdout belongs to the traced program.
 * Debug output follows the preload's switch, ACCWATCH_DEBUG=1. */
#include "accwatch_common.h"
#include "run_log.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "accwatch_events.h"

static void accwatch_run_log_line(const char *prefix, const char *format,
				  va_list args)
{
	fprintf(stderr, "%s: %s", ACCWATCH_RUN_PROGRAM, prefix);
	vfprintf(stderr, format, args);
	fputc('\n', stderr);
}

void accwatch_run_log(const char *format, ...)
{
	va_list args;

	va_start(args, format);
	accwatch_run_log_line("", format, args);
	va_end(args);
}

void accwatch_run_log_debug(const char *format, ...)
{
	va_list args;

	if (!accwatch_debug_on())
		return;
	va_start(args, format);
	accwatch_run_log_line("debug: ", format, args);
	va_end(args);
}
