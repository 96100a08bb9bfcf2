/* SPDX-License-Identifier: MIT */
/* Rank and run id from the environment, with bounded parsing: a variable that
 * is not a plain decimal number in range counts as unknown (-1). */
#include <errno.h>
#include <stdlib.h>

#include "accwatch_env.h"
#include "accwatch_events.h"

struct accwatch_rank_family {
	const char *rank, *world_size, *local_rank, *local_world_size;
};

static const struct accwatch_rank_family accwatch_rank_families[] = {
    {"RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE"},
    {"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE",
     "OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_SIZE"},
    {"PMI_RANK", "PMI_SIZE", NULL, NULL},
    {"SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID", NULL},
};

const char *accwatch_env_getenv(const char *name, void *context)
{
	(void)context;
	return getenv(name);
}

static long long accwatch_env_parse(const char *text, long long min,
				    long long max)
{
	long long value = -1;
	char *end;

	/* strtoll would accept leading blanks and signs. */
	if (!text || text[0] < '0' || text[0] > '9')
		goto end;
	errno = 0;
	value = strtoll(text, &end, 10);
	if (errno != 0 || *end != '\0' || value < min || value > max)
		value = -1;
end:
	return value;
}

int32_t accwatch_env_parse_int(const char *text, int32_t min, int32_t max)
{
	return (int32_t)accwatch_env_parse(text, min, max);
}

static int32_t accwatch_env_get(accwatch_env_lookup_fn lookup, void *context,
				const char *name, int32_t min)
{
	if (!name)
		return -1;
	return accwatch_env_parse_int(lookup(name, context), min, INT32_MAX);
}

void accwatch_env_rank(accwatch_env_lookup_fn lookup, void *context,
		       struct accwatch_rank_info *info)
{
	const struct accwatch_rank_family *family;
	size_t i;

	info->rank = info->local_rank = -1;
	info->world_size = info->local_world_size = -1;
	info->source = "";
	for (i = 0; i < sizeof(accwatch_rank_families) /
			    sizeof(accwatch_rank_families[0]);
	     i++) {
		family = &accwatch_rank_families[i];
		info->rank = accwatch_env_get(lookup, context, family->rank, 0);
		if (info->rank < 0)
			continue;
		info->source = family->rank;
		info->world_size =
		    accwatch_env_get(lookup, context, family->world_size, 1);
		info->local_rank =
		    accwatch_env_get(lookup, context, family->local_rank, 0);
		info->local_world_size = accwatch_env_get(
		    lookup, context, family->local_world_size, 1);
		break;
	}
}

uint32_t accwatch_env_run(accwatch_env_lookup_fn lookup, void *context)
{
	long long run = accwatch_env_parse(lookup(ACCWATCH_ENV_RUN, context), 0,
					   UINT32_MAX);

	return run < 0 ? 0 : (uint32_t)run;
}

uint32_t accwatch_env_stall_ms(accwatch_env_lookup_fn lookup, void *context)
{
	long long ms = accwatch_env_parse(
	    lookup(ACCWATCH_ENV_STALL_MS, context), 0, 3600000);

	return ms < 0 ? 0 : (uint32_t)ms;
}
