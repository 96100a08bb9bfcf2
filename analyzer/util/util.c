/* SPDX-License-Identifier: MIT */
/* Allocation helpers: the analyzer has nothing useful to do without memory,
 * so running out ends it with exit status 2 and one line saying so. */
#include "util.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

_Noreturn void aw_out_of_memory(size_t size)
{
	fprintf(stderr,
		"accwatch-report: out of memory (%zu bytes); "
		"try a machine with more memory or a smaller trace\n",
		size);
	exit(2);
}

void *aw_xmalloc(size_t size)
{
	void *p = malloc(size ? size : 1);
	if (!p)
		aw_out_of_memory(size);
	return p;
}

void *aw_xcalloc(size_t count, size_t size)
{
	void *p = calloc(count ? count : 1, size ? size : 1);
	if (!p)
		aw_out_of_memory(count * size);
	return p;
}

void *aw_xrealloc(void *ptr, size_t size)
{
	void *p = realloc(ptr, size ? size : 1);
	if (!p)
		aw_out_of_memory(size);
	return p;
}

char *aw_xstrdup(const char *s)
{
	if (!s)
		s = "";
	size_t len = strlen(s) + 1;
	char *copy = aw_xmalloc(len);
	memcpy(copy, s, len);
	return copy;
}

char *aw_xvasprintf(const char *fmt, va_list ap)
{
	/* GCC with -fsanitize=undefined warns of a null format otherwise. */
	if (!fmt)
		fmt = "";
	va_list copy;
	va_copy(copy, ap);
	int len = vsnprintf(NULL, 0, fmt, copy);
	va_end(copy);
	if (len < 0)
		len = 0;
	char *s = aw_xmalloc((size_t)len + 1);
	vsnprintf(s, (size_t)len + 1, fmt, ap);
	return s;
}

char *aw_xasprintf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *s = aw_xvasprintf(fmt, ap);
	va_end(ap);
	return s;
}

void aw_grow(void **ptr, size_t *cap, size_t need, size_t elem_size)
{
	/* Even for no element, leave a buffer behind: memcpy or pointer
	 * arithmetic on NULL is undefined, even with a length of 0. */
	if (need <= *cap && *ptr)
		return;
	size_t new_cap = *cap ? *cap : 8;
	while (new_cap < need) {
		if (new_cap > SIZE_MAX / 2 / elem_size)
			aw_out_of_memory(SIZE_MAX);
		new_cap *= 2;
	}
	*ptr = aw_xrealloc(*ptr, new_cap * elem_size);
	*cap = new_cap;
}

int aw_compare_int32(const void *a, const void *b)
{
	int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
	return (x > y) - (x < y);
}

void aw_sort(void *base, size_t n, size_t size,
	     int (*compare)(const void *, const void *))
{
	if (n > 1)
		qsort(base, n, size, compare);
}

/* Length of the valid UTF-8 sequence at s (at most len bytes), or 0. */
static size_t aw_utf8_sequence(const unsigned char *s, size_t len)
{
	unsigned char c = s[0];
	size_t n;
	uint32_t min, code;
	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2, min = 0x80, code = c & 0x1f;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3, min = 0x800, code = c & 0x0f;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4, min = 0x10000, code = c & 0x07;
	else
		return 0;
	if (n > len)
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		code = code << 6 | (s[i] & 0x3f);
	}
	if (code < min || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff))
		return 0;
	return n;
}

void aw_utf8_clean(char *text, size_t len)
{
	unsigned char *s = (unsigned char *)text;
	for (size_t i = 0; i < len;) {
		size_t n = aw_utf8_sequence(s + i, len - i);
		if (n == 0 ||
		    (n == 1 && ((s[i] < 0x20 && s[i] != '\t' && s[i] != '\n') ||
				s[i] == 0x7f))) {
			s[i++] = '?';
			continue;
		}
		i += n;
	}
}

void aw_text_add(struct aw_text *t, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *part = aw_xvasprintf(fmt, ap);
	va_end(ap);
	size_t len = strlen(part);
	AW_GROW(t->text, t->cap, t->len + len + 1);
	memcpy(t->text + t->len, part, len + 1);
	t->len += len;
	free(part);
}

const char *aw_text_str(const struct aw_text *t)
{
	return t->text ? t->text : "";
}

void aw_text_fini(struct aw_text *t)
{
	free(t->text);
	*t = (struct aw_text){0};
}
