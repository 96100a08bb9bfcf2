/* SPDX-License-Identifier: MIT */
/* Findings the user says are intended: allowed where the loader is built
 * (`# accwatch: allow ID[, ID...]`, recorded in loader_new's allow), or
 * listed in a suppression file (accwatch-report --suppress FILE). */
#ifndef AW_SUPPRESS_H
#define AW_SUPPRESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "findings.h"
#include "model.h"

/* One line of a suppression file: `ID [PATH[:LINE]]`. */
struct aw_suppression_rule {
	char *id;
	char *path;    /* NULL: every finding of id; else a suffix of its site's
			* path, whole path components */
	long line;     /* 0: any line of path */
	char *file;    /* the suppression file and its line, "FILE:N" */
	char *comment; /* the line's trailing `# ...` words, NULL */
};

struct aw_suppressions {
	struct aw_suppression_rule *rules;
	size_t n, cap;
};

void aw_suppressions_init(struct aw_suppressions *s);
void aw_suppressions_fini(struct aw_suppressions *s);

enum aw_suppress_status {
	AW_SUPPRESS_OK,
	AW_SUPPRESS_BAD_FILE, /* unreadable, or a bad line: error says which */
};

/* Adds the rules of a suppression file: one rule a line, `#` starts a
 * comment (at the start of a line or after a blank), blank lines are
 * skipped. A line whose ID is not a finding id, or whose LINE is not a
 * line number, is refused with the file and line named in error. */
enum aw_suppress_status aw_suppressions_load(struct aw_suppressions *s,
					     const char *file, char *error,
					     size_t error_size);

/* Whether a site ("path:line") is one a rule's PATH[:LINE] names: PATH a
 * suffix of its path made of whole components ("train.py" and
 * "src/train.py" name "/home/u/src/train.py"). */
bool aw_suppression_rule_names(const struct aw_suppression_rule *rule,
			       const char *site);

/* Marks as suppressed the findings whose loader allows their id where it
 * is built (any of its loader objects), then those a rule names (by id,
 * and by its loader's site when the rule has a PATH: a finding of no
 * loader is named only by a rule without one), and sorts the findings
 * again (suppressed last). rules may be NULL. Returns how many are
 * suppressed. */
size_t aw_suppress_findings(const struct aw_model *model,
			    const struct aw_suppressions *rules,
			    struct aw_findings *findings);

/* A warning on out for each id a loader's source allows that is not a
 * finding id (a typo suppresses nothing), once per site and id. Returns
 * how many. */
size_t aw_suppress_warn_unknown(const struct aw_model *model, FILE *out);

#endif
