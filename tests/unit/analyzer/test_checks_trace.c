/* The checks on what the trace holds (checks_trace.c), on event streams
 * built here with their edges: iterable-duplicate, trace-incomplete. */
#include <criterion/criterion.h>
#include <signal.h>
#include <string.h>

#include "stream.h"

static const struct s_loader_opts base = S_BASE_LOADER(0);

/* --- iterable-duplicate ------------------------------------------------------
 */

/* Rank r's worker w (pid 300 + 10r + w) produces hashes [first, first+n). */
static void items_of(struct aw_model *m, int rank, int32_t worker,
		     uint64_t first, uint32_t n)
{
	int32_t pid = 300 + 10 * rank + worker;
	s_process(m, pid, 100 + rank, rank, 2, "worker");
	s_worker(m, pid, worker, 0, 0);
	uint64_t h[64];
	for (uint32_t i = 0; i < n; i++)
		h[i] = 0x1000 + first + i;
	s_item_fetch(m, pid, worker, 0, 0, 0, h, n);
}

static void iterable_epoch(struct aw_model *m, int world,
			   const char *dataset_type)
{
	struct s_loader_opts o = base;
	o.iterable = 1;
	o.dataset_len = -1;
	o.num_workers = 2;
	o.sampler = "_InfiniteConstantSampler";
	o.dataset_type = dataset_type;
	s_ranks(m, world, &o);
	for (int rank = 0; rank < world; rank++) {
		s_iter_begin(m, 100 + rank, 0, 0);
		s_iter_end(m, 100 + rank, 0, 0, 10, 10, 1);
	}
}

/* Two ranks' iterable epoch, worker w of rank r producing 50 items from
 * 100 r + stride w. */
static struct s_run iterable_run(uint64_t stride)
{
	struct s_run r = s_run_of(0, NULL);
	iterable_epoch(r.model, 2, "IndexStream");
	for (int rank = 0; rank < 2; rank++)
		for (int32_t w = 0; w < 2; w++)
			items_of(r.model, rank, w,
				 100 * (uint64_t)rank + stride * (uint64_t)w,
				 50);
	return r;
}

Test(checks_trace, iterable_duplicate_across_workers)
{
	/* Both workers of each rank replay the rank's 50 items. */
	struct s_run r = iterable_run(0);
	const struct aw_finding *f = s_finish_only(&r, "iterable-duplicate");
	cr_expect_eq(s_number(f, "repeated_items"), 100);
	cr_expect_eq(s_number(f, "distinct_items"), 100);
	cr_expect_eq(s_number(f, "across_workers"), 100);
	cr_expect_eq(s_number(f, "across_ranks"), 0);
	cr_expect_eq(f->n_ranks, 2);
	cr_expect(s_says(f, "worker 0 (pid 300) and rank 0 worker 1 (pid 301)"),
		  "%s", f->evidence);
	cr_expect(s_says(f, "get_worker_info"), "%s", f->fix);
	const struct aw_cell *c =
	    &r.model->loaders_global[0].epochs[0].cells[0];
	cr_expect(c->from_items);
	cr_expect_eq(c->samples, 100);
	cr_expect_eq(c->unique, 50);
	s_done(&r);
}

Test(checks_trace, iterable_split_by_worker_and_rank_is_clean)
{
	struct s_run r = iterable_run(50);
	s_finish_only(&r, NULL);
	const struct aw_epoch *e = &r.model->loaders_global[0].epochs[0];
	cr_expect_eq(e->union_count, 200);
	cr_expect_eq(e->samples, 200);
	s_done(&r);
}

Test(checks_trace, iterable_dataset_shard_padding_is_allowed)
{
	/* accelerate's IterableDatasetShard pads the last buffer cyclically:
	 * up to W*B-1 items on two ranks (here 3 of W*B = 20). */
	struct s_run r = s_run_of(0, NULL);
	iterable_epoch(r.model, 2, "IterableDatasetShard");
	items_of(r.model, 0, 0, 0, 50);
	items_of(r.model, 1, 0, 50, 50);
	items_of(r.model, 1, 1, 0, 3);
	s_finish_only(&r, NULL);
	s_done(&r);
}

/* --- trace-incomplete --------------------------------------------------------
 */

Test(checks_trace, trace_incomplete_discards_and_vanished_processes)
{
	struct s_run r = s_run_of(2, &base);
	s_rank_reads(r.model, 0, 0, 0, 50, 10);
	s_rank_reads_cut(r.model, 1, 0, 50, 70, 10); /* rank 1 vanished */
	r.model->stats.discarded_events = 40;
	r.model->stats.discarded_events_messages = 2;
	const struct aw_finding *f = s_finish_only(&r, "trace-incomplete");
	cr_expect_eq(f->severity, AW_SEVERITY_WARNING);
	cr_expect_eq(s_number(f, "discarded_events"), 40);
	cr_expect_eq(s_number(f, "vanished_iterations"), 1);
	cr_expect(s_has_rank(f, 1) && !s_has_rank(f, 0));
	cr_expect(s_says(f, "lower bounds"), "%s", f->message);
	cr_expect(s_says(f, "rank 1 (pid 101): epoch 0 of L0"), "%s",
		  f->evidence);
	cr_expect(s_says(f, "the last batch it drew: #1, indices [60, 61, 62, "
			    "63, 64, 65, 66, 67, ...] (10 indices)"),
		  "%s", f->evidence);
	cr_expect(s_says(f, "(rank 1: L0 epoch 0, last batch #1)"), "%s",
		  f->message);
	cr_expect_eq(s_count(&r.findings, "rank-died"), 0, "no exit seen");
	s_done(&r);
}

Test(checks_trace, no_trace_incomplete_when_the_end_is_known)
{
	/* The process exited (its end is known) or the trace is whole. */
	struct s_run r = s_run_of(1, &base);
	s_rank_reads_cut(r.model, 0, 0, 0, 20, 10);
	s_exit(r.model, 100, 100, 1, -1);
	s_finish(&r);
	cr_expect_eq(s_count(&r.findings, "trace-incomplete"), 0);
	s_done(&r);

	r.model = aw_model_create();
	s_ranks(r.model, 1, &base);
	r.model->stats.read_error = true;
	strcpy(r.model->stats.read_error_message, "packet 3 is cut short");
	s_finish(&r);
	const struct aw_finding *f = s_get(&r, "trace-incomplete");
	cr_expect(s_says(f, "packet 3 is cut short"), "%s", f->evidence);
	s_done(&r);
}

Test(checks_trace, a_process_that_stopped_recording_makes_counts_lower_bounds)
{
	struct s_run r = s_run_of(1, &base);
	s_rank_reads(r.model, 0, 0, 0, 100, 10);
	struct aw_trace_stats *s = &r.model->stats;
	s->stalls = calloc(1, sizeof(*s->stalls));
	s->stalls[0] = (struct aw_stall_note){.pid = 100,
					      .loader = 0,
					      .iteration = 0,
					      .batch = 7,
					      .stall_ms = 10000,
					      .event = "batch"};
	s->n_stalls = s->stalls_cap = 1;
	const struct aw_finding *f = s_finish_only(&r, "trace-incomplete");
	cr_assert(f);
	cr_expect_eq(s_number(f, "stalled_processes"), 1);
	cr_expect(s_says(f, "1 process stopped recording after an event "
			    "waited 10000 ms"),
		  "%s", f->message);
	cr_expect(s_says(f, "pid 100: stopped recording at batch 7"), "%s",
		  f->evidence);
	s_done(&r);
}
