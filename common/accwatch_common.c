/* SPDX-License-Identifier: MIT */
/* The debug switch, fork-safe diagnostics and bounded number parsing that
 * the preload, accwatch-run and accwatch-report share. */
#include "accwatch_common.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define ACCWATCH_LOG_LINE_MAX 1024

bool accwatch_env_switch(const char *name)
{
	const char *value = getenv(name);

	return value && strcmp(value, "1") == 0;
}

bool accwatch_debug_on(void)
{
	/* -1: not read yet. A forked child keeps its parent's answer, which
	 * is the same environment. */
	static int debug = -1;

	if (debug < 0)
		debug = accwatch_env_switch("ACCWATCH_DEBUG");
	return debug;
}

void accwatch_log_line(const char *prefix, const char *format, va_list args)
{
	char line[ACCWATCH_LOG_LINE_MAX];
	int saved = errno;
	size_t used;
	int n;

	n = snprintf(line, sizeof(line), "%s", prefix);
	used = n < 0                      ? 0
	       : (size_t)n < sizeof(line) ? (size_t)n
					  : sizeof(line) - 1;
	n = vsnprintf(line + used, sizeof(line) - used, format, args);
	if (n >= 0 && used + (size_t)n >= sizeof(line) - 1) {
		used = sizeof(line) - 5;
		memcpy(line + used, "...", 3);
		used += 3;
	} else if (n >= 0) {
		used += (size_t)n;
	}
	line[used++] = '\n';
	while (write(STDERR_FILENO, line, used) < 0 && errno == EINTR)
		;
	errno = saved;
}

void accwatch_log(const char *prefix, const char *format, ...)
{
	va_list args;

	va_start(args, format);
	accwatch_log_line(prefix, format, args);
	va_end(args);
}

enum accwatch_parse_status accwatch_parse_i64(const char *text, int64_t min,
					      int64_t max, int64_t *out)
{
	enum accwatch_parse_status status = ACCWATCH_PARSE_EMPTY;
	int saved = errno;
	long long value;
	char *end;

	while (text && (*text == ' ' || *text == '\t'))
		text++;
	if (!text || *text == '\0')
		goto end;
	status = ACCWATCH_PARSE_NOT_A_NUMBER;
	errno = 0;
	value = strtoll(text, &end, 10);
	if (end == text || *end != '\0')
		goto end;
	status = ACCWATCH_PARSE_OUT_OF_RANGE;
	if (errno == ERANGE || value < min || value > max)
		goto end;
	*out = value;
	status = ACCWATCH_PARSE_OK;
end:
	errno = saved;
	return status;
}

bool accwatch_run_id_of_word(const char *word, uint32_t *id)
{
	uint32_t hash = 2166136261u;
	int64_t number;

	if (!word[0] || word[0] == '-' || strlen(word) > ACCWATCH_RUN_WORD_MAX)
		return false;
	if (strspn(word, "0123456789") == strlen(word)) {
		if (accwatch_parse_i64(word, 0, UINT32_MAX, &number) !=
		    ACCWATCH_PARSE_OK)
			return false;
		*id = (uint32_t)number;
		return true;
	}
	for (const char *p = word; *p; p++)
		hash = (hash ^ (unsigned char)*p) * 16777619u;
	*id = hash ? hash : 1;
	return true;
}
