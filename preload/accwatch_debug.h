/* Diagnostics of the preload: silent unless ACCWATCH_DEBUG=1, then one line
 * per message on stderr, never on the traced program's stdout. */
#ifndef ACCWATCH_DEBUG_H
#define ACCWATCH_DEBUG_H

#include <stdio.h>
#include <unistd.h>

/* Defined by each shared object over its own state. */
int accwatch_debug_enabled(void);

#define ACCWATCH_DEBUG(fmt, ...)                                               \
	do {                                                                   \
		if (accwatch_debug_enabled())                                  \
			fprintf(stderr, "accwatch[%ld]: " fmt "\n",            \
				(long)getpid(), ##__VA_ARGS__);                \
	} while (0)

#endif
