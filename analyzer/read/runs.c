/* SPDX-License-Identifier: MIT */
/* The --run check: a trace directory with several runs needs a choice, and a
 * run chosen must be somewhere. */
#include "runs.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* "11, 22" for the runs of dir (every directory when dir is NULL), each
 * once, in order of appearance; returns how many. */
static size_t aw_list_runs_of(const struct aw_trace_stats *s, const char *dir,
			      char *buf, size_t size)
{
	size_t n = 0, used = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < s->n_trace_runs; i++) {
		const struct aw_trace_run *r = &s->trace_runs[i];
		if (dir && strcmp(r->dir, dir) != 0)
			continue;
		bool seen = false;
		for (size_t j = 0; j < i && !seen; j++)
			seen = s->trace_runs[j].run == r->run &&
			       (!dir || strcmp(s->trace_runs[j].dir, dir) == 0);
		if (seen)
			continue;
		n++;
		if (used < size)
			used += (size_t)snprintf(buf + used, size - used,
						 "%s%" PRIu32,
						 n > 1 ? ", " : "", r->run);
	}
	return n;
}

static bool aw_run_present(const struct aw_trace_stats *s, uint32_t run)
{
	for (size_t i = 0; i < s->n_trace_runs; i++)
		if (s->trace_runs[i].run == run)
			return true;
	return false;
}

/* The traces read, for a message: the one directory, or the first and how
 * many more. */
static void aw_name_traces(const struct aw_trace_stats *s, char *buf,
			   size_t size)
{
	const char *first = s->n_trace_runs ? s->trace_runs[0].dir : "";
	size_t others = 0;
	for (size_t i = 0; i < s->n_trace_runs; i++) {
		bool seen = false;
		for (size_t j = 0; j < i && !seen; j++)
			seen = strcmp(s->trace_runs[j].dir,
				      s->trace_runs[i].dir) == 0;
		others += !seen && i > 0;
	}
	if (!*first)
		snprintf(buf, size, "the traces read");
	else if (others)
		snprintf(buf, size, "%s and %zu other trace%s", first, others,
			 others == 1 ? "" : "s");
	else
		snprintf(buf, size, "%s", first);
}

static enum aw_runs_status aw_runs_chosen(const struct aw_model *model,
					  char *error, size_t error_size)
{
	const struct aw_trace_stats *s = &model->stats;
	const struct aw_run_choice *q = &model->runs_taken;
	for (size_t i = 0; i < q->n_ids; i++) {
		if (aw_run_present(s, q->ids[i]))
			continue;
		char runs[256], where[512];
		size_t n = aw_list_runs_of(s, NULL, runs, sizeof(runs));
		aw_name_traces(s, where, sizeof(where));
		snprintf(error, error_size,
			 "no run %" PRIu32 " in %s (it holds run%s %s): pass "
			 "one of these to --run",
			 q->ids[i], where, n == 1 ? "" : "s", runs);
		return AW_RUNS_NOT_FOUND;
	}
	return AW_RUNS_OK;
}

/* Traces of several directories holding different runs: separate
 * recordings (the nodes of one job share a run id), reported one at a
 * time. The message names each run with its first directory. */
static enum aw_runs_status aw_runs_apart(const struct aw_trace_stats *s,
					 char *error, size_t error_size)
{
	char runs[256];
	size_t n = aw_list_runs_of(s, NULL, runs, sizeof(runs)), used;
	if (n < 2)
		return AW_RUNS_OK;
	used = (size_t)snprintf(error, error_size,
				"the traces read hold %zu runs, each a "
				"recording of its own (",
				n);
	for (size_t i = 0, told = 0; i < s->n_trace_runs && used < error_size;
	     i++) {
		bool seen = false;
		for (size_t j = 0; j < i && !seen; j++)
			seen = s->trace_runs[j].run == s->trace_runs[i].run;
		if (seen)
			continue;
		used += (size_t)snprintf(
		    error + used, error_size - used, "%srun %" PRIu32 " in %s",
		    told++ ? ", " : "", s->trace_runs[i].run,
		    *s->trace_runs[i].dir ? s->trace_runs[i].dir : "?");
	}
	if (used < error_size)
		snprintf(error + used, error_size - used,
			 "): pass --run ID to report on one, or --run all to "
			 "read them as one job (the nodes of one job share a "
			 "run id: accwatch-run --run-id, or torchrun's "
			 "--rdzv-id)");
	return AW_RUNS_MIXED;
}

enum aw_runs_status aw_runs_check(const struct aw_model *model, char *error,
				  size_t error_size)
{
	const struct aw_trace_stats *s = &model->stats;
	const struct aw_run_choice *q = &model->runs_taken;
	if (q->all)
		return AW_RUNS_OK;
	if (q->n_ids)
		return aw_runs_chosen(model, error, error_size);
	for (size_t i = 0; i < s->n_trace_runs; i++) {
		char runs[256];
		size_t n = aw_list_runs_of(s, s->trace_runs[i].dir, runs,
					   sizeof(runs));
		if (n < 2)
			continue;
		snprintf(error, error_size,
			 "the trace in %s holds %zu runs (%s), events of "
			 "programs recorded by one session that did not filter "
			 "on accwatch-run's run id (0: no accwatch-run): pass "
			 "--run ID to report on one, or --run all",
			 *s->trace_runs[i].dir ? s->trace_runs[i].dir
					       : "the traces read",
			 n, runs);
		return AW_RUNS_MIXED;
	}
	return aw_runs_apart(s, error, error_size);
}
