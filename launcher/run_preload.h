/* SPDX-License-Identifier: MIT */
/* Where libaccwatch.so is: $ACCWATCH_PRELOAD, else next to the accwatch-run
 * executable (installed layout, then build layout). */
#ifndef ACCWATCH_RUN_PRELOAD_H
#define ACCWATCH_RUN_PRELOAD_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#define ACCWATCH_RUN_PRELOAD_NAME "libaccwatch.so"
#define ACCWATCH_RUN_PRELOAD_ENV "ACCWATCH_PRELOAD"
#define ACCWATCH_RUN_PRELOAD_MAX_TRIED 3

enum accwatch_run_preload_status {
	ACCWATCH_RUN_PRELOAD_FOUND = 0,
	ACCWATCH_RUN_PRELOAD_NOT_FOUND,     /* see tried[] */
	ACCWATCH_RUN_PRELOAD_UNUSABLE_PATH, /* found, but a space or ':' cannot
					       go in LD_PRELOAD */
};

struct accwatch_run_preload_search {
	char path[PATH_MAX]; /* canonical absolute path when found */
	char tried[ACCWATCH_RUN_PRELOAD_MAX_TRIED][PATH_MAX];
	int tried_count;
};

/* env_value: $ACCWATCH_PRELOAD or NULL; when set (non-empty) it is the only
 * candidate. exe_path: the absolute path of accwatch-run (/proc/self/exe);
 * libdir_rel: the install libdir relative to the bindir ("../lib64"). */
enum accwatch_run_preload_status
accwatch_run_preload_find(const char *env_value, const char *exe_path,
			  const char *libdir_rel,
			  struct accwatch_run_preload_search *search);

/* The absolute path of the running executable (/proc/self/exe); false if
 * it cannot be read. */
bool accwatch_run_preload_self_exe(char *path, size_t path_len);

/* A library of ours named name (PATH_MAX, canonical) beside preload (the
 * libaccwatch.so found), else where libaccwatch.so is looked for beside
 * exe_path; false when there is none. */
bool accwatch_run_preload_sibling(const char *preload, const char *exe_path,
				  const char *libdir_rel, const char *name,
				  char *path);

/* "a, b or c": the candidates tried, for an error message. */
void accwatch_run_preload_describe_tried(
    const struct accwatch_run_preload_search *search, char *line,
    size_t line_len);

#endif
