/* SPDX-License-Identifier: MIT */
/* The relay daemon and the live reader of --live: started in process groups
 * of their own (a Ctrl-C on the terminal is the command's, not theirs), and
 * ended with accwatch-run (PR_SET_PDEATHSIG) when it is killed. */
#define _GNU_SOURCE
#include "run_live.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "accwatch_common.h"
#include "run_log.h"

#define ACCWATCH_RUN_LIVE_READY_MS 10000

void accwatch_run_live_init(struct accwatch_run_live *live, bool fail_fast)
{
	memset(live, 0, sizeof(*live));
	live->relayd = live->analyzer = -1;
	live->lines_fd = -1;
	live->fail_fast = fail_fast;
}

/* Free loopback ports, held bound until all are chosen. */
static bool accwatch_run_live_ports(int ports[], size_t n)
{
	int fds[3] = {-1, -1, -1};
	bool ok = true;

	for (size_t i = 0; i < n && ok; i++) {
		struct sockaddr_in addr = {.sin_family = AF_INET};
		socklen_t len = sizeof(addr);

		addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		fds[i] = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		ok =
		    fds[i] >= 0 &&
		    bind(fds[i], (struct sockaddr *)&addr, sizeof(addr)) == 0 &&
		    getsockname(fds[i], (struct sockaddr *)&addr, &len) == 0;
		if (ok)
			ports[i] = ntohs(addr.sin_port);
	}
	for (size_t i = 0; i < n; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	return ok;
}

static bool accwatch_run_live_accepts(int port)
{
	struct sockaddr_in addr = {.sin_family = AF_INET,
				   .sin_port = htons((uint16_t)port)};
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	bool ok;

	addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ok =
	    fd >= 0 && connect(fd, (struct sockaddr *)&addr, sizeof(addr)) == 0;
	if (fd >= 0)
		close(fd);
	return ok;
}

/* In a child before exec: a group of its own, gone with us, stdout to
 * out_fd (or /dev/null), stderr to /dev/null when quiet. */
static void accwatch_run_live_child_setup(int out_fd, bool quiet)
{
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);

	setpgid(0, 0);
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	if (null >= 0) {
		dup2(null, STDIN_FILENO);
		if (quiet)
			dup2(null, STDERR_FILENO);
	}
	dup2(out_fd >= 0 ? out_fd : null, STDOUT_FILENO);
}

static pid_t accwatch_run_live_spawn(char *const argv[], int out_fd, bool quiet)
{
	pid_t pid = fork();

	if (pid == 0) {
		accwatch_run_live_child_setup(out_fd, quiet);
		execvp(argv[0], argv);
		_exit(127);
	}
	if (pid > 0)
		setpgid(pid, pid);
	return pid;
}

enum accwatch_run_live_status
accwatch_run_live_relayd_start(struct accwatch_run_live *live,
			       const char *output_dir, char *error,
			       size_t error_size)
{
	int ports[3];
	char control[64], data[64], viewer[64];
	struct timespec pause = {.tv_nsec = 20000000};

	if (!accwatch_run_live_ports(ports, 3)) {
		snprintf(error, error_size,
			 "cannot find free loopback ports for lttng-relayd: %s",
			 strerror(errno));
		return ACCWATCH_RUN_LIVE_FAILED;
	}
	snprintf(control, sizeof(control), "tcp://127.0.0.1:%d", ports[0]);
	snprintf(data, sizeof(data), "tcp://127.0.0.1:%d", ports[1]);
	snprintf(viewer, sizeof(viewer), "tcp://127.0.0.1:%d", ports[2]);
	snprintf(live->control_url, sizeof(live->control_url), "%s", control);
	snprintf(live->data_url, sizeof(live->data_url), "%s", data);
	snprintf(live->viewer_url, sizeof(live->viewer_url),
		 "net://127.0.0.1:%d", ports[2]);
	char *argv[] = {
	    "lttng-relayd",     "-C", control, "-D", data, "-L", viewer, "-o",
	    (char *)output_dir, NULL};
	live->relayd = accwatch_run_live_spawn(argv, -1, !accwatch_debug_on());
	if (live->relayd < 0) {
		snprintf(error, error_size, "cannot start lttng-relayd: %s",
			 strerror(errno));
		return ACCWATCH_RUN_LIVE_FAILED;
	}
	for (int waited = 0; waited < ACCWATCH_RUN_LIVE_READY_MS;
	     waited += 20) {
		if (accwatch_run_live_accepts(ports[2]))
			return ACCWATCH_RUN_LIVE_OK;
		if (waitpid(live->relayd, NULL, WNOHANG) == live->relayd) {
			live->relayd = -1;
			snprintf(error, error_size,
				 "lttng-relayd ended at once (is lttng-tools' "
				 "lttng-relayd installed? ACCWATCH_DEBUG=1 "
				 "shows its messages)");
			return ACCWATCH_RUN_LIVE_FAILED;
		}
		nanosleep(&pause, NULL);
	}
	snprintf(error, error_size,
		 "lttng-relayd does not take connections on %s after %d s",
		 viewer, ACCWATCH_RUN_LIVE_READY_MS / 1000);
	return ACCWATCH_RUN_LIVE_FAILED;
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
	live->analyzer = accwatch_run_live_spawn(argv, fds[1], false);
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
	return verdict;
}

struct accwatch_run_child_watch
accwatch_run_live_watch(struct accwatch_run_live *live)
{
	return (struct accwatch_run_child_watch){
	    .fd = live->lines_fd,
	    .ready = accwatch_run_live_ready,
	    .context = live,
	    .grace_s = ACCWATCH_RUN_LIVE_GRACE_S};
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
	accwatch_run_live_reap(&live->relayd, true);
}
