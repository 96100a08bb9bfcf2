/* SPDX-License-Identifier: MIT */
/* Unit tests of the trace directory: created 0700 with parents, refused when
 * not empty unless forced, default name, and cleanup of an unused directory. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "run_output.h"
#include "scratch.h"

static void under_root(char *path, const char *relative)
{
	snprintf(path, PATH_MAX, "%s/%s", root, relative);
}

static void touch(const char *path)
{
	int fd = open(path, O_CREAT | O_WRONLY, 0644);

	cr_assert_geq(fd, 0, "%s", path);
	close(fd);
}

TestSuite(run_output, .init = make_root, .fini = remove_root);

Test(run_output, creates_missing_directory_private)
{
	struct accwatch_run_output output;
	struct stat info;
	char dir[PATH_MAX];

	under_root(dir, "a/b/trace");
	cr_assert_eq(accwatch_run_output_prepare(dir, false, &output),
		     ACCWATCH_RUN_OUTPUT_OK);
	cr_assert(output.created);
	cr_assert_str_eq(output.path, dir);
	cr_assert_eq(stat(dir, &info), 0);
	cr_assert_eq(info.st_mode & 0777, 0700);
}

Test(run_output, relative_path_becomes_absolute)
{
	struct accwatch_run_output output;
	char expected[PATH_MAX];

	cr_assert_eq(chdir(root), 0);
	under_root(expected, "rel");
	cr_assert_eq(accwatch_run_output_prepare("rel/", false, &output),
		     ACCWATCH_RUN_OUTPUT_OK);
	cr_assert_str_eq(output.path, expected);
}

Test(run_output, existing_empty_directory_is_used)
{
	struct accwatch_run_output output;
	char dir[PATH_MAX];

	under_root(dir, "empty");
	cr_assert_eq(mkdir(dir, 0755), 0);
	cr_assert_eq(accwatch_run_output_prepare(dir, false, &output),
		     ACCWATCH_RUN_OUTPUT_OK);
	cr_assert_not(output.created);
}

Test(run_output, non_empty_needs_force)
{
	struct accwatch_run_output output;
	char dir[PATH_MAX], file[PATH_MAX];

	under_root(dir, "full");
	under_root(file, "full/.hidden");
	cr_assert_eq(mkdir(dir, 0755), 0);
	touch(file);
	cr_assert_eq(accwatch_run_output_prepare(dir, false, &output),
		     ACCWATCH_RUN_OUTPUT_NOT_EMPTY);
	cr_assert_eq(accwatch_run_output_prepare(dir, true, &output),
		     ACCWATCH_RUN_OUTPUT_OK);
	cr_assert_str_eq(output.path, dir);
}

Test(run_output, file_is_not_a_directory)
{
	struct accwatch_run_output output;
	char file[PATH_MAX];

	under_root(file, "plain");
	touch(file);
	cr_assert_eq(accwatch_run_output_prepare(file, true, &output),
		     ACCWATCH_RUN_OUTPUT_NOT_DIRECTORY);
}

Test(run_output, uncreatable_reports_errno)
{
	struct accwatch_run_output output;
	char file[PATH_MAX], below[PATH_MAX];

	under_root(file, "plain");
	under_root(below, "plain/trace");
	touch(file);
	cr_assert_eq(accwatch_run_output_prepare(below, false, &output),
		     ACCWATCH_RUN_OUTPUT_CREATE_FAILED);
	cr_assert_neq(output.error, 0);
}

Test(run_output, default_name_is_dated)
{
	char name[64];
	struct tm when = {.tm_year = 2024 - 1900,
			  .tm_mon = 2,
			  .tm_mday = 5,
			  .tm_hour = 7,
			  .tm_min = 8,
			  .tm_sec = 9,
			  .tm_isdst = -1};

	accwatch_run_output_default_name(mktime(&when), name, sizeof(name));
	cr_assert_str_eq(name, "accwatch-trace-20240305-070809");
}

Test(run_output, has_files_ignores_empty_directories)
{
	char dir[PATH_MAX], sub[PATH_MAX], file[PATH_MAX];

	under_root(dir, "t");
	under_root(sub, "t/ust");
	under_root(file, "t/ust/metadata");
	cr_assert_eq(mkdir(dir, 0700), 0);
	cr_assert_eq(mkdir(sub, 0700), 0);
	cr_assert_not(accwatch_run_output_has_files(dir));
	touch(file);
	cr_assert(accwatch_run_output_has_files(dir));
}

Test(run_output, discard_removes_only_what_we_made_and_left_empty)
{
	struct accwatch_run_output output;
	char dir[PATH_MAX], sub[PATH_MAX], file[PATH_MAX];

	under_root(dir, "made");
	under_root(sub, "made/ust");
	under_root(file, "made/ust/metadata");
	cr_assert_eq(accwatch_run_output_prepare(dir, false, &output),
		     ACCWATCH_RUN_OUTPUT_OK);
	cr_assert_eq(mkdir(sub, 0700), 0);
	touch(file);
	accwatch_run_output_discard(&output);
	cr_assert_eq(access(file, F_OK), 0, "a written trace is kept");
	cr_assert_eq(unlink(file), 0);
	accwatch_run_output_discard(&output);
	cr_assert_neq(access(dir, F_OK), 0, "an empty tree we made is removed");
}

Test(run_output, discard_keeps_a_directory_that_existed)
{
	struct accwatch_run_output output;
	char dir[PATH_MAX];

	under_root(dir, "theirs");
	cr_assert_eq(mkdir(dir, 0755), 0);
	cr_assert_eq(accwatch_run_output_prepare(dir, false, &output),
		     ACCWATCH_RUN_OUTPUT_OK);
	accwatch_run_output_discard(&output);
	cr_assert_eq(access(dir, F_OK), 0);
}

Test(run_output, another_users_directory_is_refused_also_through_a_symlink)
{
	char dir[PATH_MAX], link[PATH_MAX];
	struct accwatch_run_output output;

	if (geteuid() != 0)
		cr_skip_test("giving a directory to another user needs root");
	under_root(dir, "theirs");
	under_root(link, "mine");
	cr_assert_eq(mkdir(dir, 0777), 0);
	cr_assert_eq(chown(dir, 12345, 12345), 0);
	cr_assert_eq(symlink(dir, link), 0);
	cr_expect_eq(accwatch_run_output_prepare(dir, false, &output),
		     ACCWATCH_RUN_OUTPUT_NOT_OWNED);
	cr_expect_eq(output.owner, 12345);
	cr_expect_eq(accwatch_run_output_prepare(link, true, &output),
		     ACCWATCH_RUN_OUTPUT_NOT_OWNED);
}

/* Another user's directory on the way, owner 12345: needs root to make. */
static void give_away(const char *path, mode_t mode)
{
	cr_assert_eq(mkdir(path, mode), 0, "%s", path);
	cr_assert_eq(chmod(path, mode), 0, "%s", path);
	cr_assert_eq(chown(path, 12345, 12345), 0, "%s", path);
}

Test(run_output, parent_others_may_write_is_refused_before_anything_is_made)
{
	struct accwatch_run_output output;
	char shared[PATH_MAX], dir[PATH_MAX];

	under_root(shared, "shared");
	under_root(dir, "shared/trace");
	cr_assert_eq(mkdir(shared, 0777), 0);
	cr_assert_eq(chmod(shared, 0777), 0);
	cr_assert_eq(accwatch_run_output_prepare(dir, false, &output),
		     ACCWATCH_RUN_OUTPUT_UNSAFE);
	cr_expect_eq(output.unsafe_reason, ACCWATCH_RUN_OUTPUT_UNSAFE_WRITABLE);
	cr_expect_str_eq(output.unsafe_path, shared);
	cr_expect_eq(output.mode, 0777);
	cr_expect_eq(output.dir_fd, -1);
	cr_expect_neq(access(dir, F_OK), 0, "nothing made in it");
}

Test(run_output, parent_of_another_user_is_refused)
{
	struct accwatch_run_output output;
	char theirs[PATH_MAX], dir[PATH_MAX];

	if (geteuid() != 0)
		cr_skip_test("giving a directory to another user needs root");
	under_root(theirs, "theirs");
	under_root(dir, "theirs/trace");
	give_away(theirs, 0755);
	cr_assert_eq(accwatch_run_output_prepare(dir, false, &output),
		     ACCWATCH_RUN_OUTPUT_UNSAFE);
	cr_expect_eq(output.unsafe_reason, ACCWATCH_RUN_OUTPUT_UNSAFE_OWNER);
	cr_expect_str_eq(output.unsafe_path, theirs);
	cr_expect_eq(output.owner, 12345);
}

Test(run_output, sticky_parent_is_fine_but_not_a_name_another_user_made)
{
	struct accwatch_run_output output;
	char sticky[PATH_MAX], mine[PATH_MAX], link[PATH_MAX], made[PATH_MAX],
	    below[PATH_MAX];

	if (geteuid() != 0)
		cr_skip_test("making a link as another user needs root");
	under_root(sticky, "tmp");
	under_root(mine, "tmp/mine");
	under_root(link, "tmp/link");
	under_root(made, "tmp/made");
	under_root(below, "tmp/made/trace");
	cr_assert_eq(mkdir(sticky, 01777), 0);
	cr_assert_eq(chmod(sticky, 01777), 0);
	cr_assert_eq(accwatch_run_output_prepare(mine, false, &output),
		     ACCWATCH_RUN_OUTPUT_OK);
	cr_expect_str_eq(output.path, mine);
	accwatch_run_output_close(&output);
	/* A link another user left where the trace will be: to a directory
	 * of ours, empty (refused all the same: its owner could repoint it). */
	cr_assert_eq(symlink(mine, link), 0);
	cr_assert_eq(lchown(link, 12345, 12345), 0);
	cr_assert_eq(accwatch_run_output_prepare(link, false, &output),
		     ACCWATCH_RUN_OUTPUT_UNSAFE);
	cr_expect_eq(output.unsafe_reason, ACCWATCH_RUN_OUTPUT_UNSAFE_ENTRY);
	cr_expect_str_eq(output.unsafe_path, link);
	/* A parent another user made, world-writable, for us to make the
	 * trace in. */
	give_away(made, 0777);
	cr_assert_eq(accwatch_run_output_prepare(below, false, &output),
		     ACCWATCH_RUN_OUTPUT_UNSAFE);
	cr_expect_eq(output.unsafe_reason, ACCWATCH_RUN_OUTPUT_UNSAFE_ENTRY);
	cr_expect_str_eq(output.unsafe_path, made);
	cr_expect_neq(access(below, F_OK), 0, "nothing made in it");
}

Test(run_output, trace_directory_others_may_write_is_refused)
{
	struct accwatch_run_output output;
	char dir[PATH_MAX];

	under_root(dir, "open");
	cr_assert_eq(mkdir(dir, 0777), 0);
	cr_assert_eq(chmod(dir, 01777), 0);
	cr_assert_eq(accwatch_run_output_prepare(dir, false, &output),
		     ACCWATCH_RUN_OUTPUT_UNSAFE);
	cr_expect_eq(output.unsafe_reason, ACCWATCH_RUN_OUTPUT_UNSAFE_TARGET);
	cr_expect_str_eq(output.unsafe_path, dir);
}

Test(run_output, own_links_and_dot_dot_resolve_to_the_held_directory)
{
	struct accwatch_run_output output;
	char real[PATH_MAX], link[PATH_MAX], odd[PATH_MAX], want[PATH_MAX];
	struct stat held, named;

	under_root(real, "real");
	under_root(link, "link");
	cr_assert_eq(mkdir(real, 0755), 0);
	cr_assert_eq(symlink("real", link), 0);
	snprintf(odd, sizeof(odd), "%s/./link/../link/trace/.", root);
	under_root(want, "real/trace");
	cr_assert_eq(accwatch_run_output_prepare(odd, false, &output),
		     ACCWATCH_RUN_OUTPUT_OK);
	cr_expect_str_eq(output.path, want);
	cr_expect(output.created);
	cr_assert_geq(output.dir_fd, 0);
	cr_assert_eq(fstat(output.dir_fd, &held), 0);
	cr_assert_eq(stat(want, &named), 0);
	cr_expect(held.st_ino == named.st_ino && held.st_dev == named.st_dev);
	cr_expect_eq(named.st_mode & 0777, 0700);
	accwatch_run_output_close(&output);
}
