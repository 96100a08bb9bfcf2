/* SPDX-License-Identifier: MIT */
/* Starting the relay daemon of --live (run_relayd.h). Its ports are picked
 * free, closed, then named on its command line; another process may take
 * one in that gap (and /proc shows the command line to everyone), so a
 * start counts only once the listening sockets of all three ports are
 * found among the relay daemon's own descriptors. */
#define _GNU_SOURCE
#include "run_relayd.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "accwatch_common.h"
#include "run_log.h"
#include "run_spawn.h"

#define ACCWATCH_RUN_RELAYD_POLL_MS 20
/* The state of a listening socket in /proc/net/tcp. */
#define ACCWATCH_RUN_RELAYD_TCP_LISTEN 0x0A

extern char **environ;

/* How one start went. */
enum accwatch_run_relayd_try {
	ACCWATCH_RUN_RELAYD_TRY_LISTENS = 0,
	ACCWATCH_RUN_RELAYD_TRY_AGAIN, /* a port was another's; reason said */
	ACCWATCH_RUN_RELAYD_TRY_FAILED,
};

/* Free loopback ports, held bound until all are chosen. */
static bool accwatch_run_relayd_pick(int ports[ACCWATCH_RUN_RELAYD_PORTS])
{
	int fds[ACCWATCH_RUN_RELAYD_PORTS] = {-1, -1, -1};
	bool ok = true;

	for (size_t i = 0; i < ACCWATCH_RUN_RELAYD_PORTS && ok; i++) {
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
	for (size_t i = 0; i < ACCWATCH_RUN_RELAYD_PORTS; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	return ok;
}

/* Whether pid holds the socket of that inode. */
static bool accwatch_run_relayd_holds(pid_t pid, unsigned long inode)
{
	char dir[64], want[48], path[PATH_MAX], link[64];
	struct dirent *entry;
	bool held = false;
	DIR *fds;

	snprintf(dir, sizeof(dir), "/proc/%ld/fd", (long)pid);
	snprintf(want, sizeof(want), "socket:[%lu]", inode);
	fds = opendir(dir);
	if (!fds)
		return false;
	while (!held && (entry = readdir(fds))) {
		ssize_t n;

		snprintf(path, sizeof(path), "%s/%s", dir, entry->d_name);
		n = readlink(path, link, sizeof(link) - 1);
		if (n > 0) {
			link[n] = '\0';
			held = strcmp(link, want) == 0;
		}
	}
	closedir(fds);
	return held;
}

/* Counts the sockets listening on port in a /proc/net table (tcp, tcp6):
 * pid's in *own, any other in *foreign. */
static void accwatch_run_relayd_scan(const char *table_path, pid_t pid,
				     int port, int *own, int *foreign)
{
	FILE *table = fopen(table_path, "re");
	char line[512];

	if (!table)
		return;
	while (fgets(line, sizeof(line), table)) {
		unsigned int local_port, state;
		unsigned long inode;

		if (sscanf(line,
			   " %*u: %*[0-9A-Fa-f]:%4X %*[0-9A-Fa-f]:%*X %X "
			   "%*X:%*X %*X:%*X %*X %*u %*u %lu",
			   &local_port, &state, &inode) != 3 ||
		    state != ACCWATCH_RUN_RELAYD_TCP_LISTEN ||
		    local_port != (unsigned int)port)
			continue;
		if (accwatch_run_relayd_holds(pid, inode))
			(*own)++;
		else
			(*foreign)++;
	}
	fclose(table);
}

enum accwatch_run_relayd_listener accwatch_run_relayd_listener(pid_t pid,
							       int port)
{
	int own = 0, foreign = 0;

	accwatch_run_relayd_scan("/proc/net/tcp", pid, port, &own, &foreign);
	accwatch_run_relayd_scan("/proc/net/tcp6", pid, port, &own, &foreign);
	if (foreign > 0)
		return ACCWATCH_RUN_RELAYD_LISTENER_FOREIGN;
	return own > 0 ? ACCWATCH_RUN_RELAYD_LISTENER_OWN
		       : ACCWATCH_RUN_RELAYD_LISTENER_NONE;
}

/* Our environment with LD_PRELOAD=peers_lib instead of any other; NULL
 * when out of memory. The strings are borrowed but the first, *preload. */
static char **accwatch_run_relayd_env(const char *peers_lib, char **preload)
{
	size_t count = 0, kept = 0;
	char **env;

	while (environ[count])
		count++;
	env = calloc(count + 2, sizeof(*env));
	if (!env || asprintf(preload, "LD_PRELOAD=%s", peers_lib) < 0) {
		free(env);
		*preload = NULL;
		return NULL;
	}
	env[kept++] = *preload;
	for (size_t i = 0; i < count; i++)
		if (strncmp(environ[i], "LD_PRELOAD=", 11) != 0)
			env[kept++] = environ[i];
	return env;
}

static void accwatch_run_relayd_sleep(void)
{
	struct timespec pause = {.tv_nsec =
				     ACCWATCH_RUN_RELAYD_POLL_MS * 1000000L};

	nanosleep(&pause, NULL);
}

/* Which listens on the ports now: every port pid's alone (LISTENS), one
 * of them another's (AGAIN), or not all yet (FAILED, to wait more). */
static enum accwatch_run_relayd_try
accwatch_run_relayd_listening(const struct accwatch_run_relayd *relayd,
			      char *reason, size_t reason_size)
{
	enum accwatch_run_relayd_try found = ACCWATCH_RUN_RELAYD_TRY_LISTENS;

	for (int i = 0; i < ACCWATCH_RUN_RELAYD_PORTS; i++) {
		switch (accwatch_run_relayd_listener(relayd->pid,
						     relayd->ports[i])) {
		case ACCWATCH_RUN_RELAYD_LISTENER_FOREIGN:
			snprintf(reason, reason_size,
				 "another process listens on port %d",
				 relayd->ports[i]);
			return ACCWATCH_RUN_RELAYD_TRY_AGAIN;
		case ACCWATCH_RUN_RELAYD_LISTENER_NONE:
			found = ACCWATCH_RUN_RELAYD_TRY_FAILED;
			break;
		case ACCWATCH_RUN_RELAYD_LISTENER_OWN:
			break;
		}
	}
	return found;
}

/* One start on relayd->ports, waited for until it listens or ends. */
static enum accwatch_run_relayd_try
accwatch_run_relayd_try(struct accwatch_run_relayd *relayd, char *argv[],
			char **env, char *reason, size_t reason_size)
{
	int status;

	/* It outlives a kill -9 of accwatch-run: the guardian ends it. */
	relayd->pid =
	    accwatch_run_spawn(argv, env, -1, !accwatch_debug_on(), false);
	if (relayd->pid < 0) {
		snprintf(reason, reason_size, "cannot start lttng-relayd: %s",
			 strerror(errno));
		return ACCWATCH_RUN_RELAYD_TRY_FAILED;
	}
	for (int waited = 0; waited < ACCWATCH_RUN_RELAYD_READY_MS;
	     waited += ACCWATCH_RUN_RELAYD_POLL_MS) {
		enum accwatch_run_relayd_try found =
		    accwatch_run_relayd_listening(relayd, reason, reason_size);

		if (found == ACCWATCH_RUN_RELAYD_TRY_LISTENS)
			return found;
		if (found == ACCWATCH_RUN_RELAYD_TRY_AGAIN) {
			accwatch_run_relayd_stop(relayd);
			return found;
		}
		if (waitpid(relayd->pid, &status, WNOHANG) == relayd->pid) {
			relayd->pid = -1;
			if (WIFEXITED(status) && WEXITSTATUS(status) == 127) {
				snprintf(reason, reason_size,
					 "cannot run lttng-relayd (is "
					 "lttng-tools' lttng-relayd "
					 "installed?)");
				return ACCWATCH_RUN_RELAYD_TRY_FAILED;
			}
			snprintf(reason, reason_size,
				 "lttng-relayd ended at once (ACCWATCH_DEBUG=1 "
				 "shows its messages)");
			return ACCWATCH_RUN_RELAYD_TRY_AGAIN;
		}
		accwatch_run_relayd_sleep();
	}
	accwatch_run_relayd_stop(relayd);
	snprintf(reason, reason_size,
		 "lttng-relayd does not listen on its ports after %d s",
		 ACCWATCH_RUN_RELAYD_READY_MS / 1000);
	return ACCWATCH_RUN_RELAYD_TRY_FAILED;
}

enum accwatch_run_relayd_status
accwatch_run_relayd_start(struct accwatch_run_relayd *relayd,
			  const char *output_dir, const char *peers_lib,
			  const int first[ACCWATCH_RUN_RELAYD_PORTS],
			  char *error, size_t error_size)
{
	enum accwatch_run_relayd_try tried = ACCWATCH_RUN_RELAYD_TRY_FAILED;
	char urls[ACCWATCH_RUN_RELAYD_PORTS][64], reason[256] = "";
	char *argv[] = {"lttng-relayd",
			"-C",
			urls[0],
			"-D",
			urls[1],
			"-L",
			urls[2],
			"-o",
			(char *)output_dir,
			NULL};
	char *preload = NULL;
	char **env = accwatch_run_relayd_env(peers_lib, &preload);

	relayd->pid = -1;
	relayd->tries = 0;
	if (!env) {
		snprintf(reason, sizeof(reason), "out of memory");
		goto end;
	}
	do {
		if (relayd->tries == 0 && first)
			memcpy(relayd->ports, first, sizeof(relayd->ports));
		else if (!accwatch_run_relayd_pick(relayd->ports)) {
			snprintf(reason, sizeof(reason),
				 "cannot find free loopback ports: %s",
				 strerror(errno));
			tried = ACCWATCH_RUN_RELAYD_TRY_FAILED;
			break;
		}
		for (int i = 0; i < ACCWATCH_RUN_RELAYD_PORTS; i++)
			snprintf(urls[i], sizeof(urls[i]), "tcp://127.0.0.1:%d",
				 relayd->ports[i]);
		relayd->tries++;
		tried = accwatch_run_relayd_try(relayd, argv, env, reason,
						sizeof(reason));
		accwatch_run_log_debug(
		    "lttng-relayd start %d on ports %d, %d, %d: %s",
		    relayd->tries, relayd->ports[0], relayd->ports[1],
		    relayd->ports[2],
		    tried == ACCWATCH_RUN_RELAYD_TRY_LISTENS ? "listens"
							     : reason);
	} while (tried == ACCWATCH_RUN_RELAYD_TRY_AGAIN &&
		 relayd->tries < ACCWATCH_RUN_RELAYD_TRIES);
end:
	free(env);
	free(preload);
	if (tried == ACCWATCH_RUN_RELAYD_TRY_LISTENS)
		return ACCWATCH_RUN_RELAYD_OK;
	if (tried == ACCWATCH_RUN_RELAYD_TRY_AGAIN)
		snprintf(error, error_size,
			 "lttng-relayd found no loopback ports of its own in "
			 "%d starts (the last: %s)",
			 relayd->tries, reason);
	else
		snprintf(error, error_size, "%s", reason);
	return ACCWATCH_RUN_RELAYD_FAILED;
}

void accwatch_run_relayd_stop(struct accwatch_run_relayd *relayd)
{
	if (relayd->pid <= 0)
		return;
	kill(relayd->pid, SIGTERM);
	while (waitpid(relayd->pid, NULL, 0) < 0 && errno == EINTR)
		;
	relayd->pid = -1;
}
