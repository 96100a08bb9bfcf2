/* SPDX-License-Identifier: MIT */
/* A scratch directory for the file tests of accwatch-run: root, made by
 * make_root() (a fixture's init) and removed by remove_root(). */
#ifndef ACCWATCH_TEST_SCRATCH_H
#define ACCWATCH_TEST_SCRATCH_H

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>

static char root[64]; /* short: paths below it fit in PATH_MAX */

static void make_root(void)
{
	snprintf(root, sizeof(root), "/tmp/accwatch-run-test-XXXXXX");
	cr_assert_not_null(mkdtemp(root));
}

static void remove_root(void)
{
	char command[sizeof(root) + 16];

	snprintf(command, sizeof(command), "rm -rf '%s'", root);
	cr_assert_eq(system(command), 0);
}

#endif
