/* SPDX-License-Identifier: MIT */
/* One recorded run: preload found, trace directory ready, session created
 * and started, command run, session stopped and destroyed, summary printed. */
#ifndef ACCWATCH_RUN_RECORD_H
#define ACCWATCH_RUN_RECORD_H

#include "run_args.h"

#define ACCWATCH_RUN_EXIT_USAGE 2
#define ACCWATCH_RUN_EXIT_UNRECORDABLE                                         \
	122 /* recording cannot work here:                                     \
		 the command was not started */
/* --fail-fast stopped the command at a live error. */
#define ACCWATCH_RUN_EXIT_FAIL_FAST 123
#define ACCWATCH_RUN_EXIT_FAILURE 125 /* accwatch-run itself failed */
#define ACCWATCH_RUN_EXIT_CANNOT_EXECUTE 126
#define ACCWATCH_RUN_EXIT_NOT_FOUND 127
#define ACCWATCH_RUN_EXIT_SIGNAL_BASE 128

/* Seconds lttng-sessiond gets to answer after we started it. */
#define ACCWATCH_RUN_DAEMON_TIMEOUT_MS 10000

/* Returns the exit status for accwatch-run: the command's, or one of the
 * ACCWATCH_RUN_EXIT_* codes. Sets options' buffer sizes when they are left
 * to it (accwatch_run_preflight). */
int accwatch_run_record(struct accwatch_run_options *options);

#endif
