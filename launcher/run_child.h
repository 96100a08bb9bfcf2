/* SPDX-License-Identifier: MIT */
/* Running the traced command: fork, execvpe with the prepared environment,
 * wait, and say how it ended (exit status, signal, or why exec failed). */
#ifndef ACCWATCH_RUN_CHILD_H
#define ACCWATCH_RUN_CHILD_H

#include <stdbool.h>
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

/* What a watch's ready() says. */
enum accwatch_run_child_watch_verdict {
	ACCWATCH_RUN_CHILD_WATCH_GO_ON = 0,
	ACCWATCH_RUN_CHILD_WATCH_DONE, /* the fd ended: stop polling it */
	ACCWATCH_RUN_CHILD_WATCH_STOP, /* stop the command */
};

/* A descriptor polled while the command runs (--live's findings): when it
 * is readable, ready() is called; on ACCWATCH_RUN_CHILD_WATCH_STOP the
 * command is stopped the way Ctrl-C stops a job: SIGINT, SIGTERM grace_s
 * later, SIGKILL grace_s after that, to its process group when it has one
 * of its own (to it alone when it shares ours, on a terminal). */
struct accwatch_run_child_watch {
	int fd;
	enum accwatch_run_child_watch_verdict (*ready)(void *context);
	void *context;
	unsigned grace_s;
	/* A stop ends the whole job: accwatch-run is a child subreaper while
	 * the command runs, and once the command's own process ended the
	 * same signals, on the same clock, go to every process descending
	 * from it but those under keep (run_job.h). */
	bool end_all;
	const pid_t *keep;
	size_t n_keep;
	bool stopped;        /* out: the command was told to stop */
	size_t ended_after;  /* out: processes ended after the command's */
	size_t left_running; /* out: still running after SIGKILL's grace */
	double stop_since;   /* the stop's start (CLOCK_MONOTONIC s) */
	int signals_sent;    /* of SIGINT, SIGTERM, SIGKILL */
};

/* Runs argv[0] (searched on PATH) with env; returns once it has ended. The
 * forwarded signals must be installed (run_signals.h). started (when not
 * NULL) is called with the command's pid once it runs. */
void accwatch_run_child_run(char *const argv[], char *const env[],
			    void (*started)(pid_t pid, void *context),
			    void *context,
			    struct accwatch_run_child_result *result);
/* The same, with a watch (NULL: none). */
void accwatch_run_child_run_watched(char *const argv[], char *const env[],
				    void (*started)(pid_t pid, void *context),
				    void *context,
				    struct accwatch_run_child_watch *watch,
				    struct accwatch_run_child_result *result);

#endif
