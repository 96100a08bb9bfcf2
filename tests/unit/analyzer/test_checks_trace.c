/* SPDX-License-Identifier: MIT */
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
	s_expect_says(f, "worker 0 (pid 300) and rank 0 worker 1 (pid 301)");
	s_expect_says(f, "get_worker_info");
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

/* --- iterable-duplicate or resampled: copies against draws -----------------
 */

/* Rank r's worker w (pid 300 + 10r + w) of a world of `world` reads
 * hashes h[0..n). */
static void items_read(struct aw_model *m, int world, int rank, int32_t worker,
		       const uint64_t *h, uint32_t n)
{
	int32_t pid = 300 + 10 * rank + worker;
	s_process(m, pid, 100 + rank, rank, world, "worker");
	s_worker(m, pid, worker, 0, 0);
	s_item_fetch(m, pid, worker, 0, 0, 0, h, n);
}

/* Item k of shard s (shards of `size` items), read in the order of a
 * stride through the shard from `start`: each draw has an order of its
 * own, as a shuffle buffer gives. */
static uint32_t draw(uint64_t *h, uint32_t shard, uint32_t size, uint32_t start)
{
	uint32_t stride = size % 7 ? 7 : 3;
	for (uint32_t k = 0; k < size; k++)
		h[k] = 0x5000 + (uint64_t)shard * size +
		       (start + k * stride) % size;
	return size;
}

/* Source i of `sources` (rank i / per_rank, worker i % per_rank) draws
 * shards[i][0..n) of `size` items. */
static void draws(struct aw_model *m, int world, int per_rank,
		  const uint32_t (*shards)[3], int n, uint32_t size)
{
	for (int i = 0; i < world * per_rank; i++) {
		uint64_t h[3 * 32];
		uint32_t count = 0;
		for (int d = 0; d < n; d++)
			count += draw(h + count, shards[i][d], size,
				      (uint32_t)(i + d));
		items_read(m, world, i / per_rank, i % per_rank, h, count);
	}
}

Test(checks_trace, resampled_shards_are_random_collisions)
{
	/* webdataset's resampled=True: 4 ranks of 2 workers each draw 3 of
	 * 8 shards (10 items) with replacement. Shards collide across
	 * workers and ranks, and three workers draw a shard twice: no worker
	 * is a copy of another, the repeats are draws. */
	static const uint32_t shards[8][3] = {
	    {0, 3, 0}, {5, 1, 6}, {2, 2, 7}, {3, 4, 1},
	    {6, 0, 5}, {7, 7, 4}, {1, 5, 2}, {4, 6, 3},
	};
	struct s_run r = s_run_of(0, NULL);
	iterable_epoch(r.model, 4, "WebDataset");
	draws(r.model, 4, 2, shards, 3, 10);
	const struct aw_finding *f = s_finish_only(&r, NULL);
	(void)f;
	cr_expect_eq(s_count(&r.findings, "iterable-duplicate"), 0);
	cr_expect_eq(s_count(&r.findings, "overlap"), 0);
	const struct aw_finding *info = s_get(&r, "resampled");
	cr_expect_eq(info->severity, AW_SEVERITY_INFO);
	cr_expect_eq(s_number(info, "within_pairs"), 30,
		     "3 shards drawn twice");
	cr_expect_eq(s_number(info, "distinct_items"), 80);
	s_expect_says(info, "none is a copy of another");
	const struct aw_item_rate *rate =
	    &r.model->loaders_global[0].epochs[0].items->rate;
	cr_expect_eq(rate->verdict, AW_REPEATS_DRAWN);
	cr_expect_eq(rate->copied_items, 0);
	s_done(&r);
}

Test(checks_trace, copies_in_another_order_are_replication)
{
	/* Every rank reads all 60 items, its 2 workers splitting them, each
	 * in an order of its own (a shuffle buffer per worker): the ranks'
	 * workers are copies that never read an item twice, where drawing
	 * with replacement would have repeated a quarter of them inside a
	 * worker (chance of none: 0.75^60). */
	struct s_run r = s_run_of(0, NULL);
	iterable_epoch(r.model, 2, "WebDataset");
	for (int rank = 0; rank < 2; rank++)
		for (int32_t w = 0; w < 2; w++) {
			uint64_t h[30];
			draw(h, (uint32_t)w, 30, (uint32_t)(3 * rank + 1));
			items_read(r.model, 2, rank, w, h, 30);
		}
	s_finish(&r);
	const struct aw_finding *f = s_get(&r, "iterable-duplicate");
	cr_expect_eq(s_number(f, "within_pairs"), 0);
	s_expect_says(f, "60 repeated items have a source whose whole "
			 "read the same other sources read too (a copy): 0 "
			 "of them read twice by one source, where drawing "
			 "with replacement gives about 15.0 (chance of so "
			 "few: 3.2e-08)");
	cr_expect_eq(s_count(&r.findings, "unsharded"), 1);
	cr_expect_eq(s_count(&r.findings, "resampled"), 0);
	s_done(&r);
}

Test(checks_trace, workers_of_a_rank_replaying_its_part_are_replication)
{
	/* A stream split by rank and not by worker: each of a rank's 2
	 * workers reads the rank's 25 items. Ranks share no item, so each
	 * rank is a pool of its own: drawing with replacement there would
	 * put half the items twice in one worker (chance of none: 0.5^100),
	 * where over all 8 workers it gives 0.875^100, not rare enough. */
	struct s_run r = s_run_of(0, NULL);
	iterable_epoch(r.model, 4, "IndexStream");
	for (int rank = 0; rank < 4; rank++)
		for (int32_t w = 0; w < 2; w++) {
			uint64_t h[25];
			for (uint32_t k = 0; k < 25; k++)
				h[k] = 0x7000 + 4 * k + (uint64_t)rank;
			items_read(r.model, 4, rank, w, h, 25);
		}
	s_finish(&r);
	const struct aw_finding *f = s_get(&r, "iterable-duplicate");
	cr_assert(f);
	s_expect_says(f, "100 repeated items have a source whose whole read "
			 "the same other sources read too (a copy): 0 of "
			 "them read twice by one source, where drawing with "
			 "replacement gives about 50.0");
	s_done(&r);
}

/* Two ranks, one worker each, read the one shard of `size` items `times`
 * times each. */
static struct s_run one_shard(uint32_t size, int times)
{
	struct s_run r = s_run_of(0, NULL);
	iterable_epoch(r.model, 2, "WebDataset");
	for (int rank = 0; rank < 2; rank++) {
		uint64_t h[3 * 40];
		uint32_t count = 0;
		for (int d = 0; d < times; d++)
			count +=
			    draw(h + count, 0, size, (uint32_t)(5 * rank + d));
		items_read(r.model, 2, rank, 0, h, count);
	}
	s_finish(&r);
	return r;
}

Test(checks_trace, resampling_one_shard_on_two_ranks)
{
	/* Resampling from one shard: every draw is that shard, so each rank
	 * reads every item, each worker 3 times. The repeats across the
	 * ranks come with repeats inside each worker at exactly the rate
	 * drawing from a pool of one gives: a resampled stream, not a copy
	 * of one. Nothing is split wrongly (one shard cannot be split among
	 * two ranks): no iterable-duplicate, overlap nor unsharded; the info
	 * says every rank read the whole pool. */
	struct s_run r = one_shard(20, 3);
	cr_expect_eq(s_count(&r.findings, "iterable-duplicate"), 0);
	cr_expect_eq(s_count(&r.findings, "overlap"), 0);
	cr_expect_eq(s_count(&r.findings, "unsharded"), 0);
	const struct aw_finding *f = s_get(&r, "resampled");
	s_expect_says(f, "every rank read all 20 distinct items");
	s_expect_says(f, "20 repeated items have a source whose whole read "
			 "the same other sources read too (a copy): 20 of "
			 "them read twice by one source");
	s_done(&r);
}

Test(checks_trace, one_shard_read_once_by_two_ranks_is_a_copy)
{
	/* Each rank reads the one shard once: its worker never draws again,
	 * and the fingerprints cannot tell this from a replicated stream:
	 * each rank reads the same 30 items, none twice (chance under
	 * drawing with replacement: 2^-30): iterable-duplicate and
	 * unsharded. */
	struct s_run r = one_shard(30, 1);
	cr_expect_eq(s_count(&r.findings, "iterable-duplicate"), 1);
	cr_expect_eq(s_count(&r.findings, "unsharded"), 1);
	cr_expect_eq(s_count(&r.findings, "resampled"), 0);
	s_done(&r);

	/* 10 items: no repeat inside either worker has a chance of 2^-10,
	 * too high to call the ranks copies; 10 shared reads are within the
	 * padding a trace without a sampler chain allows (W*B-1 = 19). */
	r = one_shard(10, 1);
	s_expect_exactly(&r.findings, NULL);
	const struct aw_item_rate *rate =
	    &r.model->loaders_global[0].epochs[0].items->rate;
	cr_expect_eq(rate->verdict, AW_REPEATS_CHANCE);
	cr_expect_float_eq(rate->copied_chance, 1.0 / 1024, 1e-9);
	s_done(&r);
}

Test(checks_trace, few_equal_items_of_a_split_stream_are_chance)
{
	/* A stream split by rank and worker whose data holds 3 items equal
	 * to items of another rank (the same content twice in the data):
	 * the workers that read them read other items too, nothing is a
	 * copy: no iterable-duplicate, no overlap. */
	struct s_run r = iterable_run(50);
	uint64_t h[3] = {0x1000, 0x1001, 0x1002}; /* rank 0 worker 0's */
	s_item_fetch(r.model, 311, 1, 0, 0, 1, h, 3);
	s_finish(&r);
	s_expect_exactly(&r.findings, NULL);
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
	s_expect_says(f, "lower bounds");
	s_expect_says(f, "rank 1 (pid 101): epoch 0 of L0");
	s_expect_says(f, "the last batch it drew: #1, indices [60, 61, 62, "
			 "63, 64, 65, 66, 67, ...] (10 indices)");
	s_expect_says(f, "(rank 1: L0 epoch 0, last batch #1)");
	cr_expect_eq(s_count(&r.findings, "rank-died"), 0, "no exit seen");
	s_done(&r);
}

/* Two nodes: node1's trace stops in epoch 1 (its link to the collector
 * broke), node0 reads on and ends. */
static struct s_run s_node_lost(void)
{
	struct s_run r = s_run_of(0, NULL);
	struct s_loader_opts o = S_BASE_LOADER(0);
	o.sampler = "DistributedSampler";
	o.sampler_replicas = 2;
	s_clock(r.model, 1.0);
	s_process_on(r.model, 100, 1, 0, 2, "rank", "node0");
	s_process_on(r.model, 200, 1, 1, 2, "rank", "node1");
	o.sampler_rank = 0;
	s_loader(r.model, 100, 0, &o);
	o.sampler_rank = 1;
	s_loader(r.model, 200, 0, &o);
	s_reads(r.model, 100, 0, 0, 0, 50, 10, true);
	s_reads(r.model, 200, 0, 0, 50, 100, 10, true);
	s_clock(r.model, 2.0);
	s_reads(r.model, 100, 0, 1, 0, 50, 10, true);
	s_reads(r.model, 200, 0, 1, 50, 70, 10, false);
	s_clock(r.model, 4.0);
	s_reads(r.model, 100, 0, 2, 0, 50, 10, true);
	s_clock(r.model, 6.5);
	return r;
}

Test(checks_trace, a_host_whose_trace_ends_early_is_named)
{
	struct s_run r = s_node_lost();
	s_exit(r.model, 100, 100, 0, -1);
	s_finish(&r);
	const struct aw_finding *f = s_get(&r, "trace-incomplete");
	cr_expect_eq(s_number(f, "hosts_ended_early"), 1);
	s_expect_says(f, "the trace of host node1 ends early");
	s_expect_says(f, "rank 1 on node1: L0 epoch 1");
	s_expect_says(f, "host node1: its trace ends 4.5 s before a "
			 "process of node0 ended");
	cr_expect(!s_says(f, "host node0"), "%s", f->message);
	cr_expect(s_has_rank(f, 1) && !s_has_rank(f, 0));
	cr_expect_eq(s_count(&r.findings, "missing"), 0,
		     "epoch 2 lacks rank 1 because its trace stopped");
	s_done(&r);
}

Test(checks_trace, no_host_named_when_no_host_recorded_an_end)
{
	/* Killed everywhere at once: no end anywhere, no host to blame. */
	struct s_run r = s_node_lost();
	s_finish(&r);
	const struct aw_finding *f = s_get(&r, "trace-incomplete");
	cr_expect_eq(s_number(f, "hosts_ended_early"), 0);
	cr_expect(!s_says(f, "ends early"), "%s", f->message);
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
	s_expect_says(f, "packet 3 is cut short");
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
	s_expect_says(f, "1 process stopped recording after an event "
			 "waited 10000 ms");
	s_expect_says(f, "pid 100: stopped recording at batch 7");
	s_done(&r);
}

/* Two ranks' passes of 8 batches each, of which the trace holds no index
 * (keys that are not integers): no coverage or sharing verdict, said as
 * trace-incomplete. */
Test(checks_trace, batches_without_indices_are_not_judged)
{
	struct s_run r = s_run_of(2, &base);
	for (int rank = 0; rank < 2; rank++) {
		s_iter_begin(r.model, 100 + rank, 0, 0);
		s_iter_end(r.model, 100 + rank, 0, 0, 8, 8, 1);
	}
	const struct aw_finding *f = s_finish_only(&r, "trace-incomplete");
	cr_expect_eq(f->severity, AW_SEVERITY_WARNING);
	cr_expect_eq(s_number(f, "unindexed_passes"), 2);
	s_expect_says(f, "2 passes of L0");
	s_expect_says(f, "not integer indices");
	s_done(&r);
}

/* A process the session daemon did not take in time, and a rank whose
 * share is missing: a warning that says why, never an error. */
Test(checks_trace, unregistered_processes_make_counts_warnings)
{
	struct s_run r = s_run_of(2, &base);
	s_rank_reads(r.model, 0, 0, 0, 25, 5);
	s_rank_reads(r.model, 1, 0, 25, 50, 5);
	r.model->stats.unregistered =
	    calloc(1, sizeof(*r.model->stats.unregistered));
	r.model->stats.unregistered[0] = (struct aw_unregistered_note){
	    .pid = 102, .parent = 1, .waited_ms = 10002};
	r.model->stats.n_unregistered = r.model->stats.unregistered_cap = 1;
	s_finish(&r);
	const struct aw_finding *f = s_get(&r, "trace-incomplete");
	cr_expect_eq(s_number(f, "unregistered_processes"), 1);
	s_expect_says(f, "pid 102 (child of 1): not taken by the session "
			 "daemon within 10002 ms");
	const struct aw_finding *missing = s_get(&r, "missing");
	cr_expect_eq(missing->severity, AW_SEVERITY_WARNING);
	s_expect_says(missing, "ran partly unrecorded");
	s_done(&r);
}
