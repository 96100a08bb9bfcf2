/* SPDX-License-Identifier: MIT */
/* The findings list: building findings piece by piece, ordering them for the
 * reader of the report, counting them for the exit status. */
#include "findings.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "index_map.h"
#include "util.h"

static const char *const aw_severity_names[] = {
    [AW_SEVERITY_ERROR] = "error",
    [AW_SEVERITY_WARNING] = "warning",
    [AW_SEVERITY_INFO] = "info",
};

const char *aw_severity_name(enum aw_severity severity)
{
	if ((size_t)severity >=
	    sizeof(aw_severity_names) / sizeof(aw_severity_names[0]))
		return "?";
	return aw_severity_names[severity];
}

const char *aw_suppression_kind_name(enum aw_suppression suppression)
{
	switch (suppression) {
	case AW_SUPPRESSED_IN_SOURCE:
		return "inSource";
	case AW_SUPPRESSED_BY_FILE:
		return "external";
	case AW_NOT_SUPPRESSED:
		break;
	}
	return NULL;
}

void aw_findings_init(struct aw_findings *findings)
{
	findings->items = NULL;
	findings->n = findings->cap = 0;
}

void aw_finding_fini(struct aw_finding *finding)
{
	free(finding->ranks);
	free(finding->message);
	free(finding->evidence);
	free(finding->fix);
	free(finding->suppressed_at);
	free(finding->justification);
}

void aw_findings_fini(struct aw_findings *findings)
{
	for (size_t i = 0; i < findings->n; i++)
		aw_finding_fini(&findings->items[i]);
	free(findings->items);
	aw_findings_init(findings);
}

struct aw_finding *aw_findings_add(struct aw_findings *findings, const char *id,
				   enum aw_severity severity, uint32_t loader,
				   int64_t epoch)
{
	AW_GROW(findings->items, findings->cap, findings->n + 1);
	struct aw_finding *f = &findings->items[findings->n];
	memset(f, 0, sizeof(*f));
	f->id = id;
	f->severity = severity;
	f->loader = loader;
	f->epoch = epoch;
	f->order = findings->n++;
	return f;
}

static char *aw_vformat(const char *fmt, va_list ap)
{
	char *s = aw_xvasprintf(fmt, ap);
	/* A name cut to a width can end inside a UTF-8 sequence. */
	aw_utf8_clean(s, strlen(s));
	return s;
}

/* A text of the finding (message, fix) replaced by a new one. */
static void aw_replace_text(char **text, const char *fmt, va_list ap)
{
	free(*text);
	*text = aw_vformat(fmt, ap);
}

void aw_finding_set_message(struct aw_finding *finding, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	aw_replace_text(&finding->message, fmt, ap);
	va_end(ap);
}

void aw_finding_set_fix(struct aw_finding *finding, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	aw_replace_text(&finding->fix, fmt, ap);
	va_end(ap);
}

void aw_finding_add_evidence(struct aw_finding *finding, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *line = aw_vformat(fmt, ap);
	va_end(ap);
	if (!finding->evidence) {
		finding->evidence = line;
		return;
	}
	char *joined = aw_xasprintf("%s\n%s", finding->evidence, line);
	free(finding->evidence);
	free(line);
	finding->evidence = joined;
}

void aw_finding_add_rank(struct aw_finding *finding, int32_t rank)
{
	size_t at = 0;
	while (at < finding->n_ranks && finding->ranks[at] < rank)
		at++;
	if (at < finding->n_ranks && finding->ranks[at] == rank)
		return;
	finding->ranks = aw_xrealloc(
	    finding->ranks, (finding->n_ranks + 1) * sizeof(*finding->ranks));
	memmove(&finding->ranks[at + 1], &finding->ranks[at],
		(finding->n_ranks - at) * sizeof(*finding->ranks));
	finding->ranks[at] = rank;
	finding->n_ranks++;
}

static struct aw_number *aw_finding_number(struct aw_finding *finding,
					   const char *name)
{
	if (finding->n_numbers == AW_FINDING_NUMBERS_MAX)
		return NULL;
	struct aw_number *n = &finding->numbers[finding->n_numbers++];
	memset(n, 0, sizeof(*n));
	n->name = name;
	return n;
}

void aw_finding_add_integer(struct aw_finding *finding, const char *name,
			    int64_t value)
{
	struct aw_number *n = aw_finding_number(finding, name);
	if (n)
		n->integer = value;
}

void aw_finding_add_real(struct aw_finding *finding, const char *name,
			 double value)
{
	struct aw_number *n = aw_finding_number(finding, name);
	if (n) {
		n->real = true;
		n->value = value;
	}
}

void aw_finding_suppress(struct aw_finding *finding, enum aw_suppression how,
			 const char *at, const char *fmt, ...)
{
	va_list ap;
	finding->suppressed = how;
	free(finding->suppressed_at);
	finding->suppressed_at = aw_xstrdup(at);
	/* A path of the command line may be any bytes; the JSON report is
	 * UTF-8. */
	aw_utf8_clean(finding->suppressed_at, strlen(finding->suppressed_at));
	va_start(ap, fmt);
	aw_replace_text(&finding->justification, fmt, ap);
	va_end(ap);
}

/* -1, 0 or 1 as a is below, equal to or above b. */
static int aw_three_way(int64_t a, int64_t b)
{
	return (a > b) - (a < b);
}

static int aw_compare_findings(const void *a, const void *b)
{
	const struct aw_finding *x = a, *y = b;
	int by;
	/* Findings about no loader (AW_NONE) come after the loaders'. */
	if ((by = aw_three_way(x->suppressed != AW_NOT_SUPPRESSED,
			       y->suppressed != AW_NOT_SUPPRESSED)) ||
	    (by = aw_three_way(x->severity, y->severity)) ||
	    (by = aw_three_way(x->row, y->row)) ||
	    (by = aw_three_way(x->loader, y->loader)) ||
	    (by = strcmp(x->id, y->id)) ||
	    (by = aw_three_way(x->epoch, y->epoch)))
		return by;
	return aw_three_way((int64_t)x->order, (int64_t)y->order);
}

void aw_findings_sort(struct aw_findings *findings)
{
	if (findings->n > 1)
		qsort(findings->items, findings->n, sizeof(*findings->items),
		      aw_compare_findings);
}

size_t aw_findings_count(const struct aw_findings *findings,
			 enum aw_severity severity)
{
	size_t count = 0;
	for (size_t i = 0; i < findings->n; i++)
		count += findings->items[i].severity == severity &&
			 findings->items[i].suppressed == AW_NOT_SUPPRESSED;
	return count;
}

size_t aw_findings_count_suppressed(const struct aw_findings *findings)
{
	size_t count = 0;
	for (size_t i = 0; i < findings->n; i++)
		count += findings->items[i].suppressed != AW_NOT_SUPPRESSED;
	return count;
}

const struct aw_finding *aw_findings_find(const struct aw_findings *findings,
					  const char *id)
{
	for (size_t i = 0; i < findings->n; i++)
		if (strcmp(findings->items[i].id, id) == 0)
			return &findings->items[i];
	return NULL;
}
