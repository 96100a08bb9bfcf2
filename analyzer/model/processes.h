/* SPDX-License-Identifier: MIT */
/* Who each process of the run is: parents, workers and their owners, ranks
 * (said, or inferred), attempts of the job. */
#ifndef AW_PROCESSES_H
#define AW_PROCESSES_H

#include "model.h"

/* Sets every process's parent, is_worker, owner, rank, rank_inferred and
 * attempt from the events taken, anew (a snapshot too). */
void aw_resolve_processes(struct aw_model *model);

#endif
