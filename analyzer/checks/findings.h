/* SPDX-License-Identifier: MIT */
/* Findings: what the checks conclude, with the numbers and evidence behind it
 * and what to change; kept in a list that the renderers print. */
#ifndef AW_FINDINGS_H
#define AW_FINDINGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum aw_severity {
	AW_SEVERITY_ERROR,
	AW_SEVERITY_WARNING,
	AW_SEVERITY_INFO,
};

/* "error", "warning", "info". */
const char *aw_severity_name(enum aw_severity severity);

/* A named number behind a finding (JSON: findings[].numbers). */
struct aw_number {
	const char *name; /* a string literal */
	bool real;
	int64_t integer;
	double value;
};

#define AW_FINDING_NUMBERS_MAX 12

/* Whether the user said a finding is intended (suppress.h): where its
 * loader is built (SARIF's inSource), or in a suppression file (external).
 */
enum aw_suppression {
	AW_NOT_SUPPRESSED,
	AW_SUPPRESSED_IN_SOURCE,
	AW_SUPPRESSED_BY_FILE,
};

/* "inSource", "external" (SARIF's suppression kinds); NULL when not. */
const char *aw_suppression_kind_name(enum aw_suppression suppression);

struct aw_finding {
	const char *id; /* stable: "unsharded", "overlap", ... */
	enum aw_severity severity;
	uint32_t loader; /* index into aw_model.loaders_global, AW_NONE */
	int64_t epoch;   /* -1: not about one epoch */
	int32_t *ranks;  /* sorted */
	size_t n_ranks;
	char *message;  /* one sentence: what is wrong, with numbers */
	char *evidence; /* lines separated by '\n', or NULL */
	char *fix;      /* one sentence: what to change */
	struct aw_number numbers[AW_FINDING_NUMBERS_MAX];
	size_t n_numbers;
	size_t order; /* when it was added: keeps sorting stable */
	/* Its check's row in the table (set by aw_checks_run): the table
	 * lists causes above the symptoms they explain, and so does the
	 * report within a severity. */
	uint32_t row;
	enum aw_suppression suppressed;
	char *suppressed_at; /* the site or the file's "path:line" saying so */
	char *justification; /* why, in words (SARIF's justification) */
};

struct aw_findings {
	struct aw_finding *items;
	size_t n, cap;
};

void aw_findings_init(struct aw_findings *findings);
void aw_findings_fini(struct aw_findings *findings);
/* Frees what one finding owns (its ranks and texts), not the finding. */
void aw_finding_fini(struct aw_finding *finding);

/* Adds a finding; the pointer is valid until the next add. */
struct aw_finding *aw_findings_add(struct aw_findings *findings, const char *id,
				   enum aw_severity severity, uint32_t loader,
				   int64_t epoch);
void aw_finding_set_message(struct aw_finding *finding, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void aw_finding_set_fix(struct aw_finding *finding, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void aw_finding_add_evidence(struct aw_finding *finding, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void aw_finding_add_rank(struct aw_finding *finding, int32_t rank);
void aw_finding_add_integer(struct aw_finding *finding, const char *name,
			    int64_t value);
void aw_finding_add_real(struct aw_finding *finding, const char *name,
			 double value);

/* Marks a finding suppressed, at where the suppression was said, with
 * its justification. */
void aw_finding_suppress(struct aw_finding *finding, enum aw_suppression how,
			 const char *at, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Errors first, then warnings, then infos; by loader, id and epoch within
 * (so one problem repeated over epochs stays together); suppressed findings
 * after all the others, in the same order. */
void aw_findings_sort(struct aw_findings *findings);
/* The findings of a severity that are not suppressed: what the summary and
 * the exit status count. */
size_t aw_findings_count(const struct aw_findings *findings,
			 enum aw_severity severity);
/* The suppressed findings, all severities. */
size_t aw_findings_count_suppressed(const struct aw_findings *findings);
/* The first finding with this id, or NULL (tests use it). */
const struct aw_finding *aw_findings_find(const struct aw_findings *findings,
					  const char *id);

#endif
