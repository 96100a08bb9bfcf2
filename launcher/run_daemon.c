/* SPDX-License-Identifier: MIT */
/* Starting lttng-sessiond --daemonize (on PATH, or $LTTNG_SESSIOND_PATH as the
 * lttng command allows) and polling lttng_session_daemon_alive() until it
 * answers. */
#define _GNU_SOURCE
#include "run_daemon.h"

#include <errno.h>
#include <fcntl.h>
#include <lttng/lttng.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define ACCWATCH_RUN_DAEMON_POLL_MS 50

/* In the forked child: default signals, stdin from /dev/null, stdout to our
 * stderr (stdout belongs to the traced program), then exec. */
static void accwatch_run_daemon_exec(const char *program, int error_pipe)
{
	sigset_t none;
	int null_fd = open("/dev/null", O_RDONLY);
	int err;

	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	signal(SIGQUIT, SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	if (null_fd >= 0)
		dup2(null_fd, STDIN_FILENO);
	dup2(STDERR_FILENO, STDOUT_FILENO);
	if (strchr(program, '/'))
		execl(program, "lttng-sessiond", "--daemonize", (char *)NULL);
	else
		execlp(program, "lttng-sessiond", "--daemonize", (char *)NULL);
	err = errno;
	if (write(error_pipe, &err, sizeof(err)) < 0) {
		/* Nothing more to say: the parent sees the exit status. */
	}
	_exit(127);
}

static void accwatch_run_daemon_sleep_ms(int ms)
{
	struct timespec pause = {ms / 1000, (long)(ms % 1000) * 1000000L};

	while (nanosleep(&pause, &pause) != 0 && errno == EINTR) {
	}
}

static enum accwatch_run_daemon_status
accwatch_run_daemon_spawn(char *detail, size_t detail_len)
{
	enum accwatch_run_daemon_status status =
	    ACCWATCH_RUN_DAEMON_SPAWN_FAILED;
	const char *program = getenv("LTTNG_SESSIOND_PATH");
	int pipe_fds[2] = {-1, -1};
	int exec_errno = 0, wait_status = 0;
	ssize_t got;
	pid_t pid;

	if (!program || program[0] == '\0')
		program = "lttng-sessiond";
	if (pipe2(pipe_fds, O_CLOEXEC) != 0) {
		snprintf(detail, detail_len, "pipe: %s", strerror(errno));
		goto end;
	}
	pid = fork();
	if (pid < 0) {
		snprintf(detail, detail_len, "fork: %s", strerror(errno));
		goto end;
	}
	if (pid == 0)
		accwatch_run_daemon_exec(program, pipe_fds[1]);
	close(pipe_fds[1]);
	pipe_fds[1] = -1;
	do {
		got = read(pipe_fds[0], &exec_errno, sizeof(exec_errno));
	} while (got < 0 && errno == EINTR);
	/* --daemonize returns once the daemon accepts commands, or on failure.
	 */
	while (waitpid(pid, &wait_status, 0) < 0 && errno == EINTR) {
	}
	if (got == (ssize_t)sizeof(exec_errno)) {
		snprintf(detail, detail_len, "cannot execute %s: %s", program,
			 strerror(exec_errno));
		goto end;
	}
	if (!WIFEXITED(wait_status) || WEXITSTATUS(wait_status) != 0) {
		status = ACCWATCH_RUN_DAEMON_EXITED;
		if (WIFSIGNALED(wait_status))
			snprintf(detail, detail_len,
				 "%s --daemonize was killed by signal %d",
				 program, WTERMSIG(wait_status));
		else
			snprintf(detail, detail_len,
				 "%s --daemonize exited with status %d",
				 program, WEXITSTATUS(wait_status));
		goto end;
	}
	status = ACCWATCH_RUN_DAEMON_STARTED;
end:
	if (pipe_fds[0] >= 0)
		close(pipe_fds[0]);
	if (pipe_fds[1] >= 0)
		close(pipe_fds[1]);
	return status;
}

enum accwatch_run_daemon_status
accwatch_run_daemon_ensure(int timeout_ms, char *detail, size_t detail_len)
{
	enum accwatch_run_daemon_status status;
	int alive = lttng_session_daemon_alive();

	detail[0] = '\0';
	if (alive == 1) {
		status = ACCWATCH_RUN_DAEMON_ALIVE;
		goto end;
	}
	if (alive < 0) {
		snprintf(detail, detail_len, "%s", lttng_strerror(alive));
		status = ACCWATCH_RUN_DAEMON_QUERY_FAILED;
		goto end;
	}
	status = accwatch_run_daemon_spawn(detail, detail_len);
	if (status != ACCWATCH_RUN_DAEMON_STARTED)
		goto end;
	for (int waited = 0; lttng_session_daemon_alive() != 1;
	     waited += ACCWATCH_RUN_DAEMON_POLL_MS) {
		if (waited >= timeout_ms) {
			snprintf(detail, detail_len, "no answer after %d ms",
				 timeout_ms);
			status = ACCWATCH_RUN_DAEMON_TIMEOUT;
			goto end;
		}
		accwatch_run_daemon_sleep_ms(ACCWATCH_RUN_DAEMON_POLL_MS);
	}
end:
	return status;
}
