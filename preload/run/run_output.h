/* The trace directory: created mode 0700 (parents as needed), refused when it
 * already holds files unless forced, returned as an absolute path. */
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
};

struct accwatch_run_output {
	char path[PATH_MAX]; /* absolute, canonical */
	bool created;        /* accwatch-run made it (vs. it existed) */
	int error;           /* errno of the failure */
	uid_t owner;         /* NOT_OWNED: the directory's owner */
};

/* "accwatch-trace-YYYYmmdd-HHMMSS" in local time. */
void accwatch_run_output_default_name(time_t now, char *name, size_t name_len);

enum accwatch_run_output_status
accwatch_run_output_prepare(const char *dir, bool force,
			    struct accwatch_run_output *output);

/* Whether a file (not just a directory) exists below path: the consumer
 * makes ust/ at start, files only once a traced process registered. */
bool accwatch_run_output_has_files(const char *path);

/* Removes the directory again if accwatch-run created it and nothing but
 * empty directories is in it (the command never started). */
void accwatch_run_output_discard(const struct accwatch_run_output *output);

/* Bytes an unprivileged writer may still use on path's filesystem, -1 when
 * unknown. */
int64_t accwatch_run_output_free_bytes(const char *path);

/* The notes of processes that stopped recording (ACCWATCH_STALL_NOTE files
 * directly in path): how many, and the first one's line (without its
 * newline) in example. */
unsigned accwatch_run_output_stall_notes(const char *path, char *example,
					 size_t example_len);

#endif
