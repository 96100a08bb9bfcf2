/* SPDX-License-Identifier: MIT */
/* What the environment says about this process: its rank in the job (as set
 * by torchrun, MPI, PMI or Slurm) and the accwatch run id. Pure functions. */
#ifndef ACCWATCH_ENV_H
#define ACCWATCH_ENV_H

#include <stdint.h>

/* getenv, or a table in tests. */
typedef const char *(*accwatch_env_lookup_fn)(const char *name, void *context);

/* The process environment as an accwatch_env_lookup_fn (context unused). */
const char *accwatch_env_getenv(const char *name, void *context);

struct accwatch_rank_info {
	int32_t rank, local_rank, world_size,
	    local_world_size; /* -1: unknown */
	const char *source;   /* the variable that gave the rank, "" if none */
};

/* A decimal integer in [min, max], nothing else around it; -1 otherwise
 * (min must be >= 0). */
int32_t accwatch_env_parse_int(const char *text, int32_t min, int32_t max);

/* Tries RANK/WORLD_SIZE/LOCAL_RANK/LOCAL_WORLD_SIZE, then
 * OMPI_COMM_WORLD_*, PMI_RANK/PMI_SIZE, SLURM_PROCID/SLURM_NTASKS/
 * SLURM_LOCALID: the first family whose rank variable parses answers. */
void accwatch_env_rank(accwatch_env_lookup_fn lookup, void *context,
		       struct accwatch_rank_info *info);

/* ACCWATCH_RUN as a uint32; 0 when absent or not a number. */
uint32_t accwatch_env_run(accwatch_env_lookup_fn lookup, void *context);

/* ACCWATCH_STALL_MS, at most an hour; 0 when absent or not a number. */
uint32_t accwatch_env_stall_ms(accwatch_env_lookup_fn lookup, void *context);

#endif
