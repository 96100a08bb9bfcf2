/* SPDX-License-Identifier: MIT */
/* accwatch-run: runs a command with libaccwatch.so preloaded inside its own
 * LTTng session, then says where the trace is. Entry point and usage errors. */
#include <stdio.h>

#include "run_args.h"
#include "run_log.h"
#include "run_record.h"

#ifndef ACCWATCH_VERSION
#define ACCWATCH_VERSION "unknown"
#endif

int main(int argc, char *argv[])
{
	struct accwatch_run_options options;
	struct accwatch_run_args_error error;
	enum accwatch_run_args_status status;
	char line[256];
	int exit_code;

	status = accwatch_run_args_parse(argc, argv, &options, &error);
	switch (status) {
	case ACCWATCH_RUN_ARGS_OK:
		exit_code = accwatch_run_record(&options);
		break;
	case ACCWATCH_RUN_ARGS_HELP:
		accwatch_run_args_usage(stdout);
		exit_code = fflush(stdout) == 0 ? 0 : ACCWATCH_RUN_EXIT_FAILURE;
		break;
	case ACCWATCH_RUN_ARGS_VERSION:
		printf("%s %s\n", ACCWATCH_RUN_PROGRAM, ACCWATCH_VERSION);
		exit_code = fflush(stdout) == 0 ? 0 : ACCWATCH_RUN_EXIT_FAILURE;
		break;
	default:
		accwatch_run_args_describe(status, &error, line, sizeof(line));
		accwatch_run_log("%s", line);
		fprintf(stderr, "Try '%s --help' for more information.\n",
			ACCWATCH_RUN_PROGRAM);
		exit_code = ACCWATCH_RUN_EXIT_USAGE;
		break;
	}
	return exit_code;
}
