/* A recursive directory walk (symbolic links are not followed, so a loop of
 * links cannot trap it) that stops at each trace directory it finds. */
#include "trace_dirs.h"

#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util.h"

#define AW_MAX_DEPTH 32

void aw_trace_dirs_init(struct aw_trace_dirs *dirs)
{
	dirs->dirs = NULL;
	dirs->n = dirs->cap = 0;
}

void aw_trace_dirs_fini(struct aw_trace_dirs *dirs)
{
	for (size_t i = 0; i < dirs->n; i++)
		free(dirs->dirs[i]);
	free(dirs->dirs);
	aw_trace_dirs_init(dirs);
}

static void aw_trace_dirs_add(struct aw_trace_dirs *dirs, const char *dir)
{
	for (size_t i = 0; i < dirs->n; i++)
		if (strcmp(dirs->dirs[i], dir) == 0)
			return;
	AW_GROW(dirs->dirs, dirs->cap, dirs->n + 1);
	dirs->dirs[dirs->n++] = aw_xstrdup(dir);
}

static bool aw_has_metadata(const char *dir)
{
	char *path = aw_xasprintf("%s/metadata", dir);
	struct stat st;
	bool found = stat(path, &st) == 0 && S_ISREG(st.st_mode);
	free(path);
	return found;
}

static void aw_trace_dirs_walk(struct aw_trace_dirs *dirs, const char *dir, int depth)
{
	if (aw_has_metadata(dir)) {
		aw_trace_dirs_add(dirs, dir);
		return;
	}
	if (depth >= AW_MAX_DEPTH)
		return;
	DIR *d = opendir(dir);
	if (!d)
		return; /* an unreadable subdirectory holds nothing we can read */
	struct dirent *entry;
	while ((entry = readdir(d))) {
		if (strcmp(entry->d_name, ".") == 0 || strcmp(entry->d_name, "..") == 0)
			continue;
		char *child = aw_xasprintf("%s/%s", dir, entry->d_name);
		struct stat st;
		if (lstat(child, &st) == 0 && S_ISDIR(st.st_mode))
			aw_trace_dirs_walk(dirs, child, depth + 1);
		free(child);
	}
	closedir(d);
}

static int aw_compare_strings(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

enum aw_trace_dirs_status aw_trace_dirs_find(struct aw_trace_dirs *dirs, const char *path, char *error,
					     size_t error_size)
{
	struct stat st;
	if (stat(path, &st) != 0) {
		snprintf(error, error_size, "cannot read %s: %s", path, strerror(errno));
		return AW_TRACE_DIRS_UNREADABLE;
	}
	size_t before = dirs->n;
	if (S_ISDIR(st.st_mode)) {
		/* Keep the user's spelling, without a trailing slash. */
		char *dir = aw_xstrdup(path);
		size_t len = strlen(dir);
		while (len > 1 && dir[len - 1] == '/')
			dir[--len] = '\0';
		if (access(dir, R_OK | X_OK) != 0) {
			snprintf(error, error_size, "cannot read %s: %s", path, strerror(errno));
			free(dir);
			return AW_TRACE_DIRS_UNREADABLE;
		}
		aw_trace_dirs_walk(dirs, dir, 0);
		free(dir);
	} else {
		const char *slash = strrchr(path, '/');
		const char *base = slash ? slash + 1 : path;
		if (strcmp(base, "metadata") == 0) {
			char *dir = slash ? aw_xasprintf("%.*s", (int)(slash - path), path) : aw_xstrdup(".");
			if (!*dir) {
				free(dir);
				dir = aw_xstrdup("/");
			}
			aw_trace_dirs_add(dirs, dir);
			free(dir);
		}
	}
	if (dirs->n == before) {
		snprintf(error, error_size,
			 "no trace under %s (no CTF `metadata` file): give the directory accwatch-run -o "
			 "wrote, or an LTTng session's output directory",
			 path);
		return AW_TRACE_DIRS_NONE;
	}
	qsort(dirs->dirs + before, dirs->n - before, sizeof(*dirs->dirs), aw_compare_strings);
	return AW_TRACE_DIRS_OK;
}
