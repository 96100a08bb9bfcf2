/* SPDX-License-Identifier: MIT */
/* accelerate's dispatcher rebuilt from rank 0's reads (the slicing rule,
 * drop_last, split_batches, loops that leave early), and the answers to
 * --sample, --rank/--epoch and --loader. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdlib.h>
#include <string.h>

#include "answers.h"
#include "dispatch.h"
#include "stream.h"

/* The epoch of N samples in batches of b, as rank 0's inner loader draws
 * them (0, 1, 2, ...), fed to a dispatcher. */
static void feed(struct aw_dispatch *d, uint32_t n, uint32_t b)
{
	uint64_t *idx = calloc(n ? n : 1, sizeof(*idx));
	for (uint32_t i = 0; i < n; i++)
		idx[i] = i;
	for (uint32_t start = 0; start < n; start += b)
		aw_dispatch_add_batch(d, idx + start,
				      n - start < b ? n - start : b);
	free(idx);
}

static bool share_has(const struct aw_dispatch *d, uint32_t rank,
		      uint32_t index)
{
	return roaring_bitmap_contains(
	    aw_sample_set_bitmap(&d->shares[rank].set), index);
}

/* accelerate's DataLoaderDispatcher over 402/8/W=4: 51 inner batches,
 * 13 steps; the last one 18 samples + the first 4, 5 per rank: rank 3
 * gets [399, 400, 401, 0, 1]. */
static void readme_slices(const struct aw_dispatch *d,
			  const struct aw_sequence *keep)
{
	cr_assert_eq(keep->n_batches, 13);
	const int64_t last[5] = {399, 400, 401, 0, 1};
	cr_assert_eq(keep->batch_ends[12] - keep->batch_ends[11], 5);
	cr_expect_eq(
	    memcmp(keep->indices + keep->batch_ends[11], last, sizeof(last)),
	    0);
	/* step 0: rank r keeps inner batch r */
	cr_expect(share_has(d, 1, 8) && share_has(d, 1, 15));
	cr_expect(share_has(d, 0, 384) && share_has(d, 2, 394));
}

/* split_batches: one inner batch of 8 per step, 2 per rank; the last batch
 * of 2 gives 1 each (2 % 4 != 0: + the first 4, bs = 1). */
static void split_slices(const struct aw_dispatch *d)
{
	cr_expect(share_has(d, 0, 400) && share_has(d, 1, 401));
	cr_expect(share_has(d, 2, 0) && share_has(d, 3, 1));
}

/* The checks a case adds to the shares' counts. */
enum dispatch_also { NOTHING_MORE, README_SLICES, SPLIT_SLICES };

/* Rank 0's epoch of n samples in batches of 8 through a dispatcher of 4
 * ranks, finished as the loop ended; each rank gets one batch a step.
 * Criterion copies the cases into each test's process: no pointers. */
struct dispatch_case {
	char name[48];
	uint32_t n;
	bool split_batches, drop_last, exhausted;
	uint64_t steps, samples; /* samples: of each rank */
	bool keep;               /* rank 3's share is kept, as --rank 3 asks */
	enum dispatch_also also;
};

ParameterizedTestParameters(dispatch, shares_of_the_ranks)
{
	static struct dispatch_case cases[] = {
	    {"readme_arithmetic_402_8_4", 402, false, false, true, 13, 101,
	     true, README_SLICES},
	    {"drop_last_drops_the_partial_step", 402, false, true, true, 12, 96,
	     false, NOTHING_MORE},
	    /* 40 batches, 10 steps */
	    {"exact_multiple_needs_no_padding", 320, false, false, true, 10, 80,
	     false, NOTHING_MORE},
	    {"split_batches_cuts_every_batch", 402, true, false, true, 51,
	     50 * 2 + 1, false, SPLIT_SLICES},
	    /* 10 inner batches: 2 full steps + 2 */
	    {"a_loop_that_left_early_gets_no_padding", 8 * 10, false, false,
	     false, 2, 16, false, NOTHING_MORE},
	};
	return cr_make_param_array(struct dispatch_case, cases,
				   sizeof(cases) / sizeof(cases[0]));
}

/* An observer keeping what rank 3 got, share by share. */
static void keep_rank_3(void *data, const struct aw_read *read)
{
	if (read->kind == AW_READ_DISPATCHED && read->to_rank == 3)
		aw_sequence_add_batch(data, read->indices, read->wide,
				      read->count);
}

ParameterizedTest(struct dispatch_case *c, dispatch, shares_of_the_ranks)
{
	struct aw_dispatch d;
	struct aw_sequence keep = {0};
	struct aw_model_observer observer = {.data = &keep,
					     .on_read = keep_rank_3};
	aw_dispatch_init(&d, 4, c->split_batches);
	if (c->keep)
		aw_dispatch_observe(&d, &observer,
				    &(struct aw_read){.worker_id = -1});
	feed(&d, c->n, 8);
	aw_dispatch_finish(&d, c->drop_last, c->exhausted);
	cr_expect_eq(d.steps, c->steps, "%s", c->name);
	for (uint32_t r = 0; r < 4; r++) {
		cr_expect_eq(d.shares[r].batches, c->steps, "%s: rank %u",
			     c->name, r);
		cr_expect_eq(d.shares[r].set.samples, c->samples, "%s: rank %u",
			     c->name, r);
	}
	if (c->also == README_SLICES)
		readme_slices(&d, &keep);
	else if (c->also == SPLIT_SLICES)
		split_slices(&d);
	aw_sequence_fini(&keep);
	aw_dispatch_fini(&d);
}

/* --- the model: rank 0 reads, ranks 1-3 get rows -----------------------------
 */

/* The questions' watch and observer of the test's model (one model per
 * test: Criterion runs each in its own process). */
static struct aw_query_watch watch;
static struct aw_model_observer observer;

/* A model asked q (NULL: nothing, no observer) with `world` ranks of loader
 * 0 as o says. */
static struct aw_model *asked(const struct aw_query *q, int world,
			      const struct s_loader_opts *o)
{
	struct aw_model *m = aw_model_create();
	aw_query_watch_init(&watch, q ? q : &(struct aw_query){0});
	if (q) {
		observer = aw_query_watch_observer(&watch);
		aw_model_observe(m, &observer);
	}
	s_ranks(m, world, o);
	return m;
}

/* Per rank: the user's loader 0 (site train.py:31, drop_last as given), the
 * inner DataLoader 1 and DataLoaderDispatcher 2 (train.py:33). Rank 0 reads
 * 402 samples in batches of 8; with `prime`, ranks 1-3 draw 3 batches they
 * never consume. */
static struct aw_model *dispatched(uint32_t epochs, int8_t drop_last,
				   bool prime, const struct aw_query *q)
{
	struct s_loader_opts user = {.dataset_len = 402,
				     .batch_size = 8,
				     .drop_last = drop_last,
				     .sampler_replicas = -1,
				     .sampler = "RandomSampler",
				     .shuffle = 1,
				     .site = "train.py:31"};
	struct aw_model *m = asked(q, 4, &user);
	struct s_loader_opts inner = user;
	inner.site = "train.py:33";
	inner.batch_size = -1;
	inner.drop_last = 0;
	inner.sampler = "SequentialSampler";
	struct s_loader_opts outer = inner;
	outer.loader_class = "accelerate.data_loader.DataLoaderDispatcher";
	for (int r = 0; r < 4; r++) {
		s_loader(m, 100 + r, 1, &inner);
		s_loader(m, 100 + r, 2, &outer);
		s_loader_wrap(m, 100 + r, 2, 1, "dispatcher", 0, -1, 4, r);
	}
	uint32_t idx[402];
	for (uint32_t e = 0; e < epochs; e++) {
		for (uint32_t i = 0; i < 402; i++)
			idx[i] = (i * 7 + e * 13) % 402; /* a permutation */
		struct s_epoch ep = {
		    .indices = idx, .count = 402, .batch_size = 8, .end = true};
		s_epoch(m, 100, 1, e, &ep);
		for (int r = 1; prime && r < 4; r++) {
			struct s_epoch primed = {.indices = idx,
						 .count = 0,
						 .batch_size = 8,
						 .prefetched = 3,
						 .prefetch_index = 7,
						 .end = true,
						 .abandoned = true};
			s_epoch(m, 100 + r, 1, e, &primed);
		}
	}
	return m;
}

Test(dispatch, every_rank_gets_its_share_as_a_row)
{
	struct aw_model *m = dispatched(2, 0, true, NULL);
	struct aw_findings f;
	s_analyze(m, &f);
	const struct aw_global_loader *g = &m->loaders_global[1];
	cr_expect_str_eq(g->site, "train.py:33");
	cr_expect(g->dispatched);
	cr_expect(g->rebuilt);
	cr_expect_eq(g->primed_iterations, 6);
	cr_assert_eq(g->n_epochs, 2);
	for (size_t e = 0; e < 2; e++) {
		const struct aw_epoch *ep = &g->epochs[e];
		cr_assert_eq(ep->n_cells, 4);
		for (size_t c = 0; c < 4; c++) {
			cr_expect_eq(ep->cells[c].rank, (int32_t)c);
			cr_expect_eq(ep->cells[c].batches, 13);
			cr_expect_eq(ep->cells[c].samples, 101);
			cr_expect(ep->cells[c].rebuilt);
			cr_expect(ep->cells[c].exhausted);
			cr_expect_eq(ep->cells[c].pid, 100 + (int32_t)c);
		}
		cr_expect_eq(ep->union_count, 402);
		cr_expect_eq(ep->cross_rank_duplicates, 2);
	}
	/* Padding of 2 is info; no unsharded, overlap, missing, uneven, and
	 * no same-order (the permutation changes every epoch). */
	for (size_t i = 0; i < f.n; i++)
		cr_expect_eq(f.items[i].severity, AW_SEVERITY_INFO, "%s: %s",
			     f.items[i].id, f.items[i].message);
	const struct aw_finding *p = aw_findings_find(&f, "padding");
	cr_assert(p);
	cr_expect(strstr(p->message, "dispatcher"), "%s", p->message);
	/* The dispatcher's drop_last is the user's loader's. */
	cr_expect_eq(m->loaders[s_loader_of(m, 100, 1)].dispatch_drop_last, 0);
	aw_findings_fini(&f);
	aw_model_destroy(m);
}

Test(dispatch, drop_last_comes_from_the_users_loader)
{
	struct aw_model *m = dispatched(1, 1, false, NULL);
	struct aw_findings f;
	s_analyze(m, &f);
	cr_expect_eq(m->loaders[s_loader_of(m, 100, 1)].dispatch_drop_last, 1);
	const struct aw_epoch *ep = &m->loaders_global[1].epochs[0];
	cr_assert_eq(ep->n_cells, 4);
	cr_expect_eq(ep->cells[3].batches, 12);
	cr_expect_eq(ep->cells[3].samples, 96);
	/* 402 - 384 = 18 left out: within drop_last's allowance (W*B-1). */
	cr_expect_eq(s_count(&f, "missing"), 0);
	aw_findings_fini(&f);
	aw_model_destroy(m);
}

Test(dispatch, without_rank_0_nothing_is_rebuilt)
{
	/* Only ranks 1-3 primed: their draws are shown, and no sharding
	 * finding is claimed on a dispatched loader that was not rebuilt. */
	struct aw_model *m = aw_model_create();
	struct s_loader_opts inner = {.dataset_len = 402,
				      .batch_size = -1,
				      .sampler_replicas = -1,
				      .sampler = "SequentialSampler",
				      .site = "train.py:33"};
	s_ranks(m, 4, &inner);
	for (int r = 1; r < 4; r++) {
		s_loader(m, 100 + r, 1, &inner);
		s_loader_wrap(m, 100 + r, 1, 0, "dispatcher", 0, -1, 4, r);
		s_rank_reads(m, r, 0, 0, 402, 8);
	}
	struct aw_findings f;
	s_analyze(m, &f);
	cr_expect(m->loaders_global[0].dispatched);
	cr_expect_not(m->loaders_global[0].rebuilt);
	cr_expect_eq(s_count(&f, "unsharded"), 0);
	cr_expect_eq(s_count(&f, "uneven-batches"), 0);
	cr_expect_eq(s_count(&f, "missing"), 0);
	aw_findings_fini(&f);
	aw_model_destroy(m);
}

/* --- questions --------------------------------------------------------------
 */

Test(query, nothing_is_told_unless_asked)
{
	struct aw_model *m = dispatched(1, 0, false, NULL);
	aw_model_finish(m);
	for (size_t i = 0; i < m->n_iterations; i++) {
		cr_expect_null(m->iterations[i].observer);
		if (m->iterations[i].dispatch)
			cr_expect_null(m->iterations[i].dispatch->observer);
	}
	cr_expect_eq(watch.hits.n_hits, 0);
	cr_expect_eq(watch.n_kept, 0);
	aw_model_destroy(m);
}

Test(query, a_question_tells_only_what_it_asks)
{
	/* --loader alone keeps nothing: no iteration is told its reads. */
	struct aw_query q = {.loader = "L0"};
	struct aw_model *m = dispatched(1, 0, false, &q);
	aw_model_finish(m);
	for (size_t i = 0; i < m->n_iterations; i++)
		cr_expect_null(m->iterations[i].observer);
	cr_expect_eq(watch.hits.n_hits, 0);
	aw_model_destroy(m);
}

Test(query, sample_reads_of_a_dispatched_loader)
{
	struct aw_query q = {.by_sample = true, .sample = 0};
	struct aw_model *m = dispatched(1, 0, true, &q);
	aw_model_finish(m);
	size_t n;
	struct aw_answer_read *reads = aw_answers_sample_reads(m, &watch, &n);
	/* Sample 0 is the epoch's first: rank 0 at step 0, and again as the
	 * padding of the last step, for the rank whose slice reaches it. */
	cr_assert_eq(n, 2);
	cr_expect_eq(reads[0].hit->kind, AW_READ_DISPATCHED);
	cr_expect_eq(reads[0].rank, 0);
	cr_expect_eq(reads[0].hit->batch, 0);
	cr_expect_eq(reads[1].rank, 3);
	cr_expect_eq(reads[1].hit->batch, 12);
	free(reads);
	aw_model_destroy(m);
}

Test(query, sample_consumed_prefetched_and_fetched)
{
	struct aw_query q = {.by_sample = true, .sample = 5};
	struct aw_model *m =
	    asked(&q, 2, &(struct s_loader_opts)S_BASE_LOADER(2));
	s_process(m, 300, 101, 1, 2, "worker");
	s_worker(m, 300, 0, 0, 0);
	uint32_t idx[50];
	s_range(idx, 0, 50, 1);
	s_worker_fetch(m, 300, 0, 0, 0, 0, idx, 10);
	/* rank 0 consumes it in batch 0; rank 1 draws it ahead, never gets it
	 */
	struct s_epoch e0 = {
	    .indices = idx, .count = 50, .batch_size = 10, .end = true};
	s_epoch(m, 100, 0, 0, &e0);
	struct s_epoch e1 = {.indices = idx + 10,
			     .count = 40,
			     .batch_size = 10,
			     .prefetched = 1,
			     .prefetch_index = 5,
			     .end = true};
	s_epoch(m, 101, 0, 0, &e1);
	aw_model_finish(m);
	size_t n;
	struct aw_answer_read *reads = aw_answers_sample_reads(m, &watch, &n);
	/* 1 consumed, 10 in the prefetched batch (all 5s), 1 fetched */
	cr_assert_eq(n, 12);
	cr_expect_eq(reads[0].rank, 0);
	cr_expect_eq(reads[0].hit->kind, AW_READ_CONSUMED);
	cr_expect_eq(reads[0].hit->position, 5);
	cr_expect_eq(reads[1].rank, 1);
	cr_expect_eq(reads[1].hit->kind, AW_READ_PREFETCHED);
	cr_expect_eq(reads[1].hit->batch, 4);
	cr_expect_eq(reads[11].hit->kind, AW_READ_FETCHED);
	cr_expect_eq(reads[11].global, 0, "the worker's loader, resolved");
	cr_expect_eq(reads[11].hit->worker_id, 0);
	cr_expect_eq(reads[11].pid, 300);
	free(reads);
	aw_model_destroy(m);
}

Test(query, sample_reads_of_a_dataloader_built_every_epoch)
{
	/* Rank 0 builds loader objects 1 and 2 at one site around sampler
	 * object 7, one per epoch: sample 5 is read in epochs 0 and 1. */
	struct aw_query q = {.by_sample = true, .sample = 5};
	struct aw_model *m = asked(&q, 0, NULL);
	s_process(m, 100, 99, 0, 1, "rank");
	struct s_loader_opts o = S_BASE_LOADER(0);
	for (uint32_t e = 1; e <= 2; e++) {
		s_loader_around(m, 100, e, &o, 7);
		s_reads(m, 100, e, 0, 0, 10, 5, true);
	}
	aw_model_finish(m);
	size_t n;
	struct aw_answer_read *reads = aw_answers_sample_reads(m, &watch, &n);
	cr_assert_eq(n, 2);
	for (uint32_t e = 0; e < 2; e++) {
		cr_expect_eq(reads[e].global, 0);
		cr_expect_eq(reads[e].epoch, e);
		cr_expect_eq(reads[e].hit->iteration, 0, "the loader's pass");
	}
	free(reads);
	aw_model_destroy(m);
}

Test(query, rank_and_epoch_sequence_in_order)
{
	struct aw_query q = {.by_sequence = true, .rank = 1, .epoch = 1};
	struct s_loader_opts o = S_BASE_LOADER(0);
	o.batch_size = 4;
	struct aw_model *m = asked(&q, 2, &o);
	uint32_t idx[8] = {9, 3, 7, 1, 8, 2, 6, 0};
	for (uint32_t epoch = 0; epoch < 2; epoch++)
		for (int r = 0; r < 2; r++) {
			struct s_epoch e = {.indices = idx,
					    .count = 8,
					    .batch_size = 4,
					    .prefetched = 1,
					    .prefetch_index = 99,
					    .end = true};
			s_epoch(m, 100 + r, 0, epoch, &e);
		}
	aw_model_finish(m);
	size_t n;
	struct aw_answer_sequence *seqs = aw_answers_sequences(m, &watch, &n);
	cr_assert_eq(n, 1);
	cr_expect_eq(seqs[0].rank, 1);
	cr_expect_eq(seqs[0].pid, 101);
	const struct aw_sequence *s = seqs[0].sequence;
	cr_assert_eq(s->n, 8, "the prefetched batch is not consumed");
	cr_expect_eq(s->n_batches, 2);
	for (size_t i = 0; i < 8; i++)
		cr_expect_eq(s->indices[i], (int64_t)idx[i]);
	free(seqs);
	/* Only the asked iteration keeps its sequence. */
	cr_expect_eq(watch.n_kept, 1);
	cr_expect_eq(watch.kept[0].iteration, 3, "rank 1's epoch 1, the 4th");
	aw_model_destroy(m);
}

Test(query, dispatched_rank_sequence)
{
	struct aw_query q = {.by_sequence = true, .rank = 2, .epoch = 0};
	struct aw_model *m = dispatched(1, 0, true, &q);
	aw_model_finish(m);
	size_t n;
	struct aw_answer_sequence *seqs = aw_answers_sequences(m, &watch, &n);
	cr_assert_eq(n, 1);
	cr_expect(seqs[0].rebuilt);
	cr_expect_eq(seqs[0].sequence->n, 101);
	cr_expect_eq(seqs[0].sequence->n_batches, 13);
	/* step 0, rank 2: the third inner batch of the permutation */
	cr_expect_eq(seqs[0].sequence->indices[0], (16 * 7) % 402);
	free(seqs);
	aw_model_destroy(m);
}

Test(query, loader_filter_keeps_its_findings_and_trace_ones)
{
	struct aw_query q = {.loader = "eval.py:5"};
	struct s_loader_opts train = S_BASE_LOADER(0), eval = train;
	struct aw_model *m = asked(&q, 2, &train);
	eval.site = "/home/u/eval.py:5";
	eval.dataset_id = 7;
	for (int r = 0; r < 2; r++)
		s_loader(m, 100 + r, 1, &eval);
	for (int r = 0; r < 2; r++) {
		s_rank_reads(m, r, 0, 0, 100, 10); /* L0: unsharded */
		s_epoch(m, 100 + r, 1, 0,
			&(struct s_epoch){.indices = (uint32_t[]){1, 2},
					  .count = 2,
					  .batch_size = 2,
					  .end = true});
	}
	m->stats.discarded_events = 3;
	struct aw_findings f;
	s_analyze(m, &f);
	cr_expect_gt(s_count(&f, "unsharded"), 0);
	aw_answers_filter_findings(m, &watch, &f);
	cr_expect_eq(s_count(&f, "unsharded"), 0);
	cr_expect_eq(s_count(&f, "trace-incomplete"), 1);
	cr_expect_gt(s_count(&f, "missing"), 0, "L1 read 2 of 100");
	cr_expect_not(aw_answers_loader_shown(m, &watch, 0));
	cr_expect(aw_answers_loader_shown(m, &watch, 1));
	cr_expect(aw_answers_loader_shown(m, NULL, 0), "no question: all");
	cr_expect(aw_query_loader_matches("L1", "L1", "x.py:1"));
	cr_expect_not(
	    aw_query_loader_matches("in.py:5", "L1", "/home/u/train.py:5"));
	aw_findings_fini(&f);
	aw_model_destroy(m);
}

/* --- over an IterableDataset ---------------------------------------------- */

/* Rank 0 of 2 reads a stream of 40 items (fingerprints 1000 + i) in 4
 * batches of 10 in its main process (items: false, none fingerprinted);
 * rank 1 only primes the dispatcher's iterator. */
static struct aw_model *dispatched_stream(bool items)
{
	struct aw_model *m = aw_model_create();
	struct s_loader_opts inner = {.dataset_len = -1,
				      .batch_size = 10,
				      .sampler_replicas = -1,
				      .sampler = "_InfiniteConstantSampler",
				      .iterable = 1,
				      .site = "train.py:33"};
	s_ranks(m, 2, &inner);
	for (int r = 0; r < 2; r++) {
		s_loader(m, 100 + r, 1, &inner);
		s_loader_wrap(m, 100 + r, 1, 0, "dispatcher", 0, -1, 2, r);
		s_iter_begin(m, 100 + r, 0, 0);
	}
	for (uint32_t b = 0; b < 4 && items; b++) {
		uint64_t hashes[10];
		for (uint32_t i = 0; i < 10; i++)
			hashes[i] = 1000 + 10 * b + i;
		s_item_fetch(m, 100, -1, 0, 0, b, hashes, 10);
	}
	s_iter_end(m, 100, 0, 0, 4, 4, true);
	s_iter_end(m, 101, 0, 0, 0, 0, false);
	return m;
}

Test(dispatch, a_stream_read_by_rank_0_is_cut_into_shares)
{
	/* Each step joins 2 batches of 10: rank r keeps the r-th 10. */
	struct aw_model *m = dispatched_stream(true);
	struct aw_findings f;
	s_analyze(m, &f);
	const struct aw_global_loader *g = &m->loaders_global[0];
	cr_assert(g->rebuilt);
	cr_assert_eq(g->n_epochs, 1);
	const struct aw_epoch *e = &g->epochs[0];
	cr_assert_eq(e->n_cells, 2);
	for (size_t c = 0; c < 2; c++) {
		cr_expect_eq(e->cells[c].samples, 20);
		cr_expect_eq(e->cells[c].unique, 20);
		cr_expect_eq(e->cells[c].batches, 2);
	}
	cr_expect_eq(e->cross_rank_duplicates, 0);
	s_expect_only(&f, NULL);
	aw_findings_fini(&f);
	aw_model_destroy(m);
}

Test(dispatch, a_stream_without_fingerprints_is_not_rebuilt)
{
	/* Nothing to cut: rank 0's row stays as read, and no sharding
	 * finding is claimed. */
	struct aw_model *m = dispatched_stream(false);
	struct aw_findings f;
	s_analyze(m, &f);
	cr_expect(m->loaders_global[0].dispatched);
	cr_expect_not(m->loaders_global[0].rebuilt);
	cr_expect_eq(f.n, 0);
	aw_findings_fini(&f);
	aw_model_destroy(m);
}

Test(query, sample_reads_of_a_mapped_loader_are_dataset_indices)
{
	/* Rank 0's loader over Subset(range(0, 200, 2)): position p is sample
	 * 2p. Its worker fetches positions 3 and 4 (samples 6, 8), and the
	 * rank consumes them: --sample 6 finds both reads, --sample 3 none. */
	for (uint32_t sample = 3; sample <= 6; sample += 3) {
		struct aw_query q = {.by_sample = true, .sample = sample};
		struct s_loader_opts o = S_BASE_LOADER(1);
		o.dataset_len = 100;
		struct aw_model *m = asked(&q, 1, &o);
		uint32_t to[100];
		s_range(to, 0, 100, 2);
		s_dataset_map(m, 100, 0, 0, 200, to, 100, 0, 100);
		s_process(m, 300, 100, 0, 1, "worker");
		s_worker(m, 300, 0, 0, 0);
		const uint32_t positions[2] = {3, 4};
		s_worker_fetch(m, 300, 0, 0, 0, 0, positions, 2);
		s_reads_in_order(m, 0, 0, 0, positions, 2, 2);
		aw_model_finish(m);
		size_t n;
		struct aw_answer_read *reads =
		    aw_answers_sample_reads(m, &watch, &n);
		cr_expect_eq(n, sample == 6 ? 2 : 0, "sample %u: %zu reads",
			     sample, n);
		free(reads);
		aw_query_watch_fini(&watch);
		aw_model_destroy(m);
	}
}
