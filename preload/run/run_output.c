/* Preparing the trace directory before the session exists, so a bad -o is
 * reported by accwatch-run in plain words rather than by lttng-sessiond. */
#define _GNU_SOURCE
#include "run_output.h"

#include "accwatch_events.h"

#include <sys/statvfs.h>

#include <dirent.h>
#include <errno.h>
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

/* mkdir -p: parents with the usual mode, the last component 0700 (a trace
 * holds the command lines and stacks of the user's processes). */
static int accwatch_run_output_mkdirs(const char *dir)
{
	char partial[PATH_MAX];
	size_t len = strlen(dir);

	if (len >= sizeof(partial)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(partial, dir, len + 1);
	while (len > 1 && partial[len - 1] == '/')
		partial[--len] = '\0';
	for (char *p = partial + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(partial, 0755) != 0 && errno != EEXIST)
			return -1;
		*p = '/';
	}
	return mkdir(partial, 0700);
}

/* 1 if the directory has an entry besides . and .., 0 if not, -1 on error. */
static int accwatch_run_output_has_entries(const char *dir)
{
	DIR *stream = opendir(dir);
	struct dirent *entry;
	int found = 0;

	if (!stream)
		return -1;
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
	struct stat info;
	int entries;

	memset(output, 0, sizeof(*output));
	if (strlen(dir) >= sizeof(output->path)) {
		status = ACCWATCH_RUN_OUTPUT_TOO_LONG;
		goto end;
	}
	if (stat(dir, &info) != 0) {
		if (errno != ENOENT || accwatch_run_output_mkdirs(dir) != 0) {
			output->error = errno;
			status = ACCWATCH_RUN_OUTPUT_CREATE_FAILED;
			goto end;
		}
		output->created = true;
	} else if (!S_ISDIR(info.st_mode)) {
		status = ACCWATCH_RUN_OUTPUT_NOT_DIRECTORY;
		goto end;
	} else if (info.st_uid != geteuid()) {
		/* stat follows symlinks: what would be written into. A trace
		 * holds command lines and stacks; root writing into another
		 * user's directory would hand them over. */
		output->owner = info.st_uid;
		status = ACCWATCH_RUN_OUTPUT_NOT_OWNED;
		goto end;
	} else {
		entries = accwatch_run_output_has_entries(dir);
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
	if (!realpath(dir, output->path)) {
		output->error = errno;
		status = ACCWATCH_RUN_OUTPUT_READ_FAILED;
		goto end;
	}
end:
	if (status != ACCWATCH_RUN_OUTPUT_OK && output->created)
		rmdir(dir);
	return status;
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

int64_t accwatch_run_output_free_bytes(const char *path)
{
	struct statvfs fs;

	if (path[0] == '\0' || statvfs(path, &fs) != 0)
		return -1;
	return (int64_t)fs.f_bavail * (int64_t)fs.f_frsize;
}

unsigned accwatch_run_output_stall_notes(const char *path, char *example,
					 size_t example_len)
{
	DIR *dir = opendir(path);
	struct dirent *entry;
	unsigned count = 0;

	if (example_len)
		example[0] = '\0';
	if (!dir)
		return 0;
	while ((entry = readdir(dir))) {
		char note[PATH_MAX];
		FILE *file;

		if (strncmp(entry->d_name, ACCWATCH_STALL_NOTE,
			    strlen(ACCWATCH_STALL_NOTE)) != 0)
			continue;
		if (count++ || !example_len ||
		    snprintf(note, sizeof(note), "%s/%s", path,
			     entry->d_name) >= (int)sizeof(note))
			continue;
		file = fopen(note, "re");
		if (!file)
			continue;
		if (fgets(example, (int)example_len, file))
			example[strcspn(example, "\n")] = '\0';
		fclose(file);
	}
	closedir(dir);
	return count;
}
