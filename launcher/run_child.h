/* SPDX-License-Identifier: MIT */
/* Running the traced command: fork, execvpe with the prepared environment,
 * wait, and say how it ended (exit status, signal, or why exec failed). */
#ifndef ACCWATCH_RUN_CHILD_H
#define ACCWATCH_RUN_CHILD_H

#include <sys/types.h>

enum accwatch_run_child_status {
	ACCWATCH_RUN_CHILD_EXITED = 0,  /* exit_status is valid */
	ACCWATCH_RUN_CHILD_SIGNALED,    /* signal is valid */
	ACCWATCH_RUN_CHILD_EXEC_FAILED, /* exec_errno is valid; the command
					   never ran */
	ACCWATCH_RUN_CHILD_FORK_FAILED, /* exec_errno holds fork's errno */
	ACCWATCH_RUN_CHILD_INTERRUPTED, /* a signal came before the command
					   started */
};

struct accwatch_run_child_result {
	enum accwatch_run_child_status status;
	int exit_status;
	int signal;
	int exec_errno;
};

/* Runs argv[0] (searched on PATH) with env; returns once it has ended. The
 * forwarded signals must be installed (run_signals.h). started (when not
 * NULL) is called with the command's pid once it runs. */
void accwatch_run_child_run(char *const argv[], char *const env[],
			    void (*started)(pid_t pid, void *context),
			    void *context,
			    struct accwatch_run_child_result *result);

#endif
