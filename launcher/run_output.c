/* SPDX-License-Identifier: MIT */
/* Preparing the trace directory before the session exists, so a bad -o is
 * reported by accwatch-run in plain words rather than by lttng-sessiond, and
 * so that no other user can redirect what the session daemon writes there
 * (see "The trace directory" in docs/DESIGN.md). */
#define _GNU_SOURCE
#include "run_output.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "accwatch_events.h"

void accwatch_run_output_default_name(time_t now, char *name, size_t name_len)
{
	struct tm local;

	if (!localtime_r(&now, &local) ||
	    strftime(name, name_len, "accwatch-trace-%Y%m%d-%H%M%S", &local) ==
		0)
		snprintf(name, name_len, "accwatch-trace-%lld", (long long)now);
}

/* Symlinks followed (and ".." steps) before the path is refused as a loop,
 * as the kernel's MAXSYMLINKS. */
#define ACCWATCH_RUN_OUTPUT_MAX_LINKS 40
/* Times a name is looked up again when another process made or removed it
 * between our look and our mkdir. */
#define ACCWATCH_RUN_OUTPUT_MAX_RACES 4

/* The walk from / to the trace directory: the directory held (fd), where it
 * is (resolved: canonical, "" for /) and what is still to walk (pending). */
struct accwatch_run_output_walk {
	int fd;
	int parent_fd; /* the directory fd was opened in, -1 at / */
	struct stat info;
	char resolved[PATH_MAX];
	char pending[2 * PATH_MAX];
	char name[NAME_MAX + 1]; /* the last component opened */
	unsigned links;
};

/* Whether uid may own a directory on the way to the trace: root or the user
 * (nobody else can then rename or replace what is below it). */
static bool accwatch_run_output_trusted(uid_t uid)
{
	return uid == 0 || uid == geteuid();
}

static bool accwatch_run_output_shared(mode_t mode)
{
	return (mode & (S_IWGRP | S_IWOTH)) != 0;
}

static enum accwatch_run_output_status
accwatch_run_output_unsafe(struct accwatch_run_output *output,
			   enum accwatch_run_output_unsafe_reason reason,
			   const char *resolved, const char *name,
			   const struct stat *info)
{
	if (name[0] == '\0')
		snprintf(output->unsafe_path, sizeof(output->unsafe_path), "%s",
			 resolved[0] ? resolved : "/");
	else if (snprintf(output->unsafe_path, sizeof(output->unsafe_path),
			  "%s/%s", resolved,
			  name) >= (int)sizeof(output->unsafe_path))
		output->unsafe_path[sizeof(output->unsafe_path) - 1] = '\0';
	output->unsafe_reason = reason;
	output->owner = info->st_uid;
	output->mode = info->st_mode & 07777;
	return ACCWATCH_RUN_OUTPUT_UNSAFE;
}

/* A directory above the trace: owned by root or the user, and writable by
 * nobody else unless sticky (others then cannot rename or remove what is
 * ours in it; what they made in it is checked entry by entry). */
static enum accwatch_run_output_status
accwatch_run_output_check_above(struct accwatch_run_output *output,
				const struct accwatch_run_output_walk *walk)
{
	if (!accwatch_run_output_trusted(walk->info.st_uid))
		return accwatch_run_output_unsafe(
		    output, ACCWATCH_RUN_OUTPUT_UNSAFE_OWNER, walk->resolved,
		    "", &walk->info);
	if (accwatch_run_output_shared(walk->info.st_mode) &&
	    !(walk->info.st_mode & S_ISVTX))
		return accwatch_run_output_unsafe(
		    output, ACCWATCH_RUN_OUTPUT_UNSAFE_WRITABLE, walk->resolved,
		    "", &walk->info);
	return ACCWATCH_RUN_OUTPUT_OK;
}

static void
accwatch_run_output_walk_close(struct accwatch_run_output_walk *walk)
{
	if (walk->fd >= 0)
		close(walk->fd);
	if (walk->parent_fd >= 0)
		close(walk->parent_fd);
	walk->fd = walk->parent_fd = -1;
}

/* Back to /, with path still to walk: the start, an absolute link, "..". */
static enum accwatch_run_output_status
accwatch_run_output_walk_root(struct accwatch_run_output *output,
			      struct accwatch_run_output_walk *walk,
			      const char *path)
{
	if (snprintf(walk->pending, sizeof(walk->pending), "%s", path) >=
	    (int)sizeof(walk->pending)) {
		output->error = ENAMETOOLONG;
		return ACCWATCH_RUN_OUTPUT_CREATE_FAILED;
	}
	accwatch_run_output_walk_close(walk);
	walk->resolved[0] = '\0';
	walk->fd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (walk->fd < 0 || fstat(walk->fd, &walk->info) != 0) {
		output->error = errno;
		return ACCWATCH_RUN_OUTPUT_READ_FAILED;
	}
	return accwatch_run_output_check_above(output, walk);
}

/* Takes the next component of *rest into name; false at the end. */
static bool accwatch_run_output_next(const char **rest, char *name,
				     size_t name_len, int *error)
{
	size_t len;

	while (**rest == '/')
		(*rest)++;
	if (**rest == '\0')
		return false;
	len = strcspn(*rest, "/");
	*rest += len;
	if (len >= name_len) {
		*error = ENAMETOOLONG;
		return true;
	}
	memcpy(name, *rest - len, len);
	name[len] = '\0';
	return true;
}

/* Whether nothing but "." and slashes is left: the component just taken
 * names the trace directory itself. */
static bool accwatch_run_output_is_last(const char *rest)
{
	for (;;) {
		while (*rest == '/')
			rest++;
		if (*rest == '\0')
			return true;
		if (rest[0] != '.' || (rest[1] != '/' && rest[1] != '\0'))
			return false;
		rest++;
	}
}

/* A symlink met on the way: its target replaces it in what is left. It is
 * trusted as far as the directory that holds it is: a link others made in a
 * sticky directory was refused before. */
static enum accwatch_run_output_status
accwatch_run_output_follow(struct accwatch_run_output *output,
			   struct accwatch_run_output_walk *walk,
			   const char *name, const char *rest)
{
	char target[PATH_MAX];
	ssize_t len;

	if (++walk->links > ACCWATCH_RUN_OUTPUT_MAX_LINKS) {
		output->error = ELOOP;
		return ACCWATCH_RUN_OUTPUT_CREATE_FAILED;
	}
	len = readlinkat(walk->fd, name, target, sizeof(target) - 1);
	if (len < 0) {
		output->error = errno;
		return ACCWATCH_RUN_OUTPUT_READ_FAILED;
	}
	target[len] = '\0';
	if (target[0] == '/') {
		char spliced[sizeof(walk->pending)];

		if (snprintf(spliced, sizeof(spliced), "%s/%s", target, rest) >=
		    (int)sizeof(spliced)) {
			output->error = ENAMETOOLONG;
			return ACCWATCH_RUN_OUTPUT_CREATE_FAILED;
		}
		return accwatch_run_output_walk_root(output, walk, spliced);
	}
	if (snprintf(walk->pending, sizeof(walk->pending), "%s/%s", target,
		     rest) >= (int)sizeof(walk->pending)) {
		output->error = ENAMETOOLONG;
		return ACCWATCH_RUN_OUTPUT_CREATE_FAILED;
	}
	return ACCWATCH_RUN_OUTPUT_OK;
}

/* "..": the canonical parent, walked again from / (every directory on the
 * way checked again: nothing is taken on trust from before). */
static enum accwatch_run_output_status
accwatch_run_output_up(struct accwatch_run_output *output,
		       struct accwatch_run_output_walk *walk, const char *rest)
{
	char path[sizeof(walk->pending)];
	char *slash = strrchr(walk->resolved, '/');

	if (++walk->links > ACCWATCH_RUN_OUTPUT_MAX_LINKS) {
		output->error = ELOOP;
		return ACCWATCH_RUN_OUTPUT_CREATE_FAILED;
	}
	if (slash)
		*slash = '\0';
	if (snprintf(path, sizeof(path), "%s/%s", walk->resolved, rest) >=
	    (int)sizeof(path)) {
		output->error = ENAMETOOLONG;
		return ACCWATCH_RUN_OUTPUT_CREATE_FAILED;
	}
	return accwatch_run_output_walk_root(output, walk, path);
}

/* One step down into name, made when missing (0700 the trace directory,
 * 0755 a parent) and opened without following a link: what is checked is
 * the directory the descriptor holds, not a name that could change. */
static enum accwatch_run_output_status
accwatch_run_output_step(struct accwatch_run_output *output,
			 struct accwatch_run_output_walk *walk,
			 const char *name, const char *rest, bool last)
{
	bool shared = accwatch_run_output_shared(walk->info.st_mode);
	struct stat entry, info;
	int next, races = 0;

	while (fstatat(walk->fd, name, &entry, AT_SYMLINK_NOFOLLOW) != 0) {
		if (errno != ENOENT ||
		    ++races > ACCWATCH_RUN_OUTPUT_MAX_RACES) {
			output->error = errno;
			return ACCWATCH_RUN_OUTPUT_CREATE_FAILED;
		}
		if (mkdirat(walk->fd, name, last ? 0700 : 0755) == 0) {
			output->created = last;
		} else if (errno != EEXIST) {
			output->error = errno;
			return ACCWATCH_RUN_OUTPUT_CREATE_FAILED;
		}
	}
	/* In a directory others may write to (sticky, as checked), a name
	 * someone else made is theirs to point anywhere: refused. */
	if (shared && !accwatch_run_output_trusted(entry.st_uid))
		return accwatch_run_output_unsafe(
		    output, ACCWATCH_RUN_OUTPUT_UNSAFE_ENTRY, walk->resolved,
		    name, &entry);
	if (S_ISLNK(entry.st_mode))
		return accwatch_run_output_follow(output, walk, name, rest);
	if (!S_ISDIR(entry.st_mode)) {
		output->error = ENOTDIR;
		return last ? ACCWATCH_RUN_OUTPUT_NOT_DIRECTORY
			    : ACCWATCH_RUN_OUTPUT_CREATE_FAILED;
	}
	next = openat(walk->fd, name,
		      O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (next < 0 || fstat(next, &info) != 0) {
		output->error = errno;
		if (next >= 0)
			close(next);
		return ACCWATCH_RUN_OUTPUT_READ_FAILED;
	}
	if (shared && !accwatch_run_output_trusted(info.st_uid)) {
		close(next);
		return accwatch_run_output_unsafe(
		    output, ACCWATCH_RUN_OUTPUT_UNSAFE_ENTRY, walk->resolved,
		    name, &info);
	}
	if (strlen(walk->resolved) + 1 + strlen(name) >=
	    sizeof(walk->resolved)) {
		close(next);
		output->error = ENAMETOOLONG;
		return ACCWATCH_RUN_OUTPUT_CREATE_FAILED;
	}
	strcat(walk->resolved, "/");
	strcat(walk->resolved, name);
	snprintf(walk->name, sizeof(walk->name), "%s", name);
	if (walk->parent_fd >= 0)
		close(walk->parent_fd);
	walk->parent_fd = walk->fd;
	walk->fd = next;
	walk->info = info;
	return last ? ACCWATCH_RUN_OUTPUT_OK
		    : accwatch_run_output_check_above(output, walk);
}

/* Walks dir from / (a relative one from the working directory's canonical
 * path), making what is missing, down to the trace directory, held open. */
static enum accwatch_run_output_status
accwatch_run_output_walk(const char *dir, struct accwatch_run_output *output,
			 struct accwatch_run_output_walk *walk)
{
	enum accwatch_run_output_status status;
	char start[sizeof(walk->pending)], cwd[PATH_MAX];
	char name[NAME_MAX + 1], rest[sizeof(walk->pending)];

	if (dir[0] != '/') {
		if (!getcwd(cwd, sizeof(cwd))) {
			output->error = errno;
			return ACCWATCH_RUN_OUTPUT_READ_FAILED;
		}
		snprintf(start, sizeof(start), "%s/%s", cwd, dir);
	} else {
		snprintf(start, sizeof(start), "%s", dir);
	}
	status = accwatch_run_output_walk_root(output, walk, start);
	while (status == ACCWATCH_RUN_OUTPUT_OK) {
		const char *cursor = walk->pending;
		int error = 0;

		if (!accwatch_run_output_next(&cursor, name, sizeof(name),
					      &error))
			break;
		if (error) {
			output->error = error;
			return ACCWATCH_RUN_OUTPUT_CREATE_FAILED;
		}
		/* A copy of what is left: the steps rewrite pending. */
		snprintf(rest, sizeof(rest), "%s", cursor);
		snprintf(walk->pending, sizeof(walk->pending), "%s", rest);
		if (strcmp(name, ".") == 0)
			continue;
		if (strcmp(name, "..") == 0)
			status = accwatch_run_output_up(output, walk, rest);
		else
			status = accwatch_run_output_step(
			    output, walk, name, rest,
			    accwatch_run_output_is_last(rest));
	}
	return status;
}

/* 1 if the directory has an entry besides . and .., 0 if not, -1 on error. */
static int accwatch_run_output_has_entries(int dir_fd)
{
	int fd = dup(dir_fd);
	DIR *stream = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *entry;
	int found = 0;

	if (!stream) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	rewinddir(stream);
	while ((entry = readdir(stream)) != NULL) {
		if (strcmp(entry->d_name, ".") != 0 &&
		    strcmp(entry->d_name, "..") != 0) {
			found = 1;
			break;
		}
	}
	closedir(stream);
	return found;
}

enum accwatch_run_output_status
accwatch_run_output_prepare(const char *dir, bool force,
			    struct accwatch_run_output *output)
{
	enum accwatch_run_output_status status = ACCWATCH_RUN_OUTPUT_OK;
	struct accwatch_run_output_walk *walk = calloc(1, sizeof(*walk));
	int entries;

	memset(output, 0, sizeof(*output));
	output->dir_fd = -1;
	if (!walk) {
		output->error = errno;
		status = ACCWATCH_RUN_OUTPUT_READ_FAILED;
		goto end;
	}
	walk->fd = walk->parent_fd = -1;
	if (strlen(dir) >= sizeof(output->path)) {
		status = ACCWATCH_RUN_OUTPUT_TOO_LONG;
		goto end;
	}
	status = accwatch_run_output_walk(dir, output, walk);
	if (status != ACCWATCH_RUN_OUTPUT_OK)
		goto end;
	if (walk->info.st_uid != geteuid()) {
		/* A trace holds command lines and stacks; root writing into
		 * another user's directory would hand them over. */
		output->owner = walk->info.st_uid;
		status = ACCWATCH_RUN_OUTPUT_NOT_OWNED;
		goto end;
	}
	if (accwatch_run_output_shared(walk->info.st_mode)) {
		/* Others could put links in it for the daemon to follow. */
		status = accwatch_run_output_unsafe(
		    output, ACCWATCH_RUN_OUTPUT_UNSAFE_TARGET, walk->resolved,
		    "", &walk->info);
		goto end;
	}
	if (!output->created) {
		entries = accwatch_run_output_has_entries(walk->fd);
		if (entries < 0) {
			output->error = errno;
			status = ACCWATCH_RUN_OUTPUT_READ_FAILED;
			goto end;
		}
		if (entries > 0 && !force) {
			status = ACCWATCH_RUN_OUTPUT_NOT_EMPTY;
			goto end;
		}
	}
	snprintf(output->path, sizeof(output->path), "%s",
		 walk->resolved[0] ? walk->resolved : "/");
	output->dir_fd = walk->fd;
	walk->fd = -1;
end:
	if (status != ACCWATCH_RUN_OUTPUT_OK && output->created &&
	    walk->parent_fd >= 0)
		unlinkat(walk->parent_fd, walk->name, AT_REMOVEDIR);
	if (walk) {
		accwatch_run_output_walk_close(walk);
		free(walk);
	}
	return status;
}

void accwatch_run_output_close(struct accwatch_run_output *output)
{
	if (output->dir_fd >= 0)
		close(output->dir_fd);
	output->dir_fd = -1;
}

#define ACCWATCH_RUN_OUTPUT_FTW_FDS 16

static int accwatch_run_output_stop_at_file(const char *path,
					    const struct stat *info, int type,
					    struct FTW *where)
{
	(void)path;
	(void)info;
	(void)where;
	return type == FTW_D || type == FTW_DP ? 0 : 1;
}

bool accwatch_run_output_has_files(const char *path)
{
	return nftw(path, accwatch_run_output_stop_at_file,
		    ACCWATCH_RUN_OUTPUT_FTW_FDS, FTW_PHYS) != 0;
}

static int accwatch_run_output_remove_dir(const char *path,
					  const struct stat *info, int type,
					  struct FTW *where)
{
	(void)info;
	(void)where;
	if (type != FTW_DP)
		return 1;
	return rmdir(path) == 0 ? 0 : 1;
}

void accwatch_run_output_discard(const struct accwatch_run_output *output)
{
	if (!output->created || output->path[0] == '\0' ||
	    accwatch_run_output_has_files(output->path))
		return;
	/* Depth first: children before their parent. */
	nftw(output->path, accwatch_run_output_remove_dir,
	     ACCWATCH_RUN_OUTPUT_FTW_FDS, FTW_DEPTH | FTW_PHYS);
}

int64_t accwatch_run_output_free_bytes(const struct accwatch_run_output *output)
{
	struct statvfs fs;

	if (output->dir_fd < 0 || fstatvfs(output->dir_fd, &fs) != 0)
		return -1;
	return (int64_t)fs.f_bavail * (int64_t)fs.f_frsize;
}

/* Read through the held descriptor, names opened without following a link:
 * the traced processes write these notes, accwatch-run only reads them. */
unsigned accwatch_run_output_notes(const struct accwatch_run_output *output,
				   const char *prefix, char *example,
				   size_t example_len)
{
	int list_fd = output->dir_fd >= 0 ? dup(output->dir_fd) : -1;
	DIR *dir = list_fd >= 0 ? fdopendir(list_fd) : NULL;
	struct dirent *entry;
	unsigned count = 0;

	if (example_len)
		example[0] = '\0';
	if (!dir) {
		if (list_fd >= 0)
			close(list_fd);
		return 0;
	}
	rewinddir(dir);
	while ((entry = readdir(dir))) {
		FILE *file;
		int fd;

		if (strncmp(entry->d_name, prefix, strlen(prefix)) != 0)
			continue;
		if (count++ || !example_len)
			continue;
		fd = openat(output->dir_fd, entry->d_name,
			    O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
		file = fd >= 0 ? fdopen(fd, "r") : NULL;
		if (!file) {
			if (fd >= 0)
				close(fd);
			continue;
		}
		if (fgets(example, (int)example_len, file))
			example[strcspn(example, "\n")] = '\0';
		fclose(file);
	}
	closedir(dir);
	return count;
}
