/* SPDX-License-Identifier: MIT */
/* Report renderers: text for people, JSON (schema accwatch-report/1) for
 * scripts, SARIF for code scanning, HTML with plots. */
#ifndef AW_RENDER_H
#define AW_RENDER_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "findings.h"
#include "model.h"
#include "watch.h"

#define AW_JSON_SCHEMA "accwatch-report/1"

/* Every renderer takes the watch of the questions asked (their answers and
 * --loader), or NULL when none was. */

/* Findings first (sorted), then a table of ranks x epochs per loader.
 * Suppressed findings are counted, and printed (marked) only when
 * show_suppressed. */
void aw_render_text(FILE *out, const struct aw_model *model,
		    const struct aw_findings *findings,
		    const struct aw_query_watch *watch, bool show_suppressed);

/* The report as a JSON object (new reference). */
json_t *aw_render_json_object(const struct aw_model *model,
			      const struct aw_findings *findings,
			      const struct aw_query_watch *watch);

enum aw_render_status {
	AW_RENDER_OK,
	AW_RENDER_WRITE_ERROR,
};
enum aw_render_status aw_render_json(FILE *out, const struct aw_model *model,
				     const struct aw_findings *findings,
				     const struct aw_query_watch *watch);

/* One self-contained HTML page: the findings, and per loader and epoch the
 * samples ranks share, batches and samples per rank, how many ranks read
 * each sample, when each rank drew its batches; the process tree. */
enum aw_render_status aw_render_html(FILE *out, const struct aw_model *model,
				     const struct aw_findings *findings,
				     const struct aw_query_watch *watch,
				     const char *version);

/* SARIF 2.1.0 (code scanning): a result per finding at its loader's
 * creation site, relative to the git repository that holds it. */
enum aw_render_status aw_render_sarif(FILE *out, const struct aw_model *model,
				      const struct aw_findings *findings,
				      const struct aw_query_watch *watch,
				      const char *version);
/* The SARIF log of a JSON report (new reference); root: the repository
 * directory, ending in '/', that sites are made relative to, or NULL. */
json_t *aw_render_sarif_from_report(const json_t *report, const char *version,
				    const char *root);
/* The nearest directory above file holding a .git, ending in '/'; NULL
 * when there is none (free it). */
char *aw_sarif_repository_of(const char *file);

#endif
