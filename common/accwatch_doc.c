/* SPDX-License-Identifier: MIT */
/* A tool's --help, man page and bash completion (accwatch_doc.h), all three
 * from the option table its parser reads and the same few texts. */
#include "accwatch_doc.h"

#include <ctype.h>
#include <string.h>

#define ACCWATCH_DOC_WIDTH 79
#define ACCWATCH_DOC_TEXT_COLUMN 25 /* where an option's text starts */

/* The next paragraph of *text (paragraphs are parted by a blank line):
 * its start and length; false when none is left. */
static bool accwatch_doc_paragraph(const char **text, const char **start,
				   size_t *len)
{
	const char *p = *text;
	const char *end;

	while (*p == '\n')
		p++;
	if (*p == '\0')
		return false;
	end = strstr(p, "\n\n");
	if (!end)
		end = p + strlen(p);
	*start = p;
	*len = (size_t)(end - p);
	*text = end;
	return true;
}

/* The words of text[0..len) filled up to ACCWATCH_DOC_WIDTH, from column
 * (already printed), lines after the first indented by indent. */
static void accwatch_doc_fill(FILE *out, const char *text, size_t len,
			      size_t column, size_t indent)
{
	size_t i = 0;
	bool first = true;

	while (i < len) {
		size_t start, word;

		while (i < len && (text[i] == ' ' || text[i] == '\n'))
			i++;
		start = i;
		while (i < len && text[i] != ' ' && text[i] != '\n')
			i++;
		word = i - start;
		if (word == 0)
			break;
		if (!first && column + 1 + word > ACCWATCH_DOC_WIDTH) {
			fprintf(out, "\n%*s", (int)indent, "");
			column = indent;
		} else if (!first) {
			fputc(' ', out);
			column++;
		}
		fwrite(text + start, 1, word, out);
		column += word;
		first = false;
	}
	fputc('\n', out);
}

/* Paragraphs for a terminal: filled at indent, or kept as written. */
static void accwatch_doc_help_text(FILE *out, const char *text, size_t indent)
{
	const char *start;
	size_t len;
	bool first = true;

	while (accwatch_doc_paragraph(&text, &start, &len)) {
		if (!first)
			fputc('\n', out);
		first = false;
		if (start[0] == ' ') {
			fwrite(start, 1, len, out);
			fputc('\n', out);
		} else {
			fprintf(out, "%*s", (int)indent, "");
			accwatch_doc_fill(out, start, len, indent, indent);
		}
	}
}

/* "  TERM   text...": the text at ACCWATCH_DOC_TEXT_COLUMN, or on the next
 * line when the term reaches it. */
static void accwatch_doc_help_term(FILE *out, const char *term,
				   const char *text)
{
	size_t column = 2 + strlen(term);

	fprintf(out, "  %s", term);
	if (column + 2 > ACCWATCH_DOC_TEXT_COLUMN) {
		fputc('\n', out);
		column = 0;
	}
	fprintf(out, "%*s", (int)(ACCWATCH_DOC_TEXT_COLUMN - column), "");
	accwatch_doc_fill(out, text, strlen(text), ACCWATCH_DOC_TEXT_COLUMN,
			  ACCWATCH_DOC_TEXT_COLUMN);
}

static void accwatch_doc_option_term(const struct accwatch_option *option,
				     char *term, size_t size)
{
	char short_part[8] = "    ";

	if (option->short_name)
		snprintf(short_part, sizeof(short_part), "-%c, ",
			 option->short_name);
	snprintf(term, size, "%s--%s%s%s", short_part, option->long_name,
		 option->arg ? " " : "", option->arg ? option->arg : "");
}

void accwatch_doc_help(FILE *out, const struct accwatch_doc *doc)
{
	char term[128];

	size_t column = strlen("Usage: ") + strlen(doc->name) + 1;

	fprintf(out, "Usage: %s ", doc->name);
	accwatch_doc_fill(out, doc->synopsis, strlen(doc->synopsis), column,
			  column);
	fputc('\n', out);
	accwatch_doc_help_text(out, doc->description, 0);
	fputs("\nOptions:\n", out);
	for (size_t i = 0; i < doc->n_options; i++) {
		accwatch_doc_option_term(&doc->options[i], term, sizeof(term));
		accwatch_doc_help_term(out, term, doc->options[i].help);
	}
	for (size_t s = 0; s < doc->n_sections; s++) {
		const struct accwatch_doc_section *section = &doc->sections[s];

		fprintf(out, "\n%s:\n", section->title);
		if (section->text)
			accwatch_doc_help_text(out, section->text, 2);
		for (size_t i = 0; i < section->n_items; i++)
			accwatch_doc_help_term(out, section->items[i].term,
					       section->items[i].text);
		if (section->list)
			section->list(out, false);
	}
}

/* --- man ------------------------------------------------------------- */

/* text[0..len) for troff: its escapes and the characters it would take
 * for something else; newlines become spaces unless keep_lines. */
static void accwatch_doc_roff(FILE *out, const char *text, size_t len,
			      bool keep_lines)
{
	bool line_start = true;

	for (size_t i = 0; i < len; i++) {
		char c = text[i];

		if (line_start && (c == '.' || c == '\''))
			fputs("\\&", out);
		line_start = false;
		if (c == '\\')
			fputs("\\e", out);
		else if (c == '-')
			fputs("\\-", out);
		else if (c == '`')
			fputs("\\(ga", out);
		else if (c == '\n' && !keep_lines)
			fputc(' ', out);
		else
			fputc(c, out);
		if (c == '\n' && keep_lines)
			line_start = true;
	}
}

static void accwatch_doc_roff_string(FILE *out, const char *text)
{
	accwatch_doc_roff(out, text, strlen(text), false);
}

/* Paragraphs as .PP (filled) or .nf blocks (kept as written). */
static void accwatch_doc_man_text(FILE *out, const char *text)
{
	const char *start;
	size_t len;
	bool first = true;

	while (accwatch_doc_paragraph(&text, &start, &len)) {
		if (!first)
			fputs(".PP\n", out);
		first = false;
		if (start[0] == ' ') {
			fputs(".nf\n", out);
			accwatch_doc_roff(out, start, len, true);
			fputs("\n.fi\n", out);
		} else {
			accwatch_doc_roff(out, start, len, false);
			fputc('\n', out);
		}
	}
}

static void accwatch_doc_man_option(FILE *out,
				    const struct accwatch_option *option)
{
	fputs(".TP\n", out);
	if (option->short_name)
		fprintf(out, "\\fB\\-%c\\fR, ", option->short_name);
	fputs("\\fB\\-\\-", out);
	accwatch_doc_roff_string(out, option->long_name);
	fputs("\\fR", out);
	if (option->arg) {
		fputs(" \\fI", out);
		accwatch_doc_roff_string(out, option->arg);
		fputs("\\fR", out);
	}
	fputc('\n', out);
	accwatch_doc_roff_string(out, option->help);
	fputc('\n', out);
}

static void accwatch_doc_man_section(FILE *out,
				     const struct accwatch_doc_section *section)
{
	fputs(".SH ", out);
	for (const char *c = section->title; *c; c++)
		fputc(toupper((unsigned char)*c), out);
	fputc('\n', out);
	if (section->text)
		accwatch_doc_man_text(out, section->text);
	for (size_t i = 0; i < section->n_items; i++) {
		fputs(".TP\n\\fB", out);
		accwatch_doc_roff_string(out, section->items[i].term);
		fputs("\\fR\n", out);
		accwatch_doc_roff_string(out, section->items[i].text);
		fputc('\n', out);
	}
	if (section->list) {
		fputs(".PP\n", out);
		section->list(out, true);
	}
}

void accwatch_doc_man(FILE *out, const struct accwatch_doc *doc,
		      const char *version)
{
	fputs(".TH ", out);
	for (const char *c = doc->name; *c; c++) {
		if (*c == '-')
			fputs("\\-", out);
		else
			fputc(toupper((unsigned char)*c), out);
	}
	fputs(" 1 \"\" \"accwatch ", out);
	accwatch_doc_roff_string(out, version);
	fputs("\" \"User Commands\"\n.SH NAME\n", out);
	accwatch_doc_roff_string(out, doc->name);
	fputs(" \\- ", out);
	accwatch_doc_roff_string(out, doc->summary);
	fputs("\n.SH SYNOPSIS\n\\fB", out);
	accwatch_doc_roff_string(out, doc->name);
	fputs("\\fR ", out);
	accwatch_doc_roff_string(out, doc->synopsis);
	fputs("\n.SH DESCRIPTION\n", out);
	accwatch_doc_man_text(out, doc->description);
	fputs(".SH OPTIONS\n", out);
	for (size_t i = 0; i < doc->n_options; i++)
		accwatch_doc_man_option(out, &doc->options[i]);
	for (size_t s = 0; s < doc->n_sections; s++)
		accwatch_doc_man_section(out, &doc->sections[s]);
	if (doc->see_also) {
		fputs(".SH SEE ALSO\n", out);
		accwatch_doc_roff_string(out, doc->see_also);
		fputc('\n', out);
	}
}

/* --- bash -------------------------------------------------------------- */

/* "-o|--output" for a case pattern. */
static void accwatch_doc_bash_pattern(FILE *out,
				      const struct accwatch_option *option)
{
	if (option->short_name)
		fprintf(out, "-%c|", option->short_name);
	fprintf(out, "--%s", option->long_name);
}

/* A case pattern of every option that takes a value, "" when none does. */
static void accwatch_doc_bash_value_options(FILE *out,
					    const struct accwatch_doc *doc)
{
	bool first = true;

	for (size_t i = 0; i < doc->n_options; i++) {
		if (!doc->options[i].takes_value)
			continue;
		if (!first)
			fputc('|', out);
		first = false;
		accwatch_doc_bash_pattern(out, &doc->options[i]);
	}
	if (first)
		fputs("''", out);
}

/* COMMAND operands: where they start (after "--" or at the first word
 * that is neither an option nor its value), completed as a command. */
static void accwatch_doc_bash_command(FILE *out, const struct accwatch_doc *doc)
{
	fputs("\tlocal i=1 operands=0\n"
	      "\twhile [ \"$i\" -lt \"$COMP_CWORD\" ]; do\n"
	      "\t\tcase ${COMP_WORDS[i]} in\n"
	      "\t\t--) i=$((i + 1)); operands=1; break ;;\n"
	      "\t\t",
	      out);
	accwatch_doc_bash_value_options(out, doc);
	fputs(")\n"
	      "\t\t\tif [ \"${COMP_WORDS[i + 1]:-}\" = = ]; then\n"
	      "\t\t\t\ti=$((i + 3))\n"
	      "\t\t\telse\n"
	      "\t\t\t\ti=$((i + 2))\n"
	      "\t\t\tfi ;;\n"
	      "\t\t-*) i=$((i + 1)) ;;\n"
	      "\t\t*) operands=1; break ;;\n"
	      "\t\tesac\n"
	      "\tdone\n"
	      "\tif [ \"$operands\" = 1 ] && [ \"$i\" -le \"$COMP_CWORD\" ]; "
	      "then\n"
	      "\t\tif declare -F _command_offset >/dev/null; then\n"
	      "\t\t\t_command_offset \"$i\"\n"
	      "\t\telse\n"
	      "\t\t\tCOMPREPLY=($(compgen -c -- \"$cur\"))\n"
	      "\t\tfi\n"
	      "\t\treturn\n"
	      "\tfi\n",
	      out);
}

/* The length of a list of words without its trailing spaces (a list
 * made by a macro ends with one). */
static int accwatch_doc_words_len(const char *words)
{
	size_t len = strlen(words);
	while (len && words[len - 1] == ' ')
		len--;
	return (int)len;
}

/* The completion of one option's value. */
static void accwatch_doc_bash_value(FILE *out,
				    const struct accwatch_option *option)
{
	const char *complete = option->complete;

	fputs("\t", out);
	accwatch_doc_bash_pattern(out, option);
	fputs(")\n", out);
	if (!complete)
		fputs("\t\treturn ;;\n", out);
	else if (strcmp(complete, "@file") == 0)
		fputs("\t\tcompopt -o filenames 2>/dev/null\n"
		      "\t\tCOMPREPLY=($(compgen -f -- \"$cur\"))\n"
		      "\t\treturn ;;\n",
		      out);
	else if (strcmp(complete, "@hostname") == 0)
		fputs("\t\tCOMPREPLY=($(compgen -A hostname -- \"$cur\"))\n"
		      "\t\treturn ;;\n",
		      out);
	else if (strcmp(complete, "@dir") == 0)
		fputs("\t\tcompopt -o filenames 2>/dev/null\n"
		      "\t\tCOMPREPLY=($(compgen -d -- \"$cur\"))\n"
		      "\t\treturn ;;\n",
		      out);
	else
		fprintf(out,
			"\t\tCOMPREPLY=($(compgen -W '%.*s' -- \"$cur\"))\n"
			"\t\treturn ;;\n",
			accwatch_doc_words_len(complete), complete);
}

void accwatch_doc_bash(FILE *out, const struct accwatch_doc *doc)
{
	char function[64];
	size_t n = 0;

	for (const char *c = doc->name; *c && n + 2 < sizeof(function); c++)
		function[n++] = *c == '-' ? '_' : *c;
	function[n] = '\0';
	fprintf(out,
		"# bash completion for %s, made from the option table it "
		"parses.\n"
		"_%s()\n{\n"
		"\tlocal cur=${COMP_WORDS[COMP_CWORD]}\n"
		"\tlocal prev=${COMP_WORDS[COMP_CWORD - 1]}\n"
		"\tCOMPREPLY=()\n",
		doc->name, function);
	if (doc->operands == ACCWATCH_DOC_OPERANDS_COMMAND)
		accwatch_doc_bash_command(out, doc);
	/* "--format=js": bash parts it into "--format", "=", "js". */
	fputs("\tlocal option=$prev\n"
	      "\tif [ \"$cur\" = = ]; then\n"
	      "\t\toption=$prev cur=\n"
	      "\telif [ \"$prev\" = = ] && [ \"$COMP_CWORD\" -ge 2 ]; then\n"
	      "\t\toption=${COMP_WORDS[COMP_CWORD - 2]}\n"
	      "\tfi\n"
	      "\tcase $option in\n",
	      out);
	for (size_t i = 0; i < doc->n_options; i++)
		if (doc->options[i].takes_value)
			accwatch_doc_bash_value(out, &doc->options[i]);
	fputs("\tesac\n\tcase $cur in\n\t-*)\n\t\tCOMPREPLY=($(compgen -W '",
	      out);
	for (size_t i = 0; i < doc->n_options; i++) {
		const struct accwatch_option *option = &doc->options[i];

		fprintf(out, "%s--%s", i ? " " : "", option->long_name);
		if (option->short_name)
			fprintf(out, " -%c", option->short_name);
	}
	fputs("' -- \"$cur\"))\n\t\treturn ;;\n\tesac\n", out);
	if (doc->operands == ACCWATCH_DOC_OPERANDS_COMMAND)
		fputs("\tCOMPREPLY=($(compgen -c -- \"$cur\"))\n", out);
	else
		fputs("\tcompopt -o filenames 2>/dev/null\n"
		      "\tCOMPREPLY=($(compgen -d -- \"$cur\"))\n",
		      out);
	fprintf(out, "}\ncomplete -F _%s %s\n", function, doc->name);
}
