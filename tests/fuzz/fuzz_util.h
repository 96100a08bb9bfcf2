/* SPDX-License-Identifier: MIT */
/* What the file-system harnesses share: a scratch directory per process
 * (in /dev/shm when there is one, so an input costs no disk), emptied
 * between inputs, and a way to write a file in it. */
#ifndef AW_FUZZ_UTIL_H
#define AW_FUZZ_UTIL_H

#include <stddef.h>
#include <stdint.h>

/* The scratch directory, made on the first call and removed at exit. */
const char *aw_fuzz_scratch(void);
/* Removes everything under dir (symbolic links are not followed). */
void aw_fuzz_empty(const char *dir);
/* Writes size bytes to path (created or truncated); false on failure. */
int aw_fuzz_write(const char *path, const uint8_t *data, size_t size);

/* Splits data at each occurrence of sep: parts[i] and lens[i], at most max
 * parts (the last takes the rest). Returns the number of parts. */
size_t aw_fuzz_split(const uint8_t *data, size_t size, const char *sep,
		     const uint8_t **parts, size_t *lens, size_t max);

#endif
