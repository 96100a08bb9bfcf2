/* SPDX-License-Identifier: MIT */
/* Small things every part of accwatch needs the same way: the debug switch,
 * diagnostics safe in a forked or vfork child, bounded number parsing. */
#ifndef ACCWATCH_COMMON_H
#define ACCWATCH_COMMON_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>

/* Whether environment variable `name` is switched on: exactly "1". Any other
 * value (a typo, garbage) leaves it off: a traced program given a bad value
 * must not start printing our diagnostics. ACCWATCH_DEBUG and
 * ACCWATCH_DISABLE mean this everywhere. */
bool accwatch_env_switch(const char *name);

/* ACCWATCH_DEBUG, read from the environment once per process image. */
bool accwatch_debug_on(void);

/* One line "<prefix>message\n" on stderr in a single write(2): no stdio
 * lock, no allocation, errno as it was (usable in a fork child before exec
 * and in the interposers). Lines longer than 1 KiB are cut, marked "...". */
void accwatch_log_line(const char *prefix, const char *format, va_list args)
    __attribute__((format(printf, 2, 0)));
void accwatch_log(const char *prefix, const char *format, ...)
    __attribute__((format(printf, 2, 3)));

enum accwatch_parse_status {
	ACCWATCH_PARSE_OK,
	ACCWATCH_PARSE_EMPTY,        /* no text, or only blanks */
	ACCWATCH_PARSE_NOT_A_NUMBER, /* not a decimal integer, or trailing text
				      */
	ACCWATCH_PARSE_OUT_OF_RANGE, /* below min or above max */
};

/* A decimal integer in [min, max]; *out is left alone unless OK. */
enum accwatch_parse_status accwatch_parse_i64(const char *text, int64_t min,
					      int64_t max, int64_t *out);

/* Longest word a run id is given as. */
#define ACCWATCH_RUN_WORD_MAX 128

/* The run id a word names (accwatch-run --run-id, accwatch-report --run):
 * a decimal number from 0 to 2^32-1 is the id itself, any other word a
 * hash of its text (FNV-1a, never 0), so that the nodes of one job given
 * the same word (a scheduler's job id, a rendezvous id) share one run and
 * the report takes the same word. False for an empty or too long word,
 * one that begins with '-', and a number beyond 2^32-1. */
bool accwatch_run_id_of_word(const char *word, uint32_t *id);

#endif
