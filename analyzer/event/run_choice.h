/* SPDX-License-Identifier: MIT */
/* Which recordings' events a report reads (--run): with nothing named every
 * run, "all" every run read together, else the runs named (accwatch-run's
 * run ids, 0 for a session of one's own). */
#ifndef AW_RUN_CHOICE_H
#define AW_RUN_CHOICE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Runs --run may name. */
#define AW_RUN_CHOICE_MAX 64

struct aw_run_choice {
	bool all; /* --run all */
	uint32_t ids[AW_RUN_CHOICE_MAX];
	size_t n_ids;
};

/* Whether the events of run are read: nothing named, all, or named. */
bool aw_run_choice_keeps(const struct aw_run_choice *choice, uint32_t run);
/* Whether --run named this run (not "all"). */
bool aw_run_choice_names(const struct aw_run_choice *choice, uint32_t run);

#endif
