/* SPDX-License-Identifier: MIT */
/* Freeing an epoch: below the model that keeps epochs and the stages that
 * derive them (finish.c, groups.c). */
#include "epoch.h"

#include <stdlib.h>

void aw_epoch_fini(struct aw_epoch *epoch)
{
	for (size_t i = 0; i < epoch->n_cells; i++)
		if (epoch->cells[i].n_iterations > 1)
			aw_sample_set_fini(&epoch->cells[i].merged);
	free(epoch->cells);
	free(epoch->items);
	free(epoch->item_streams);
	aw_sample_set_fini(&epoch->all);
	if (epoch->mapped)
		aw_sample_set_fini(&epoch->expected);
	if (epoch->by_group) {
		free(epoch->by_group->cells);
		aw_sample_set_fini(&epoch->by_group->all);
		free(epoch->by_group);
	}
	free(epoch->group_of);
	epoch->by_group = NULL;
	epoch->group_of = NULL;
}
