/* SPDX-License-Identifier: MIT */
/* The helpers accwatch-run starts beside the command (the relay daemon and
 * the live reader of --live): each in a process group of its own (a Ctrl-C
 * on the terminal is the command's, not theirs); the reader ends with
 * accwatch-run (PR_SET_PDEATHSIG) when it is killed, the relay daemon is
 * ended by the guardian once the session is gone (run_guard.h). */
#ifndef ACCWATCH_RUN_SPAWN_H
#define ACCWATCH_RUN_SPAWN_H

#include <stdbool.h>
#include <sys/types.h>

/* argv[0] looked up on PATH, with envp (NULL: ours); its stdout to out_fd
 * (-1: /dev/null), its stdin from /dev/null, its stderr to /dev/null when
 * quiet; with_us: SIGTERM when accwatch-run dies. The pid, or -1 (errno)
 * when fork failed; exit status 127 when the program could not be run. */
pid_t accwatch_run_spawn(char *const argv[], char *const envp[], int out_fd,
			 bool quiet, bool with_us);

#endif
