/* SPDX-License-Identifier: MIT */
/* Diagnostics of the preload: silent unless ACCWATCH_DEBUG is on, then one
 * line per message on stderr in one write(2) (safe in a fork child, errno
 * kept), never on the traced program's stdout. */
#ifndef ACCWATCH_DEBUG_H
#define ACCWATCH_DEBUG_H

#include <unistd.h>

#include "accwatch_common.h"

/* Defined by each shared object over its own state. */
int accwatch_debug_enabled(void);

#define ACCWATCH_DEBUG(fmt, ...)                                               \
	do {                                                                   \
		if (accwatch_debug_enabled())                                  \
			accwatch_log("accwatch", "[%ld]: " fmt,                \
				     (long)getpid(), ##__VA_ARGS__);           \
	} while (0)

#endif
