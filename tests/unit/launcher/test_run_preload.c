/* SPDX-License-Identifier: MIT */
/* Unit tests of locating libaccwatch.so: $ACCWATCH_PRELOAD, installed layout
 * before build layout, and the paths named when nothing is found. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "run_preload.h"
#include "scratch.h"

static void make_path(const char *relative, bool file)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", root, relative);
	if (file) {
		int fd = open(path, O_CREAT | O_WRONLY, 0644);
		cr_assert_geq(fd, 0, "%s", path);
		close(fd);
	} else {
		cr_assert_eq(mkdir(path, 0755), 0, "%s", path);
	}
}

TestSuite(run_preload, .init = make_root, .fini = remove_root);

Test(run_preload, build_layout)
{
	struct accwatch_run_preload_search search;
	char exe[PATH_MAX], expected[PATH_MAX];

	make_path("bin", false);
	make_path("lib", false);
	make_path("lib/libaccwatch.so", true);
	snprintf(exe, sizeof(exe), "%s/bin/accwatch-run", root);
	snprintf(expected, sizeof(expected), "%s/lib/libaccwatch.so", root);
	cr_assert_eq(accwatch_run_preload_find(NULL, exe, "../lib64", &search),
		     ACCWATCH_RUN_PRELOAD_FOUND);
	cr_assert_str_eq(search.path, expected, "canonical, without '..'");
}

Test(run_preload, installed_layout_first)
{
	struct accwatch_run_preload_search search;
	char exe[PATH_MAX], expected[PATH_MAX];

	make_path("bin", false);
	make_path("lib", false);
	make_path("lib/x86_64-linux-gnu", false);
	make_path("lib/libaccwatch.so", true);
	make_path("lib/x86_64-linux-gnu/libaccwatch.so", true);
	snprintf(exe, sizeof(exe), "%s/bin/accwatch-run", root);
	snprintf(expected, sizeof(expected),
		 "%s/lib/x86_64-linux-gnu/libaccwatch.so", root);
	cr_assert_eq(accwatch_run_preload_find(
			 "", exe, "../lib/x86_64-linux-gnu", &search),
		     ACCWATCH_RUN_PRELOAD_FOUND,
		     "an empty variable counts as unset");
	cr_assert_str_eq(search.path, expected);
	cr_assert_eq(search.tried_count, 2);
}

Test(run_preload, environment_wins_and_is_the_only_candidate)
{
	struct accwatch_run_preload_search search;
	char exe[PATH_MAX], custom[PATH_MAX], missing[PATH_MAX];

	make_path("bin", false);
	make_path("lib", false);
	make_path("lib/libaccwatch.so", true);
	make_path("custom.so", true);
	snprintf(exe, sizeof(exe), "%s/bin/accwatch-run", root);
	snprintf(custom, sizeof(custom), "%s/custom.so", root);
	snprintf(missing, sizeof(missing), "%s/missing.so", root);
	cr_assert_eq(accwatch_run_preload_find(custom, exe, "../lib", &search),
		     ACCWATCH_RUN_PRELOAD_FOUND);
	cr_assert_str_eq(search.path, custom);
	cr_assert_eq(accwatch_run_preload_find(missing, exe, "../lib", &search),
		     ACCWATCH_RUN_PRELOAD_NOT_FOUND,
		     "no silent fallback when the variable is wrong");
	cr_assert_eq(search.tried_count, 1);
	cr_assert_str_eq(search.tried[0], missing);
}

Test(run_preload, not_found_names_every_path_tried)
{
	struct accwatch_run_preload_search search;
	char exe[PATH_MAX], line[3 * PATH_MAX + 16],
	    expected[3 * PATH_MAX + 16];

	make_path("bin", false);
	make_path("lib", false);
	make_path("lib/libaccwatch.so",
		  false); /* a directory is not the library */
	snprintf(exe, sizeof(exe), "%s/bin/accwatch-run", root);
	cr_assert_eq(accwatch_run_preload_find(NULL, exe, "../lib64", &search),
		     ACCWATCH_RUN_PRELOAD_NOT_FOUND);
	cr_assert_eq(search.tried_count, 2);
	accwatch_run_preload_describe_tried(&search, line, sizeof(line));
	snprintf(
	    expected, sizeof(expected),
	    "%s/bin/../lib64/libaccwatch.so or %s/bin/../lib/libaccwatch.so",
	    root, root);
	cr_assert_str_eq(line, expected);
	cr_assert_str_eq(search.path, "");
}

Test(run_preload, same_dir_is_tried_once)
{
	struct accwatch_run_preload_search search;
	char exe[PATH_MAX];

	snprintf(exe, sizeof(exe), "%s/bin/accwatch-run", root);
	cr_assert_eq(accwatch_run_preload_find(NULL, exe, "../lib", &search),
		     ACCWATCH_RUN_PRELOAD_NOT_FOUND);
	cr_assert_eq(search.tried_count, 1);
}

Test(run_preload, path_with_space_cannot_be_preloaded)
{
	struct accwatch_run_preload_search search;
	char spaced[PATH_MAX];

	make_path("my libs", false);
	make_path("my libs/libaccwatch.so", true);
	snprintf(spaced, sizeof(spaced), "%s/my libs/libaccwatch.so", root);
	cr_assert_eq(accwatch_run_preload_find(spaced, "/usr/bin/accwatch-run",
					       "../lib", &search),
		     ACCWATCH_RUN_PRELOAD_UNUSABLE_PATH);
}

Test(run_preload, self_exe_is_absolute)
{
	char exe[PATH_MAX];

	cr_assert(accwatch_run_preload_self_exe(exe, sizeof(exe)));
	cr_assert_eq(exe[0], '/');
}
