/* SPDX-License-Identifier: MIT */
/* The scratch directories of the file-system harnesses (fuzz_util.h). */
#define _GNU_SOURCE /* nftw's FTW_DEPTH, memmem */
#include "fuzz_util.h"

#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char aw_scratch[256];

static int aw_remove_one(const char *path, const struct stat *st, int type,
			 struct FTW *ftw)
{
	(void)st;
	(void)type;
	if (ftw->level > 0)
		remove(path);
	return 0;
}

void aw_fuzz_empty(const char *dir)
{
	nftw(dir, aw_remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

static void aw_remove_scratch(void)
{
	aw_fuzz_empty(aw_scratch);
	rmdir(aw_scratch);
}

const char *aw_fuzz_scratch(void)
{
	if (*aw_scratch)
		return aw_scratch;
	const char *base = access("/dev/shm", W_OK) == 0 ? "/dev/shm"
			   : getenv("TMPDIR")            ? getenv("TMPDIR")
							 : "/tmp";
	snprintf(aw_scratch, sizeof(aw_scratch), "%s/accwatch-fuzz-XXXXXX",
		 base);
	if (!mkdtemp(aw_scratch)) {
		perror(aw_scratch);
		abort();
	}
	atexit(aw_remove_scratch);
	return aw_scratch;
}

int aw_fuzz_write(const char *path, const uint8_t *data, size_t size)
{
	int fd = open(path,
		      O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW |
			  O_NONBLOCK,
		      0644);
	if (fd < 0)
		return 0;
	size_t done = 0;
	while (done < size) {
		ssize_t n = write(fd, data + done, size - done);
		if (n <= 0)
			break;
		done += (size_t)n;
	}
	close(fd);
	return done == size;
}

size_t aw_fuzz_split(const uint8_t *data, size_t size, const char *sep,
		     const uint8_t **parts, size_t *lens, size_t max)
{
	size_t n = 0, sep_len = strlen(sep);
	while (n + 1 < max) {
		const uint8_t *at = memmem(data, size, sep, sep_len);
		if (!at)
			break;
		parts[n] = data;
		lens[n++] = (size_t)(at - data);
		size -= (size_t)(at - data) + sep_len;
		data = at + sep_len;
	}
	parts[n] = data;
	lens[n++] = size;
	return n;
}
