/* SPDX-License-Identifier: MIT */
/* What LTTng-UST needs of /dev/shm in a traced process, checked before it
 * loads: a page it maps there and cannot back is a SIGBUS in the program. */
#ifndef ACCWATCH_SHM_H
#define ACCWATCH_SHM_H

#include <stddef.h>
#include <stdint.h>

/* LTTng-UST 2.13's wait files (LTTNG_UST_WAIT_FILENAME in its ust-ctl.h,
 * named after the oldest compatible ABI, 8): "/lttng-ust-wait-8" for the
 * system session daemon and "/lttng-ust-wait-8-UID" for the user's, one page
 * each. Every process of the tracer maps them and reads them when no session
 * daemon answers: a page tmpfs cannot back is a SIGBUS there. */
#define ACCWATCH_SHM_DIR "/dev/shm"
#define ACCWATCH_SHM_WAIT_NAME "lttng-ust-wait-8"

enum accwatch_shm_status {
	ACCWATCH_SHM_OK = 0,
	ACCWATCH_SHM_READ_ONLY, /* the wait file cannot be created (EROFS) */
	ACCWATCH_SHM_FULL,      /* no room to back its page */
	ACCWATCH_SHM_ERROR,     /* another failure, errno in `error` */
};

struct accwatch_shm_check {
	enum accwatch_shm_status status;
	int error;            /* errno of the call that failed */
	char name[64];        /* the wait file at fault, without the "/" */
	int64_t free_bytes;   /* free in /dev/shm; -1 when unknown */
	int64_t needed_bytes; /* what could not be backed */
};

/* Makes sure each wait file this process's LTTng-UST will map has its page
 * allocated: kept when it is, else created as LTTng-UST would (same name,
 * same mode) and its page reserved with posix_fallocate, so that the tracer
 * later finds it ready; a file it created and could not back is removed. On
 * failure nothing of LTTng-UST may load. Thread-safe; no allocation. */
enum accwatch_shm_status accwatch_shm_prepare(struct accwatch_shm_check *check);

/* Free bytes in /dev/shm, -1 when it cannot be told. */
int64_t accwatch_shm_free_bytes(void);

/* One line (no newline) on what is wrong with /dev/shm and what to do. */
void accwatch_shm_describe(const struct accwatch_shm_check *check, char *line,
			   size_t line_len);

#endif
