/* SPDX-License-Identifier: MIT */
/* Puts LD_PRELOAD and the ACCWATCH_* variables back into the environment of
 * an exec or posix_spawn when a launcher scrubbed them. Allocates nothing:
 * it runs in vfork children, on the stack the caller provides. */
#ifndef ACCWATCH_ENV_KEEP_H
#define ACCWATCH_ENV_KEEP_H

#include <stddef.h>

/* Variables kept at most (ACCWATCH_*, LTTNG_HOME, LTTNG_UST_ALLOW_BLOCKING). */
#define ACCWATCH_ENV_KEEP_MAX 16
/* Environments longer than this are passed through untouched. */
#define ACCWATCH_ENV_KEEP_ENTRIES_MAX 4096
/* Room for "LD_PRELOAD=<ours>:<theirs>"; a longer one is left as it is. */
#define ACCWATCH_ENV_KEEP_PRELOAD_MAX 4096

/* What the process started with; filled once, before any thread. */
struct accwatch_env_keep {
	int enabled;
	const char *library_name; /* "libaccwatch.so" */
	const char *library;      /* the LD_PRELOAD item naming it */
	size_t library_length;
	/* "NAME=value" entries of the initial environment (never freed). */
	const char *entries[ACCWATCH_ENV_KEEP_MAX];
	unsigned count;
};

/* Reads the initial environment: enabled when its LD_PRELOAD names a file
 * called library_name (e.g. "libaccwatch.so"). */
void accwatch_env_keep_init(struct accwatch_env_keep *keep,
			    char *const *environ, const char *library_name);

/* The environment to exec with: envp itself when it still has an ACCWATCH_*
 * variable or names the library in LD_PRELOAD (the launcher passed them on or
 * chose to drop one: respected), else a copy in out (out_capacity pointers,
 * at least count(envp) + ACCWATCH_ENV_KEEP_MAX + 2) with the kept entries it
 * lacks and the library added to LD_PRELOAD (preload_buffer holds the joined
 * entry). envp may be NULL (an empty environment). */
char *const *accwatch_env_keep_apply(const struct accwatch_env_keep *keep,
				     char *const *envp, char **out,
				     size_t out_capacity, char *preload_buffer,
				     size_t preload_size);

/* Number of entries of envp (0 for NULL), at most limit + 1. */
size_t accwatch_env_keep_count(char *const *envp, size_t limit);

#endif
