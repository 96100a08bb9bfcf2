/* The progress line of a long read: on stderr when it is a terminal, from
 * two seconds in, the bytes of the traces decoded of their total, the rate
 * and the time left; erased when reading ends. Nothing otherwise. */
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
	FILE *out; /* NULL: no line */
	uint64_t total;
	double start, last_draw;
	bool drawn;
};

/* The bytes of the stream files of the trace directories (their metadata
 * files left out): what decoding goes through. */
uint64_t aw_progress_total(const struct aw_trace_dirs *dirs);

/* out: where the line goes when it is a terminal (stderr), or NULL. */
void aw_progress_start(struct aw_progress *p, FILE *out, uint64_t total,
		       double now);
void aw_progress_update(struct aw_progress *p, uint64_t done, double now);
void aw_progress_end(struct aw_progress *p);

/* "reading 45.2 of 105.0 MiB (43%), 52.1 MiB/s, 1 s left" */
void aw_progress_line(char *out, size_t size, uint64_t done, uint64_t total,
		      double elapsed);

#endif
