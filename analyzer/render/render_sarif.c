/* SPDX-License-Identifier: MIT */
/* SARIF 2.1.0 for code scanning: one result per finding of the JSON report,
 * at the line that built the loader. A rule per finding id, its help the
 * fix of the id's first finding; the finding's own fix, evidence, ranks,
 * epoch and numbers are the result's properties; a suppressed finding is a
 * result with a suppression (inSource or external). */
#include <jansson.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "checks.h"
#include "render.h"
#include "util.h"

#define AW_SARIF_SCHEMA "https://json.schemastore.org/sarif-2.1.0.json"
#define AW_SARIF_ROOT "SRCROOT"

/* error, warning, info: SARIF's error, warning, note. */
static const char *aw_sarif_level(const char *severity)
{
	if (strcmp(severity, "error") == 0)
		return "error";
	if (strcmp(severity, "warning") == 0)
		return "warning";
	return "note";
}

/* path percent-encoded as a URI path: RFC 3986's unreserved characters and
 * '/' stay as they are. */
static char *aw_sarif_uri_path(const char *path)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t len = strlen(path);
	char *uri = aw_xmalloc(len * 3 + 1), *out = uri;

	for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		    (*p >= '0' && *p <= '9') || strchr("-._~/", *p)) {
			*out++ = (char)*p;
		} else {
			*out++ = '%';
			*out++ = hex[*p >> 4];
			*out++ = hex[*p & 15];
		}
	}
	*out = '\0';
	return uri;
}

/* The directory holding a .git (directory or file: a worktree), nearest
 * above file, with a trailing '/'; NULL when there is none. */
char *aw_sarif_repository_of(const char *file)
{
	char dir[PATH_MAX];
	size_t len = strlen(file);

	if (file[0] != '/' || len >= sizeof(dir))
		return NULL;
	memcpy(dir, file, len + 1);
	for (;;) {
		char *slash = strrchr(dir, '/');
		char probe[PATH_MAX + 8];
		struct stat st;

		if (!slash)
			return NULL;
		slash[1] = '\0';
		snprintf(probe, sizeof(probe), "%s.git", dir);
		if (stat(probe, &st) == 0)
			return aw_xstrdup(dir);
		if (slash == dir)
			return NULL;
		*slash = '\0';
	}
}

/* "path:line" splits into path and line >= 1; false for sites that are not
 * (a missing site, "<stdin>:3"). */
static bool aw_sarif_site(const char *site, char **path, long *line)
{
	const char *colon = site ? strrchr(site, ':') : NULL;
	char *end;

	if (!colon || colon == site || site[0] == '<')
		return false;
	*line = strtol(colon + 1, &end, 10);
	if (*end != '\0' || *line < 1)
		return false;
	*path = aw_xasprintf("%.*s", (int)(colon - site), site);
	return true;
}

/* A location at site, relative to the repository of root (a directory
 * ending in '/') when site lies in it; NULL when site names no line. */
static json_t *aw_sarif_location(const char *site, const char *root)
{
	char *path = NULL, *uri;
	long line;
	json_t *artifact = json_object(), *location;

	if (!aw_sarif_site(site, &path, &line)) {
		json_decref(artifact);
		return NULL;
	}
	if (root && strncmp(path, root, strlen(root)) == 0) {
		uri = aw_sarif_uri_path(path + strlen(root));
		json_object_set_new(artifact, "uri", json_string(uri));
		json_object_set_new(artifact, "uriBaseId",
				    json_string(AW_SARIF_ROOT));
	} else {
		char *encoded = aw_sarif_uri_path(path);
		uri = path[0] == '/' ? aw_xasprintf("file://%s", encoded)
				     : aw_xstrdup(encoded);
		free(encoded);
		json_object_set_new(artifact, "uri", json_string(uri));
	}
	location = json_pack("{s:{s:o,s:{s:I}}}", "physicalLocation",
			     "artifactLocation", artifact, "region",
			     "startLine", (json_int_t)line);
	free(uri);
	free(path);
	return location;
}

static json_t *aw_sarif_rule(const json_t *finding)
{
	const char *id = json_string_value(json_object_get(finding, "id"));
	const char *fix = json_string_value(json_object_get(finding, "fix"));
	const char *severity =
	    json_string_value(json_object_get(finding, "severity"));
	const struct aw_check *check = id ? aw_checks_find(id) : NULL;
	json_t *rule = json_pack("{s:s,s:s,s:{s:s}}", "id", id, "name", id,
				 "defaultConfiguration", "level",
				 aw_sarif_level(severity));

	if (check)
		json_object_set_new(rule, "shortDescription",
				    json_pack("{s:s}", "text", check->summary));

	if (fix)
		json_object_set_new(rule, "help",
				    json_pack("{s:s}", "text", fix));
	return rule;
}

/* SARIF's suppressions of a result: empty when it is not suppressed
 * (accwatch decided it is not, which an absent list would leave open),
 * else one, accepted, with its kind and justification; an inSource one is
 * located at the line that built the loader. */
static json_t *aw_sarif_suppressions(const json_t *finding, const char *root)
{
	json_t *list = json_array();
	json_t *said = json_object_get(finding, "suppression");
	const char *kind, *justification;
	json_t *suppression, *location;

	if (!json_is_true(json_object_get(finding, "suppressed")) || !said)
		return list;
	kind = json_string_value(json_object_get(said, "kind"));
	justification =
	    json_string_value(json_object_get(said, "justification"));
	suppression = json_pack("{s:s,s:s}", "kind", kind ? kind : "external",
				"status", "accepted");
	if (justification)
		json_object_set_new(suppression, "justification",
				    json_string(justification));
	if (kind && strcmp(kind, "inSource") == 0 &&
	    (location = aw_sarif_location(
		 json_string_value(json_object_get(said, "at")), root)))
		json_object_set_new(suppression, "location", location);
	json_array_append_new(list, suppression);
	return list;
}

static json_t *aw_sarif_result(const json_t *finding, size_t rule_index,
			       const char *root)
{
	const char *id = json_string_value(json_object_get(finding, "id"));
	const char *severity =
	    json_string_value(json_object_get(finding, "severity"));
	const char *message =
	    json_string_value(json_object_get(finding, "message"));
	const char *site = json_string_value(json_object_get(finding, "site"));
	json_t *location = aw_sarif_location(site, root);
	json_t *properties = json_object();
	json_t *result =
	    json_pack("{s:s,s:I,s:s,s:{s:s}}", "ruleId", id, "ruleIndex",
		      (json_int_t)rule_index, "level", aw_sarif_level(severity),
		      "message", "text", message ? message : "");
	static const char *const kept[] = {
	    "loader", "epoch", "ranks", "site", "fix", "evidence", "numbers"};

	for (size_t i = 0; i < sizeof(kept) / sizeof(kept[0]); i++) {
		json_t *value = json_object_get(finding, kept[i]);
		if (value && !json_is_null(value))
			json_object_set(properties, kept[i], value);
	}
	if (location)
		json_object_set_new(result, "locations",
				    json_pack("[o]", location));
	json_object_set_new(result, "suppressions",
			    aw_sarif_suppressions(finding, root));
	json_object_set_new(result, "properties", properties);
	return result;
}

json_t *aw_render_sarif_from_report(const json_t *report, const char *version,
				    const char *root)
{
	json_t *rules = json_array(), *results = json_array();
	json_t *findings = json_object_get(report, "findings");
	json_t *run, *sarif;
	size_t i;
	json_t *finding;

	json_array_foreach(findings, i, finding)
	{
		const char *id =
		    json_string_value(json_object_get(finding, "id"));
		size_t index = json_array_size(rules), r;
		json_t *rule;

		json_array_foreach(rules, r, rule)
		{
			if (strcmp(
				json_string_value(json_object_get(rule, "id")),
				id) == 0) {
				index = r;
				break;
			}
		}
		if (index == json_array_size(rules))
			json_array_append_new(rules, aw_sarif_rule(finding));
		json_array_append_new(results,
				      aw_sarif_result(finding, index, root));
	}
	run = json_pack("{s:{s:{s:s,s:s,s:o}},s:o}", "tool", "driver", "name",
			"accwatch-report", "version", version, "rules", rules,
			"results", results);
	if (root)
		json_object_set_new(run, "originalUriBaseIds",
				    json_pack("{s:{s:s+}}", AW_SARIF_ROOT,
					      "uri", "file://", root));
	sarif = json_pack("{s:s,s:s,s:[o]}", "$schema", AW_SARIF_SCHEMA,
			  "version", "2.1.0", "runs", run);
	return sarif;
}

/* The repository of the first finding's site that lies in one. */
static char *aw_sarif_root(const json_t *report)
{
	json_t *finding;
	size_t i;

	json_array_foreach(json_object_get(report, "findings"), i, finding)
	{
		char *path = NULL, *root;
		long line;

		if (!aw_sarif_site(
			json_string_value(json_object_get(finding, "site")),
			&path, &line))
			continue;
		root = aw_sarif_repository_of(path);
		free(path);
		if (root)
			return root;
	}
	return NULL;
}

enum aw_render_status aw_render_sarif(FILE *out, const struct aw_model *model,
				      const struct aw_findings *findings,
				      const struct aw_query_watch *watch,
				      const char *version)
{
	json_t *report = aw_render_json_object(model, findings, watch);
	char *root = aw_sarif_root(report);
	json_t *sarif = aw_render_sarif_from_report(report, version, root);
	int failed = json_dumpf(sarif, out, JSON_INDENT(2));

	json_decref(sarif);
	json_decref(report);
	free(root);
	if (failed || fputc('\n', out) == EOF)
		return AW_RENDER_WRITE_ERROR;
	return AW_RENDER_OK;
}
