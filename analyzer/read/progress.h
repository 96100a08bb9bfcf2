/* SPDX-License-Identifier: MIT */
/* The progress line of a long read: on stderr when it is a terminal, from
 * two seconds in, the MiB of the traces decoded of their total, the rate
 * and the time left; erased when reading ends. Nothing otherwise.
 *
 * What is decoded is counted in packets: the reader's child says how many
 * it began, the traces' CTF index files (index/<stream>.idx, which
 * LTTng writes beside every stream file) how many there are. LTTng-UST's
 * packets of one channel all have its sub-buffer's size, so the share of
 * packets is the share of bytes; without index files there is no line.
 * The analysis after the reading has a line of its own: its stage and how
 * many of the stage's units (passes, epochs) are done. */
#ifndef AW_PROGRESS_H
#define AW_PROGRESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "trace_dirs.h"

/* Seconds of reading before the line shows, and between two redraws. */
#define AW_PROGRESS_AFTER_S 2.0
#define AW_PROGRESS_EVERY_S 0.25

struct aw_progress {
	FILE *out;               /* NULL: no line */
	uint64_t bytes, packets; /* of the traces' streams */
	double start, last_draw;
	bool drawn;
};

/* The bytes of the stream files of the trace directories and the packets
 * their index files list. */
void aw_progress_measure(const struct aw_trace_dirs *dirs, uint64_t *bytes,
			 uint64_t *packets);

/* out: where the line goes when it is a terminal (stderr), or NULL. */
void aw_progress_start(struct aw_progress *p, FILE *out,
		       const struct aw_trace_dirs *dirs, double now);
/* packets: how many the reader began. */
void aw_progress_update(struct aw_progress *p, uint64_t packets, double now);
void aw_progress_end(struct aw_progress *p);

/* The line of the analysis after the reading: out as for
 * aw_progress_start (no trace to measure), start the report's start, so that
 * a short report shows none. */
void aw_progress_start_analysis(struct aw_progress *p, FILE *out, double start);
/* stage: what the analysis is doing ("checks"), done of total units. */
void aw_progress_step(struct aw_progress *p, const char *stage, uint64_t done,
		      uint64_t total, double now);

/* "reading 45.2 of 105.0 MiB (43%), 52.1 MiB/s, 1 s left" */
void aw_progress_line(char *out, size_t size, uint64_t done, uint64_t total,
		      double elapsed);

#endif
