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
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "run_job.h"
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

/* A stop's grace between signals, at least 1 s. */
#define ACCWATCH_RUN_CHILD_GRACE(watch)                                        \
	((watch)->grace_s ? (watch)->grace_s : 1u)

static double accwatch_run_child_now(void)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)now.tv_sec + (double)now.tv_nsec / 1e9;
}

static const int accwatch_run_child_stop_signals[] = {SIGINT, SIGTERM, SIGKILL};

/* How many of the stop's signals are due by now. */
static int
accwatch_run_child_stop_due(const struct accwatch_run_child_watch *watch)
{
	double elapsed = accwatch_run_child_now() - watch->stop_since;
	int due = 1 + (int)(elapsed / (double)ACCWATCH_RUN_CHILD_GRACE(watch));

	return due > 3 ? 3 : due;
}

/* The next signal of a stop, once its time came (the pid is not reaped
 * yet, so it is still the command's). */
static void accwatch_run_child_escalate(pid_t pid, bool own_group,
					struct accwatch_run_child_watch *watch)
{
	while (watch->signals_sent < accwatch_run_child_stop_due(watch))
		kill(own_group ? -pid : pid,
		     accwatch_run_child_stop_signals[watch->signals_sent++]);
}

/* Polls the watch until the command has ended (not reaped). */
static void
accwatch_run_child_wait_watched(pid_t pid, bool own_group,
				struct accwatch_run_child_watch *watch)
{
	siginfo_t info;

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
				watch->stop_since = accwatch_run_child_now();
			}
		}
		if (watch->stopped)
			accwatch_run_child_escalate(pid, own_group, watch);
	}
}

static bool accwatch_run_child_listed(const pid_t pids[], size_t n, pid_t pid)
{
	for (size_t i = 0; i < n; i++)
		if (pids[i] == pid)
			return true;
	return false;
}

/* Once the command's own process ended under a stop: its other processes,
 * wherever they went, get each due signal once (those still in its group
 * got it with the group), until none is left or SIGKILL's grace passed. */
static void accwatch_run_child_end_job(pid_t group,
				       struct accwatch_run_child_watch *watch)
{
	static pid_t now[ACCWATCH_RUN_JOB_MAX], seen[ACCWATCH_RUN_JOB_MAX],
	    sent[ACCWATCH_RUN_JOB_MAX];
	struct timespec pause = {0, 100000000L};
	size_t n_seen = 0, n_sent = 0;
	int level = watch->signals_sent;

	for (;;) {
		size_t n = accwatch_run_job_processes(
		    watch->keep, watch->n_keep, now, ACCWATCH_RUN_JOB_MAX);
		int due = accwatch_run_child_stop_due(watch);
		double elapsed = accwatch_run_child_now() - watch->stop_since;

		if (n == 0 ||
		    elapsed >= 3.0 * (double)ACCWATCH_RUN_CHILD_GRACE(watch)) {
			watch->left_running = n;
			break;
		}
		if (due != level) {
			level = due;
			n_sent = 0;
		}
		for (size_t i = 0; i < n; i++) {
			if (!accwatch_run_child_listed(seen, n_seen, now[i]) &&
			    n_seen < ACCWATCH_RUN_JOB_MAX)
				seen[n_seen++] = now[i];
			if (accwatch_run_child_listed(sent, n_sent, now[i]) ||
			    (group > 0 && getpgid(now[i]) == group &&
			     watch->signals_sent >= level))
				continue;
			kill(now[i],
			     accwatch_run_child_stop_signals[level - 1]);
			if (n_sent < ACCWATCH_RUN_JOB_MAX)
				sent[n_sent++] = now[i];
		}
		nanosleep(&pause, NULL);
	}
	watch->ended_after = n_seen - watch->left_running;
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
	if (watch && watch->end_all && watch->stopped)
		accwatch_run_child_end_job(own_group ? pid : 0, watch);
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
	if (watch && watch->end_all)
		prctl(PR_SET_CHILD_SUBREAPER, 1);
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
	if (watch && watch->end_all)
		prctl(PR_SET_CHILD_SUBREAPER, 0);
	accwatch_run_signals_restore_mask(&old_mask);
	if (pipe_fds[0] >= 0)
		close(pipe_fds[0]);
	if (pipe_fds[1] >= 0)
		close(pipe_fds[1]);
}
