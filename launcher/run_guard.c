/* SPDX-License-Identifier: MIT */
/* The guardian (run_guard.h): a fork of accwatch-run, in a session of its
 * own, holding nothing of the command's (no descriptor but its pipe). */
#define _GNU_SOURCE
#include "run_guard.h"

#include <errno.h>
#include <fcntl.h>
#include <lttng/lttng.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

/* What accwatch-run tells it once the command started. */
struct accwatch_run_guard_message {
	char session[64];
	pid_t command;
	pid_t relayd; /* --live's relay daemon, 0 none */
	unsigned long long relayd_started;
};

/* How often it looks whether the command is still there. */
#define ACCWATCH_RUN_GUARD_POLL_MS 200

static bool accwatch_run_guard_read(int fd, void *buffer, size_t size)
{
	size_t done = 0;

	while (done < size) {
		ssize_t got = read(fd, (char *)buffer + done, size - done);

		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			return false;
		done += (size_t)got;
	}
	return true;
}

/* The start time of process pid (field 22 of its stat, in clock ticks), 0
 * when it is gone: a pid taken again by another process is not the
 * command. */
static unsigned long long accwatch_run_guard_started(pid_t pid)
{
	char path[64], line[1024];
	unsigned long long start = 0;
	FILE *file;
	char *after;

	snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
	file = fopen(path, "re");
	if (!file)
		return 0;
	if (fgets(line, sizeof(line), file) && (after = strrchr(line, ')'))) {
		/* after ") ": state is field 3; start time field 22. */
		char state;
		if (sscanf(after + 1,
			   " %c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u "
			   "%*u %*d %*d %*d %*d %*d %*d %llu",
			   &state, &start) != 2 ||
		    state == 'Z' || state == 'X')
			start = 0;
	}
	fclose(file);
	return start;
}

/* Alone with its pipe: a session of its own (no signal to accwatch-run's
 * group or terminal reaches it), every other descriptor closed (a pipe to
 * a log reader must see its end when the command's side closes it). */
static int accwatch_run_guard_detach(int fd)
{
	static const int ignored[] = {SIGINT,  SIGTERM, SIGHUP,  SIGQUIT,
				      SIGUSR1, SIGUSR2, SIGALRM, SIGPIPE,
				      SIGXCPU, SIGWINCH};
	int null;

	setsid();
	prctl(PR_SET_NAME, "accwatch-run-g", 0, 0, 0);
	for (size_t i = 0; i < sizeof(ignored) / sizeof(ignored[0]); i++)
		signal(ignored[i], SIG_IGN);
	null = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (null >= 0) {
		dup2(null, 0);
		dup2(null, 1);
		dup2(null, 2);
	}
	if (fd != 3) {
		dup2(fd, 3);
		fd = 3;
	}
	for (int i = 4; i < 1024; i++)
		close(i);
	return fd;
}

static void accwatch_run_guard_main(int fd)
{
	struct accwatch_run_guard_message message;
	unsigned long long started;
	char done;

	fd = accwatch_run_guard_detach(fd);
	if (!accwatch_run_guard_read(fd, &message, sizeof(message)))
		_exit(0); /* no command was started */
	message.session[sizeof(message.session) - 1] = '\0';
	started = accwatch_run_guard_started(message.command);
	if (accwatch_run_guard_read(fd, &done, 1))
		_exit(0); /* released: accwatch-run tore down itself */
	/* accwatch-run is gone: the command may run on. */
	while (started &&
	       accwatch_run_guard_started(message.command) == started) {
		struct timespec pause = {0,
					 ACCWATCH_RUN_GUARD_POLL_MS * 1000000L};
		nanosleep(&pause, NULL);
	}
	lttng_stop_tracing(message.session);
	lttng_destroy_session(message.session);
	/* --live's relay daemon wrote the trace out: now it may go. */
	if (message.relayd > 0 && message.relayd_started &&
	    accwatch_run_guard_started(message.relayd) ==
		message.relayd_started)
		kill(message.relayd, SIGTERM);
	_exit(0);
}

bool accwatch_run_guard_start(struct accwatch_run_guard *guard)
{
	int fds[2];

	guard->pid = -1;
	guard->fd = -1;
	if (pipe2(fds, O_CLOEXEC) != 0)
		return false;
	guard->pid = fork();
	if (guard->pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return false;
	}
	if (guard->pid == 0) {
		close(fds[1]);
		accwatch_run_guard_main(fds[0]);
	}
	close(fds[0]);
	guard->fd = fds[1];
	return true;
}

void accwatch_run_guard_watch(struct accwatch_run_guard *guard,
			      const char *session, pid_t command, pid_t relayd)
{
	struct accwatch_run_guard_message message = {
	    .command = command,
	    .relayd = relayd > 0 ? relayd : 0,
	    .relayd_started =
		relayd > 0 ? accwatch_run_guard_started(relayd) : 0};

	if (guard->fd < 0)
		return;
	snprintf(message.session, sizeof(message.session), "%s", session);
	if (write(guard->fd, &message, sizeof(message)) < 0) {
		/* A guardian gone: the next accwatch-run reaps the session. */
	}
}

void accwatch_run_guard_release(struct accwatch_run_guard *guard)
{
	char done = 1;

	if (guard->fd < 0)
		return;
	if (write(guard->fd, &done, 1) < 0) {
		/* Gone already: nothing to release. */
	}
	close(guard->fd);
	guard->fd = -1;
}
