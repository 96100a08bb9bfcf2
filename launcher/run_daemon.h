/* SPDX-License-Identifier: MIT */
/* Making sure an lttng-sessiond answers: if none is alive, start a per-user
 * one the way the lttng command does, and wait until it accepts commands. */
#ifndef ACCWATCH_RUN_DAEMON_H
#define ACCWATCH_RUN_DAEMON_H

#include <stddef.h>

enum accwatch_run_daemon_status {
	ACCWATCH_RUN_DAEMON_ALIVE = 0, /* one was already running */
	ACCWATCH_RUN_DAEMON_STARTED, /* we started it; it keeps running after us
				      */
	ACCWATCH_RUN_DAEMON_QUERY_FAILED, /* lttng_session_daemon_alive() failed
					   */
	ACCWATCH_RUN_DAEMON_SPAWN_FAILED, /* fork or exec of lttng-sessiond
					     failed */
	ACCWATCH_RUN_DAEMON_EXITED,       /* lttng-sessiond --daemonize reported
					     failure */
	ACCWATCH_RUN_DAEMON_TIMEOUT,      /* started, but never answered */
};

/* detail gets one phrase on a failure (errno text, exit status). */
enum accwatch_run_daemon_status
accwatch_run_daemon_ensure(int timeout_ms, char *detail, size_t detail_len);

#endif
