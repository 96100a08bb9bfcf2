/* SPDX-License-Identifier: MIT */
/* The processes of the job beyond the command's own: under --fail-fast
 * accwatch-run is a child subreaper while the command runs, so a rank that
 * left the command's process group, or whose launcher died, becomes its
 * child instead of init's and is still found and ended (run_child.c). */
#ifndef ACCWATCH_RUN_JOB_H
#define ACCWATCH_RUN_JOB_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* At most this many processes are ended after the command's own. */
#define ACCWATCH_RUN_JOB_MAX 4096

/* The living descendants of this process but those under keep (the helper
 * processes: relay daemon, live reader, guardian), at most max in pids;
 * reaps those of them that are its children and ended. Returns how many. */
size_t accwatch_run_job_processes(const pid_t keep[], size_t n_keep,
				  pid_t pids[], size_t max);

#endif
