/* SPDX-License-Identifier: MIT */
/* Finds the real libc functions behind libaccwatch.so's interposers. */
#include <dlfcn.h>
#include <errno.h>
#include <string.h>

#include "accwatch_debug.h"
#include "accwatch_libc.h"
#include "accwatch_preload.h"

struct accwatch_libc_symbol {
	const char *name;
	size_t offset;
};

/* clang-format off */
#define ACCWATCH_LIBC_SYMBOL(name, member) { name, offsetof(struct accwatch_libc, member) }
/* clang-format on */

static const struct accwatch_libc_symbol accwatch_libc_symbols[] = {
    ACCWATCH_LIBC_SYMBOL("fork", fork),
    ACCWATCH_LIBC_SYMBOL("clone", clone),
    ACCWATCH_LIBC_SYMBOL("execve", execve),
    ACCWATCH_LIBC_SYMBOL("execv", execv),
    ACCWATCH_LIBC_SYMBOL("execvp", execvp),
    ACCWATCH_LIBC_SYMBOL("execvpe", execvpe),
    ACCWATCH_LIBC_SYMBOL("posix_spawn", posix_spawn),
    ACCWATCH_LIBC_SYMBOL("posix_spawnp", posix_spawnp),
    ACCWATCH_LIBC_SYMBOL("waitpid", waitpid),
    ACCWATCH_LIBC_SYMBOL("wait", wait),
    ACCWATCH_LIBC_SYMBOL("wait3", wait3),
    ACCWATCH_LIBC_SYMBOL("wait4", wait4),
    ACCWATCH_LIBC_SYMBOL("waitid", waitid),
    ACCWATCH_LIBC_SYMBOL("close", close),
    ACCWATCH_LIBC_SYMBOL("close_range", close_range),
    ACCWATCH_LIBC_SYMBOL("closefrom", closefrom),
    ACCWATCH_LIBC_SYMBOL("_exit", exit_now),
    ACCWATCH_LIBC_SYMBOL("_Exit", exit_now2),
};

#define ACCWATCH_LIBC_COUNT                                                    \
	(sizeof(accwatch_libc_symbols) / sizeof(accwatch_libc_symbols[0]))

static void **accwatch_libc_slot(size_t offset)
{
	return (void **)((char *)&accwatch_preload.libc + offset);
}

void accwatch_libc_resolve(void)
{
	size_t i;

	for (i = 0; i < ACCWATCH_LIBC_COUNT; i++) {
		void **slot =
		    accwatch_libc_slot(accwatch_libc_symbols[i].offset);

		if (!*slot)
			*slot = dlsym(RTLD_NEXT, accwatch_libc_symbols[i].name);
	}
}

int accwatch_libc_ready(size_t offset, const char *symbol)
{
	accwatch_libc_resolve();
	if (*accwatch_libc_slot(offset))
		return 1;
	ACCWATCH_DEBUG("unable to find the \"%s\" symbol", symbol);
	errno = ENOSYS;
	return 0;
}
