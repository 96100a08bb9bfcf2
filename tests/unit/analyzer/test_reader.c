/* SPDX-License-Identifier: MIT */
/* The reader on real CTF traces recorded by reader_trace.sh through LTTng
 * (trace_gen's scenarios); each test skips when its trace was not made. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "checks.h"
#include "reader.h"
#include "stream.h"

static struct aw_model *read_trace(const char *variable,
				   struct aw_findings *findings)
{
	const char *path = getenv(variable);
	if (!path || !*path)
		cr_skip_test("%s not set: run through reader_trace.sh",
			     variable);
	struct aw_model *m = aw_model_create();
	char error[1024] = "";
	const char *paths[] = {path};
	cr_assert_eq(aw_reader_read(paths, 1, m, error, sizeof(error)),
		     AW_READER_OK, "%s", error);
	aw_model_finish(m);
	aw_findings_init(findings);
	aw_checks_run(m, findings);
	return m;
}

Test(reader, sharded_trace)
{
	struct aw_findings findings;
	struct aw_model *m =
	    read_trace("ACCWATCH_TEST_TRACE_SHARDED", &findings);
	const struct aw_trace_stats *s = &m->stats;
	cr_expect_eq(s->trace_dirs, 1);
	cr_expect_gt(s->packets, 0);
	cr_expect_eq(s->discarded_events, 0);
	cr_expect_eq(s->foreign_events, 0);
	cr_expect_eq(s->by_kind[AW_EVENT_PROCESS], 4);
	cr_expect_eq(s->by_kind[AW_EVENT_LOADER_NEW], 2);
	cr_expect_eq(s->by_kind[AW_EVENT_ITER_END], 4);
	cr_expect_eq(s->by_kind[AW_EVENT_BATCH_WIDE], 4);
	cr_expect_eq(s->by_kind[AW_EVENT_WORKER_FETCH], 1);
	cr_expect_eq(s->events, aw_model_accwatch_events(m));

	const struct aw_process *rank0 = s_process_of(m, 1001),
				*worker = s_process_of(m, 2001);
	cr_expect_eq(rank0->rank, 0);
	cr_expect_str_eq(rank0->host, "node0");
	cr_expect(worker->is_worker);
	cr_expect_eq(worker->rank, 0);
	cr_expect_eq(worker->fetched_indices, 4);
	cr_expect(worker->exited);
	cr_expect_eq(s_process_of(m, 1002)->dist_rank, 1);
	cr_expect_eq(m->n_ranks, 2);
	cr_expect_eq(m->world_size, 2);

	cr_assert_eq(m->n_loaders_global, 1);
	const struct aw_global_loader *g = &m->loaders_global[0];
	const struct aw_loader *d = aw_model_describe(m, g);
	cr_expect_str_eq(g->site, "train.py:10");
	cr_expect_str_eq(d->sampler_class, "DistributedSampler");
	cr_expect_eq(d->dataset_len, 100);
	cr_expect_eq(d->batch_size, 8);
	cr_expect_eq(d->sampler_replicas, 2);
	cr_assert_eq(g->n_len_reported, 1);
	cr_expect_eq(g->len_reported[0], 7);
	cr_assert_eq(g->n_epochs, 2);
	for (size_t e = 0; e < 2; e++) {
		const struct aw_epoch *ep = &g->epochs[e];
		cr_assert_eq(ep->n_cells, 2);
		cr_expect_eq(ep->union_count, 100);
		cr_expect_eq(ep->missing, 0);
		for (size_t c = 0; c < 2; c++) {
			/* 7 batches of 50 indices; rank 0's 2 prefetched ones
			 * left out. */
			cr_expect_eq(ep->cells[c].batches, 7);
			cr_expect_eq(ep->cells[c].samples, 50);
			cr_expect_eq(ep->cells[c].unique, 50);
			cr_expect(ep->cells[c].complete &&
				  ep->cells[c].exhausted);
		}
		cr_expect_eq(ep->cells[0].prefetched_samples, 16);
	}
	cr_expect_eq(findings.n, 0, "first finding: %s",
		     findings.n ? findings.items[0].message : "");
	aw_findings_fini(&findings);
	aw_model_destroy(m);
}

Test(reader, unsharded_trace)
{
	struct aw_findings findings;
	struct aw_model *m =
	    read_trace("ACCWATCH_TEST_TRACE_UNSHARDED", &findings);
	cr_expect_eq(findings.n, 2);
	for (size_t i = 0; i < findings.n; i++)
		cr_expect_str_eq(findings.items[i].id, "unsharded");
	aw_findings_fini(&findings);
	aw_model_destroy(m);
}

Test(reader, trace_without_accwatch_events)
{
	const char *path = getenv("ACCWATCH_TEST_TRACE_NONE");
	if (!path || !*path)
		cr_skip_test("ACCWATCH_TEST_TRACE_NONE not set: run through "
			     "reader_trace.sh");
	struct aw_model *m = aw_model_create();
	char error[1024] = "";
	const char *paths[] = {path};
	cr_expect_eq(aw_reader_read(paths, 1, m, error, sizeof(error)),
		     AW_READER_NO_EVENTS, "%s", error);
	cr_expect(strstr(error, "no accwatch events in") &&
		      strstr(error, "accwatch-run"),
		  "%s", error);
	aw_model_destroy(m);
}

Test(reader, missing_path)
{
	struct aw_model *m = aw_model_create();
	char error[1024] = "";
	const char *paths[] = {"/nonexistent/accwatch-trace"};
	cr_expect_eq(aw_reader_read(paths, 1, m, error, sizeof(error)),
		     AW_READER_NO_TRACE);
	cr_expect(strstr(error, "/nonexistent/accwatch-trace"), "%s", error);
	aw_model_destroy(m);
}
