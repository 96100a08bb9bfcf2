/* SPDX-License-Identifier: MIT */
/* Unit tests of the command's environment: LD_PRELOAD order and dedup, the
 * run id, blocking permission, and the caller's variables left intact. */
#include <criterion/criterion.h>
#include <string.h>

#include "run_env.h"

#define LIB "/opt/accwatch/lib/libaccwatch.so"

static size_t count_entries(char **env, const char *prefix)
{
	size_t count = 0;

	for (char **entry = env; *entry; entry++)
		count += strncmp(*entry, prefix, strlen(prefix)) == 0;
	return count;
}

Test(run_env, adds_preload_run_and_blocking)
{
	char *base[] = {"HOME=/root", "PATH=/usr/bin", NULL};
	struct accwatch_run_env_settings settings = {LIB, 42, true, 0, NULL};
	char **env = NULL;

	cr_assert_eq(accwatch_run_env_build(base, &settings, &env),
		     ACCWATCH_RUN_ENV_OK);
	cr_assert_str_eq(accwatch_run_env_get(env, "LD_PRELOAD"), LIB);
	cr_assert_str_eq(accwatch_run_env_get(env, "ACCWATCH_RUN"), "42");
	cr_assert_str_eq(accwatch_run_env_get(env, "LTTNG_UST_ALLOW_BLOCKING"),
			 "1");
	cr_assert_str_eq(accwatch_run_env_get(env, "HOME"), "/root");
	cr_assert_str_eq(accwatch_run_env_get(env, "PATH"), "/usr/bin");
	cr_assert_str_eq(
	    accwatch_run_env_get(env, "LTTNG_UST_WITHOUT_BADDR_STATEDUMP"),
	    "1");
	cr_assert_str_eq(
	    accwatch_run_env_get(env, "LTTNG_UST_WITHOUT_PROCNAME_STATEDUMP"),
	    "1");
	accwatch_run_env_free(env);
}

Test(run_env, the_callers_statedump_choice_is_kept)
{
	char *base[] = {"LTTNG_UST_WITHOUT_BADDR_STATEDUMP=0", NULL};
	struct accwatch_run_env_settings settings = {LIB, 42, true, 0, NULL};
	char **env = NULL;

	cr_assert_eq(accwatch_run_env_build(base, &settings, &env),
		     ACCWATCH_RUN_ENV_OK);
	cr_assert_str_eq(
	    accwatch_run_env_get(env, "LTTNG_UST_WITHOUT_BADDR_STATEDUMP"),
	    "0");
	cr_assert_eq(count_entries(env, "LTTNG_UST_WITHOUT_BADDR_STATEDUMP="),
		     1);
	accwatch_run_env_free(env);
}

Test(run_env, ours_goes_before_the_callers_preload)
{
	char *base[] = {"LD_PRELOAD=/usr/lib/libjemalloc.so /usr/lib/libfoo.so",
			NULL};
	struct accwatch_run_env_settings settings = {LIB, 7, true, 0, NULL};
	char **env = NULL;

	cr_assert_eq(accwatch_run_env_build(base, &settings, &env),
		     ACCWATCH_RUN_ENV_OK);
	cr_assert_str_eq(accwatch_run_env_get(env, "LD_PRELOAD"),
			 LIB ":/usr/lib/libjemalloc.so:/usr/lib/libfoo.so");
	cr_assert_eq(count_entries(env, "LD_PRELOAD="), 1);
	accwatch_run_env_free(env);
}

Test(run_env, nested_run_does_not_preload_twice)
{
	char *base[] = {"LD_PRELOAD=/x/liba.so:" LIB "::", "ACCWATCH_RUN=99",
			NULL};
	struct accwatch_run_env_settings settings = {LIB, 5, true, 0, NULL};
	char **env = NULL;

	cr_assert_eq(accwatch_run_env_build(base, &settings, &env),
		     ACCWATCH_RUN_ENV_OK);
	cr_assert_str_eq(accwatch_run_env_get(env, "LD_PRELOAD"),
			 LIB ":/x/liba.so");
	cr_assert_str_eq(accwatch_run_env_get(env, "ACCWATCH_RUN"), "5");
	cr_assert_eq(count_entries(env, "ACCWATCH_RUN="), 1);
	accwatch_run_env_free(env);
}

Test(run_env, discard_mode_leaves_blocking_alone)
{
	char *without[] = {"A=1", NULL};
	char *with[] = {"LTTNG_UST_ALLOW_BLOCKING=0", NULL};
	struct accwatch_run_env_settings settings = {LIB, 3, false, 0, NULL};
	char **env = NULL;

	cr_assert_eq(accwatch_run_env_build(without, &settings, &env),
		     ACCWATCH_RUN_ENV_OK);
	cr_assert_null(accwatch_run_env_get(env, "LTTNG_UST_ALLOW_BLOCKING"));
	accwatch_run_env_free(env);
	cr_assert_eq(accwatch_run_env_build(with, &settings, &env),
		     ACCWATCH_RUN_ENV_OK);
	cr_assert_str_eq(accwatch_run_env_get(env, "LTTNG_UST_ALLOW_BLOCKING"),
			 "0");
	accwatch_run_env_free(env);
}

Test(run_env, blocking_mode_overrides_the_callers_setting)
{
	char *base[] = {"LTTNG_UST_ALLOW_BLOCKING=0", NULL};
	struct accwatch_run_env_settings settings = {LIB, 3, true, 0, NULL};
	char **env = NULL;

	cr_assert_eq(accwatch_run_env_build(base, &settings, &env),
		     ACCWATCH_RUN_ENV_OK);
	cr_assert_str_eq(accwatch_run_env_get(env, "LTTNG_UST_ALLOW_BLOCKING"),
			 "1");
	cr_assert_eq(count_entries(env, "LTTNG_UST_ALLOW_BLOCKING="), 1);
	accwatch_run_env_free(env);
}

Test(run_env, similar_names_are_not_ours)
{
	char *base[] = {"LD_PRELOAD_X=keep", "ACCWATCH_RUNNER=keep", NULL};
	struct accwatch_run_env_settings settings = {LIB, 4294967295u, true, 0,
						     NULL};
	char **env = NULL;

	cr_assert_eq(accwatch_run_env_build(base, &settings, &env),
		     ACCWATCH_RUN_ENV_OK);
	cr_assert_str_eq(accwatch_run_env_get(env, "LD_PRELOAD_X"), "keep");
	cr_assert_str_eq(accwatch_run_env_get(env, "ACCWATCH_RUNNER"), "keep");
	cr_assert_str_eq(accwatch_run_env_get(env, "ACCWATCH_RUN"),
			 "4294967295");
	cr_assert_str_eq(accwatch_run_env_get(env, "LD_PRELOAD"), LIB);
	accwatch_run_env_free(env);
}

Test(run_env, empty_base)
{
	struct accwatch_run_env_settings settings = {LIB, 1, false, 0, NULL};
	char **env = NULL;

	cr_assert_eq(accwatch_run_env_build(NULL, &settings, &env),
		     ACCWATCH_RUN_ENV_OK);
	cr_assert_str_eq(env[0], "LD_PRELOAD=" LIB);
	cr_assert_str_eq(env[1], "ACCWATCH_RUN=1");
	cr_assert_str_eq(env[2], "LTTNG_UST_WITHOUT_BADDR_STATEDUMP=1");
	cr_assert_str_eq(env[3], "LTTNG_UST_WITHOUT_PROCNAME_STATEDUMP=1");
	cr_assert_null(env[4]);
	accwatch_run_env_free(env);
}

Test(run_env, a_bounded_stall_tells_the_recorder_its_bound_and_directory)
{
	char *base[] = {"ACCWATCH_STALL_MS=1", "ACCWATCH_STALL_DIR=/old", NULL};
	struct accwatch_run_env_settings settings = {LIB, 42, true, 10000,
						     "/trace"};
	char **env = NULL;

	cr_assert_eq(accwatch_run_env_build(base, &settings, &env),
		     ACCWATCH_RUN_ENV_OK);
	cr_assert_str_eq(accwatch_run_env_get(env, "ACCWATCH_STALL_MS"),
			 "10000");
	cr_assert_str_eq(accwatch_run_env_get(env, "ACCWATCH_STALL_DIR"),
			 "/trace");
	cr_assert_eq(count_entries(env, "ACCWATCH_STALL_MS="), 1);
	accwatch_run_env_free(env);
	/* Unbounded (or discarding): none of them, not even the caller's. */
	settings.stall_ms = 0;
	cr_assert_eq(accwatch_run_env_build(base, &settings, &env),
		     ACCWATCH_RUN_ENV_OK);
	cr_assert_null(accwatch_run_env_get(env, "ACCWATCH_STALL_MS"));
	cr_assert_null(accwatch_run_env_get(env, "ACCWATCH_STALL_DIR"));
	accwatch_run_env_free(env);
}
