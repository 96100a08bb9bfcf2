/* SPDX-License-Identifier: MIT */
/* The trace directory: created mode 0700 (parents as needed), refused when it
 * already holds files unless forced or when another user could redirect it,
 * returned as an absolute path and held open. */
#ifndef ACCWATCH_RUN_OUTPUT_H
#define ACCWATCH_RUN_OUTPUT_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

enum accwatch_run_output_status {
	ACCWATCH_RUN_OUTPUT_OK = 0,
	ACCWATCH_RUN_OUTPUT_NOT_EMPTY,     /* exists with entries, not forced */
	ACCWATCH_RUN_OUTPUT_NOT_DIRECTORY, /* exists and is something else */
	ACCWATCH_RUN_OUTPUT_CREATE_FAILED, /* mkdir failed: see error */
	ACCWATCH_RUN_OUTPUT_READ_FAILED, /* cannot list or resolve it: see error
					  */
	ACCWATCH_RUN_OUTPUT_TOO_LONG,
	ACCWATCH_RUN_OUTPUT_NOT_OWNED, /* exists (through any symlink) and
					  belongs to another user: owner */
	ACCWATCH_RUN_OUTPUT_UNSAFE,    /* another user could replace it or what
					  is in it: unsafe_* */
};

/* Why a path is unsafe: in each case another user could swap the trace
 * directory, or a directory on its way, for a link while the session
 * starts, and the daemon would write the trace where they chose. */
enum accwatch_run_output_unsafe_reason {
	/* a directory above it belongs to another user (not root) */
	ACCWATCH_RUN_OUTPUT_UNSAFE_OWNER,
	/* a directory above it is group- or world-writable, not sticky */
	ACCWATCH_RUN_OUTPUT_UNSAFE_WRITABLE,
	/* in a sticky shared directory, the name (a directory or a link) was
	 * made by another user */
	ACCWATCH_RUN_OUTPUT_UNSAFE_ENTRY,
	/* the trace directory itself is group- or world-writable */
	ACCWATCH_RUN_OUTPUT_UNSAFE_TARGET,
};

struct accwatch_run_output {
	char path[PATH_MAX]; /* absolute, canonical, every directory on the way
				root's or the user's */
	int dir_fd;          /* the directory, held open (O_NOFOLLOW), -1 */
	bool created;        /* accwatch-run made it (vs. it existed) */
	int error;           /* errno of the failure */
	uid_t owner;         /* NOT_OWNED, UNSAFE: the directory's owner */
	mode_t mode;         /* UNSAFE: its mode bits */
	enum accwatch_run_output_unsafe_reason unsafe_reason;
	char unsafe_path[PATH_MAX]; /* UNSAFE: the directory or name found */
};

/* "accwatch-trace-YYYYmmdd-HHMMSS" in local time. */
void accwatch_run_output_default_name(time_t now, char *name, size_t name_len);

/* Walks dir from / as the kernel would, without following a link it has
 * not checked: every directory above the trace must be root's or the
 * user's and writable by no one else unless sticky (and then the name in it
 * the user's or root's); the trace directory the user's, writable by no one
 * else. What is missing is made with mkdirat in the held parent. On success
 * output->dir_fd holds the directory: accwatch_run_output_close(). */
enum accwatch_run_output_status
accwatch_run_output_prepare(const char *dir, bool force,
			    struct accwatch_run_output *output);

void accwatch_run_output_close(struct accwatch_run_output *output);

/* Whether a file (not just a directory) exists below path: the consumer
 * makes ust/ at start, files only once a traced process registered. */
bool accwatch_run_output_has_files(const char *path);

/* Removes the directory again if accwatch-run created it and nothing but
 * empty directories is in it (the command never started). */
void accwatch_run_output_discard(const struct accwatch_run_output *output);

/* Bytes an unprivileged writer may still use on the trace's filesystem, -1
 * when unknown. */
int64_t
accwatch_run_output_free_bytes(const struct accwatch_run_output *output);

/* The notes the traced processes left directly in the trace directory,
 * the files named prefix<pid> (ACCWATCH_STALL_NOTE: stopped recording;
 * ACCWATCH_UNREGISTERED_NOTE: not taken by the session daemon): how many,
 * and the first one's line (without its newline) in example. */
unsigned accwatch_run_output_notes(const struct accwatch_run_output *output,
				   const char *prefix, char *example,
				   size_t example_len);

#endif
