/* SPDX-License-Identifier: MIT */
/* The relay daemon of --live: lttng-relayd on three loopback ports that it
 * alone listens on, with libaccwatch-relayd.so preloaded so that it takes
 * connections from processes of its own user (or root) only. */
#ifndef ACCWATCH_RUN_RELAYD_H
#define ACCWATCH_RUN_RELAYD_H

#include <stddef.h>
#include <sys/types.h>

#define ACCWATCH_RUN_RELAYD_LIB "libaccwatch-relayd.so"
/* Ports another process took first are given up for new ones this often. */
#define ACCWATCH_RUN_RELAYD_TRIES 8
/* How long lttng-relayd may take to listen on its ports. */
#define ACCWATCH_RUN_RELAYD_READY_MS 10000

enum accwatch_run_relayd_port { /* the order of ports[] */
				ACCWATCH_RUN_RELAYD_CONTROL = 0,
				ACCWATCH_RUN_RELAYD_DATA,
				ACCWATCH_RUN_RELAYD_VIEWER,
				ACCWATCH_RUN_RELAYD_PORTS,
};

struct accwatch_run_relayd {
	pid_t pid; /* -1 when not running */
	int ports[ACCWATCH_RUN_RELAYD_PORTS];
	int tries; /* how many starts it took */
};

enum accwatch_run_relayd_status {
	ACCWATCH_RUN_RELAYD_OK = 0,
	ACCWATCH_RUN_RELAYD_FAILED, /* message in error */
};

/* Who listens on a TCP port (any address, IPv4 or IPv6). */
enum accwatch_run_relayd_listener {
	ACCWATCH_RUN_RELAYD_LISTENER_NONE = 0,
	ACCWATCH_RUN_RELAYD_LISTENER_OWN,     /* pid's sockets only */
	ACCWATCH_RUN_RELAYD_LISTENER_FOREIGN, /* a socket pid does not hold */
};

/* Starts lttng-relayd writing under output_dir with peers_lib preloaded
 * and waits until it alone listens on all its ports. The ports of the
 * first start are first (NULL: free ones picked); when another process
 * listens on one of them, or takes one first, that start is given up and
 * new ports picked, up to ACCWATCH_RUN_RELAYD_TRIES starts. */
enum accwatch_run_relayd_status
accwatch_run_relayd_start(struct accwatch_run_relayd *relayd,
			  const char *output_dir, const char *peers_lib,
			  const int first[ACCWATCH_RUN_RELAYD_PORTS],
			  char *error, size_t error_size);

enum accwatch_run_relayd_listener accwatch_run_relayd_listener(pid_t pid,
							       int port);

/* SIGTERM, then waits for it. */
void accwatch_run_relayd_stop(struct accwatch_run_relayd *relayd);

#endif
