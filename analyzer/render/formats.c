/* SPDX-License-Identifier: MIT */
/* The output formats of formats.h: their names, their list for --help and
 * the renderer of each. */
#include "formats.h"

#include <string.h>

static enum aw_render_status
aw_render_as_text(FILE *out, const struct aw_render_request *r)
{
	aw_render_text(out, r->model, r->findings, r->watch,
		       r->show_suppressed);
	return ferror(out) ? AW_RENDER_WRITE_ERROR : AW_RENDER_OK;
}

static enum aw_render_status
aw_render_as_json(FILE *out, const struct aw_render_request *r)
{
	return aw_render_json(out, r->model, r->findings, r->watch);
}

static enum aw_render_status
aw_render_as_sarif(FILE *out, const struct aw_render_request *r)
{
	return aw_render_sarif(out, r->model, r->findings, r->watch,
			       r->version);
}

static enum aw_render_status
aw_render_as_html(FILE *out, const struct aw_render_request *r)
{
	return aw_render_html(out, r->model, r->findings, r->watch, r->version);
}

struct aw_format_entry {
	const char *name, *what;
	enum aw_render_status (*render)(FILE *out,
					const struct aw_render_request *r);
};

#define AW_FORMAT_ENTRY(name, NAME, what) {#name, what, aw_render_as_##name},
static const struct aw_format_entry aw_formats[] = {
    AW_RENDER_FORMATS(AW_FORMAT_ENTRY)};

bool aw_format_by_name(const char *name, enum aw_format *format)
{
	for (size_t i = 0; i < AW_FORMAT_COUNT; i++) {
		if (strcmp(aw_formats[i].name, name) == 0) {
			*format = (enum aw_format)i;
			return true;
		}
	}
	return false;
}

const char *aw_format_choices(void)
{
	static char choices[128];
	if (!choices[0]) {
		size_t used = 0;
		for (size_t i = 0; i < AW_FORMAT_COUNT; i++)
			used += (size_t)snprintf(
			    choices + used, sizeof(choices) - used, "%s%s",
			    i == 0                     ? ""
			    : i + 1 == AW_FORMAT_COUNT ? " or "
						       : ", ",
			    aw_formats[i].name);
	}
	return choices;
}

void aw_format_list(FILE *out, bool man)
{
	for (size_t i = 0; i < AW_FORMAT_COUNT; i++) {
		if (man)
			fprintf(out, ".TP\n.B %s\n%s\n", aw_formats[i].name,
				aw_formats[i].what);
		else
			fprintf(out, "  %-6s %s\n", aw_formats[i].name,
				aw_formats[i].what);
	}
}

enum aw_render_status aw_render_as(enum aw_format format, FILE *out,
				   const struct aw_render_request *request)
{
	if ((unsigned)format >= AW_FORMAT_COUNT)
		return AW_RENDER_WRITE_ERROR;
	return aw_formats[format].render(out, request);
}
