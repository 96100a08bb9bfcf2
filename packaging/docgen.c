/* SPDX-License-Identifier: MIT */
/* Build-time tool: writes the man page or the bash completion of
 * accwatch-run or accwatch-report from the option table each one parses. */
#include <stdio.h>
#include <string.h>

#include "accwatch_doc.h"
#include "cli.h"
#include "run_args.h"

#ifndef ACCWATCH_VERSION
#define ACCWATCH_VERSION "unknown"
#endif

static const struct accwatch_doc *docgen_find(const char *tool)
{
	if (strcmp(tool, "accwatch-run") == 0)
		return accwatch_run_args_doc();
	if (strcmp(tool, "accwatch-report") == 0)
		return aw_cli_doc_get();
	return NULL;
}

int main(int argc, char **argv)
{
	const struct accwatch_doc *doc = NULL;
	FILE *out = NULL;
	int status = 2;

	if (argc != 4 || !(doc = docgen_find(argv[2])) ||
	    (strcmp(argv[1], "man") != 0 && strcmp(argv[1], "bash") != 0)) {
		fprintf(stderr, "usage: accwatch-docgen man|bash accwatch-run|"
				"accwatch-report OUTPUT\n");
		goto end;
	}
	out = fopen(argv[3], "w");
	if (!out) {
		perror(argv[3]);
		status = 1;
		goto end;
	}
	if (strcmp(argv[1], "man") == 0)
		accwatch_doc_man(out, doc, ACCWATCH_VERSION);
	else
		accwatch_doc_bash(out, doc);
	status = fclose(out) == 0 ? 0 : 1;
	if (status)
		perror(argv[3]);
end:
	return status;
}
