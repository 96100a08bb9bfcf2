/* SPDX-License-Identifier: MIT */
/* close, close_range and closefrom interposers: once the recorder is
 * attached, LTTng-UST's own file descriptors survive a program closing "all
 * its fds" (subprocess's close_fds in a fork child, daemons), as with
 * liblttng-ust-fd. Without them a forked child's LTTng threads abort. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "accwatch_libc.h"
#include "accwatch_preload.h"

#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif

/* struct linux_dirent64, read with getdents64 into a stack buffer: no
 * allocation (a fork child of a threaded parent may run this). */
struct accwatch_dirent64 {
	uint64_t inode;
	int64_t offset;
	unsigned short length;
	unsigned char type;
	char name[];
};

static int accwatch_real_close(int fd)
{
	return accwatch_preload.libc.close(fd);
}

__attribute__((visibility("default"))) int close(int fd)
{
	if (!ACCWATCH_LIBC_READY(close, "close"))
		return -1;
	if (!accwatch_preload_attached())
		return accwatch_preload.libc.close(fd);
	return accwatch_preload.hooks.safe_close(fd, accwatch_real_close);
}

/* Closes the open fds in [first, last] but LTTng's, listing /proc/self/fd;
 * -1 when it cannot list them. */
static int accwatch_close_listed(unsigned first, unsigned last)
{
	char buffer[4096];
	int directory, result = 0;
	long length;

	directory = open("/proc/self/fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (directory < 0)
		return -1;
	while ((length = syscall(SYS_getdents64, directory, buffer,
				 sizeof(buffer))) > 0) {
		long position = 0;

		while (position < length) {
			struct accwatch_dirent64 *entry =
			    (struct accwatch_dirent64 *)(buffer + position);
			char *end;
			unsigned long fd = strtoul(entry->name, &end, 10);

			position += entry->length;
			if (*end != '\0' || end == entry->name ||
			    fd > UINT_MAX || (int)fd == directory ||
			    fd < first || fd > last)
				continue;
			accwatch_preload.hooks.safe_close((int)fd,
							  accwatch_real_close);
		}
	}
	if (length < 0)
		result = -1;
	accwatch_preload.libc.close(directory);
	return result;
}

__attribute__((visibility("default"))) int
close_range(unsigned int first, unsigned int last, int flags)
{
	int saved_errno = errno;

	if (!ACCWATCH_LIBC_READY(close_range, "close_range") ||
	    !ACCWATCH_LIBC_READY(close, "close"))
		return -1;
	if (!accwatch_preload_attached() || (flags & CLOSE_RANGE_CLOEXEC) ||
	    first > last || !accwatch_preload.hooks.is_self())
		return accwatch_preload.libc.close_range(first, last, flags);
	if (accwatch_close_listed(first, last) < 0)
		return accwatch_preload.libc.close_range(first, last, flags);
	errno = saved_errno;
	return 0;
}

__attribute__((visibility("default"))) void closefrom(int lowfd)
{
	if (!ACCWATCH_LIBC_READY(closefrom, "closefrom") ||
	    !ACCWATCH_LIBC_READY(close, "close"))
		return;
	if (lowfd < 0)
		lowfd = 0;
	if (!accwatch_preload_attached() || !accwatch_preload.hooks.is_self() ||
	    accwatch_close_listed((unsigned)lowfd, UINT_MAX) < 0)
		accwatch_preload.libc.closefrom(lowfd);
}
