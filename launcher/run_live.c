/* SPDX-License-Identifier: MIT */
/* The relay daemon and the live reader of --live (run_live.h), started as
 * run_spawn.h says. */
#define _GNU_SOURCE
#include "run_live.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "run_log.h"
#include "run_spawn.h"

void accwatch_run_live_init(struct accwatch_run_live *live, bool fail_fast)
{
	memset(live, 0, sizeof(*live));
	live->relayd.pid = live->analyzer = -1;
	live->lines_fd = -1;
	live->fail_fast = fail_fast;
	live->reader_status = -1;
}

enum accwatch_run_live_status
accwatch_run_live_relayd_start(struct accwatch_run_live *live,
			       const char *output_dir, const char *peers_lib,
			       char *error, size_t error_size)
{
	const int *ports = live->relayd.ports;

	if (accwatch_run_relayd_start(&live->relayd, output_dir, peers_lib,
				      NULL, error,
				      error_size) != ACCWATCH_RUN_RELAYD_OK)
		return ACCWATCH_RUN_LIVE_FAILED;
	snprintf(live->control_url, sizeof(live->control_url),
		 "tcp://127.0.0.1:%d", ports[ACCWATCH_RUN_RELAYD_CONTROL]);
	snprintf(live->data_url, sizeof(live->data_url), "tcp://127.0.0.1:%d",
		 ports[ACCWATCH_RUN_RELAYD_DATA]);
	snprintf(live->viewer_url, sizeof(live->viewer_url),
		 "net://127.0.0.1:%d", ports[ACCWATCH_RUN_RELAYD_VIEWER]);
	return ACCWATCH_RUN_LIVE_OK;
}

/* accwatch-report beside our own executable. */
static bool accwatch_run_live_report_path(char *path, size_t size)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	char *slash;

	if (n <= 0)
		return false;
	exe[n] = '\0';
	slash = strrchr(exe, '/');
	if (!slash)
		return false;
	*slash = '\0';
	snprintf(path, size, "%s/accwatch-report", exe);
	return access(path, X_OK) == 0;
}

enum accwatch_run_live_status
accwatch_run_live_reader_start(struct accwatch_run_live *live,
			       const char *session, double start, char *error,
			       size_t error_size)
{
	char report[PATH_MAX + 32], host[256] = "", since[64];
	int fds[2];

	if (!accwatch_run_live_report_path(report, sizeof(report))) {
		snprintf(error, error_size,
			 "cannot find accwatch-report next to accwatch-run "
			 "for --live");
		return ACCWATCH_RUN_LIVE_FAILED;
	}
	gethostname(host, sizeof(host) - 1);
	snprintf(live->live_url, sizeof(live->live_url), "%s/host/%s/%s",
		 live->viewer_url, host, session);
	snprintf(since, sizeof(since), "%.6f", start);
	if (pipe2(fds, O_CLOEXEC) != 0) {
		snprintf(error, error_size, "cannot make a pipe: %s",
			 strerror(errno));
		return ACCWATCH_RUN_LIVE_FAILED;
	}
	char *argv[] = {report,
			"--live",
			live->live_url,
			"--live-start",
			since,
			live->fail_fast ? "--fail-fast" : NULL,
			NULL};
	live->analyzer = accwatch_run_spawn(argv, NULL, fds[1], false, true);
	close(fds[1]);
	if (live->analyzer < 0) {
		close(fds[0]);
		snprintf(error, error_size, "cannot start %s: %s", report,
			 strerror(errno));
		return ACCWATCH_RUN_LIVE_FAILED;
	}
	live->lines_fd = fds[0];
	return ACCWATCH_RUN_LIVE_OK;
}

/* Whether a live line tells an error: "accwatch live: T s: ID (error),
 * ...", read by its fields (the severity right after the finding's id,
 * which is lowercase letters, digits and '-'), never by other text of the
 * line: a loader's site may hold " (error)". */
static bool accwatch_run_live_is_error(const char *line, size_t len)
{
	static const char prefix[] = "accwatch live: ";
	size_t at = sizeof(prefix) - 1, id;

	if (len < at || memcmp(line, prefix, at) != 0)
		return false;
	while (at < len &&
	       (isdigit((unsigned char)line[at]) || line[at] == '.'))
		at++;
	if (len - at < 4 || memcmp(line + at, " s: ", 4) != 0)
		return false;
	at += 4;
	id = at;
	while (at < len &&
	       (islower((unsigned char)line[at]) ||
		isdigit((unsigned char)line[at]) || line[at] == '-'))
		at++;
	return at > id && len - at >= 8 &&
	       memcmp(line + at, " (error)", 8) == 0;
}

/* Passes the complete lines on to stderr; keeps the first error line. */
static void accwatch_run_live_lines(struct accwatch_run_live *live)
{
	char *start = live->pending, *newline;

	while ((newline = memchr(start, '\n',
				 live->pending_len -
				     (size_t)(start - live->pending)))) {
		size_t len = (size_t)(newline - start) + 1;

		fwrite(start, 1, len, stderr);
		if (!*live->stopper && accwatch_run_live_is_error(start, len))
			snprintf(live->stopper, sizeof(live->stopper), "%.*s",
				 (int)len - 1, start);
		start = newline + 1;
	}
	fflush(stderr);
	live->pending_len -= (size_t)(start - live->pending);
	memmove(live->pending, start, live->pending_len);
	if (live->pending_len == sizeof(live->pending)) {
		fwrite(live->pending, 1, live->pending_len, stderr);
		live->pending_len = 0;
	}
}

/* Reads what the reader wrote; ACCWATCH_RUN_CHILD_WATCH_DONE at its end. */
static enum accwatch_run_child_watch_verdict
accwatch_run_live_read(struct accwatch_run_live *live)
{
	ssize_t n;

	if (live->lines_fd < 0)
		return ACCWATCH_RUN_CHILD_WATCH_DONE;
	do {
		n = read(live->lines_fd, live->pending + live->pending_len,
			 sizeof(live->pending) - live->pending_len);
	} while (n < 0 && errno == EINTR);
	if (n > 0) {
		live->pending_len += (size_t)n;
		accwatch_run_live_lines(live);
		return ACCWATCH_RUN_CHILD_WATCH_GO_ON;
	}
	close(live->lines_fd);
	live->lines_fd = -1;
	return ACCWATCH_RUN_CHILD_WATCH_DONE;
}

static enum accwatch_run_child_watch_verdict
accwatch_run_live_ready(void *context)
{
	struct accwatch_run_live *live = context;
	enum accwatch_run_child_watch_verdict verdict =
	    accwatch_run_live_read(live);

	/* --fail-fast: the reader ends at the first error it printed. */
	if (live->fail_fast && *live->stopper)
		return ACCWATCH_RUN_CHILD_WATCH_STOP;
	if (verdict == ACCWATCH_RUN_CHILD_WATCH_DONE)
		live->reader_ended_early = true;
	return verdict;
}

void accwatch_run_live_reader_end(struct accwatch_run_live *live, char *how,
				  size_t how_size)
{
	int status;
	pid_t ended = 0;

	snprintf(how, how_size, "still running");
	if (live->analyzer <= 0)
		return;
	for (int waited = 0; waited < 20 && ended == 0; waited++) {
		struct timespec pause = {0, 50000000L};

		ended = waitpid(live->analyzer, &status, WNOHANG);
		if (ended == 0)
			nanosleep(&pause, NULL);
	}
	if (ended != live->analyzer)
		return;
	live->analyzer = -1;
	live->reader_status = status;
	if (WIFSIGNALED(status))
		snprintf(how, how_size, "killed by signal %d",
			 WTERMSIG(status));
	else
		snprintf(how, how_size, "exit status %d", WEXITSTATUS(status));
}

struct accwatch_run_child_watch
accwatch_run_live_watch(struct accwatch_run_live *live)
{
	return (struct accwatch_run_child_watch){
	    .fd = live->lines_fd,
	    .ready = accwatch_run_live_ready,
	    .context = live,
	    .grace_s = ACCWATCH_RUN_LIVE_GRACE_S,
	    .end_all = live->fail_fast};
}

static void accwatch_run_live_reap(pid_t *pid, bool kill_it)
{
	if (*pid <= 0)
		return;
	if (kill_it)
		kill(*pid, SIGTERM);
	while (waitpid(*pid, NULL, 0) < 0 && errno == EINTR)
		;
	*pid = -1;
}

void accwatch_run_live_finish(struct accwatch_run_live *live)
{
	struct timespec now, deadline;

	clock_gettime(CLOCK_MONOTONIC, &deadline);
	deadline.tv_sec += ACCWATCH_RUN_LIVE_DRAIN_S;
	while (live->lines_fd >= 0) {
		struct pollfd pfd = {.fd = live->lines_fd, .events = POLLIN};
		long left;

		clock_gettime(CLOCK_MONOTONIC, &now);
		left = (deadline.tv_sec - now.tv_sec) * 1000 +
		       (deadline.tv_nsec - now.tv_nsec) / 1000000;
		if (left <= 0 || poll(&pfd, 1, (int)left) <= 0)
			break;
		accwatch_run_live_read(live);
	}
	if (live->lines_fd >= 0) {
		accwatch_run_log("the live reader did not end within %u s of "
				 "the session; stopped it",
				 ACCWATCH_RUN_LIVE_DRAIN_S);
		close(live->lines_fd);
		live->lines_fd = -1;
	}
	accwatch_run_live_reap(&live->analyzer, true);
	accwatch_run_relayd_stop(&live->relayd);
}
