/* SPDX-License-Identifier: MIT */
/* Suppressions: reading a suppression file into rules, and marking the
 * findings that the loaders' sources or the rules say are intended. */
#include "suppress.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "checks.h"
#include "util.h"

void aw_suppressions_init(struct aw_suppressions *s)
{
	s->rules = NULL;
	s->n = s->cap = 0;
}

void aw_suppressions_fini(struct aw_suppressions *s)
{
	for (size_t i = 0; i < s->n; i++) {
		free(s->rules[i].id);
		free(s->rules[i].path);
		free(s->rules[i].file);
		free(s->rules[i].comment);
	}
	free(s->rules);
	aw_suppressions_init(s);
}

static enum aw_suppress_status aw_suppress_fail(char *error, size_t size,
						const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(error, size, fmt, ap);
	va_end(ap);
	return AW_SUPPRESS_BAD_FILE;
}

/* s without blanks at either end, in place. */
static char *aw_trim(char *s)
{
	size_t len = strlen(s);
	while (len && isspace((unsigned char)s[len - 1]))
		s[--len] = '\0';
	while (isspace((unsigned char)*s))
		s++;
	return s;
}

/* A line number: digits only, from 1. */
static bool aw_parse_line_number(const char *text, long *line)
{
	char *end;
	if (!isdigit((unsigned char)*text))
		return false;
	errno = 0;
	*line = strtol(text, &end, 10);
	return !errno && !*end && *line >= 1;
}

/* One line of a suppression file (its newline removed) into a rule of s,
 * nothing for a blank or comment line. */
static enum aw_suppress_status aw_suppress_line(struct aw_suppressions *s,
						const char *file, size_t number,
						char *text, char *error,
						size_t error_size)
{
	char *comment = NULL;
	for (char *p = text; *p; p++) {
		if (*p == '#' && (p == text || isspace((unsigned char)p[-1]))) {
			*p = '\0';
			comment = aw_trim(p + 1);
			break;
		}
	}
	char *id = aw_trim(text);
	if (!*id)
		return AW_SUPPRESS_OK;
	char *spec = id;
	while (*spec && !isspace((unsigned char)*spec))
		spec++;
	if (*spec)
		*spec++ = '\0';
	spec = aw_trim(spec);
	if (!aw_checks_known_id(id))
		return aw_suppress_fail(
		    error, error_size,
		    "%s:%zu: '%s' is not a finding id (accwatch-report "
		    "--help lists them)",
		    file, number, id);
	long line = 0;
	char *colon = strrchr(spec, ':');
	if (colon) {
		if (!aw_parse_line_number(colon + 1, &line))
			return aw_suppress_fail(
			    error, error_size,
			    "%s:%zu: '%s' is not PATH:LINE (a line number "
			    "from 1 after the last ':')",
			    file, number, spec);
		*colon = '\0';
		if (!*spec)
			return aw_suppress_fail(
			    error, error_size,
			    "%s:%zu: ':%ld' names no file: write PATH:LINE",
			    file, number, line);
	}
	while (spec[0] == '.' && spec[1] == '/')
		spec += 2;
	AW_GROW(s->rules, s->cap, s->n + 1);
	struct aw_suppression_rule *rule = &s->rules[s->n++];
	rule->id = aw_xstrdup(id);
	rule->path = *spec ? aw_xstrdup(spec) : NULL;
	rule->line = line;
	rule->file = aw_xasprintf("%s:%zu", file, number);
	rule->comment = comment && *comment ? aw_xstrdup(comment) : NULL;
	return AW_SUPPRESS_OK;
}

/* The most bytes a suppression file may have: far more than any list of
 * intended findings needs. */
#define AW_SUPPRESS_MAX_BYTES (1 << 20)

/* The suppression file, opened for reading when it is a regular file of
 * at most AW_SUPPRESS_MAX_BYTES (not a FIFO that never ends, a device of
 * endless bytes, a directory); NULL with the error said. Opened without
 * blocking (a FIFO with no writer) and without taking a terminal. */
static FILE *aw_suppress_open(const char *file, char *error, size_t error_size)
{
	int fd = open(file, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) != 0) {
		aw_suppress_fail(error, error_size,
				 "cannot read the suppression file %s: %s",
				 file, strerror(errno));
	} else if (!S_ISREG(st.st_mode)) {
		aw_suppress_fail(error, error_size,
				 "the suppression file %s is not a regular "
				 "file",
				 file);
	} else if (st.st_size > AW_SUPPRESS_MAX_BYTES) {
		aw_suppress_fail(error, error_size,
				 "the suppression file %s has %lld bytes, more "
				 "than the %d a suppression file may have",
				 file, (long long)st.st_size,
				 AW_SUPPRESS_MAX_BYTES);
	} else {
		FILE *in = fdopen(fd, "r");
		if (in)
			return in;
		aw_suppress_fail(error, error_size,
				 "cannot read the suppression file %s: %s",
				 file, strerror(errno));
	}
	if (fd >= 0)
		close(fd);
	return NULL;
}

/* The first byte of text that no text line holds (a control character
 * other than a tab or a line end), NULL when there is none. */
static const char *aw_suppress_binary(const char *text)
{
	for (const char *c = text; *c; c++)
		if (((unsigned char)*c < 0x20 && *c != '\t' && *c != '\n' &&
		     *c != '\r') ||
		    (unsigned char)*c == 0x7f)
			return c;
	return NULL;
}

enum aw_suppress_status aw_suppressions_load(struct aw_suppressions *s,
					     const char *file, char *error,
					     size_t error_size)
{
	enum aw_suppress_status status = AW_SUPPRESS_OK;
	char *text = NULL;
	size_t cap = 0, number = 0;
	ssize_t len;
	FILE *in = aw_suppress_open(file, error, error_size);
	if (!in)
		return AW_SUPPRESS_BAD_FILE;
	while (status == AW_SUPPRESS_OK &&
	       (len = getline(&text, &cap, in)) >= 0) {
		number++;
		const char *binary = aw_suppress_binary(text);
		if (strlen(text) != (size_t)len || binary) {
			status = aw_suppress_fail(
			    error, error_size,
			    "%s:%zu: byte 0x%02x%s: not a suppression file of "
			    "text lines",
			    file, number, binary ? (unsigned char)*binary : 0,
			    binary ? "" : " (NUL)");
			break;
		}
		status =
		    aw_suppress_line(s, file, number, text, error, error_size);
	}
	if (status == AW_SUPPRESS_OK && ferror(in))
		status = aw_suppress_fail(error, error_size,
					  "cannot read the suppression file "
					  "%s: %s",
					  file, strerror(errno));
	free(text);
	fclose(in);
	return status;
}

/* Splits "path:line" at its last ':'; false when it names no line. */
static bool aw_split_site(const char *site, size_t *path_len, long *line)
{
	const char *colon = site ? strrchr(site, ':') : NULL;
	if (!colon || colon == site || !aw_parse_line_number(colon + 1, line))
		return false;
	*path_len = (size_t)(colon - site);
	return true;
}

bool aw_suppression_rule_names(const struct aw_suppression_rule *rule,
			       const char *site)
{
	size_t path_len, want = strlen(rule->path);
	long line;
	if (!aw_split_site(site, &path_len, &line) || want > path_len)
		return false;
	const char *tail = site + path_len - want;
	if (memcmp(tail, rule->path, want) != 0)
		return false;
	if (want < path_len && tail[-1] != '/')
		return false;
	return rule->line == 0 || rule->line == line;
}

/* Whether a comma-separated list holds id. */
static bool aw_list_has(const char *list, const char *id)
{
	size_t len = strlen(id);
	for (const char *p = list; p && *p;) {
		const char *end = strchr(p, ',');
		size_t n = end ? (size_t)(end - p) : strlen(p);
		if (n == len && memcmp(p, id, n) == 0)
			return true;
		p = end ? end + 1 : p + n;
	}
	return false;
}

/* The loader object of a finding's loader whose source allows its id. */
/* Per global loader, the member whose line allows something, found once:
 * a loader built anew every epoch has as many members as epochs, and as
 * many findings. */
struct aw_allow_index {
	const struct aw_loader **first; /* NULL: no member allows anything */
	bool *mixed; /* members allow different lists: each is asked */
};

static void aw_allow_index_init(struct aw_allow_index *x,
				const struct aw_model *model)
{
	size_t n = model->n_loaders_global ? model->n_loaders_global : 1;
	x->first = aw_xcalloc(n, sizeof(*x->first));
	x->mixed = aw_xcalloc(n, sizeof(*x->mixed));
	for (size_t g = 0; g < model->n_loaders_global; g++) {
		const struct aw_global_loader *gl = &model->loaders_global[g];
		for (size_t m = 0; m < gl->n_members; m++) {
			const struct aw_loader *l =
			    &model->loaders[gl->members[m]];
			if (!l->allow || !*l->allow)
				continue;
			if (!x->first[g])
				x->first[g] = l;
			else if (strcmp(x->first[g]->allow, l->allow) != 0)
				x->mixed[g] = true;
		}
	}
}

static void aw_allow_index_fini(struct aw_allow_index *x)
{
	free(x->first);
	free(x->mixed);
}

static const struct aw_loader *
aw_allowing_loader(const struct aw_model *model, const struct aw_allow_index *x,
		   const struct aw_finding *f)
{
	if (f->loader >= model->n_loaders_global)
		return NULL;
	if (!x->mixed[f->loader])
		return x->first[f->loader] &&
			       aw_list_has(x->first[f->loader]->allow, f->id)
			   ? x->first[f->loader]
			   : NULL;
	const struct aw_global_loader *g = &model->loaders_global[f->loader];
	for (size_t m = 0; m < g->n_members; m++) {
		const struct aw_loader *l = &model->loaders[g->members[m]];
		if (aw_list_has(l->allow, f->id))
			return l;
	}
	return NULL;
}

static const struct aw_suppression_rule *
aw_naming_rule(const struct aw_model *model,
	       const struct aw_suppressions *rules, const struct aw_finding *f)
{
	const char *site = f->loader < model->n_loaders_global
			       ? model->loaders_global[f->loader].site
			       : NULL;
	for (size_t i = 0; rules && i < rules->n; i++) {
		const struct aw_suppression_rule *r = &rules->rules[i];
		if (strcmp(r->id, f->id) != 0)
			continue;
		if (!r->path || (site && aw_suppression_rule_names(r, site)))
			return r;
	}
	return NULL;
}

size_t aw_suppress_findings(const struct aw_model *model,
			    const struct aw_suppressions *rules,
			    struct aw_findings *findings)
{
	size_t suppressed = 0;
	struct aw_allow_index allow;
	aw_allow_index_init(&allow, model);
	for (size_t i = 0; i < findings->n; i++) {
		struct aw_finding *f = &findings->items[i];
		const struct aw_loader *l =
		    aw_allowing_loader(model, &allow, f);
		const struct aw_suppression_rule *r;
		if (l) {
			aw_finding_suppress(f, AW_SUPPRESSED_IN_SOURCE, l->site,
					    "allowed where the loader is built "
					    "(%s): # accwatch: allow %s",
					    l->site, f->id);
		} else if ((r = aw_naming_rule(model, rules, f))) {
			if (r->comment)
				aw_finding_suppress(f, AW_SUPPRESSED_BY_FILE,
						    r->file, "%s (%s)",
						    r->comment, r->file);
			else
				aw_finding_suppress(f, AW_SUPPRESSED_BY_FILE,
						    r->file,
						    "listed in the suppression "
						    "file %s",
						    r->file);
		} else {
			continue;
		}
		suppressed++;
	}
	aw_allow_index_fini(&allow);
	aw_findings_sort(findings);
	return suppressed;
}

size_t aw_suppress_warn_unknown(const struct aw_model *model, FILE *out)
{
	size_t n_said = 0, said_cap = 0, warned = 0;
	char **said = NULL;
	for (size_t i = 0; i < model->n_loaders; i++) {
		const struct aw_loader *l = &model->loaders[i];
		for (const char *p = l->allow; p && *p;) {
			const char *end = strchr(p, ',');
			int n = end ? (int)(end - p) : (int)strlen(p);
			char *key = aw_xasprintf("%s\n%.*s", l->site, n, p);
			bool known = aw_checks_known_id(strchr(key, '\n') + 1);
			for (size_t k = 0; !known && k < n_said; k++)
				known = strcmp(said[k], key) == 0;
			if (!known) {
				AW_GROW(said, said_cap, n_said + 1);
				said[n_said++] = key;
				key = NULL;
				fprintf(
				    out,
				    "accwatch-report: warning: %s allows "
				    "'%.*s', which is not a finding id: "
				    "it suppresses nothing (accwatch-report "
				    "--help lists the ids)\n",
				    *l->site ? l->site : "a loader", n, p);
				warned++;
			}
			free(key);
			p = end ? end + 1 : p + n;
		}
	}
	for (size_t k = 0; k < n_said; k++)
		free(said[k]);
	free(said);
	return warned;
}
