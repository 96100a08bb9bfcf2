/* SPDX-License-Identifier: MIT */
/* fork/exec/wait of the command. A close-on-exec pipe carries exec's errno
 * back, so "not found" is told apart from a command that itself exits 127. */
#define _GNU_SOURCE
#include "run_child.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "run_signals.h"

/* Without a controlling terminal (a batch job, CI, a scheduler, a
 * container) the command gets a process group of its own, so a signal sent
 * to accwatch-run's group (`kill -- -PGID`, `timeout`, a script's `kill 0`)
 * reaches it once, through us, as it would reach it run alone. With a
 * terminal it stays in ours: the terminal's job control (Ctrl-C, Ctrl-Z,
 * reading stdin) must find it in the group the shell made foreground. */
static bool accwatch_run_child_wants_group(void)
{
	int tty = open("/dev/tty", O_RDONLY | O_NOCTTY | O_CLOEXEC);

	if (tty < 0)
		return true;
	close(tty);
	return false;
}

static void accwatch_run_child_exec(char *const argv[], char *const env[],
				    const sigset_t *old_mask, bool own_group,
				    int error_pipe)
{
	int err;

	if (own_group)
		setpgid(0, 0);
	accwatch_run_signals_reset_in_child(old_mask);
	execvpe(argv[0], argv, env);
	err = errno;
	if (write(error_pipe, &err, sizeof(err)) < 0) {
		/* The parent then reports a plain exit 127. */
	}
	_exit(127);
}

static double accwatch_run_child_now(void)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)now.tv_sec + (double)now.tv_nsec / 1e9;
}

/* The next signal of a stop, once its time came (the pid is not reaped
 * yet, so it is still the command's). */
static void
accwatch_run_child_escalate(pid_t pid, bool own_group,
			    const struct accwatch_run_child_watch *watch,
			    double since, int *sent)
{
	static const int steps[] = {SIGINT, SIGTERM, SIGKILL};
	double elapsed = accwatch_run_child_now() - since;

	if (*sent >= 3 || elapsed < (double)watch->grace_s * *sent)
		return;
	kill(own_group ? -pid : pid, steps[*sent]);
	(*sent)++;
}

/* Polls the watch until the command has ended (not reaped). */
static void
accwatch_run_child_wait_watched(pid_t pid, bool own_group,
				struct accwatch_run_child_watch *watch)
{
	siginfo_t info;
	double since = 0;
	int sent = 0;

	for (;;) {
		struct pollfd pfd = {.fd = watch->fd, .events = POLLIN};

		memset(&info, 0, sizeof(info));
		if (waitid(P_PID, (id_t)pid, &info,
			   WEXITED | WNOWAIT | WNOHANG) == 0 &&
		    info.si_pid != 0)
			return;
		if (poll(&pfd, watch->fd >= 0, 100) > 0) {
			enum accwatch_run_child_watch_verdict verdict =
			    watch->ready(watch->context);
			if (verdict == ACCWATCH_RUN_CHILD_WATCH_DONE)
				watch->fd = -1;
			if (verdict == ACCWATCH_RUN_CHILD_WATCH_STOP &&
			    !watch->stopped) {
				watch->stopped = true;
				since = accwatch_run_child_now();
			}
		}
		if (watch->stopped)
			accwatch_run_child_escalate(pid, own_group, watch,
						    since, &sent);
	}
}

/* Waits until the child has ended without reaping it, so its pid cannot be
 * reused while the signal handler may still send to it; then reaps it. */
static void accwatch_run_child_wait(pid_t pid, bool own_group,
				    struct accwatch_run_child_watch *watch,
				    struct accwatch_run_child_result *result)
{
	siginfo_t info;
	int wait_status = 0;

	if (watch)
		accwatch_run_child_wait_watched(pid, own_group, watch);
	for (;;) {
		memset(&info, 0, sizeof(info));
		if (waitid(P_PID, (id_t)pid, &info, WEXITED | WNOWAIT) == 0)
			break;
		if (errno != EINTR)
			break;
	}
	accwatch_run_signals_set_target(0, false);
	while (waitpid(pid, &wait_status, 0) < 0 && errno == EINTR) {
	}
	if (WIFSIGNALED(wait_status)) {
		result->status = ACCWATCH_RUN_CHILD_SIGNALED;
		result->signal = WTERMSIG(wait_status);
	} else {
		result->status = ACCWATCH_RUN_CHILD_EXITED;
		result->exit_status = WEXITSTATUS(wait_status);
	}
}

void accwatch_run_child_run(char *const argv[], char *const env[],
			    void (*started)(pid_t pid, void *context),
			    void *context,
			    struct accwatch_run_child_result *result)
{
	accwatch_run_child_run_watched(argv, env, started, context, NULL,
				       result);
}

void accwatch_run_child_run_watched(char *const argv[], char *const env[],
				    void (*started)(pid_t pid, void *context),
				    void *context,
				    struct accwatch_run_child_watch *watch,
				    struct accwatch_run_child_result *result)
{
	int pipe_fds[2] = {-1, -1};
	int exec_errno = 0;
	sigset_t old_mask;
	bool own_group = accwatch_run_child_wants_group();
	ssize_t got;
	pid_t pid;

	memset(result, 0, sizeof(*result));
	accwatch_run_signals_block(&old_mask);
	if (accwatch_run_signals_pending() != 0) {
		result->status = ACCWATCH_RUN_CHILD_INTERRUPTED;
		result->signal = accwatch_run_signals_pending();
		goto end;
	}
	if (pipe2(pipe_fds, O_CLOEXEC) != 0) {
		result->status = ACCWATCH_RUN_CHILD_FORK_FAILED;
		result->exec_errno = errno;
		goto end;
	}
	pid = fork();
	if (pid < 0) {
		result->status = ACCWATCH_RUN_CHILD_FORK_FAILED;
		result->exec_errno = errno;
		goto end;
	}
	if (pid == 0)
		accwatch_run_child_exec(argv, env, &old_mask, own_group,
					pipe_fds[1]);
	if (own_group)
		setpgid(pid, pid); /* as the child does: whichever runs first */
	accwatch_run_signals_set_target(pid, own_group);
	accwatch_run_signals_restore_mask(&old_mask);
	close(pipe_fds[1]);
	pipe_fds[1] = -1;

	do {
		got = read(pipe_fds[0], &exec_errno, sizeof(exec_errno));
	} while (got < 0 && errno == EINTR);
	if (got == 0 && started)
		started(pid, context);
	accwatch_run_child_wait(pid, own_group, got == 0 ? watch : NULL,
				result);
	if (got == (ssize_t)sizeof(exec_errno)) {
		result->status = ACCWATCH_RUN_CHILD_EXEC_FAILED;
		result->exec_errno = exec_errno;
	}
end:
	accwatch_run_signals_restore_mask(&old_mask);
	if (pipe_fds[0] >= 0)
		close(pipe_fds[0]);
	if (pipe_fds[1] >= 0)
		close(pipe_fds[1]);
}
