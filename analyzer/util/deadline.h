/* SPDX-License-Identifier: MIT */
/* A deadline for the whole process: past it, a message made beforehand,
 * a half-written output removed, and an exit. The SIGALRM handler only
 * writes and unlinks, so that a stuck call (a relay daemon that never
 * answers, an analysis past its bound) ends with a word. */
#ifndef AW_DEADLINE_H
#define AW_DEADLINE_H

/* Past `seconds` (<= 0: none), the process writes `message` (cut to 600
 * bytes) to stderr, removes the file aw_deadline_remove named, and exits
 * with `status`. Replaces a deadline set before. */
void aw_deadline_set(long long seconds, const char *message, int status);
/* The file to remove at the deadline (NULL: none); the string must live
 * until aw_deadline_clear. */
void aw_deadline_remove(const char *path);
/* No deadline, and no file to remove. */
void aw_deadline_clear(void);

#endif
