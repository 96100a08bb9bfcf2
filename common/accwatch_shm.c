/* SPDX-License-Identifier: MIT */
/* The /dev/shm check of accwatch_shm.h, shared by the preload (before it
 * loads LTTng-UST) and accwatch-run (before it starts the command). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "accwatch_shm.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

/* The modes LTTng-UST gives the files it creates (get_wait_shm): anyone may
 * use the system daemon's, only the user the per-user one. */
#define ACCWATCH_SHM_MODE_GLOBAL 0666
#define ACCWATCH_SHM_MODE_LOCAL 0640

int64_t accwatch_shm_free_bytes(void)
{
	struct statvfs fs;

	if (statvfs(ACCWATCH_SHM_DIR, &fs) != 0)
		return -1;
	return (int64_t)fs.f_bavail * (int64_t)fs.f_frsize;
}

static int accwatch_shm_backed(int fd, long page)
{
	struct stat st;

	return fstat(fd, &st) == 0 && st.st_size >= page &&
	       (int64_t)st.st_blocks * 512 >= page;
}

static enum accwatch_shm_status
accwatch_shm_fail(struct accwatch_shm_check *check,
		  enum accwatch_shm_status status, int error, long page)
{
	check->status = status;
	check->error = error;
	check->free_bytes = accwatch_shm_free_bytes();
	check->needed_bytes = page;
	return status;
}

static enum accwatch_shm_status accwatch_shm_status_of(int error)
{
	switch (error) {
	case EROFS:
		return ACCWATCH_SHM_READ_ONLY;
	case ENOSPC:
	case EDQUOT:
	case ENOMEM:
		return ACCWATCH_SHM_FULL;
	default:
		return ACCWATCH_SHM_ERROR;
	}
}

/* One wait file: its page allocated, or why not. */
static enum accwatch_shm_status
accwatch_shm_prepare_one(const char *name, mode_t mode, long page,
			 struct accwatch_shm_check *check)
{
	char path[80];
	int fd, error;
	int created = 0;
	enum accwatch_shm_status status = ACCWATCH_SHM_OK;

	snprintf(check->name, sizeof(check->name), "%s", name);
	snprintf(path, sizeof(path), "/%s", name);
	fd = shm_open(path, O_RDONLY | O_CLOEXEC, 0);
	if (fd >= 0) {
		int ready = accwatch_shm_backed(fd, page);

		close(fd);
		if (ready)
			goto end;
	}
	fd = shm_open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, mode);
	if (fd >= 0) {
		created = 1;
		/* Exactly LTTng-UST's mode, whatever the umask. */
		(void)fchmod(fd, mode);
	} else if (errno == EEXIST) {
		fd = shm_open(path, O_RDWR | O_CLOEXEC, 0);
	}
	if (fd < 0) {
		error = errno;
		/* Someone else's file, read-only to us: LTTng-UST maps it
		 * read-only and the first read allocates the page. */
		if (error == EACCES) {
			if (accwatch_shm_free_bytes() >= page)
				goto end;
			status = accwatch_shm_fail(check, ACCWATCH_SHM_FULL,
						   ENOSPC, page);
			goto end;
		}
		status = accwatch_shm_fail(check, accwatch_shm_status_of(error),
					   error, page);
		goto end;
	}
	error = 0;
	if (!accwatch_shm_backed(fd, page)) {
		struct stat st;

		if (fstat(fd, &st) == 0 && st.st_size < page &&
		    ftruncate(fd, page) != 0)
			error = errno;
		if (!error)
			error = posix_fallocate(fd, 0, page);
		/* A /dev/shm that cannot reserve (not tmpfs): its free
		 * space is what the first read would take from. */
		if (error == EOPNOTSUPP || error == EINVAL)
			error = accwatch_shm_free_bytes() >= page ? 0 : ENOSPC;
	}
	close(fd);
	if (error) {
		if (created)
			shm_unlink(path);
		status = accwatch_shm_fail(check, accwatch_shm_status_of(error),
					   error, page);
	}
end:
	return status;
}

enum accwatch_shm_status accwatch_shm_prepare(struct accwatch_shm_check *check)
{
	long page = sysconf(_SC_PAGESIZE);
	const char *home;
	char name[64];
	enum accwatch_shm_status status;

	memset(check, 0, sizeof(*check));
	check->free_bytes = -1;
	if (page <= 0)
		page = 4096;
	status = accwatch_shm_prepare_one(
	    ACCWATCH_SHM_WAIT_NAME, ACCWATCH_SHM_MODE_GLOBAL, page, check);
	if (status != ACCWATCH_SHM_OK)
		goto end;
	/* LTTng-UST maps the per-user file only when it can find the user's
	 * daemon (setup_local_apps): LTTNG_HOME or HOME set, not setuid. */
	home = getenv("LTTNG_HOME");
	if (!home)
		home = getenv("HOME");
	if (!home || getuid() != geteuid())
		goto end;
	snprintf(name, sizeof(name), "%s-%u", ACCWATCH_SHM_WAIT_NAME,
		 (unsigned)getuid());
	status = accwatch_shm_prepare_one(name, ACCWATCH_SHM_MODE_LOCAL, page,
					  check);
end:
	check->status = status;
	return status;
}

void accwatch_shm_describe(const struct accwatch_shm_check *check, char *line,
			   size_t line_len)
{
	switch (check->status) {
	case ACCWATCH_SHM_OK:
		snprintf(line, line_len, "%s is usable", ACCWATCH_SHM_DIR);
		break;
	case ACCWATCH_SHM_READ_ONLY:
		snprintf(line, line_len,
			 "%s is read-only: LTTng-UST cannot create its wait "
			 "file %s/%s there, so nothing can be recorded; mount "
			 "%s read-write (a container: drop the read-only "
			 "mount of /dev/shm)",
			 ACCWATCH_SHM_DIR, ACCWATCH_SHM_DIR, check->name,
			 ACCWATCH_SHM_DIR);
		break;
	case ACCWATCH_SHM_FULL:
		snprintf(line, line_len,
			 "%s is full (%lld KiB free): LTTng-UST needs %lld KiB "
			 "there for its wait file %s/%s and would die of "
			 "SIGBUS without it; free space in %s or give it more "
			 "(a container: docker run --shm-size=1g)",
			 ACCWATCH_SHM_DIR,
			 (long long)(check->free_bytes < 0
					 ? 0
					 : check->free_bytes / 1024),
			 (long long)(check->needed_bytes / 1024),
			 ACCWATCH_SHM_DIR, check->name, ACCWATCH_SHM_DIR);
		break;
	case ACCWATCH_SHM_ERROR:
		snprintf(line, line_len,
			 "cannot prepare LTTng-UST's wait file %s/%s: %s; "
			 "check that %s is a writable tmpfs",
			 ACCWATCH_SHM_DIR, check->name, strerror(check->error),
			 ACCWATCH_SHM_DIR);
		break;
	}
}
