/* SPDX-License-Identifier: MIT */
/* Which recordings a report covers. Every event carries the run id of the
 * accwatch-run that recorded it (0: a session of one's own, no
 * accwatch-run). A trace directory holding events of several runs mixes
 * unrelated programs (a session that did not filter on its run): the
 * report then needs --run to pick one (or --run all). Traces of different
 * directories holding different runs are separate recordings too (the
 * nodes of one job share its run id): the same choice is asked for. */
#ifndef AW_RUNS_H
#define AW_RUNS_H

#include <stddef.h>

#include "model.h"

enum aw_runs_status {
	AW_RUNS_OK,
	AW_RUNS_MIXED,     /* a trace holds several runs, no --run given */
	AW_RUNS_NOT_FOUND, /* a run --run named is in no trace */
};

/* Checks the runs the traces hold (model->stats.trace_runs, filled while
 * reading) against the --run choice (model->runs_taken); on a status but OK,
 * error holds one line naming the trace, the runs it holds and what to pass. */
enum aw_runs_status aw_runs_check(const struct aw_model *model, char *error,
				  size_t error_size);

#endif
