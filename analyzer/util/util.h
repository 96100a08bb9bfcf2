/* SPDX-License-Identifier: MIT */
/* Small helpers of the analyzer: allocation that ends the program with one
 * message when memory runs out, and growable arrays. */
#ifndef AW_UTIL_H
#define AW_UTIL_H

#include <stdarg.h>
#include <stddef.h>

/* Prints that memory ran out and exits with status 2. */
_Noreturn void aw_out_of_memory(size_t size);

void *aw_xmalloc(size_t size);
void *aw_xcalloc(size_t count, size_t size);
void *aw_xrealloc(void *ptr, size_t size);
/* Copies s; NULL becomes "". */
char *aw_xstrdup(const char *s);
/* Like asprintf, but ends the program when memory runs out. */
char *aw_xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *aw_xvasprintf(const char *fmt, va_list ap)
    __attribute__((format(printf, 1, 0)));

/* A string that grows: aw_text_add appends printf-style, so that a message
 * part is never cut at a fixed buffer's size. aw_text_str is "" while
 * nothing was added. */
struct aw_text {
	char *text;
	size_t len, cap;
};
void aw_text_add(struct aw_text *t, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
const char *aw_text_str(const struct aw_text *t);
void aw_text_fini(struct aw_text *t);

/* Makes room for `need` elements in a growable array (*ptr, *cap); *ptr
 * is never NULL afterwards. */
void aw_grow(void **ptr, size_t *cap, size_t need, size_t elem_size);
#define AW_GROW(ptr, cap, need)                                                \
	do {                                                                   \
		/* The common case, room already, without a call. */           \
		if ((need) > (cap) || !(ptr))                                  \
			aw_grow((void **)&(ptr), &(cap), (need),               \
				sizeof(*(ptr)));                               \
	} while (0)

/* qsort, which must not be given NULL even with n == 0. */
void aw_sort(void *base, size_t n, size_t size,
	     int (*compare)(const void *, const void *));

/* qsort's order of int32_t values. */
int aw_compare_int32(const void *a, const void *b);

/* Makes text (len bytes) valid UTF-8 without control characters other
 * than tab and newline, in place: each byte of an invalid sequence, and
 * each such control character, becomes '?'. Strings from a trace end up in
 * the JSON report, which must be UTF-8, and on terminals. */
void aw_utf8_clean(char *text, size_t len);

#define AW_MIN(a, b) ((a) < (b) ? (a) : (b))
#define AW_MAX(a, b) ((a) > (b) ? (a) : (b))

#endif
