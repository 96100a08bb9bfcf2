/* SPDX-License-Identifier: MIT */
/* Unit tests of accwatch_env: which variable gives the rank, bounded integer
 * parsing, the run id. */
#include <criterion/criterion.h>
#include <stddef.h>
#include <string.h>

#include "accwatch_env.h"
#include "accwatch_events.h"

struct env_entry {
	const char *name, *value;
};

static const char *env_lookup(const char *name, void *context)
{
	const struct env_entry *entry = context;

	for (; entry && entry->name; entry++)
		if (strcmp(entry->name, name) == 0)
			return entry->value;
	return NULL;
}

/* The rank the environment gives, all of it. */
static void expect_rank(const struct env_entry *env, int32_t rank,
			int32_t world_size, int32_t local_rank,
			int32_t local_world_size, const char *source)
{
	struct accwatch_rank_info info;

	accwatch_env_rank(env_lookup, (void *)env, &info);
	cr_assert_eq(info.rank, rank);
	cr_assert_eq(info.world_size, world_size);
	cr_assert_eq(info.local_rank, local_rank);
	cr_assert_eq(info.local_world_size, local_world_size);
	cr_assert_str_eq(info.source, source);
}

Test(env, parse_int_accepts_plain_decimals)
{
	cr_assert_eq(accwatch_env_parse_int("0", 0, INT32_MAX), 0);
	cr_assert_eq(accwatch_env_parse_int("17", 0, INT32_MAX), 17);
	cr_assert_eq(accwatch_env_parse_int("007", 0, INT32_MAX), 7);
	cr_assert_eq(accwatch_env_parse_int("2147483647", 0, INT32_MAX),
		     INT32_MAX);
}

Test(env, parse_int_rejects_garbage)
{
	const char *bad[] = {
	    NULL, "",   "-1",   "+1",         " 1",
	    "1 ", "1x", "0x10", "2147483648", "99999999999999999999999",
	    "1.5"};
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		cr_assert_eq(accwatch_env_parse_int(bad[i], 0, INT32_MAX), -1,
			     "accepted \"%s\"", bad[i] ? bad[i] : "(null)");
	cr_assert_eq(accwatch_env_parse_int("0", 1, INT32_MAX), -1);
}

Test(env, torchrun_variables)
{
	const struct env_entry env[] = {
	    {"RANK", "3"},         {"WORLD_SIZE", "8"},
	    {"LOCAL_RANK", "1"},   {"LOCAL_WORLD_SIZE", "2"},
	    {"SLURM_PROCID", "5"}, {NULL, NULL}};
	expect_rank(env, 3, 8, 1, 2, "RANK");
}

Test(env, open_mpi_variables)
{
	const struct env_entry env[] = {
	    {"OMPI_COMM_WORLD_RANK", "2"},
	    {"OMPI_COMM_WORLD_SIZE", "4"},
	    {"OMPI_COMM_WORLD_LOCAL_RANK", "0"},
	    {"OMPI_COMM_WORLD_LOCAL_SIZE", "2"},
	    {NULL, NULL},
	};
	expect_rank(env, 2, 4, 0, 2, "OMPI_COMM_WORLD_RANK");
}

Test(env, pmi_has_no_local_rank)
{
	const struct env_entry env[] = {
	    {"PMI_RANK", "1"}, {"PMI_SIZE", "2"}, {NULL, NULL}};
	expect_rank(env, 1, 2, -1, -1, "PMI_RANK");
}

Test(env, slurm_variables)
{
	const struct env_entry env[] = {{"SLURM_PROCID", "6"},
					{"SLURM_NTASKS", "8"},
					{"SLURM_LOCALID", "2"},
					{NULL, NULL}};
	expect_rank(env, 6, 8, 2, -1, "SLURM_PROCID");
}

Test(env, garbage_rank_falls_through_to_the_next_family)
{
	const struct env_entry env[] = {{"RANK", "abc"},
					{"WORLD_SIZE", "8"},
					{"PMI_RANK", "4"},
					{"PMI_SIZE", "5"},
					{NULL, NULL}};
	expect_rank(env, 4, 5, -1, -1, "PMI_RANK");
}

Test(env, garbage_sizes_are_unknown)
{
	const struct env_entry env[] = {{"RANK", "0"},
					{"WORLD_SIZE", "0"},
					{"LOCAL_RANK", "-2"},
					{"LOCAL_WORLD_SIZE", "two"},
					{NULL, NULL}};
	expect_rank(env, 0, -1, -1, -1, "RANK");
}

Test(env, no_rank_anywhere)
{
	const struct env_entry env[] = {
	    {"LOCAL_RANK", "1"}, {"WORLD_SIZE", "2"}, {NULL, NULL}};
	expect_rank(env, -1, -1, -1, -1, "");
}

Test(env, run_id)
{
	const struct env_entry none[] = {{NULL, NULL}};
	const struct env_entry set[] = {{ACCWATCH_ENV_RUN, "42"}, {NULL, NULL}};
	const struct env_entry max[] = {{ACCWATCH_ENV_RUN, "4294967295"},
					{NULL, NULL}};
	const struct env_entry big[] = {{ACCWATCH_ENV_RUN, "4294967296"},
					{NULL, NULL}};
	const struct env_entry bad[] = {{ACCWATCH_ENV_RUN, "run-7"},
					{NULL, NULL}};

	cr_assert_eq(accwatch_env_run(env_lookup, (void *)none), 0);
	cr_assert_eq(accwatch_env_run(env_lookup, (void *)set), 42);
	cr_assert_eq(accwatch_env_run(env_lookup, (void *)max), UINT32_MAX);
	cr_assert_eq(accwatch_env_run(env_lookup, (void *)big), 0);
	cr_assert_eq(accwatch_env_run(env_lookup, (void *)bad), 0);
}

Test(env, stall_bound)
{
	const struct env_entry none[] = {{NULL, NULL}};
	const struct env_entry set[] = {{ACCWATCH_ENV_STALL_MS, "10000"},
					{NULL, NULL}};
	const struct env_entry hour[] = {{ACCWATCH_ENV_STALL_MS, "3600000"},
					 {NULL, NULL}};
	const struct env_entry more[] = {{ACCWATCH_ENV_STALL_MS, "3600001"},
					 {NULL, NULL}};
	const struct env_entry bad[] = {{ACCWATCH_ENV_STALL_MS, "10s"},
					{NULL, NULL}};

	cr_assert_eq(accwatch_env_stall_ms(env_lookup, (void *)none), 0);
	cr_assert_eq(accwatch_env_stall_ms(env_lookup, (void *)set), 10000);
	cr_assert_eq(accwatch_env_stall_ms(env_lookup, (void *)hour), 3600000);
	cr_assert_eq(accwatch_env_stall_ms(env_lookup, (void *)more), 0);
	cr_assert_eq(accwatch_env_stall_ms(env_lookup, (void *)bad), 0);
}
