/* SPDX-License-Identifier: MIT */
/* Live findings: while a session is recorded, the checks run on snapshots of
 * the model at the moments something may have become certain, and each
 * finding the final report is sure to give is printed once, as one line. */
#ifndef AW_LIVE_H
#define AW_LIVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "findings.h"
#include "model.h"
#include "suppress.h"

struct aw_live {
	FILE *out;
	double start;   /* CLOCK_REALTIME seconds the times count from */
	bool fail_fast; /* stop reading at the first error printed */
	const struct aw_suppressions *suppressions; /* NULL: none */
	uint64_t moments;   /* what aw_live_moments last said */
	uint64_t events;    /* the model's events at the last snapshot */
	double snapshot_at; /* CLOCK_REALTIME seconds of the last snapshot */
	bool ending;        /* the last snapshot had an epoch some rank ended */
	char **printed;     /* keys of the findings printed */
	size_t n_printed, printed_cap;
	size_t errors; /* errors printed */
};

void aw_live_init(struct aw_live *live, FILE *out, double start, bool fail_fast,
		  const struct aw_suppressions *suppressions);
void aw_live_fini(struct aw_live *live);
/* The reader's tick (reader.h): checks when a moment came since the last
 * one; false once an error was printed with fail_fast. */
bool aw_live_tick(void *live, struct aw_model *model);
/* Whether the final report is sure to give this finding of a snapshot:
 * a fact that happened (a duplicate rank), a fork of a loader's workers
 * once every rank ended its first pass, or a verdict on an epoch every
 * rank of the world has ended. Infos are never printed live. */
bool aw_live_certain(const struct aw_model *model,
		     const struct aw_finding *finding);
/* The world size of a snapshot when the processes stated it (a process
 * group's, a launcher's variables on the ranks, or, where the ranks are
 * the ones their samplers were given, every such sampler's num_replicas);
 * -1 when it is only the ranks seen so far, which a rank that has not
 * started yet would change. */
int32_t aw_live_world(const struct aw_model *model);
/* A count that grows at each moment the checks are run at: a pass that got
 * its first batch or ended, a fork, a process that appeared or ended. */
uint64_t aw_live_moments(const struct aw_model *model);

#endif
