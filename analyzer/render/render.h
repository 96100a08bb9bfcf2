/* Report renderers: text for people, JSON (schema accwatch-report/1) for CI. */
#ifndef AW_RENDER_H
#define AW_RENDER_H

#include <jansson.h>
#include <stdio.h>

#include "findings.h"
#include "model.h"
#include "watch.h"

#define AW_JSON_SCHEMA "accwatch-report/1"

/* Every renderer takes the watch of the questions asked (their answers and
 * --loader), or NULL when none was. */

/* Findings first (sorted), then a table of ranks x epochs per loader. */
void aw_render_text(FILE *out, const struct aw_model *model,
		    const struct aw_findings *findings,
		    const struct aw_query_watch *watch);

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

#endif
