/* SPDX-License-Identifier: MIT */
/* The lines accwatch-run prints once the session is gone: where the trace is
 * and the exact command to read it (memray-style), plus data-loss warnings. */
#ifndef ACCWATCH_RUN_SUMMARY_H
#define ACCWATCH_RUN_SUMMARY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct accwatch_run_summary {
	const char *trace_path; /* absolute */
	bool trace_empty;       /* no process registered with LTTng: nothing was
				   written */
	uint64_t discarded;     /* events the channel dropped */
	/* The session discarded rather than blocked (--discard); its
	 * sub-buffers' size. Without --discard, events are lost only when
	 * one is larger than a sub-buffer. */
	bool discard_mode;
	uint64_t subbuf_size;
	/* The trace's filesystem had less than ACCWATCH_RUN_FULL_BYTES left
	 * after the run (free_bytes of them). */
	bool disk_full;
	int64_t free_bytes;
	/* Processes that stopped recording after the stall bound, and the
	 * first one's note (accwatch_record_stall.c's words). */
	unsigned stalled;
	char stalled_note[256];
	/* Processes the session daemon did not take within the stall bound of
	 * their start, and the first one's note
	 * (accwatch_record_register.c's words). */
	unsigned unregistered;
	char unregistered_note[256];
	/* The session daemon never finished stopping the session. */
	bool teardown_stuck;
	bool quiet; /* only warnings */
	/* Why nothing could be recorded (run_preflight.h), when known. */
	char unrecorded[768];
};

/* Below this much free space the consumer cannot have written everything. */
#define ACCWATCH_RUN_FULL_BYTES (1024 * 1024)

void accwatch_run_summary_print(FILE *out,
				const struct accwatch_run_summary *summary);

/* text as one shell word: unchanged when plain, else in single quotes.
 * Returns false (out empty) if out is too small. */
bool accwatch_run_shell_quote(const char *text, char *out, size_t out_len);

#endif
