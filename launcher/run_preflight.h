/* SPDX-License-Identifier: MIT */
/* What recording needs before the command starts: a session daemon that can
 * keep its sockets (a usable LTTNG_HOME/HOME), a /dev/shm where LTTng-UST's
 * pages and the session's buffers fit. One line on what is wrong. */
#ifndef ACCWATCH_RUN_PREFLIGHT_H
#define ACCWATCH_RUN_PREFLIGHT_H

#include <stdbool.h>
#include <stddef.h>

#include "run_args.h"

/* True when recording can work; else false with the cause and its fix in
 * why (one line, no newline). Sizes the buffers first when options leave
 * it to accwatch-run: the burst's (accwatch_run_buffers_grow) when the
 * daemon's consumer shares this /dev/shm and it has the room, else the
 * defaults stay; one probe of the daemon and /dev/shm serves both. May
 * create LTTng-UST's wait files in /dev/shm (as the traced processes
 * would) to reserve their pages. */
bool accwatch_run_preflight(struct accwatch_run_options *options, char *why,
			    size_t why_len);

/* After a run that recorded nothing: whether /dev/shm is the reason (the
 * preload stayed dormant for it), in why. */
bool accwatch_run_preflight_shm_after(char *why, size_t why_len);

/* Writes why into DIR/ACCWATCH_UNRECORDED_NOTE (accwatch_events.h); errors are
 * ignored. */
void accwatch_run_preflight_note(const char *dir, const char *why);

#endif
