/* SPDX-License-Identifier: MIT */
/* --live and --fail-fast: a lttng-relayd on loopback that the session
 * streams to (it writes the trace into the output directory), and
 * accwatch-report --live reading it, whose lines go to our stderr. */
#ifndef ACCWATCH_RUN_LIVE_H
#define ACCWATCH_RUN_LIVE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "run_child.h"
#include "run_relayd.h"

/* How often the session's streams are flushed to the relay daemon: 0.1 s
 * took a batch to the reader in 0.12-0.17 s (bench/live_transport.py). */
#define ACCWATCH_RUN_LIVE_LOCAL_TIMER_US 100000u
/* The grace between SIGINT, SIGTERM and SIGKILL of --fail-fast. */
#define ACCWATCH_RUN_LIVE_GRACE_S 10u
/* How long the live reader may take to end once the session is gone. */
#define ACCWATCH_RUN_LIVE_DRAIN_S 10u

struct accwatch_run_live {
	struct accwatch_run_relayd relayd;
	pid_t analyzer;
	int lines_fd; /* the analyzer's stdout, -1 once it ended */
	char control_url[64], data_url[64], viewer_url[64], live_url[512];
	char pending[2048];
	size_t pending_len;
	char stopper[1024]; /* the first error line, with --fail-fast */
	bool fail_fast;
	/* The reader's output ended while the command ran: it died or was
	 * killed (its status in reader_status once reaped, -1 before). */
	bool reader_ended_early;
	int reader_status;
};

enum accwatch_run_live_status {
	ACCWATCH_RUN_LIVE_OK = 0,
	ACCWATCH_RUN_LIVE_FAILED, /* message in error */
};

void accwatch_run_live_init(struct accwatch_run_live *live, bool fail_fast);
/* Starts lttng-relayd writing under output_dir, peers_lib preloaded
 * (run_relayd.h), and waits until it listens. */
enum accwatch_run_live_status
accwatch_run_live_relayd_start(struct accwatch_run_live *live,
			       const char *output_dir, const char *peers_lib,
			       char *error, size_t error_size);
/* Starts accwatch-report --live on the session (found next to our own
 * executable); start: the command's start, Unix seconds. */
enum accwatch_run_live_status
accwatch_run_live_reader_start(struct accwatch_run_live *live,
			       const char *session, double start, char *error,
			       size_t error_size);
/* A reader that ended early: reaps it when it has ended, and says how it
 * ended ("exit status 2", "killed by signal 9") in how. */
void accwatch_run_live_reader_end(struct accwatch_run_live *live, char *how,
				  size_t how_size);
/* The watch for the command's wait (run_child.h). */
struct accwatch_run_child_watch
accwatch_run_live_watch(struct accwatch_run_live *live);
/* Once the session is destroyed: lets the reader print what is left
 * (bounded), then stops it and the relay daemon. */
void accwatch_run_live_finish(struct accwatch_run_live *live);

#endif
