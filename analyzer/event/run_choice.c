/* SPDX-License-Identifier: MIT */
/* Which runs' events a report reads (--run): the choice, below the reader
 * and the model that both ask it. */
#include "run_choice.h"

bool aw_run_choice_names(const struct aw_run_choice *choice, uint32_t run)
{
	for (size_t i = 0; i < choice->n_ids; i++)
		if (choice->ids[i] == run)
			return true;
	return false;
}

bool aw_run_choice_keeps(const struct aw_run_choice *choice, uint32_t run)
{
	return choice->all || choice->n_ids == 0 ||
	       aw_run_choice_names(choice, run);
}
