/* SPDX-License-Identifier: MIT */
/* The environment accwatch-run gives the command: the caller's, plus
 * libaccwatch.so in front of LD_PRELOAD, the run id and blocking permission. */
#ifndef ACCWATCH_RUN_ENV_H
#define ACCWATCH_RUN_ENV_H

#include <stdbool.h>
#include <stdint.h>

enum accwatch_run_env_status {
	ACCWATCH_RUN_ENV_OK = 0,
	ACCWATCH_RUN_ENV_NO_MEMORY,
};

struct accwatch_run_env_settings {
	const char *preload_path; /* absolute path of libaccwatch.so */
	uint32_t run_id;          /* ACCWATCH_RUN */
	bool allow_blocking; /* LTTNG_UST_ALLOW_BLOCKING=1 (blocking channel) */
	/* ACCWATCH_STALL_MS and ACCWATCH_STALL_DIR, when blocking is bounded
	 * (stall_ms > 0): the recorder stops after a wait that long and notes
	 * it in stall_dir. */
	uint32_t stall_ms;
	const char *stall_dir;
};

/* Builds a new NULL-terminated environment from base (not modified). The
 * result and its strings are owned by the caller: accwatch_run_env_free. */
enum accwatch_run_env_status
accwatch_run_env_build(char *const *base,
		       const struct accwatch_run_env_settings *settings,
		       char ***env);

void accwatch_run_env_free(char **env);

/* The value of name in env, or NULL (a getenv over any array). */
const char *accwatch_run_env_get(char *const *env, const char *name);

#endif
