/* SPDX-License-Identifier: MIT */
/* What a tool says of itself, from the option table its parser reads: the
 * --help text, its man page (troff) and its bash completion. */
#ifndef ACCWATCH_DOC_H
#define ACCWATCH_DOC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "accwatch_options.h"

/* A term and what it means (an environment variable, an exit status). */
struct accwatch_doc_item {
	const char *term;
	const char *text;
};

/* A section after the options. text: paragraphs parted by a blank line;
 * one that starts with a space is kept as written (an example). */
struct accwatch_doc_section {
	const char *title; /* "Exit status" */
	const char *text;  /* NULL: none */
	const struct accwatch_doc_item *items;
	size_t n_items;
	/* A list computed at run time (the finding ids), after the items;
	 * man: troff source, else lines indented for a terminal. */
	void (*list)(FILE *out, bool man);
};

/* What the operands are, for the completion. */
enum accwatch_doc_operands {
	ACCWATCH_DOC_OPERANDS_COMMAND,     /* a command and its arguments */
	ACCWATCH_DOC_OPERANDS_DIRECTORIES, /* directories, among options */
};

struct accwatch_doc {
	const char *name;        /* "accwatch-run" */
	const char *summary;     /* the man page's NAME line */
	const char *synopsis;    /* after the name: "[options] [--] COMMAND" */
	const char *description; /* paragraphs, as a section's text */
	const struct accwatch_option *options;
	size_t n_options;
	const struct accwatch_doc_section *sections;
	size_t n_sections;
	enum accwatch_doc_operands operands;
	const char *see_also; /* "accwatch-report(1), lttng(1)" */
};

/* --help: wrapped for 80 columns. */
void accwatch_doc_help(FILE *out, const struct accwatch_doc *doc);

/* The man page, section 1, in troff's man macros. */
void accwatch_doc_man(FILE *out, const struct accwatch_doc *doc,
		      const char *version);

/* A bash completion script for doc->name. */
void accwatch_doc_bash(FILE *out, const struct accwatch_doc *doc);

#endif
