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
