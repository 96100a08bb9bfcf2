/* SPDX-License-Identifier: MIT */
/* Unit tests of accwatch_env_keep: what exec and posix_spawn put back into
 * an environment a launcher scrubbed, and what they leave alone. */
#include <criterion/criterion.h>
#include <stddef.h>
#include <string.h>

#include "accwatch_env_keep.h"

#define LIB "/opt/aw/lib/libaccwatch.so"

static char *start_env[] = {
    "PATH=/bin",
    "LD_PRELOAD=/other/libfoo.so " LIB,
    "ACCWATCH_RUN=42",
    "ACCWATCH_DEBUG=1",
    "LTTNG_HOME=/tmp/home",
    "HOME=/root",
    NULL,
};

struct applied {
	char *entries[64];
	char preload[ACCWATCH_ENV_KEEP_PRELOAD_MAX];
	char *const *result;
};

static struct accwatch_env_keep keep_of(char **env)
{
	struct accwatch_env_keep keep;

	accwatch_env_keep_init(&keep, env, "libaccwatch.so");
	return keep;
}

static void apply(const struct accwatch_env_keep *keep, char *const *envp,
		  struct applied *out)
{
	out->result = accwatch_env_keep_apply(
	    keep, envp, out->entries,
	    sizeof(out->entries) / sizeof(out->entries[0]), out->preload,
	    sizeof(out->preload));
}

static int has(char *const *env, const char *entry)
{
	for (; env && *env; env++)
		if (strcmp(*env, entry) == 0)
			return 1;
	return 0;
}

Test(env_keep, init_finds_the_library_and_the_variables)
{
	struct accwatch_env_keep keep = keep_of(start_env);

	cr_assert(keep.enabled);
	cr_assert_eq(keep.library_length, strlen(LIB));
	cr_assert_eq(strncmp(keep.library, LIB, keep.library_length), 0);
	cr_assert_eq(keep.count, 3);
}

Test(env_keep, disabled_without_the_library_in_ld_preload)
{
	char *env[] = {"LD_PRELOAD=/x/libaccwatch.so.bak", "ACCWATCH_RUN=1",
		       NULL};
	char *other[] = {"LD_PRELOAD=/x/mylibaccwatch.so", NULL};
	char *empty[] = {NULL};
	struct accwatch_env_keep keep = keep_of(env);
	struct applied out;

	cr_assert_not(keep.enabled);
	cr_assert_not(keep_of(other).enabled);
	cr_assert_not(keep_of(empty).enabled);
	apply(&keep, empty, &out);
	cr_assert_eq(out.result, empty);
}

Test(env_keep, scrubbed_environment_gets_them_back)
{
	struct accwatch_env_keep keep = keep_of(start_env);
	char *scrubbed[] = {"PATH=/usr/bin", NULL};
	struct applied out;

	apply(&keep, scrubbed, &out);
	cr_assert_neq(out.result, scrubbed);
	cr_assert(has(out.result, "PATH=/usr/bin"));
	cr_assert(has(out.result, "LD_PRELOAD=" LIB));
	cr_assert(has(out.result, "ACCWATCH_RUN=42"));
	cr_assert(has(out.result, "ACCWATCH_DEBUG=1"));
	cr_assert(has(out.result, "LTTNG_HOME=/tmp/home"));
	cr_assert_not(has(out.result, "HOME=/root"));
}

Test(env_keep, empty_and_null_environments)
{
	struct accwatch_env_keep keep = keep_of(start_env);
	char *empty[] = {NULL};
	struct applied out;

	apply(&keep, empty, &out);
	cr_assert(has(out.result, "LD_PRELOAD=" LIB));
	apply(&keep, NULL, &out);
	cr_assert(has(out.result, "ACCWATCH_RUN=42"));
}

Test(env_keep, their_ld_preload_keeps_its_items_after_ours)
{
	struct accwatch_env_keep keep = keep_of(start_env);
	char *scrubbed[] = {"LD_PRELOAD=/usr/lib/libjemalloc.so", "X=1", NULL};
	struct applied out;

	apply(&keep, scrubbed, &out);
	cr_assert(
	    has(out.result, "LD_PRELOAD=" LIB ":/usr/lib/libjemalloc.so"));
	cr_assert(has(out.result, "X=1"));
	cr_assert(has(out.result, "ACCWATCH_RUN=42"));
}

Test(env_keep, kept_variables_are_respected)
{
	struct accwatch_env_keep keep = keep_of(start_env);
	char *run_kept[] = {"ACCWATCH_RUN=7", NULL};
	char *lib_kept[] = {"LD_PRELOAD=libaccwatch.so", NULL};
	char *lttng_home[] = {"LTTNG_HOME=/elsewhere", NULL};
	struct applied out;

	apply(&keep, run_kept, &out);
	cr_assert_eq(out.result, run_kept);
	apply(&keep, lib_kept, &out);
	cr_assert_eq(out.result, lib_kept);
	apply(&keep, lttng_home, &out);
	cr_assert(has(out.result, "LTTNG_HOME=/elsewhere"));
	cr_assert_not(has(out.result, "LTTNG_HOME=/tmp/home"));
}

Test(env_keep, too_long_or_too_large_is_left_alone)
{
	struct accwatch_env_keep keep = keep_of(start_env);
	static char huge[ACCWATCH_ENV_KEEP_PRELOAD_MAX + 32];
	char *long_preload[] = {huge, NULL};
	char *few[] = {"A=1", "B=2", NULL};
	char *small[4];
	char preload[ACCWATCH_ENV_KEEP_PRELOAD_MAX];

	memset(huge, 'a', sizeof(huge) - 1);
	memcpy(huge, "LD_PRELOAD=/", strlen("LD_PRELOAD=/"));
	{
		struct applied out;

		apply(&keep, long_preload, &out);
		cr_assert_eq(out.result, long_preload);
	}
	/* out too small for the entries plus ours */
	cr_assert_eq(accwatch_env_keep_apply(&keep, few, small, 4, preload,
					     sizeof(preload)),
		     few);
}

Test(env_keep, count_is_bounded)
{
	char *env[] = {"A=1", "B=2", "C=3", NULL};

	cr_assert_eq(accwatch_env_keep_count(env, 10), 3);
	cr_assert_eq(accwatch_env_keep_count(env, 1), 2);
	cr_assert_eq(accwatch_env_keep_count(NULL, 10), 0);
}
