/* SPDX-License-Identifier: MIT */
/* The LTTng session of one accwatch-run: created, configured (one user-space
 * channel, `accwatch:*` filtered on the run id), started, stopped, destroyed.
 */
#ifndef ACCWATCH_RUN_SESSION_H
#define ACCWATCH_RUN_SESSION_H

#include <stdbool.h>
#include <stdint.h>

#include "run_args.h"

#define ACCWATCH_RUN_CHANNEL_NAME "accwatch"
#define ACCWATCH_RUN_EVENT_PATTERN "accwatch:*"
/* A streamed session sends what its buffers hold every second (lttng's
 * default live timer): a node whose link breaks loses about that much,
 * and a live reader sees events that old at most. */
#define ACCWATCH_RUN_LIVE_TIMER_US 1000000u

enum accwatch_run_session_status {
	ACCWATCH_RUN_SESSION_OK = 0,
	ACCWATCH_RUN_SESSION_NO_MEMORY,
	ACCWATCH_RUN_SESSION_CREATE_FAILED,
	ACCWATCH_RUN_SESSION_CHANNEL_FAILED,
	ACCWATCH_RUN_SESSION_EVENT_FAILED,
	ACCWATCH_RUN_SESSION_START_FAILED,
	ACCWATCH_RUN_SESSION_STOP_FAILED,
	ACCWATCH_RUN_SESSION_DESTROY_FAILED,
};

struct accwatch_run_session_config {
	const char *name;        /* unique among the daemon's sessions */
	const char *output_path; /* absolute; unused with relayd_url */
	/* An lttng-relayd's control URL (net://HOST...): a live session
	 * streaming there, flushed every ACCWATCH_RUN_LIVE_TIMER_US; NULL:
	 * written to output_path. */
	const char *relayd_url;
	enum accwatch_run_buffers buffers;
	uint64_t subbuf_size, num_subbuf;
	bool discard;      /* else block when buffers are full: */
	uint32_t stall_ms; /* at most this long, 0 as long as it takes */
	uint32_t run_id;
	/* With relayd_url: the relay daemon's data URL (NULL: the control
	 * URL's host, lttng's data port), and how often the streams are
	 * flushed to it (0: ACCWATCH_RUN_LIVE_TIMER_US). */
	const char *relayd_data_url;
	uint64_t live_timer_us;
};

struct accwatch_run_session {
	char name[64];
	struct lttng_handle *handle;
	bool created, started;
	int lttng_error; /* the last liblttng-ctl error, as a positive
			    lttng_error_code */
};

/* Creates and configures the session; on failure nothing is left behind. */
enum accwatch_run_session_status
accwatch_run_session_create(struct accwatch_run_session *session,
			    const struct accwatch_run_session_config *config);

enum accwatch_run_session_status
accwatch_run_session_start(struct accwatch_run_session *session);

/* Stops tracing if started (waits until the data is written) and reports
 * the events the channel discarded (0 where unknown). */
enum accwatch_run_session_status
accwatch_run_session_stop(struct accwatch_run_session *session,
			  uint64_t *discarded);

/* Whether no session daemon answers: the last liblttng-ctl error said so,
 * or, after a failed call, a fresh connection finds none (a daemon that
 * answered an error and was killed just after). */
bool accwatch_run_session_daemon_gone(
    const struct accwatch_run_session *session);
/* Frees what this process holds of the session (its handle), leaving the
 * session itself to whoever stops and destroys it. */
void accwatch_run_session_forget(struct accwatch_run_session *session);

/* Destroys the session if created; safe to call more than once. */
enum accwatch_run_session_status
accwatch_run_session_destroy(struct accwatch_run_session *session);

/* The text of the last liblttng-ctl error. */
/* Destroys the sessions that an accwatch-run killed without cleaning up
 * (kill -9, the OOM killer) left behind: named accwatch-PID-SALT, PID no
 * longer an accwatch-run. Destroying flushes them: their traces read. Calls
 * reaped(name, path) for each; returns how many (-1: cannot list). */
int accwatch_run_session_reap_orphans(void (*reaped)(const char *name,
						     const char *path));

const char *
accwatch_run_session_strerror(const struct accwatch_run_session *session);

#endif
