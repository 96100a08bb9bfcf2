/* SPDX-License-Identifier: MIT */
/* The model on hand-built event streams: batch assembly, consumed vs drawn,
 * ranks and workers, loaders linked across ranks, the runs a report
 * covers. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "accwatch_events.h"
#include "runs.h"
#include "stream.h"

static const struct s_loader_opts plain = {.dataset_len = 100,
					   .batch_size = 10,
					   .drop_last = 0,
					   .num_workers = 0,
					   .sampler_replicas = -1};

static const struct aw_cell *cell_of(const struct aw_model *m, uint32_t loader,
				     uint32_t epoch, int32_t rank)
{
	cr_assert_lt(loader, m->n_loaders_global);
	const struct aw_global_loader *g = &m->loaders_global[loader];
	for (size_t e = 0; e < g->n_epochs; e++) {
		if (g->epochs[e].epoch != epoch)
			continue;
		for (size_t c = 0; c < g->epochs[e].n_cells; c++)
			if (g->epochs[e].cells[c].rank == rank)
				return &g->epochs[e].cells[c];
	}
	cr_assert_fail("no cell for loader %u epoch %u rank %d", loader, epoch,
		       rank);
	return NULL;
}

/* Ranks 0..world-1 (pids 100 + r, under a launcher) with the plain loader
 * 0. */
static struct aw_model *plain_ranks(int world)
{
	struct aw_model *m = aw_model_create();
	s_ranks(m, world, &plain);
	return m;
}

/* Finishes the model: loader 0's epoch 0. */
static const struct aw_epoch *finished_epoch(struct aw_model *m)
{
	aw_model_finish(m);
	cr_assert_gt(m->n_loaders_global, 0);
	cr_assert_gt(m->loaders_global[0].n_epochs, 0);
	return &m->loaders_global[0].epochs[0];
}

/* Finishes the model: rank 0's cell of loader 0's epoch 0. */
static const struct aw_cell *finished_cell(struct aw_model *m)
{
	aw_model_finish(m);
	return cell_of(m, 0, 0, 0);
}

/* The counts of a cell most tests check. */
static void expect_counts(const struct aw_cell *c, uint64_t batches,
			  uint64_t samples, uint64_t unique)
{
	cr_expect_eq(c->batches, batches, "batches");
	cr_expect_eq(c->samples, samples, "samples");
	cr_expect_eq(c->unique, unique, "unique");
}

/* Rank 0 draws `count` batches of loader 0's epoch 0, batch b the 10
 * indices from 10 * b: no iter_begin, no iter_end. */
static void draw_batches(struct aw_model *m, uint32_t count)
{
	for (uint32_t b = 0; b < count; b++) {
		uint32_t batch[10];
		s_range(batch, b * 10, 10, 1);
		s_batch(m, 100, 0, 0, b, 0, 10, batch, 10);
	}
}

/* After the model is finished: how many ranks it counted, of what world. */
static void expect_ranks(const struct aw_model *m, size_t n_ranks,
			 int32_t world_size)
{
	cr_expect_eq(m->n_ranks, n_ranks, "ranks");
	cr_expect_eq(m->world_size, world_size, "world size");
}

Test(model, consumed_is_first_yielded_batches)
{
	struct aw_model *m = plain_ranks(1);
	uint32_t indices[50];
	s_range(indices, 0, 50, 1);
	/* 5 batches yielded, 3 more drawn ahead by workers and never yielded.
	 */
	struct s_epoch e = {.indices = indices,
			    .count = 50,
			    .batch_size = 10,
			    .prefetched = 3,
			    .prefetch_index = 99,
			    .end = true};
	s_epoch(m, 100, 0, 0, &e);
	const struct aw_cell *c = finished_cell(m);
	expect_counts(c, 5, 50, 50);
	cr_expect_eq(c->drawn, 8);
	cr_expect_eq(c->prefetched_samples, 30);
	cr_expect(c->complete);
	cr_expect_eq(m->incomplete_iterations, 0);
	aw_model_destroy(m);
}

Test(model, a_loop_that_ran_to_len_is_exhausted)
{
	/* Lightning's fit loop stops after len(loader) batches without asking
	 * for one more: the epoch is whole. One batch short of len() it is
	 * not. */
	uint32_t indices[50];
	s_range(indices, 0, 50, 1);
	for (uint32_t short_by = 0; short_by < 2; short_by++) {
		struct aw_model *m = plain_ranks(1);
		s_loader_len(m, 100, 0, 5 + short_by);
		struct s_epoch e = {.indices = indices,
				    .count = 50,
				    .batch_size = 10,
				    .end = true,
				    .abandoned = true};
		s_epoch(m, 100, 0, 0, &e);
		const struct aw_cell *c = finished_cell(m);
		cr_expect_eq(c->batches, 5);
		cr_expect_eq(c->exhausted, short_by == 0, "short by %u",
			     short_by);
		aw_model_destroy(m);
	}
}

/* One pass of 7 batches yielded, of which a wrapper reading ahead (accelerate's
 * DataLoaderShard) handed the loop `handed`; exhausted or left. */
static const struct aw_cell *handed_pass(struct aw_model *m, int64_t handed,
					 bool exhausted)
{
	s_iter_begin(m, 100, 0, 0);
	draw_batches(m, 7);
	s_iter_end_handed(m, 100, 0, 0, 7, 7, exhausted, handed);
	return finished_cell(m);
}

Test(model, a_wrapper_reading_ahead_counts_what_the_loop_was_handed)
{
	/* Left after the 6th step: the 7th batch was drawn, not consumed. */
	struct aw_model *m = plain_ranks(1);
	const struct aw_cell *c = handed_pass(m, 6, false);
	expect_counts(c, 6, 60, 60);
	cr_expect(!c->exhausted);
	cr_expect_eq(m->iterations[c->iteration].prefetched_samples, 10);
	aw_model_destroy(m);
	/* The iterator ran out: the wrapper still hands over the batch it
	 * held after the end was seen, all 7 are consumed. */
	m = plain_ranks(1);
	c = handed_pass(m, 6, true);
	expect_counts(c, 7, 70, 70);
	aw_model_destroy(m);
	/* No wrapper counted (-1): what the iterator yielded. */
	m = plain_ranks(1);
	c = handed_pass(m, -1, false);
	expect_counts(c, 7, 70, 70);
	aw_model_destroy(m);
}

/* Rank 0's process (pid 100) reads from 0 to 1000 ns; a second process
 * claiming rank 0 (pid 150, its parent ppid) starts at 2000 ns. */
static struct aw_model *rank_0_then_another(int32_t ppid, bool first_exits)
{
	struct aw_model *m = aw_model_create();
	aw_model_set_clock(m, 0);
	s_process(m, 100, 1, 0, 1, "rank");
	s_loader(m, 100, 0, &plain);
	s_reads(m, 100, 0, 0, 0, 50, 10, true);
	aw_model_set_clock(m, 1000);
	if (first_exits)
		s_exit(m, 100, 100, 0, -1);
	aw_model_set_clock(m, 2000);
	s_process(m, 150, ppid, 0, 1, "rank");
	s_loader(m, 150, 0, &plain);
	s_reads(m, 150, 0, 0, 50, 100, 10, true);
	aw_model_finish(m);
	return m;
}

Test(model, a_rank_started_after_its_rank_ended_is_the_next_attempt)
{
	struct aw_model *m = rank_0_then_another(1, true);
	cr_expect_eq(m->n_attempts, 2);
	cr_expect_eq(m->n_loaders_global, 2);
	aw_model_destroy(m);
	/* Started by rank 0's own process (a helper with the rank's
	 * variables): the same attempt, however late. */
	m = rank_0_then_another(100, false);
	cr_expect_eq(m->n_attempts, 1);
	cr_expect_eq(m->n_loaders_global, 1);
	aw_model_destroy(m);
}

Test(model, an_attempt_that_dies_before_its_first_batch)
{
	/* Rank 0's first process begins a pass and exits with status 1
	 * before drawing a batch; the process started after it reads the
	 * epoch whole: two attempts, the second's epoch complete. */
	struct aw_model *m = aw_model_create();
	aw_model_set_clock(m, 0);
	s_process(m, 100, 1, 0, 1, "rank");
	s_loader(m, 100, 0, &plain);
	s_iter_begin(m, 100, 0, 0);
	aw_model_set_clock(m, 1000);
	s_exit(m, 1, 100, 1, -1);
	aw_model_set_clock(m, 2000);
	s_process(m, 150, 1, 0, 1, "rank");
	s_loader(m, 150, 0, &plain);
	s_reads(m, 150, 0, 0, 0, 100, 10, true);
	aw_model_finish(m);
	cr_expect_eq(m->n_attempts, 2);
	cr_assert_eq(m->n_loaders_global, 2);
	const struct aw_global_loader *second = NULL;
	for (size_t g = 0; g < m->n_loaders_global; g++)
		if (m->loaders_global[g].attempt == 1)
			second = &m->loaders_global[g];
	cr_assert(second);
	cr_assert_eq(second->n_epochs, 1);
	expect_counts(&second->epochs[0].cells[0], 10, 100, 100);
	aw_model_destroy(m);
}

Test(model, yielded_less_than_drawn_beyond_window)
{
	/* A long epoch: batches far behind the newest are folded early; those
	 * near the end wait for iter_end. */
	struct aw_model *m = plain_ranks(1);
	s_iter_begin(m, 100, 0, 0);
	draw_batches(m, 1000);
	s_iter_end(m, 100, 0, 0, 1000, 996, 0);
	const struct aw_cell *c = finished_cell(m);
	expect_counts(c, 996, 9960, 9960);
	cr_expect(!c->exhausted);
	const struct aw_iteration *it = &m->iterations[c->iteration];
	cr_expect_eq(it->over_counted_batches, 0);
	cr_expect_eq(it->prefetched_samples, 40);
	aw_model_destroy(m);
}

Test(model, yielded_far_below_drawn_is_flagged)
{
	struct aw_model *m = plain_ranks(1);
	draw_batches(m, 200);
	s_iter_end(m, 100, 0, 0, 200, 10, 0);
	const struct aw_cell *c = finished_cell(m);
	cr_expect_gt(m->iterations[c->iteration].over_counted_batches, 0);
	cr_expect_eq(c->batches, 10);
	aw_model_destroy(m);
}

Test(model, missing_iter_end_counts_all_drawn)
{
	struct aw_model *m = plain_ranks(1);
	s_rank_reads_cut(m, 0, 0, 0, 35, 10);
	const struct aw_cell *c = finished_cell(m);
	cr_expect_eq(c->batches, 4);
	cr_expect_eq(c->samples, 35);
	cr_expect(!c->complete);
	cr_expect(!c->exhausted);
	cr_expect_eq(m->incomplete_iterations, 1);
	aw_model_destroy(m);
}

Test(model, last_batch_drawn_is_kept_for_an_open_pass)
{
	struct aw_model *m = plain_ranks(1);
	s_rank_reads_cut(m, 0, 0, 50, 85, 10);
	/* A late chunk of an older batch does not replace the newest. */
	uint32_t late[10];
	s_range(late, 50, 10, 1);
	s_batch(m, 100, 0, 0, 1, 0, 10, late, 10);
	aw_model_finish(m);
	const struct aw_iteration *it = &m->iterations[0];
	cr_assert(it->last_drawn.any);
	cr_expect_eq(it->last_drawn.ordinal, 3);
	cr_expect_eq(it->last_drawn.total, 5);
	cr_expect_eq(it->last_drawn.n, 5);
	cr_expect_eq(it->last_drawn.head[0], 80);
	char text[128];
	aw_index_head_format(&it->last_drawn, text, sizeof(text));
	cr_expect_str_eq(text, "[80, 81, 82, 83, 84]");
	aw_model_destroy(m);
}

Test(model, index_head_quotes_long_and_unknown_batches)
{
	struct aw_index_head h;
	struct aw_event_chunk first = {.offset = 0, .total = 20};
	struct aw_event_chunk rest = {.offset = 10, .total = 20};
	uint32_t idx[10];
	char text[128];
	s_range(idx, 100, 10, 2);
	aw_index_head_start(&h, 4);
	aw_index_head_add(&h, &rest, idx, NULL, 10);
	aw_index_head_format(&h, text, sizeof(text));
	cr_expect_str_eq(text, "[?]", "the first chunk was lost");
	aw_index_head_add(&h, &first, idx, NULL, 10);
	aw_index_head_format(&h, text, sizeof(text));
	cr_expect_str_eq(
	    text, "[100, 102, 104, 106, 108, 110, 112, 114, ...] (20 indices)");
	int64_t wide[2] = {-1, 1ll << 40};
	struct aw_event_chunk two = {.offset = 0, .total = 2};
	aw_index_head_start(&h, 5);
	aw_index_head_add(&h, &two, NULL, wide, 2);
	aw_index_head_format(&h, text, sizeof(text));
	cr_expect_str_eq(text, "[-1, 1099511627776]");
	aw_index_head_format(&h, text, 6);
	cr_expect_eq(strlen(text), 5, "cut to the buffer");
}

/* A worker's fetches: the newest is open until an end comes; chunks of
 * one fetch continue it; a persistent worker's next epoch starts anew. */
Test(model, worker_fetch_ends_close_the_last_fetch)
{
	struct aw_model *m = plain_ranks(1);
	s_process(m, 200, 100, 0, 1, "worker");
	s_worker(m, 200, 0, 0, 0);
	uint32_t idx[12];
	s_range(idx, 40, 12, 1);
	s_clock(m, 1.0);
	struct aw_event e = s_event(AW_EVENT_WORKER_FETCH, 200);
	e.u.chunk = (struct aw_event_chunk){.worker_id = 0, .total = 12};
	e.values.u32 = idx;
	e.count = 8;
	aw_model_add_event(m, &e);
	s_clock(m, 1.5);
	e.u.chunk.offset = 8;
	e.values.u32 = idx + 8;
	e.count = 4;
	aw_model_add_event(m, &e);
	const struct aw_process *w = &m->processes[2];
	cr_assert_eq(w->pid, 200);
	cr_expect(w->fetch_open);
	cr_expect_eq(w->last_fetch.total, 12);
	cr_expect_eq(w->last_fetch.n, 8);
	cr_expect_eq(w->last_fetch.head[7], 47);
	cr_expect_eq(w->fetch_start_ns, 1000000000, "the first chunk's time");
	cr_expect_eq(w->last_fetch_ok, -1);
	s_worker_fetch_end(m, 200, 0, 0, 0, 0, true);
	cr_expect(!w->fetch_open);
	cr_expect_eq(w->last_fetch_ok, 1);

	/* Next epoch of a persistent worker: fetch #0 again, a new fetch. */
	int64_t wide[2] = {-3, 7};
	e.kind = AW_EVENT_WORKER_FETCH_WIDE;
	e.u.chunk =
	    (struct aw_event_chunk){.worker_id = 0, .iteration = 1, .total = 2};
	e.values.i64 = wide;
	e.count = 2;
	s_clock(m, 2.0);
	aw_model_add_event(m, &e);
	cr_expect(w->fetch_open);
	cr_expect_eq(w->last_fetch_iteration, 1);
	cr_expect_eq(w->last_fetch.head[0], -3);
	cr_expect_eq(w->fetch_start_ns, 2000000000);
	s_worker_fetch_end(m, 200, 0, 0, 1, 0, false);
	cr_expect_eq(w->last_fetch_ok, 0, "it raised");

	/* An end whose start was lost still closes: one fetch at a time. */
	s_worker_fetch(m, 200, 0, 0, 1, 1, idx, 4);
	s_worker_fetch_end(m, 200, 0, 0, 1, 2, true);
	cr_expect(!w->fetch_open);
	cr_expect_eq(w->last_fetch_ok, -1, "not this fetch's end");
	cr_expect(aw_model_knows_fetch_ends(m));
	aw_model_destroy(m);
}

Test(model, chunked_batches_concatenate_by_offset)
{
	struct aw_model *m = plain_ranks(1);
	const uint32_t a[] = {0, 1, 2, 3}, b[] = {4, 5, 6}, c[] = {7, 8, 9};
	/* Batch 0 in three chunks, the middle one last. */
	s_batch(m, 100, 0, 0, 0, 0, 10, a, 4);
	s_batch(m, 100, 0, 0, 0, 7, 10, c, 3);
	s_batch(m, 100, 0, 0, 0, 4, 10, b, 3);
	/* Batch 1 in two chunks, one of them wide. */
	const int64_t wide[] = {10, 11, 12};
	const uint32_t rest[] = {13, 14};
	s_batch_wide(m, 100, 0, 0, 1, 0, 5, wide, 3);
	s_batch(m, 100, 0, 0, 1, 3, 5, rest, 2);
	s_iter_end(m, 100, 0, 0, 2, 2, 1);
	const struct aw_cell *cell = finished_cell(m);
	expect_counts(cell, 2, 15, 15);
	cr_expect_eq(cell->lost_samples, 0);
	cr_expect_eq(cell->max_batch_len, 10);
	aw_model_destroy(m);
}

Test(model, lost_chunk_and_bad_chunks)
{
	struct aw_model *m = plain_ranks(1);
	const uint32_t a[] = {0, 1, 2, 3};
	s_batch(m, 100, 0, 0, 0, 0, 8, a,
		4); /* the chunk at offset 4 never comes */
	s_batch(m, 100, 0, 0, 1, 0, 4, a, 4);
	s_batch(m, 100, 0, 0, 1, 2, 4, a, 4); /* runs past its batch's end */
	s_batch(m, 100, 0, 0, 2, 0, 0xffffffffu, a, 4); /* absurd total */
	s_batch(m, 100, 0, 0, 3, 0, 2, a, 4); /* longer than its total: kept */
	s_iter_end(m, 100, 0, 0, 4, 4, 1);
	const struct aw_cell *cell = finished_cell(m);
	cr_expect_eq(cell->lost_samples, 4);
	cr_expect_eq(m->iterations[cell->iteration].bad_chunks, 1);
	cr_expect_eq(cell->samples, 16);
	cr_expect_eq(cell->unique, 4);
	aw_model_destroy(m);
}

Test(model, unknown_batch_ordinal_and_late_chunks)
{
	struct aw_model *m = plain_ranks(1);
	const uint32_t a[] = {0, 1}, b[] = {2, 3};
	s_batch(m, 100, 0, 0, ACCWATCH_UNKNOWN, 0, 4, a, 2);
	s_batch(m, 100, 0, 0, ACCWATCH_UNKNOWN, 2, 4, b, 2);
	s_batch(m, 100, 0, 0, ACCWATCH_UNKNOWN, 0, 2, b, 2);
	s_iter_end(m, 100, 0, 0, 2, 2, 1);
	/* After iter_end: not consumed by anything. */
	s_batch(m, 100, 0, 0, 5, 0, 2, a, 2);
	const struct aw_cell *cell = finished_cell(m);
	cr_expect_eq(cell->samples, 6);
	cr_expect_eq(cell->unique, 4);
	aw_model_destroy(m);
}

Test(model, empty_epoch)
{
	struct aw_model *m = plain_ranks(2);
	for (int r = 0; r < 2; r++) {
		s_iter_begin(m, 100 + r, 0, 0);
		s_iter_end(m, 100 + r, 0, 0, 0, 0, 1);
	}
	const struct aw_epoch *e = finished_epoch(m);
	cr_expect_eq(e->n_cells, 2);
	cr_expect_eq(e->union_count, 0);
	cr_expect_eq(e->missing, 100);
	cr_expect_eq(cell_of(m, 0, 0, 1)->batches, 0);
	aw_model_destroy(m);
}

Test(model, indices_out_of_range_do_not_crash)
{
	struct aw_model *m = plain_ranks(1);
	const uint32_t a[] = {5, 150, UINT32_MAX};
	const int64_t w[] = {-1, 7, (int64_t)1 << 40};
	s_batch(m, 100, 0, 0, 0, 0, 3, a, 3);
	s_batch_wide(m, 100, 0, 0, 1, 0, 3, w, 3);
	s_iter_end(m, 100, 0, 0, 2, 2, 1);
	const struct aw_epoch *e = finished_epoch(m);
	cr_expect_eq(e->union_in_range, 2);
	/* 150, 2^32-1 and 2^40 are kept, beyond the dataset; -1 is not. */
	cr_expect_eq(e->out_of_range, 3);
	cr_expect_eq(m->index_out_of_range, 3);
	cr_expect_eq(m->index_unrepresentable, 1);
	cr_expect_eq(e->missing, 98);
	aw_model_destroy(m);
}

Test(model, workers_inherit_rank)
{
	struct aw_model *m = plain_ranks(2);
	s_process(m, 200, 100, -1, -1,
		  ""); /* child of rank 0: a worker by ancestry */
	s_process(m, 201, 101, 1, 2, "worker"); /* says so */
	s_process(m, 202, 200, -1, -1, "");     /* grandchild of rank 0 */
	s_worker_start(m, 203, 0); /* no process event, but worker_start */
	aw_model_finish(m);
	for (size_t i = 0; i < m->n_processes; i++) {
		const struct aw_process *p = &m->processes[i];
		if (p->pid == 200 || p->pid == 202) {
			cr_expect(p->is_worker, "pid %d", p->pid);
			cr_expect_eq(p->rank, 0, "pid %d", p->pid);
		} else if (p->pid == 201) {
			cr_expect(p->is_worker);
			cr_expect_eq(p->rank, 1);
		} else if (p->pid == 203) {
			cr_expect(p->is_worker);
		} else {
			cr_expect(!p->is_worker, "pid %d", p->pid);
		}
	}
	expect_ranks(m, 2, 2);
	aw_model_destroy(m);
}

/* Processes without a rank variable that each join the process group:
 * process i (pid 100 + i) says rank dist_rank[i]. */
struct dist_case {
	size_t n;
	int32_t parent_of_others; /* process 0's parent is 1 */
	int32_t dist_rank[4];
};

/* The ranks are the process group's, none inferred, and no process is a
 * worker, whoever its parent. */
static void expect_dist_ranks(const struct dist_case *c)
{
	struct aw_model *m = aw_model_create();
	for (size_t i = 0; i < c->n; i++)
		s_process(m, 100 + (int32_t)i, i ? c->parent_of_others : 1, -1,
			  -1, "other");
	for (size_t i = 0; i < c->n; i++)
		s_dist_init(m, 100 + (int32_t)i, c->dist_rank[i],
			    (int32_t)c->n);
	aw_model_finish(m);
	cr_assert_eq(m->n_processes, c->n);
	for (size_t i = 0; i < c->n; i++) {
		const struct aw_process *p = &m->processes[i];
		cr_expect(!p->is_worker, "pid %d", p->pid);
		cr_expect_eq(p->rank, c->dist_rank[i], "pid %d", p->pid);
	}
	cr_expect(!m->ranks_inferred);
	expect_ranks(m, c->n, (int32_t)c->n);
	aw_model_destroy(m);
}

Test(model, dist_init_rank_wins)
{
	expect_dist_ranks(&(struct dist_case){
	    .n = 2, .parent_of_others = 1, .dist_rank = {1, 0}});
}

Test(model, ranks_started_by_rank_0_are_ranks)
{
	/* Lightning's launcher: rank 0 (no rank variable) starts ranks 1-3 as
	 * its children; each joins the process group. None is a worker. */
	expect_dist_ranks(&(struct dist_case){
	    .n = 4, .parent_of_others = 100, .dist_rank = {0, 1, 2, 3}});
}

/* torchrun --nproc-per-node 1 gives pid 100 RANK=0; it runs mp.spawn,
 * whose children (role "other", RANK=0 inherited) iterate without joining
 * a process group. With `sampler_ranks`, child i's DistributedSampler is
 * given rank 1 - i. */
static struct aw_model *spawned_below_a_rank(bool sampler_ranks)
{
	struct aw_model *m = aw_model_create();
	s_process(m, 100, 1, 0, 1, "rank");
	for (int i = 0; i < 2; i++) {
		int32_t pid = 300 - 50 * i; /* pid order is not spawn order */
		struct s_loader_opts o = plain;
		if (sampler_ranks) {
			o.sampler_replicas = 2;
			o.sampler_rank = 1 - i;
		}
		s_process(m, pid, 100, 0, 1, "other");
		s_loader(m, pid, 0, &o);
		s_reads(m, pid, 0, 0, (uint32_t)i * 5, (uint32_t)i * 5 + 5, 5,
			true);
	}
	aw_model_finish(m);
	return m;
}

Test(model, ranks_spawned_below_a_rank_carrying_launcher_are_ranks)
{
	struct aw_model *m = spawned_below_a_rank(true);
	const struct aw_process *launcher = s_process_of(m, 100);
	cr_expect(!launcher->is_worker);
	cr_expect_eq(launcher->rank, -1, "it started the ranks: a launcher");
	for (int i = 0; i < 2; i++) {
		const struct aw_process *p = s_process_of(m, 300 - 50 * i);
		cr_expect(!p->is_worker, "pid %d said other", p->pid);
		cr_expect_eq(p->rank, 1 - i, "its sampler's rank, pid %d",
			     p->pid);
	}
	cr_expect(m->ranks_inferred && m->ranks_from_samplers);
	expect_ranks(m, 2, 2);
	aw_model_destroy(m);

	m = spawned_below_a_rank(false);
	cr_expect_eq(s_process_of(m, 250)->rank, 0, "pid order");
	cr_expect_eq(s_process_of(m, 300)->rank, 1, "pid order");
	cr_expect(m->ranks_inferred && !m->ranks_from_samplers);
	aw_model_destroy(m);
}

Test(model, a_rank_that_never_read_is_still_a_rank)
{
	/* Its launcher gave it rank 1; it died before it read a batch. */
	struct aw_model *m = plain_ranks(1);
	s_process(m, 101, 99, 1, 2, "rank");
	aw_model_finish(m);
	cr_expect_eq(s_process_of(m, 101)->rank, 1);
	expect_ranks(m, 2, 2);
	aw_model_destroy(m);
}

Test(model, ranks_inferred_in_pid_order)
{
	struct aw_model *m = aw_model_create();
	/* No rank anywhere: plain python, two processes that iterate. */
	s_process(m, 300, 1, -1, -1, "other");
	s_process(m, 250, 1, -1, -1, "other");
	s_process(m, 260, 1, -1, -1, "other"); /* does not iterate */
	s_loader(m, 300, 0, &plain);
	s_loader(m, 250, 0, &plain);
	s_reads(m, 300, 0, 0, 0, 10, 5, true);
	s_reads(m, 250, 0, 0, 0, 10, 5, true);
	aw_model_finish(m);
	cr_expect(m->ranks_inferred);
	cr_expect_eq(m->n_ranks, 2);
	cr_expect_eq(cell_of(m, 0, 0, 0)->pid, 250);
	cr_expect_eq(cell_of(m, 0, 0, 1)->pid, 300);
	aw_model_destroy(m);
}

Test(model, loaders_linked_by_site_and_order)
{
	struct aw_model *m = aw_model_create();
	struct s_loader_opts a = plain, b = plain;
	a.site = "train.py:10";
	b.site = "train.py:30";
	b.dataset_len = 7;
	for (int r = 1; r >= 0;
	     r--) { /* rank 1 first: ids by first appearance */
		s_process(m, 100 + r, 99, r, 2, "rank");
		s_loader(m, 100 + r, 0, &a);
		s_loader(m, 100 + r, 1, &b);
		s_loader(m, 100 + r, 2, &a);
		s_loader_len(m, 100 + r, 1, 4);
		s_loader_len(m, 100 + r, 1, 4);
		s_loader_len(m, 100 + r, 1, 2 + r);
	}
	aw_model_finish(m);
	cr_assert_eq(m->n_loaders_global, 3);
	cr_expect_str_eq(m->loaders_global[0].id, "L0");
	cr_expect_str_eq(m->loaders_global[0].site, "train.py:10");
	cr_expect_eq(m->loaders_global[0].site_ordinal, 0);
	cr_expect_str_eq(m->loaders_global[1].site, "train.py:30");
	cr_expect_str_eq(m->loaders_global[2].site, "train.py:10");
	cr_expect_eq(m->loaders_global[2].site_ordinal, 1);
	for (size_t g = 0; g < 3; g++) {
		cr_expect_eq(m->loaders_global[g].n_members, 2);
		/* Described by rank 0's object. */
		const struct aw_loader *d =
		    aw_model_describe(m, &m->loaders_global[g]);
		cr_expect_eq(m->processes[d->process].rank, 0);
	}
	const struct aw_global_loader *l1 = &m->loaders_global[1];
	cr_assert_eq(l1->n_len_reported, 3);
	cr_expect_eq(l1->len_reported[0], 4);
	cr_expect_eq(l1->len_reported[1], 3);
	cr_expect_eq(l1->len_reported[2], 2);
	cr_expect_eq(aw_model_describe(m, l1)->len_calls[0].count, 2);
	aw_model_destroy(m);
}

/* A program that builds a new DataLoader every epoch around one sampler
 * (DeepSpeed's loader does, on each iter()): per rank, loader objects 0-2
 * at train.py:10 around sampler object 7, each over a dataset object of
 * its own, one pass each; and loader 3 at train.py:40 around the same
 * sampler (an eval over the training order), built and read once. */
Test(model, dataloaders_built_each_epoch_around_one_sampler_are_one_loader)
{
	struct aw_model *m = aw_model_create();
	struct s_loader_opts o = plain, eval = plain;
	eval.site = "train.py:40";
	for (int r = 0; r < 2; r++) {
		int32_t pid = 100 + r;
		s_process(m, pid, 99, r, 2, "rank");
		for (uint32_t e = 0; e < 3; e++) {
			o.dataset_id = 50 + e;
			s_loader_around(m, pid, e, &o, 7);
			s_reads(m, pid, e, 0, 10 * e + 5 * (uint32_t)r,
				10 * e + 5 * (uint32_t)r + 5, 5, true);
		}
		s_loader_around(m, pid, 3, &eval, 7);
		s_reads(m, pid, 3, 0, 0, 10, 5, true);
	}
	aw_model_finish(m);
	cr_assert_eq(m->n_loaders_global, 2);
	const struct aw_global_loader *g = &m->loaders_global[0];
	cr_expect_str_eq(g->site, "train.py:10");
	cr_expect_eq(g->site_ordinal, 0);
	cr_expect_eq(g->n_members, 6);
	cr_assert_eq(g->n_epochs, 3);
	for (uint32_t e = 0; e < 3; e++) {
		cr_expect_eq(g->epochs[e].epoch, e);
		for (int r = 0; r < 2; r++) {
			const struct aw_cell *c = cell_of(m, 0, e, r);
			cr_expect_eq(c->samples, 5);
			cr_expect_eq(c->n_iterations, 1);
		}
		cr_expect_eq(g->epochs[e].union_count, 10);
	}
	uint32_t third = s_loader_of(m, 101, 2);
	cr_expect_eq(aw_model_epoch(m, third, 0), 2);
	cr_expect_eq(m->loaders[third].stream_head, s_loader_of(m, 101, 0));
	cr_expect_eq(m->iterations[m->loaders[third].last_iteration].epoch, 2);
	/* Another site is another data path, whatever sampler it shares. */
	const struct aw_global_loader *other = &m->loaders_global[1];
	cr_expect_str_eq(other->site, "train.py:40");
	cr_expect_eq(other->site_ordinal, 0);
	cr_expect_eq(other->n_epochs, 1);
	aw_model_destroy(m);
}

/* Without a sampler object of the program's, loader objects built at one
 * site over the same dataset object continue each other: per rank, loaders
 * 0-2 over dataset 42 (a stream of 3 epochs), loader 3 over dataset 43
 * (another stream), loader 4 over it never read (a loader of its own, not
 * in the way), loader 5 over it (the second epoch of loader 3's stream). */
Test(model, without_a_shared_sampler_the_same_dataset_at_one_site_continues)
{
	struct aw_model *m = aw_model_create();
	struct s_loader_opts o = plain;
	s_process(m, 100, 99, 0, 1, "rank");
	for (uint32_t id = 0; id < 6; id++) {
		o.dataset_id = id < 3 ? 42 : 43;
		s_loader_around(m, 100, id, &o, 0);
		if (id != 4)
			s_reads(m, 100, id, 0, 0, 10, 5, true);
	}
	aw_model_finish(m);
	cr_assert_eq(m->n_loaders_global, 3);
	uint32_t epochs[3] = {3, 2, 0};
	for (uint32_t g = 0; g < 3; g++) {
		cr_expect_eq(m->loaders_global[g].site_ordinal, g);
		cr_expect_eq(m->loaders_global[g].n_epochs, epochs[g],
			     "L%u: %zu epochs", g,
			     m->loaders_global[g].n_epochs);
	}
	cr_expect_eq(m->loaders[s_loader_of(m, 100, 5)].global, 1);
	cr_expect_eq(aw_model_epoch(m, s_loader_of(m, 100, 5), 0), 1);
	aw_model_destroy(m);
}

/* Loader objects a program keeps side by side stay apart: a train and an
 * eval loader over one dataset built by one helper (one site) and read in
 * turn every epoch; and, built anew every epoch, a shuffling train loader
 * and a sequential eval loader (samplers of another kind). */
Test(model, loaders_read_in_turn_or_of_another_kind_stay_apart)
{
	struct aw_model *m = aw_model_create();
	s_process(m, 100, 99, 0, 1, "rank");
	struct s_loader_opts o = plain;
	s_loader_around(m, 100, 0, &o, 0);
	s_loader_around(m, 100, 1, &o, 0);
	for (uint32_t e = 0; e < 2; e++) {
		s_reads(m, 100, 0, e, 0, 10, 5, true);
		s_reads(m, 100, 1, e, 0, 10, 5, true);
	}
	o.site = "train.py:20";
	for (uint32_t e = 0; e < 2; e++) {
		o.sampler = "RandomSampler";
		s_loader_around(m, 100, 2 + 2 * e, &o, 0);
		s_reads(m, 100, 2 + 2 * e, 0, 0, 10, 5, true);
		o.sampler = "SequentialSampler";
		s_loader_around(m, 100, 3 + 2 * e, &o, 0);
		s_reads(m, 100, 3 + 2 * e, 0, 0, 10, 5, true);
	}
	aw_model_finish(m);
	cr_assert_eq(m->n_loaders_global, 6);
	for (size_t g = 0; g < m->n_loaders_global; g++) {
		const struct aw_global_loader *gl = &m->loaders_global[g];
		cr_expect_eq(gl->n_epochs, g < 2 ? 2 : 1, "%s: %zu epochs",
			     gl->id, gl->n_epochs);
		cr_expect_eq(gl->site_ordinal, g < 2 ? g : g - 2);
	}
	aw_model_destroy(m);
}

Test(model, two_processes_of_one_rank_add_up)
{
	struct aw_model *m = aw_model_create();
	s_process(m, 100, 1, 0, 1, "rank");
	s_process(m, 150, 1, 0, 1, "rank"); /* restarted rank 0 */
	s_loader(m, 100, 0, &plain);
	s_loader(m, 150, 0, &plain);
	s_reads(m, 100, 0, 0, 0, 10, 5, true);
	s_reads(m, 150, 0, 0, 10, 20, 5, true);
	const struct aw_cell *c = finished_cell(m);
	cr_expect_eq(c->n_iterations, 2);
	expect_counts(c, 4, 20, 20);
	aw_model_destroy(m);
}

Test(model, exit_and_fork_events)
{
	struct aw_model *m = aw_model_create();
	s_process(m, 100, 1, 0, 1, "rank");
	struct aw_event f = s_event(AW_EVENT_FORK, 100);
	f.u.fork = (struct aw_event_fork){.child_pid = 300,
					  .threads = 4,
					  .cuda_mapped = 1,
					  .thread_names = "python,pin_memory",
					  .py_stack = "x",
					  .native_stack = ""};
	aw_model_add_event(m, &f);
	s_exit(m, 300, 300, -1, 9);
	aw_model_finish(m);
	cr_assert_eq(m->n_forks, 1);
	cr_expect_eq(m->forks[0].threads, 4);
	const struct aw_process *child = &m->processes[1];
	cr_expect_eq(child->pid, 300);
	cr_expect(child->exited);
	cr_expect_eq(child->exit_signal, 9);
	cr_expect_eq(child->parent,
		     0); /* from the fork: its process event was lost */
	cr_expect(child->is_worker);
	cr_expect_eq(child->rank, 0);
	aw_model_destroy(m);
}

Test(model, an_exception_is_kept_with_the_passes_it_left_open)
{
	/* Loader 0's pass ended before the exception, loader 1's was still
	 * open (the traceback kept its iterator): only that one is marked. */
	struct aw_model *m = aw_model_create();
	s_process(m, 100, 1, 0, 1, "rank");
	s_loader(m, 100, 0, &plain);
	s_loader(m, 100, 1, &plain);
	s_reads(m, 100, 0, 0, 0, 20, 10, true);
	s_reads(m, 100, 1, 0, 0, 20, 10, false);
	s_exception(m, 100, "OSError", "first", "");
	s_exception(m, 100, "ValueError", "bad sample", "/src/data.py:7");
	s_iter_end(m, 100, 1, 0, 2, 2, false);
	aw_model_finish(m);
	const struct aw_process *p = s_process_of(m, 100);
	cr_expect_str_eq(p->exception_type, "ValueError");
	cr_expect_str_eq(p->exception_message, "bad sample");
	cr_expect_str_eq(p->exception_site, "/src/data.py:7");
	cr_assert_eq(m->n_iterations, 2);
	cr_expect(!m->iterations[0].open_at_exception);
	cr_expect(m->iterations[1].open_at_exception);
	cr_expect(m->iterations[1].ended);
	aw_model_destroy(m);
}

Test(model, garbage_events_do_not_crash)
{
	struct aw_model *m = aw_model_create();
	struct aw_event e;
	memset(&e, 0, sizeof(e));
	e.kind = AW_EVENT_KIND_COUNT;
	aw_model_add_event(m, &e);
	e.kind = AW_EVENT_BATCH;
	e.count = 5; /* but no values */
	aw_model_add_event(m, &e);
	e.kind = AW_EVENT_ITER_END;
	e.count = 0;
	e.u.iter_end.loader = ACCWATCH_UNKNOWN;
	e.u.iter_end.iteration = ACCWATCH_UNKNOWN;
	aw_model_add_event(m, &e);
	aw_model_finish(m);
	aw_model_finish(m); /* twice is harmless */
	cr_expect_eq(m->bad_events, 2);
	aw_model_destroy(m);
}

Test(model, equal_pids_on_two_hosts_stay_apart)
{
	/* Two nodes of one run, containers with the same pids: rank 0 on the
	 * first host (source 0), rank 1 on the second (source 1). */
	struct aw_model *m = aw_model_create();
	for (uint32_t host = 0; host < 2; host++) {
		struct aw_event e = s_event(AW_EVENT_PROCESS, 100);
		e.source = host;
		e.u.process = (struct aw_event_process){.ppid = 1,
							.rank = (int32_t)host,
							.world_size = 2,
							.role = "rank"};
		aw_model_add_event(m, &e);
		e.kind = AW_EVENT_PROCESS;
		e.pid = 200;
		e.u.process = (struct aw_event_process){.ppid = 100,
							.rank = -1,
							.world_size = -1,
							.role = "worker"};
		aw_model_add_event(m, &e);
	}
	aw_model_finish(m);
	cr_assert_eq(m->n_processes, 4);
	cr_expect_eq(m->n_ranks, 2);
	for (size_t i = 0; i < 4; i++)
		if (m->processes[i].pid == 200)
			cr_expect_eq(m->processes[i].rank,
				     (int32_t)m->processes[i].source);
	aw_model_destroy(m);
}

/* --- runs ------------------------------------------------------------------
 */

/* A (trace directory, run) pair the reader met. */
struct trace_run {
	const char *trace;
	uint32_t run;
};

/* A model told of the pairs, the list ended by a NULL trace. */
static struct aw_model *model_of_trace_runs(const struct trace_run *pairs)
{
	struct aw_model *m = aw_model_create();
	for (; pairs->trace; pairs++)
		aw_model_note_trace_run(m, pairs->trace, pairs->run);
	return m;
}

#define TRACE_RUNS(...)                                                        \
	model_of_trace_runs((const struct trace_run[]){__VA_ARGS__, {NULL, 0}})

static enum aw_runs_status check_runs(struct aw_model *m, char *error)
{
	error[0] = '\0';
	return aw_runs_check(m, error, 512);
}

Test(runs, run_filter_leaves_other_runs_out)
{
	struct aw_model *m = aw_model_create();
	struct aw_run_choice runs = {.n_ids = 1, .ids = {7}}; /* stream.c's */
	aw_model_take_runs(m, &runs);
	s_ranks(m, 2, &plain);
	s_rank_reads(m, 0, 0, 0, 50, 10);
	struct aw_event e = s_event(AW_EVENT_ITER_BEGIN, 100);
	e.run = 8; /* the same pid in another run: another program */
	aw_model_add_event(m, &e);
	cr_expect_eq(m->stats.other_run_events, 1);
	cr_expect_eq(m->stats.by_kind[AW_EVENT_ITER_BEGIN], 1);
	aw_model_finish(m);
	cr_expect_eq(m->n_runs, 1);
	cr_expect_eq(m->runs[0], 7);
	aw_model_destroy(m);
}

Test(runs, a_trace_of_several_runs_needs_run)
{
	char error[512];
	struct aw_model *m = TRACE_RUNS(
	    {"/t/a/ust/uid/0/64-bit", 11}, {"/t/a/ust/uid/0/64-bit", 22},
	    {"/t/a/ust/uid/0/64-bit", 11}, {"/t/b", 33});
	cr_expect_eq(m->stats.n_trace_runs, 3, "each pair once");
	cr_expect_eq(check_runs(m, error), AW_RUNS_MIXED);
	cr_expect(strstr(error, "the trace in /t/a/ust/uid/0/64-bit holds 2 "
				"runs (11, 22)"),
		  "%s", error);
	cr_expect(strstr(error, "pass --run ID"), "%s", error);
	cr_expect_null(strchr(error, '\n'), "one line");

	m->runs_taken.n_ids = 1;
	m->runs_taken.ids[0] = 22;
	cr_expect_eq(check_runs(m, error), AW_RUNS_OK);
	m->runs_taken.ids[0] = 44;
	cr_expect_eq(check_runs(m, error), AW_RUNS_NOT_FOUND);
	cr_expect(strstr(error, "no run 44 in /t/a/ust/uid/0/64-bit and 1 "
				"other trace (it holds runs 11, 22, 33)"),
		  "%s", error);
	m->runs_taken.n_ids = 0;
	m->runs_taken.all = true;
	cr_expect_eq(check_runs(m, error), AW_RUNS_OK);
	aw_model_destroy(m);
}

Test(runs, runs_of_several_traces_are_reported_apart_and_run_0_counts)
{
	char error[512];
	/* One trace per node, the nodes of one job: one run id. */
	struct aw_model *m = TRACE_RUNS({"/t/node0", 11}, {"/t/node1", 11});
	cr_expect_eq(check_runs(m, error), AW_RUNS_OK, "%s", error);
	aw_model_destroy(m);

	/* Two recordings of their own: one is chosen, or all. */
	m = TRACE_RUNS({"/t/node0", 11}, {"/t/node1", 22});
	cr_expect_eq(check_runs(m, error), AW_RUNS_MIXED);
	cr_expect(strstr(error, "2 runs, each a recording of its own (run 11 "
				"in /t/node0, run 22 in /t/node1)"),
		  "%s", error);
	cr_expect(strstr(error, "--run ID"), "%s", error);
	m->runs_taken.all = true;
	cr_expect_eq(check_runs(m, error), AW_RUNS_OK, "%s", error);
	aw_model_destroy(m);

	/* A session of one's own (run 0) that also caught an accwatch-run. */
	m = TRACE_RUNS({"/t/mine", 0}, {"/t/mine", 5});
	cr_expect_eq(check_runs(m, error), AW_RUNS_MIXED);
	cr_expect(strstr(error, "2 runs (0, 5)"), "%s", error);
	aw_model_destroy(m);
}

/* --- index maps -------------------------------------------------------------
 */

Test(mapping, levels_compose_and_unknown_entries_stay_unknown)
{
	struct aw_model *m = aw_model_create();
	s_process(m, 100, 1, 0, 1, "rank");
	s_loader(m, 100, 0, &plain);
	/* Subset(Subset(base of 100, 10..29), evens): 10 positions. */
	uint32_t outer[10], inner[20];
	s_range(outer, 0, 10, 2);
	s_range(inner, 10, 20, 1);
	s_dataset_map(m, 100, 0, 0, 20, outer, 10, 0, 6);
	s_dataset_map(m, 100, 0, 0, 20, outer + 6, 10, 6, 4);
	s_dataset_map(m, 100, 0, 1, 100, inner, 20, 0, 20);
	const struct aw_mapping *map = m->loaders[0].mapping;
	cr_assert(map);
	cr_expect_eq(map->n_levels, 2);
	cr_expect_eq(aw_mapping_apply(map, 0), 10);
	cr_expect_eq(aw_mapping_apply(map, 9), 28);
	cr_expect_eq(aw_mapping_apply(map, 10), AW_UNMAPPED, "past the map");
	cr_expect_eq(aw_mapping_base_len(map), 100);
	/* A part claiming an absurd length is not believed, and said. */
	s_dataset_map(m, 100, 0, 2, 1, outer, UINT32_MAX, 0, 1);
	cr_expect_eq(map->n_levels, 2);
	cr_expect_eq(m->mapping_parts_left_out, 1);
	aw_model_destroy(m);
}

Test(mapping, two_maps_share_their_innermost_levels_alike)
{
	/* Two loaders: Subset(P, evens) and Subset(P, odds) over the same
	 * P = Subset(base of 100, 10..29); a third over another P. */
	struct aw_model *m = aw_model_create();
	s_process(m, 100, 1, 0, 1, "rank");
	for (uint32_t l = 0; l < 3; l++)
		s_loader(m, 100, l, &plain);
	uint32_t evens[10], odds[10], inner[20], other[20];
	s_range(evens, 0, 10, 2);
	s_range(odds, 1, 10, 2);
	s_range(inner, 10, 20, 1);
	s_range(other, 50, 20, 1);
	s_dataset_map(m, 100, 0, 0, 20, evens, 10, 0, 10);
	s_dataset_map(m, 100, 0, 1, 100, inner, 20, 0, 20);
	s_dataset_map(m, 100, 1, 0, 20, odds, 10, 0, 10);
	s_dataset_map(m, 100, 1, 1, 100, inner, 20, 0, 20);
	s_dataset_map(m, 100, 2, 0, 20, odds, 10, 0, 10);
	s_dataset_map(m, 100, 2, 1, 100, other, 20, 0, 20);
	const struct aw_mapping *a = m->loaders[0].mapping,
				*b = m->loaders[1].mapping,
				*c = m->loaders[2].mapping;
	cr_expect_eq(aw_mapping_common_levels(a, b), 1, "P alike");
	cr_expect_eq(aw_mapping_common_levels(a, a), 2);
	cr_expect_eq(aw_mapping_common_levels(b, c), 0, "another P");
	/* What P stands for: base samples 10..29. */
	struct aw_sample_set cut;
	aw_sample_set_init(&cut);
	aw_mapping_image_from(a, 1, &cut);
	cr_expect_eq(aw_sample_set_unique(&cut), 20);
	cr_expect_eq(aw_sample_set_unique_below(&cut, 10), 0);
	aw_sample_set_fini(&cut);
	aw_model_destroy(m);
}

Test(mapping, ranks_are_judged_on_dataset_indices)
{
	/* Two ranks, each Subset(base of 40, range(rank, 40, 2)) read whole:
	 * positions 0..19 on both, dataset indices disjoint. */
	struct aw_model *m = plain_ranks(2);
	for (int r = 0; r < 2; r++) {
		uint32_t to[20];
		s_range(to, (uint32_t)r, 20, 2);
		s_dataset_map(m, 100 + r, 0, 0, 40, to, 20, 0, 20);
		s_rank_reads(m, r, 0, 0, 20, 5);
	}
	struct aw_findings f;
	s_analyze(m, &f);
	s_expect_only(&f, NULL);
	const struct aw_epoch *e = &m->loaders_global[0].epochs[0];
	cr_expect(e->mapped);
	cr_expect_eq(e->union_count, 40, "disjoint in the dataset");
	cr_expect_eq(e->expected_count, 40);
	cr_expect_eq(e->missing, 0);
	cr_expect_eq(e->cross_rank_duplicates, 0);
	aw_findings_fini(&f);
	aw_model_destroy(m);
}

/* --- datasets longer than 2^32 ----------------------------------------------
 */

#define TWO32 (INT64_C(1) << 32)

/* Two ranks of a dataset of 2^32+8 samples, rank r reading six of
 * 2^32-4 .. 2^32+7 (rank 1 also `extra`, an index of its own): counts,
 * coverage and bounds in 64 bits. */
static struct aw_model *long_dataset(int64_t extra)
{
	struct s_loader_opts opts = plain;
	opts.dataset_len = TWO32 + 8;
	struct aw_model *m = aw_model_create();
	s_ranks(m, 2, &opts);
	for (int r = 0; r < 2; r++) {
		int64_t wide[7];
		uint32_t n = 0;
		for (int64_t i = TWO32 - 4 + r; i < TWO32 + 8; i += 2)
			wide[n++] = i;
		if (r == 1 && extra >= 0)
			wide[n++] = extra;
		s_iter_begin(m, 100 + r, 0, 0);
		s_batch_wide(m, 100 + r, 0, 0, 0, 0, n, wide, n);
		s_iter_end(m, 100 + r, 0, 0, 1, 1, 1);
	}
	return m;
}

Test(model, indices_beyond_2_32_are_samples)
{
	struct aw_model *m = long_dataset(-1);
	const struct aw_epoch *e = finished_epoch(m);
	cr_expect_eq(e->out_of_range, 0);
	cr_expect_eq(m->index_out_of_range, 0);
	cr_expect_eq(m->index_unrepresentable, 0);
	cr_expect_eq(e->union_in_range, 12);
	cr_expect_eq(e->missing, (uint64_t)TWO32 + 8 - 12);
	for (int r = 0; r < 2; r++) {
		cr_expect_eq(cell_of(m, 0, 0, r)->samples, 6);
		cr_expect_eq(cell_of(m, 0, 0, r)->unique, 6);
	}
	aw_model_destroy(m);

	/* len(dataset) itself is beyond it. */
	m = long_dataset(TWO32 + 8);
	e = finished_epoch(m);
	cr_expect_eq(e->out_of_range, 1);
	cr_expect_eq(e->union_in_range, 12);
	cr_expect_eq(cell_of(m, 0, 0, 1)->samples, 7);
	aw_model_destroy(m);
}

Test(mapping, wide_maps_reach_beyond_2_32)
{
	/* Subset(base of 2^63-1, [2^32-1, 2^32, 2^63-2, 7]), read whole. */
	struct aw_model *m = plain_ranks(1);
	const int64_t to[] = {TWO32 - 1, TWO32, INT64_MAX - 1, 7};
	struct aw_event e = s_event(AW_EVENT_DATASET_MAP_WIDE, 100);
	e.u.dataset_map = (struct aw_event_dataset_map){.loader = 0,
							.depth = 0,
							.kind = "subset",
							.base_len = INT64_MAX,
							.offset = 0,
							.total = 4};
	e.count = 4;
	e.values.i64 = (int64_t *)to;
	aw_model_add_event(m, &e);
	const struct aw_mapping *map = m->loaders[0].mapping;
	cr_assert(map);
	cr_expect_eq(aw_mapping_apply(map, 0), (uint64_t)TWO32 - 1);
	cr_expect_eq(aw_mapping_apply(map, 1), (uint64_t)TWO32);
	cr_expect_eq(aw_mapping_apply(map, 2), (uint64_t)INT64_MAX - 1);
	cr_expect_eq(aw_mapping_apply(map, 4), AW_UNMAPPED);
	const uint32_t positions[] = {0, 1, 2, 3};
	s_iter_begin(m, 100, 0, 0);
	s_batch(m, 100, 0, 0, 0, 0, 4, positions, 4);
	s_iter_end(m, 100, 0, 0, 1, 1, 1);
	const struct aw_epoch *ep = finished_epoch(m);
	cr_expect_eq(ep->out_of_range, 0);
	cr_expect_eq(ep->union_in_range, 4);
	cr_expect_eq(cell_of(m, 0, 0, 0)->unique, 4);
	aw_model_destroy(m);
}

/* The progress function the report's line hangs on: what it was told. */
struct progress_seen {
	size_t calls;
	bool passes, epochs;
	size_t last_epoch_done, last_epoch_total;
};

static void note_progress(void *context, const char *stage, size_t done,
			  size_t total)
{
	struct progress_seen *seen = context;
	seen->calls++;
	seen->passes |= strcmp(stage, "passes") == 0;
	if (strcmp(stage, "epochs") == 0) {
		seen->epochs = true;
		seen->last_epoch_done = done;
		seen->last_epoch_total = total;
	}
}

/* Epochs are found by ordinal among many (a run of one-batch passes), and
 * the analysis tells its progress pass by pass and epoch by epoch. */
Test(model, many_epochs_found_by_ordinal_with_progress)
{
	struct aw_model *m = plain_ranks(2);
	struct progress_seen seen = {0};
	m->progress = note_progress;
	m->progress_context = &seen;
	uint32_t indices[10];
	enum { EPOCHS = 500 };
	for (uint32_t epoch = 0; epoch < EPOCHS; epoch++) {
		for (int r = 0; r < 2; r++) {
			s_range(indices, (uint32_t)r * 10, 10, 1);
			struct s_epoch e = {.indices = indices,
					    .count = 10,
					    .batch_size = 10,
					    .end = true};
			s_epoch(m, 100 + r, 0, epoch, &e);
		}
	}
	aw_model_finish(m);
	cr_assert_eq(m->n_loaders_global, 1);
	const struct aw_global_loader *g = &m->loaders_global[0];
	cr_assert_eq(g->n_epochs, EPOCHS);
	for (uint32_t epoch = 0; epoch < EPOCHS; epoch += 37) {
		const struct aw_epoch *e = aw_model_find_epoch(g, epoch);
		cr_assert_not_null(e);
		cr_expect_eq(e->epoch, epoch);
		cr_expect_eq(e->n_cells, 2);
		cr_expect_eq(aw_model_cell(g, epoch, 1), &e->cells[1]);
	}
	cr_expect_null(aw_model_find_epoch(g, EPOCHS));
	cr_expect_null(aw_model_cell(g, 3, 2));
	cr_expect(seen.passes);
	cr_expect(seen.epochs);
	cr_expect_eq(seen.last_epoch_done, EPOCHS - 1);
	cr_expect_eq(seen.last_epoch_total, EPOCHS);
	aw_model_destroy(m);
}
