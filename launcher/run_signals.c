/* SPDX-License-Identifier: MIT */
/* The signal handler and the few words it shares with the main flow; this is
 * accwatch-run's only global state, because a handler can reach nothing else.
 */
#define _GNU_SOURCE
#include "run_signals.h"

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <unistd.h>

/* Every signal a job is sent to stop, checkpoint or requeue it, which would
 * otherwise kill accwatch-run (and leave its session behind) without the
 * command seeing it: SLURM's --signal=USR1@60, timers (ALRM), Ctrl-\ (QUIT),
 * resource limits (XCPU), terminal resizes (WINCH, harmless to pass on). */
static const int accwatch_run_forwarded_signals[] = {
    SIGINT,  SIGTERM, SIGHUP,  SIGQUIT, SIGUSR1,
    SIGUSR2, SIGALRM, SIGXCPU, SIGWINCH};
#define ACCWATCH_RUN_FORWARDED_COUNT                                           \
	(sizeof(accwatch_run_forwarded_signals) /                              \
	 sizeof(accwatch_run_forwarded_signals[0]))

static volatile sig_atomic_t accwatch_run_signal_target;
/* Whether the target leads a process group of its own (see run_child.c). */
static volatile sig_atomic_t accwatch_run_signal_own_group;
/* SIGPIPE as accwatch-run found it: the command gets it back. accwatch-run
 * itself ignores it (a closed pipe on its own messages is no reason to die
 * and leave the session behind). */
static struct sigaction accwatch_run_sigpipe_inherited;
static volatile sig_atomic_t accwatch_run_signal_pending;
/* Signals found ignored at start (nohup, "cmd &" in a script) stay ignored,
 * in us and in the command: we only take over the others. */
static bool accwatch_run_signal_installed[ACCWATCH_RUN_FORWARDED_COUNT];

/* Whether the signal accwatch-run got reached the command as well, so that
 * passing it on would deliver it twice (and interrupt the command's own
 * handling of the first, a second KeyboardInterrupt in its cleanup):
 * - a terminal's Ctrl-C, Ctrl-\ or resize (si_code SI_KERNEL) goes to the
 *   whole foreground process group, the command's too while it shares ours
 *   (but a hangup goes to the session's leader alone: when that is
 *   accwatch-run, the command has not seen it);
 * - a signal the command itself (or, when it leads a group of its own, a
 *   process of that group) sent to accwatch-run: `kill 0` reached the
 *   command, and a kill of its parent was never meant for itself.
 * Group-directed signals from elsewhere reach only accwatch-run when the
 * command has a group of its own; when it shares ours (a terminal is in
 * play) `kill -- -PGID` from outside reaches the command twice, as nothing
 * tells it apart from a kill of accwatch-run alone. */
static bool accwatch_run_signals_reached(int signo, const siginfo_t *info,
					 pid_t target)
{
	if (info->si_code == SI_KERNEL)
		return !accwatch_run_signal_own_group &&
		       !(signo == SIGHUP && getsid(0) == getpid());
	if (info->si_code != SI_USER && info->si_code != SI_QUEUE &&
	    info->si_code != SI_TKILL)
		return false;
	if (info->si_pid == target)
		return true;
	return accwatch_run_signal_own_group && info->si_pid > 0 &&
	       getpgid(info->si_pid) == target;
}

static void accwatch_run_signals_handle(int signo, siginfo_t *info,
					void *context)
{
	int saved_errno = errno;
	pid_t target = (pid_t)accwatch_run_signal_target;

	(void)context;
	if (target > 0) {
		if (accwatch_run_signals_reached(signo, info, target))
			; /* the command has it already */
		else
			kill(target, signo);
	} else if (accwatch_run_signal_pending == 0) {
		accwatch_run_signal_pending = signo;
	}
	errno = saved_errno;
}

enum accwatch_run_signals_status accwatch_run_signals_install(void)
{
	struct sigaction action = {0};

	action.sa_sigaction = accwatch_run_signals_handle;
	action.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&action.sa_mask);
	for (size_t i = 0; i < ACCWATCH_RUN_FORWARDED_COUNT; i++)
		sigaddset(&action.sa_mask, accwatch_run_forwarded_signals[i]);
	for (size_t i = 0; i < ACCWATCH_RUN_FORWARDED_COUNT; i++) {
		struct sigaction previous;

		if (sigaction(accwatch_run_forwarded_signals[i], NULL,
			      &previous) != 0)
			return ACCWATCH_RUN_SIGNALS_FAILED;
		if (previous.sa_handler == SIG_IGN)
			continue;
		if (sigaction(accwatch_run_forwarded_signals[i], &action,
			      NULL) != 0)
			return ACCWATCH_RUN_SIGNALS_FAILED;
		accwatch_run_signal_installed[i] = true;
	}
	{
		struct sigaction ignore = {0};

		ignore.sa_handler = SIG_IGN;
		sigemptyset(&ignore.sa_mask);
		if (sigaction(SIGPIPE, &ignore,
			      &accwatch_run_sigpipe_inherited) != 0)
			return ACCWATCH_RUN_SIGNALS_FAILED;
	}
	return ACCWATCH_RUN_SIGNALS_OK;
}

void accwatch_run_signals_block(sigset_t *old)
{
	sigset_t forwarded;

	sigemptyset(&forwarded);
	for (size_t i = 0; i < ACCWATCH_RUN_FORWARDED_COUNT; i++)
		sigaddset(&forwarded, accwatch_run_forwarded_signals[i]);
	sigprocmask(SIG_BLOCK, &forwarded, old);
}

void accwatch_run_signals_restore_mask(const sigset_t *old)
{
	sigprocmask(SIG_SETMASK, old, NULL);
}

void accwatch_run_signals_set_target(pid_t pid, bool own_group)
{
	accwatch_run_signal_own_group = own_group;
	accwatch_run_signal_target = pid;
}

int accwatch_run_signals_pending(void)
{
	return accwatch_run_signal_pending;
}

void accwatch_run_signals_reset_in_child(const sigset_t *old)
{
	struct sigaction action = {0};

	action.sa_handler = SIG_DFL;
	sigemptyset(&action.sa_mask);
	for (size_t i = 0; i < ACCWATCH_RUN_FORWARDED_COUNT; i++) {
		if (accwatch_run_signal_installed[i])
			sigaction(accwatch_run_forwarded_signals[i], &action,
				  NULL);
	}
	sigaction(SIGPIPE, &accwatch_run_sigpipe_inherited, NULL);
	sigprocmask(SIG_SETMASK, old, NULL);
}
