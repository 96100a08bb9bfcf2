/* SPDX-License-Identifier: MIT */
/* The signals a job is sent (INT, TERM, HUP, QUIT, USR1, USR2, ALRM, XCPU,
 * WINCH): forwarded to the running command unless it got them already,
 * remembered before it starts, never fatal to us (but left ignored if
 * ignored at start). */
#ifndef ACCWATCH_RUN_SIGNALS_H
#define ACCWATCH_RUN_SIGNALS_H

#include <signal.h>
#include <stdbool.h>
#include <sys/types.h>

enum accwatch_run_signals_status {
	ACCWATCH_RUN_SIGNALS_OK = 0,
	ACCWATCH_RUN_SIGNALS_FAILED, /* sigaction failed; errno says why */
};

enum accwatch_run_signals_status accwatch_run_signals_install(void);

/* Blocks the forwarded signals (around fork); *old gets the previous mask. */
void accwatch_run_signals_block(sigset_t *old);
void accwatch_run_signals_restore_mask(const sigset_t *old);

/* The process the signals go to; 0 while there is none. own_group: it leads
 * a process group of its own. Call with the signals blocked, or while the
 * child is a zombie, so a pid is never reused. */
void accwatch_run_signals_set_target(pid_t pid, bool own_group);

/* The first signal received while no command was running, or 0. */
int accwatch_run_signals_pending(void);

/* In a forked child before exec: default dispositions and the old mask. */
void accwatch_run_signals_reset_in_child(const sigset_t *old);

#endif
