/* SPDX-License-Identifier: MIT */
/* accwatch-run's own messages: one line each on stderr, prefixed with the
 * program name; debug lines only when ACCWATCH_DEBUG asks for them. */
#ifndef ACCWATCH_RUN_LOG_H
#define ACCWATCH_RUN_LOG_H

#define ACCWATCH_RUN_PROGRAM "accwatch-run"

void accwatch_run_log(const char *format, ...)
    __attribute__((format(printf, 1, 2)));
void accwatch_run_log_debug(const char *format, ...)
    __attribute__((format(printf, 1, 2)));

#endif
