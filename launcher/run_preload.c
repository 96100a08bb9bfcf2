/* SPDX-License-Identifier: MIT */
/* Locating libaccwatch.so. Candidates are canonicalised with realpath so
 * LD_PRELOAD carries an absolute path that survives a change of directory. */
#define _GNU_SOURCE
#include "run_preload.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void accwatch_run_preload_add(struct accwatch_run_preload_search *search,
				     const char *candidate)
{
	for (int i = 0; i < search->tried_count; i++) {
		if (strcmp(search->tried[i], candidate) == 0)
			return;
	}
	if (search->tried_count < ACCWATCH_RUN_PRELOAD_MAX_TRIED)
		snprintf(search->tried[search->tried_count++], PATH_MAX, "%s",
			 candidate);
}

/* dir/sub/libaccwatch.so into candidate (PATH_MAX); false if too long. */
static bool accwatch_run_preload_join(char *candidate, const char *dir,
				      const char *sub)
{
	int len = snprintf(candidate, PATH_MAX,
			   "%s/%s/" ACCWATCH_RUN_PRELOAD_NAME, dir, sub);

	return len > 0 && len < PATH_MAX;
}

/* A regular file that resolves: search->path gets its canonical form. */
static bool
accwatch_run_preload_usable(const char *candidate,
			    struct accwatch_run_preload_search *search)
{
	struct stat info;

	if (!realpath(candidate, search->path))
		return false;
	return stat(search->path, &info) == 0 && S_ISREG(info.st_mode);
}

enum accwatch_run_preload_status
accwatch_run_preload_find(const char *env_value, const char *exe_path,
			  const char *libdir_rel,
			  struct accwatch_run_preload_search *search)
{
	enum accwatch_run_preload_status status =
	    ACCWATCH_RUN_PRELOAD_NOT_FOUND;
	char exe_dir[PATH_MAX];
	char candidate[PATH_MAX];
	char *slash;

	memset(search, 0, sizeof(*search));
	if (env_value && env_value[0] != '\0') {
		accwatch_run_preload_add(search, env_value);
	} else if (exe_path && exe_path[0] == '/') {
		snprintf(exe_dir, sizeof(exe_dir), "%s", exe_path);
		slash = strrchr(exe_dir, '/');
		*slash = '\0';
		if (accwatch_run_preload_join(candidate, exe_dir, libdir_rel))
			accwatch_run_preload_add(search, candidate);
		if (accwatch_run_preload_join(candidate, exe_dir, "../lib"))
			accwatch_run_preload_add(search, candidate);
	}
	for (int i = 0; i < search->tried_count; i++) {
		if (accwatch_run_preload_usable(search->tried[i], search)) {
			status = ACCWATCH_RUN_PRELOAD_FOUND;
			break;
		}
	}
	if (status != ACCWATCH_RUN_PRELOAD_FOUND) {
		search->path[0] = '\0';
		goto end;
	}
	/* ld.so splits LD_PRELOAD on both; such a path cannot be carried. */
	if (strpbrk(search->path, " :"))
		status = ACCWATCH_RUN_PRELOAD_UNUSABLE_PATH;
end:
	return status;
}

void accwatch_run_preload_describe_tried(
    const struct accwatch_run_preload_search *search, char *line,
    size_t line_len)
{
	size_t used = 0;

	line[0] = '\0';
	for (int i = 0; i < search->tried_count && used < line_len; i++) {
		const char *separator =
		    i == 0 ? ""
			   : (i + 1 == search->tried_count ? " or " : ", ");
		int written = snprintf(line + used, line_len - used, "%s%s",
				       separator, search->tried[i]);
		if (written < 0)
			break;
		used += (size_t)written;
	}
}

bool accwatch_run_preload_self_exe(char *path, size_t path_len)
{
	ssize_t len = readlink("/proc/self/exe", path, path_len - 1);

	if (len <= 0)
		return false;
	path[len] = '\0';
	return path[0] == '/';
}

/* dir/sub/name into path when it is a regular file (canonical). */
static bool accwatch_run_preload_in(const char *dir, const char *sub,
				    const char *name, char *path)
{
	char candidate[PATH_MAX];
	struct stat info;
	int len =
	    snprintf(candidate, sizeof(candidate), "%s/%s/%s", dir, sub, name);

	return len > 0 && len < PATH_MAX && realpath(candidate, path) &&
	       stat(path, &info) == 0 && S_ISREG(info.st_mode);
}

bool accwatch_run_preload_sibling(const char *preload, const char *exe_path,
				  const char *libdir_rel, const char *name,
				  char *path)
{
	char dir[PATH_MAX];
	char *slash;

	snprintf(dir, sizeof(dir), "%s", preload);
	slash = strrchr(dir, '/');
	if (slash) {
		*slash = '\0';
		if (accwatch_run_preload_in(dir, ".", name, path))
			return true;
	}
	snprintf(dir, sizeof(dir), "%s", exe_path);
	slash = strrchr(dir, '/');
	if (!slash)
		return false;
	*slash = '\0';
	return accwatch_run_preload_in(dir, libdir_rel, name, path) ||
	       accwatch_run_preload_in(dir, "../lib", name, path);
}
