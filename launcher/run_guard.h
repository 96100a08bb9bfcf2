/* SPDX-License-Identifier: MIT */
/* The guardian: a small process accwatch-run leaves behind it, which
 * outlives a kill -9 of accwatch-run (the OOM killer, a scheduler). Told the
 * command's pid once it started, it waits; when accwatch-run ends normally
 * it is told so and goes. When accwatch-run dies instead, it waits for the
 * command to end, then stops and destroys the session, so that no session
 * is left behind and the trace is written out and readable. Its name says
 * what it is ("accwatch-run-g"), and the session is named after its pid:
 * while it lives, no other accwatch-run takes the session for an orphan. */
#ifndef ACCWATCH_RUN_GUARD_H
#define ACCWATCH_RUN_GUARD_H

#include <stdbool.h>
#include <sys/types.h>

struct accwatch_run_guard {
	pid_t pid; /* the guardian, -1 none */
	int fd;    /* accwatch-run's end of the pipe to it, -1 none */
};

/* Starts the guardian of the session `name` (filled in later: the guardian
 * learns it with the command's pid). False when it could not start: then
 * accwatch-run goes on without one (pid -1). */
bool accwatch_run_guard_start(struct accwatch_run_guard *guard);
/* Tells the guardian the session's name, the command's pid and --live's
 * relay daemon (-1 none), which does not die with accwatch-run: the
 * guardian ends it once the session is destroyed, so that what the job
 * records after a kill -9 of accwatch-run still reaches the trace. */
void accwatch_run_guard_watch(struct accwatch_run_guard *guard,
			      const char *session, pid_t command, pid_t relayd);
/* accwatch-run tore the session down itself: the guardian goes. */
void accwatch_run_guard_release(struct accwatch_run_guard *guard);

#endif
