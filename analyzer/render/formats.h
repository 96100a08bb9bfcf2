/* SPDX-License-Identifier: MIT */
/* The report's output formats: one list (name, what it is), from which
 * --format's parsing, its help and completion, and the choice of renderer
 * are all made. */
#ifndef AW_FORMATS_H
#define AW_FORMATS_H

#include <stdbool.h>
#include <stdio.h>

#include "render.h"

/* X(name, NAME, what it is): in the order --help lists them; the first is
 * the default. */
#define AW_RENDER_FORMATS(X)                                                   \
	X(text, TEXT, "for people (default)")                                  \
	X(json, JSON, "accwatch-report/1, docs/json.md")                       \
	X(sarif, SARIF,                                                        \
	  "SARIF 2.1.0: a result per finding, at its loader's line")           \
	X(html, HTML, "one page with plots, for -o report.html")

#define AW_FORMAT_ENUM(name, NAME, what) AW_FORMAT_##NAME,
enum aw_format { AW_RENDER_FORMATS(AW_FORMAT_ENUM) AW_FORMAT_COUNT };
#undef AW_FORMAT_ENUM

/* The format names separated by spaces ("text json sarif html "), for the
 * completion. */
#define AW_FORMAT_WORD(name, NAME, what) #name " "
#define AW_FORMAT_WORDS AW_RENDER_FORMATS(AW_FORMAT_WORD)

/* What a renderer is given. */
struct aw_render_request {
	const struct aw_model *model;
	const struct aw_findings *findings;
	const struct aw_query_watch *watch;
	const char *version;  /* accwatch's, for SARIF and HTML */
	bool show_suppressed; /* text: list the suppressed findings too */
};

/* The format called name; false when there is none. */
bool aw_format_by_name(const char *name, enum aw_format *format);
/* "text, json, sarif or html". */
const char *aw_format_choices(void);
/* Lists the formats and what each is, for --help and the man page. */
void aw_format_list(FILE *out, bool man);
/* Writes the report in format. */
enum aw_render_status aw_render_as(enum aw_format format, FILE *out,
				   const struct aw_render_request *request);

#endif
