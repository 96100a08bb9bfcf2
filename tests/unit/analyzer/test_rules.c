/* The findings beyond sharding, each on event streams built here with its
 * edges: stale-len, len-mismatch, unused-prepared, same-order, fork-threads,
 * fork-cuda, worker-respawn, worker-died, worker-stuck, rank-died,
 * iterable-duplicate, index-range, trace-incomplete; and padding,
 * uneven-batches and partial epochs. */
#include <criterion/criterion.h>
#include <signal.h>
#include <string.h>

#include "stream.h"

/* N = 100, B = 10, no drop_last, a sampler that does not shard. */
static const struct s_loader_opts base = S_BASE_LOADER(0);

/* Every error and warning is `id` (infos are free); NULL: none at all. */
static void expect_only(const struct aw_findings *f, const char *id)
{
	for (size_t i = 0; i < f->n; i++)
		if (f->items[i].severity != AW_SEVERITY_INFO)
			cr_expect(id && strcmp(f->items[i].id, id) == 0,
				  "unexpected finding %s: %s", f->items[i].id,
				  f->items[i].message);
	if (id)
		cr_expect_gt(s_count(f, id), 0, "no %s finding", id);
}

static const struct aw_finding *get(const struct s_run *r, const char *id)
{
	const struct aw_finding *f = aw_findings_find(&r->findings, id);
	cr_assert(f, "no %s finding", id);
	cr_expect(f->message && *f->message);
	cr_expect(f->fix && *f->fix, "%s has no fix", id);
	return f;
}

static int64_t number(const struct aw_finding *f, const char *name)
{
	for (size_t i = 0; i < f->n_numbers; i++)
		if (strcmp(f->numbers[i].name, name) == 0)
			return f->numbers[i].integer;
	cr_assert_fail("finding %s has no number %s", f->id, name);
	return -1;
}

static bool has_rank(const struct aw_finding *f, int32_t rank)
{
	for (size_t i = 0; i < f->n_ranks; i++)
		if (f->ranks[i] == rank)
			return true;
	return false;
}

static bool says(const struct aw_finding *f, const char *text)
{
	return (f->message && strstr(f->message, text)) ||
	       (f->evidence && strstr(f->evidence, text)) ||
	       (f->fix && strstr(f->fix, text));
}

/* Rank r (pid 100 + r) reads indices in the given order, batches of b. */
static void reads_in_order(struct aw_model *m, int rank, uint32_t loader,
			   uint32_t iteration, const uint32_t *idx,
			   size_t count, uint32_t b)
{
	struct s_epoch e = {
	    .indices = idx, .count = count, .batch_size = b, .end = true};
	s_epoch(m, 100 + rank, loader, iteration, &e);
}

/* --- padding, uneven-batches, partial epochs --------------------------------
 */

Test(rules, padding_of_distributed_sampler_is_explained)
{
	/* N = 402 over 4 ranks: DistributedSampler pads 2 (ceil(402/4)*4). */
	struct s_loader_opts o = base;
	o.dataset_len = 402;
	o.batch_size = 8;
	o.sampler = "torch.utils.data.distributed.DistributedSampler";
	o.sampler_replicas = 4;
	struct s_run r = {.model = aw_model_create()};
	s_ranks(r.model, 4, &o);
	uint32_t idx[101];
	for (int rank = 0; rank < 4; rank++) {
		for (uint32_t i = 0; i < 101; i++)
			idx[i] = ((uint32_t)rank + 4 * i) % 402;
		reads_in_order(r.model, rank, 0, 0, idx, 101, 8);
	}
	s_finish(&r);
	expect_only(&r.findings, NULL);
	const struct aw_finding *f = get(&r, "padding");
	cr_expect_eq(number(f, "cross_rank_duplicates"), 2);
	cr_expect(says(f, "not a duplication bug"), "%s", f->message);
	cr_expect(says(f, "DistributedSampler(drop_last=False)"), "%s",
		  f->message);
	cr_expect(says(f, "(2 here, for N=402, W=4)"), "%s", f->message);
	s_done(&r);
}

Test(rules, padding_of_even_batches_is_explained)
{
	/* accelerate's shard loader: the inner DataLoader (id 0) wrapped by
	 * DataLoaderShard (id 1) with even_batches. */
	struct s_loader_opts o = base;
	o.batch_size = -1;
	o.batch_sampler = "accelerate.data_loader.BatchSamplerShard";
	struct s_run r = {.model = aw_model_create()};
	s_ranks(r.model, 2, &o);
	struct s_loader_opts outer = o;
	outer.loader_class = "accelerate.data_loader.DataLoaderShard";
	for (int rank = 0; rank < 2; rank++) {
		s_loader(r.model, 100 + rank, 1, &outer);
		s_loader_wrap(r.model, 100 + rank, 1, 0, "shard", 0, 1, 2,
			      rank);
	}
	/* 95 samples, B = 10: 10 batches, the last round padded with 5. */
	s_rank_reads(r.model, 0, 0, 0, 50, 10);
	uint32_t idx[50];
	s_range(idx, 50, 45, 1);
	s_range(idx + 45, 0, 5, 1);
	reads_in_order(r.model, 1, 0, 0, idx, 50, 10);
	s_finish(&r);
	const struct aw_finding *f = get(&r, "padding");
	cr_expect(says(f, "even_batches=True"), "%s", f->message);
	cr_expect_eq(number(f, "cross_rank_duplicates"), 5);
	s_done(&r);
}

Test(rules, uneven_batches_when_samplers_ran_out_differently)
{
	struct s_run r = {.model = aw_model_create()};
	s_ranks(r.model, 2, &base);
	s_rank_reads(r.model, 0, 0, 0, 50, 10);  /* 5 batches */
	s_rank_reads(r.model, 1, 0, 50, 90, 10); /* 4 batches */
	s_finish(&r);
	const struct aw_finding *f = get(&r, "uneven-batches");
	cr_expect_eq(number(f, "fewest_batches"), 4);
	cr_expect_eq(number(f, "most_batches"), 5);
	s_done(&r);
}

Test(rules, a_rank_that_left_early_is_partial_not_uneven)
{
	/* Rank 1's loop broke after 2 batches (exhausted = 0): a partial
	 * epoch, counts as read, neither uneven-batches nor missing. */
	struct s_run r = {.model = aw_model_create()};
	s_ranks(r.model, 2, &base);
	s_rank_reads(r.model, 0, 0, 0, 50, 10);
	uint32_t idx[20];
	s_range(idx, 50, 20, 1);
	struct s_epoch e = {.indices = idx,
			    .count = 20,
			    .batch_size = 10,
			    .prefetched = 2,
			    .prefetch_index = 99,
			    .end = true,
			    .abandoned = true};
	s_epoch(r.model, 101, 0, 0, &e);
	s_finish(&r);
	expect_only(&r.findings, NULL);
	const struct aw_epoch *ep = &r.model->loaders_global[0].epochs[0];
	cr_expect_not(ep->exhausted);
	cr_expect(ep->complete);
	cr_expect_eq(ep->cells[1].batches, 2);
	cr_expect_eq(ep->cells[1].samples, 20);
	cr_expect_not(ep->cells[1].exhausted);
	s_done(&r);
}

Test(rules, a_rank_still_going_past_another_ranks_end_is_uneven)
{
	/* Rank 0's sampler ran out after 4 batches; rank 1 consumed 5 and
	 * never ended its epoch (it hung in a collective and was killed). */
	struct s_run r = {.model = aw_model_create()};
	s_ranks(r.model, 2, &base);
	s_rank_reads(r.model, 0, 0, 0, 40, 10);
	uint32_t idx[50];
	s_range(idx, 50, 50, 1);
	struct s_epoch e = {
	    .indices = idx, .count = 50, .batch_size = 10, .end = false};
	s_epoch(r.model, 101, 0, 0, &e);
	s_exit(r.model, 101, 101, -1, SIGKILL);
	s_finish(&r);
	const struct aw_finding *f = get(&r, "uneven-batches");
	cr_expect_eq(number(f, "most_batches"), 5);
	cr_expect_eq(s_count(&r.findings, "trace-incomplete"), 0,
		     "the process's end is known");
	s_done(&r);
}

Test(rules, single_rank_has_no_padding_or_uneven)
{
	struct s_run r = {.model = aw_model_create()};
	s_ranks(r.model, 1, &base);
	s_rank_reads(r.model, 0, 0, 0, 100, 10);
	s_rank_reads(r.model, 0, 1, 0, 100, 10);
	s_finish(&r);
	cr_expect_eq(r.findings.n, 0);
	s_done(&r);
}

/* --- index-range ------------------------------------------------------------
 */

Test(rules, index_range_at_n_and_negative)
{
	struct s_run r = {.model = aw_model_create()};
	s_ranks(r.model, 2, &base);
	s_rank_reads(r.model, 0, 0, 0, 50, 10);
	s_rank_reads(r.model, 1, 0, 50, 101, 11); /* 100 = N is out */
	s_finish(&r);
	expect_only(&r.findings, "index-range");
	const struct aw_finding *f = get(&r, "index-range");
	cr_expect_eq(f->severity, AW_SEVERITY_ERROR);
	cr_expect_eq(number(f, "out_of_range"), 1);
	cr_expect(has_rank(f, 1) && !has_rank(f, 0));
	cr_expect(says(f, "e.g. 100"), "%s", f->evidence);
	cr_expect(says(f, "[0, 100)"), "%s", f->message);
	s_done(&r);

	/* N - 1 is fine; -1 (batch_wide) is not. */
	r.model = aw_model_create();
	s_ranks(r.model, 1, &base);
	s_iter_begin(r.model, 100, 0, 0);
	int64_t wide[3] = {99, -1, 5};
	s_batch_wide(r.model, 100, 0, 0, 0, 0, 3, wide, 3);
	s_iter_end(r.model, 100, 0, 0, 1, 1, 1);
	s_finish(&r);
	f = get(&r, "index-range");
	cr_expect_eq(number(f, "out_of_range"), 0);
	cr_expect_eq(number(f, "unrepresentable"), 1);
	cr_expect(says(f, "-1"), "%s", f->evidence);
	s_done(&r);
}

/* --- same-order -------------------------------------------------------------
 */

Test(rules, same_order_when_a_shuffling_sampler_repeats)
{
	struct s_loader_opts o = base;
	o.shuffle = 1;
	o.sampler = "torch.utils.data.distributed.DistributedSampler";
	o.sampler_replicas = 2;
	struct s_run r = {.model = aw_model_create()};
	s_ranks(r.model, 2, &o);
	uint32_t order[50];
	for (int rank = 0; rank < 2; rank++) {
		for (uint32_t i = 0; i < 50; i++)
			order[i] = (uint32_t)rank + 2 * ((i * 7) % 50);
		for (uint32_t epoch = 0; epoch < 3; epoch++)
			reads_in_order(r.model, rank, 0, epoch, order, 50, 10);
	}
	s_finish(&r);
	expect_only(&r.findings, "same-order");
	cr_expect_eq(s_count(&r.findings, "same-order"), 1);
	const struct aw_finding *f = get(&r, "same-order");
	cr_expect_eq(f->severity, AW_SEVERITY_WARNING);
	cr_expect_eq(f->epoch, 1);
	cr_expect_eq(f->n_ranks, 2);
	cr_expect_eq(number(f, "epoch_pairs"), 4);
	cr_expect(says(f, "set_epoch"), "%s", f->fix);
	/* s_iter_begin reports sampler_epoch = iteration: it changed. */
	cr_expect_not(says(f, "was not called"));
	s_done(&r);
}

Test(rules, same_order_needs_shuffle_the_same_sequence_and_two_samples)
{
	uint32_t a[10], b[10];
	s_range(a, 0, 10, 1);
	for (uint32_t i = 0; i < 10; i++)
		b[i] = 9 - i; /* the same set, another order */
	struct s_loader_opts o = base;
	o.shuffle = 1;
	struct s_run r = {.model = aw_model_create()};
	s_ranks(r.model, 1, &o);
	reads_in_order(r.model, 0, 0, 0, a, 10, 5);
	reads_in_order(r.model, 0, 0, 1, b, 10, 5);
	s_finish(&r);
	cr_expect_eq(s_count(&r.findings, "same-order"), 0);
	s_done(&r);

	o.shuffle = 0; /* a sequential sampler repeats by design */
	r.model = aw_model_create();
	s_ranks(r.model, 1, &o);
	reads_in_order(r.model, 0, 0, 0, a, 10, 5);
	reads_in_order(r.model, 0, 0, 1, a, 10, 5);
	s_finish(&r);
	cr_expect_eq(s_count(&r.findings, "same-order"), 0);
	s_done(&r);

	o.shuffle = 1; /* one sample: no order to speak of */
	o.dataset_len = 1;
	r.model = aw_model_create();
	s_ranks(r.model, 1, &o);
	reads_in_order(r.model, 0, 0, 0, a, 1, 1);
	reads_in_order(r.model, 0, 0, 1, a, 1, 1);
	/* empty epochs neither */
	reads_in_order(r.model, 0, 0, 2, a, 0, 1);
	reads_in_order(r.model, 0, 0, 3, a, 0, 1);
	s_finish(&r);
	cr_expect_eq(s_count(&r.findings, "same-order"), 0);
	s_done(&r);
}

Test(rules, same_order_names_a_sampler_epoch_that_did_not_move)
{
	struct s_loader_opts o = base;
	o.shuffle = 1;
	struct s_run r = {.model = aw_model_create()};
	s_ranks(r.model, 1, &o);
	uint32_t idx[10];
	s_range(idx, 0, 10, 1);
	for (uint32_t epoch = 0; epoch < 2; epoch++) {
		struct aw_event e;
		memset(&e, 0, sizeof(e));
		e.kind = AW_EVENT_ITER_BEGIN;
		e.run = 7;
		e.pid = 100;
		e.u.iter_begin = (struct aw_event_iter_begin){
		    .loader = 0, .iteration = epoch, .sampler_epoch = 0};
		aw_model_add_event(r.model, &e);
		s_batch(r.model, 100, 0, epoch, 0, 0, 10, idx, 10);
		s_iter_end(r.model, 100, 0, epoch, 1, 1, 1);
	}
	s_finish(&r);
	const struct aw_finding *f = get(&r, "same-order");
	cr_expect(says(f, "set_epoch() was not called"), "%s", f->evidence);
	s_done(&r);
}

/* --- unused-prepared, stale-len, len-mismatch --------------------------------
 */

/* Per rank: the user's loader 0 (train.py:31, unsharded, dataset 42), then
 * accelerate's inner DataLoader 1 and DataLoaderShard 2 (train.py:33). */
static void prepared_loaders(struct aw_model *m, int world)
{
	struct s_loader_opts user = base;
	user.site = "train.py:31";
	s_ranks(m, world, &user);
	struct s_loader_opts inner = base;
	inner.site = "train.py:33";
	inner.batch_size = -1;
	inner.sampler = "SequentialSampler";
	inner.batch_sampler = "accelerate.data_loader.BatchSamplerShard";
	inner.sampler_replicas = world;
	struct s_loader_opts outer = inner;
	outer.loader_class = "accelerate.data_loader.DataLoaderShard";
	for (int rank = 0; rank < world; rank++) {
		inner.sampler_rank = outer.sampler_rank = rank;
		s_loader(m, 100 + rank, 1, &inner);
		s_loader(m, 100 + rank, 2, &outer);
		s_loader_wrap(m, 100 + rank, 2, 1, "shard", 0, 1, world, rank);
	}
}

static void read_loader(struct aw_model *m, int rank, uint32_t loader,
			uint32_t epoch, uint32_t begin, uint32_t end)
{
	uint32_t idx[100];
	s_range(idx, begin, end - begin, 1);
	reads_in_order(m, rank, loader, epoch, idx, end - begin, 10);
}

Test(rules, unused_prepared_when_the_users_loader_is_iterated)
{
	struct s_run r = {.model = aw_model_create()};
	prepared_loaders(r.model, 2);
	for (int rank = 0; rank < 2; rank++)
		read_loader(r.model, rank, 0, 0, 0, 100);
	s_finish(&r);
	const struct aw_finding *f = get(&r, "unused-prepared");
	cr_expect_eq(f->severity, AW_SEVERITY_ERROR);
	cr_expect_eq(f->n_ranks, 2);
	cr_expect_eq(f->loader, 0, "about the loader iterated (L0)");
	cr_expect(says(f, "you iterate the loader created at train.py:31"),
		  "%s", f->message);
	cr_expect(says(f, "prepare() returned a sharded one"), "%s",
		  f->message);
	cr_expect(says(f, "built at train.py:33"), "%s", f->message);
	cr_expect(says(f, "use its return value"), "%s", f->message);
	cr_expect_eq(s_count(&r.findings, "unused-prepared"), 1,
		     "the inner and outer loader are one finding");
	cr_expect_eq(s_count(&r.findings, "unsharded"), 1);
	s_done(&r);
}

Test(rules, no_unused_prepared_when_the_prepared_loader_is_iterated)
{
	struct s_run r = {.model = aw_model_create()};
	prepared_loaders(r.model, 2);
	read_loader(r.model, 0, 1, 0, 0, 50);
	read_loader(r.model, 1, 1, 0, 50, 100);
	s_finish(&r);
	expect_only(&r.findings, NULL);
	/* Lineage: the inner loader was built from the user's. */
	const struct aw_loader *inner =
	    &r.model->loaders[s_loader_of(r.model, 100, 1)];
	cr_expect_eq(inner->wrapper, s_loader_of(r.model, 100, 2));
	cr_expect_eq(inner->built_from, s_loader_of(r.model, 100, 0));
	cr_expect(inner->sharded);
	cr_expect_not(r.model->loaders[s_loader_of(r.model, 100, 0)].sharded);
	s_done(&r);
}

Test(rules, unused_prepared_needs_the_users_loader_iterated)
{
	/* Neither iterated (a rank that only prepared), or the user's loader
	 * shards itself (DistributedSampler): no finding. */
	struct s_run r = {.model = aw_model_create()};
	prepared_loaders(r.model, 2);
	s_finish(&r);
	expect_only(&r.findings, NULL);
	s_done(&r);

	struct s_loader_opts plain = base;
	struct s_loader_opts ds = base;
	ds.site = "train.py:40";
	ds.sampler = "torch.utils.data.distributed.DistributedSampler";
	ds.sampler_replicas = 2;
	r.model = aw_model_create();
	s_ranks(r.model, 2, &plain);
	for (int rank = 0; rank < 2; rank++) {
		s_loader(r.model, 100 + rank, 1, &ds);
		read_loader(r.model, rank, 0, 0, 0, 100);
	}
	s_finish(&r);
	/* The user built a sharded loader over the same dataset, iterated the
	 * plain one: the same error, worded for plain torch. */
	const struct aw_finding *f = get(&r, "unused-prepared");
	cr_expect(says(f, "a sharded loader over the same dataset"), "%s",
		  f->message);
	s_done(&r);
}

Test(rules, stale_len_of_the_loader_before_prepare)
{
	struct s_run r = {.model = aw_model_create()};
	prepared_loaders(r.model, 2);
	for (int rank = 0; rank < 2; rank++) {
		s_loader_len(r.model, 100 + rank, 0, 10); /* the user's */
		for (uint32_t epoch = 0; epoch < 2; epoch++)
			read_loader(r.model, rank, 1, epoch,
				    50 * (uint32_t)rank,
				    50 * (uint32_t)rank + 50);
	}
	s_finish(&r);
	expect_only(&r.findings, "stale-len");
	const struct aw_finding *f = get(&r, "stale-len");
	cr_expect_eq(f->severity, AW_SEVERITY_WARNING);
	cr_expect_eq(number(f, "len"), 10);
	cr_expect_eq(number(f, "batches"), 5);
	cr_expect_eq(f->n_ranks, 2);
	cr_expect_eq(f->loader, 0);
	cr_expect(says(f, "never iterated"), "%s", f->message);
	cr_expect(says(f, "after prepare()"), "%s", f->fix);
	s_done(&r);
}

Test(rules, no_stale_len_when_the_counts_agree_or_nothing_was_iterated)
{
	struct s_run r = {.model = aw_model_create()};
	prepared_loaders(r.model, 2);
	for (int rank = 0; rank < 2; rank++) {
		s_loader_len(r.model, 100 + rank, 0, 5);
		read_loader(r.model, rank, 1, 0, 50 * (uint32_t)rank,
			    50 * (uint32_t)rank + 50);
	}
	s_finish(&r);
	expect_only(&r.findings, NULL);
	s_done(&r);

	r.model = aw_model_create();
	prepared_loaders(r.model, 2);
	s_loader_len(r.model, 100, 0, 10);
	s_finish(&r);
	expect_only(&r.findings, NULL);
	s_done(&r);
}

Test(rules, len_mismatch_in_a_full_epoch_only)
{
	struct s_run r = {.model = aw_model_create()};
	s_ranks(r.model, 1, &base);
	s_loader_len(r.model, 100, 0, 11);
	s_rank_reads(r.model, 0, 0, 0, 100, 10);
	s_finish(&r);
	expect_only(&r.findings, "len-mismatch");
	const struct aw_finding *f = get(&r, "len-mismatch");
	cr_expect_eq(number(f, "len"), 11);
	cr_expect_eq(number(f, "batches"), 10);
	cr_expect_eq(f->epoch, 0);
	cr_expect_not(says(f, "accelerate itself"));
	s_done(&r);

	/* The same len() with a loop that left early: nothing to compare. */
	r.model = aw_model_create();
	s_ranks(r.model, 1, &base);
	s_loader_len(r.model, 100, 0, 11);
	uint32_t idx[30];
	s_range(idx, 0, 30, 1);
	struct s_epoch e = {.indices = idx,
			    .count = 30,
			    .batch_size = 10,
			    .end = true,
			    .abandoned = true};
	s_epoch(r.model, 100, 0, 0, &e);
	s_finish(&r);
	expect_only(&r.findings, NULL);
	s_done(&r);
}

Test(rules, len_mismatch_of_split_batches_without_even_batches)
{
	/* accelerate does this itself: still a warning, but it says so. */
	struct s_run r = {.model = aw_model_create()};
	prepared_loaders(r.model, 2);
	for (int rank = 0; rank < 2; rank++) {
		s_loader_wrap(r.model, 100 + rank, 2, 1, "shard", 1, 0, 2,
			      rank);
		s_loader_len(r.model, 100 + rank, 2, 6);
		read_loader(r.model, rank, 1, 0, 50 * (uint32_t)rank,
			    50 * (uint32_t)rank + 50);
	}
	s_finish(&r);
	const struct aw_finding *f = get(&r, "len-mismatch");
	cr_expect_eq(f->severity, AW_SEVERITY_WARNING);
	cr_expect(says(f, "accelerate itself does this with "
			  "split_batches=True and even_batches=False"),
		  "%s", f->message);
	cr_expect_eq(s_count(&r.findings, "stale-len"), 0,
		     "len() of the outer loader counts for the inner one");
	s_done(&r);
}

/* --- forks and workers ------------------------------------------------------
 */

/* Rank 0 (pid 100) with loader 0 of 2 workers; forks a worker per epoch
 * pair (pids 200 + 2e + w) with the given thread names. */
static void workers_over_epochs(struct aw_model *m, uint32_t epochs,
				int8_t persistent, const char *names)
{
	struct s_loader_opts o = base;
	o.num_workers = 2;
	o.persistent_workers = persistent;
	s_ranks(m, 1, &o);
	for (uint32_t e = 0; e < epochs; e++) {
		s_iter_begin(m, 100, 0, e);
		bool fork = !persistent || e == 0;
		for (int32_t w = 0; fork && w < 2; w++) {
			int32_t pid = 200 + 2 * (int32_t)e + w;
			s_fork(m, 100, pid, 3, names, false);
			s_process(m, pid, 100, 0, 1, "worker");
			s_worker(m, pid, w, 0, e);
		}
		uint32_t idx[100];
		s_range(idx, 0, 100, 1);
		for (uint32_t b = 0; b < 10; b++)
			s_batch(m, 100, 0, e, b, 0, 10, idx + 10 * b, 10);
		s_iter_end(m, 100, 0, e, 10, 10, 1);
	}
}

Test(rules, fork_threads_names_the_threads_and_shows_the_stack)
{
	struct s_run r = {.model = aw_model_create()};
	workers_over_epochs(r.model, 1, 1, "python3,python3,aw-heartbeat");
	s_finish(&r);
	expect_only(&r.findings, "fork-threads");
	const struct aw_finding *f = get(&r, "fork-threads");
	cr_expect_eq(f->severity, AW_SEVERITY_WARNING);
	cr_expect_eq(number(f, "forks"), 2);
	cr_expect_eq(f->loader, 0, "the loader whose workers were forked");
	cr_expect(says(f, "aw-heartbeat"), "%s", f->message);
	cr_expect(says(f, "train.py:40 main"), "%s", f->evidence);
	cr_expect(says(f, "library frames, down to"), "%s", f->evidence);
	cr_expect(has_rank(f, 0));
	s_done(&r);
}

Test(rules, no_fork_threads_for_unnamed_threads_one_thread_or_exec)
{
	/* gloo's threads carry the main thread's name: not listed. */
	struct s_run r = {.model = aw_model_create()};
	workers_over_epochs(r.model, 1, 1, "python3,python3,python3");
	s_finish(&r);
	expect_only(&r.findings, NULL);
	s_done(&r);

	r.model = aw_model_create();
	s_ranks(r.model, 1, &base);
	s_fork(r.model, 100, 300, 1, "python3", false);
	/* fork + exec: nothing of the parent runs in the child */
	s_fork(r.model, 100, 301, 4, "python3,aw-heartbeat", false);
	s_exec(r.model, 301);
	s_finish(&r);
	expect_only(&r.findings, NULL);
	s_done(&r);
}

Test(rules, no_fork_threads_for_libraries_service_threads)
{
	/* torch 2.x's TCPStore server and gloo's threads: a plain DDP job with
	 * DataLoader workers, not the finding. */
	struct s_run r = {.model = aw_model_create()};
	workers_over_epochs(r.model, 1, 1,
			    "python3,pt_tcpstore,gloo_tcp_loop,pt_gloo_runloop,"
			    "pt_gloo_runloop,jemalloc_bg_thd,python3");
	s_finish(&r);
	expect_only(&r.findings, NULL);
	s_done(&r);
}

Test(rules, no_fork_threads_for_queue_feeders_and_lightning_observer)
{
	/* Workers re-forked each epoch while the last epoch's queues still
	 * feed: multiprocessing's own threads, fork-safe by design. */
	struct s_run r = {.model = aw_model_create()};
	s_ranks(r.model, 1, &base);
	s_fork_python(r.model, 100, 300, 3, "python3",
		      "multiprocessing.queues QueueFeederThread (daemon)\n"
		      "multiprocessing.queues QueueFeederThread (daemon)\n"
		      "lightning.fabric.strategies.launchers.subprocess_script "
		      "child-process-observer (daemon)",
		      false);
	s_finish(&r);
	expect_only(&r.findings, NULL);
	s_done(&r);
}

Test(rules, fork_threads_names_python_threads_beside_service_threads)
{
	/* A Python thread has no OS name of its own (< 3.14): the recorder
	 * names it from threading. Service threads are shown, apart. */
	struct s_run r = {.model = aw_model_create()};
	s_ranks(r.model, 1, &base);
	s_fork_python(
	    r.model, 100, 300, 7, "python3,pt_tcpstore,gloo_tcp_loop",
	    "__main__ metrics-uploader (daemon)\nlogs.writer log-writer\n"
	    "multiprocessing.queues QueueFeederThread (daemon)\n"
	    "torch.utils.data._utils.pin_memory Thread-3 "
	    "(_pin_memory_loop) (daemon)",
	    false);
	s_finish(&r);
	expect_only(&r.findings, "fork-threads");
	const struct aw_finding *f = get(&r, "fork-threads");
	cr_expect(says(f, "metrics-uploader (daemon), log-writer"), "%s",
		  f->message);
	cr_expect(!strstr(f->message, "pt_tcpstore"), "%s", f->message);
	cr_expect(says(f, "libraries' own (not the finding) pt_tcpstore, "
			  "gloo_tcp_loop, QueueFeederThread (daemon), Thread-3 "
			  "(_pin_memory_loop) (daemon)"),
		  "%s", f->evidence);
	s_done(&r);
}

Test(rules, fork_cuda_is_an_error)
{
	struct s_run r = {.model = aw_model_create()};
	s_ranks(r.model, 1, &base);
	s_fork(r.model, 100, 300, 1, "python3", true);
	s_finish(&r);
	expect_only(&r.findings, "fork-cuda");
	const struct aw_finding *f = get(&r, "fork-cuda");
	cr_expect_eq(f->severity, AW_SEVERITY_ERROR);
	cr_expect(says(f, "multiprocessing_context"), "%s", f->fix);
	s_done(&r);
}

Test(rules, worker_respawn_without_persistent_workers)
{
	struct s_run r = {.model = aw_model_create()};
	workers_over_epochs(r.model, 3, 0, "python3");
	s_finish(&r);
	expect_only(&r.findings, "worker-respawn");
	const struct aw_finding *f = get(&r, "worker-respawn");
	cr_expect_eq(number(f, "epochs"), 3);
	cr_expect_eq(number(f, "workers"), 6);
	cr_expect(says(f, "persistent_workers=True"), "%s", f->fix);
	s_done(&r);

	/* Persistent workers, forked once; or a single epoch: nothing. */
	r.model = aw_model_create();
	workers_over_epochs(r.model, 3, 1, "python3");
	s_finish(&r);
	expect_only(&r.findings, NULL);
	s_done(&r);
	r.model = aw_model_create();
	workers_over_epochs(r.model, 1, 0, "python3");
	s_finish(&r);
	expect_only(&r.findings, NULL);
	s_done(&r);
}

Test(rules, worker_died_names_rank_worker_pid_and_last_fetch)
{
	struct s_run r = {.model = aw_model_create()};
	workers_over_epochs(r.model, 1, 1, "python3");
	uint32_t idx[8];
	s_range(idx, 161, 8, 4);
	s_worker_fetch(r.model, 201, 1, 0, 0, 2, idx, 8);
	s_exit(r.model, 100, 201, -1, SIGKILL); /* the parent saw it */
	s_exit(r.model, 200, 200, 0, -1);       /* worker 0 ended well */
	s_finish(&r);
	expect_only(&r.findings, "worker-died");
	cr_expect_eq(s_count(&r.findings, "worker-died"), 1);
	const struct aw_finding *f = get(&r, "worker-died");
	cr_expect_eq(f->severity, AW_SEVERITY_ERROR);
	cr_expect(has_rank(f, 0));
	cr_expect_eq(number(f, "pid"), 201);
	cr_expect_eq(number(f, "worker_id"), 1);
	cr_expect_eq(number(f, "signal"), SIGKILL);
	cr_expect_eq(number(f, "fetch"), 2);
	cr_expect_eq(number(f, "first_index"), 161);
	cr_expect(says(f, "worker 1"), "%s", f->message);
	cr_expect(says(f, "SIGKILL"), "%s", f->message);
	cr_expect(says(f, "fetch #2 of epoch 0 (indices [161, 165, 169, 173, "
			  "177, 181, 185, 189])"),
		  "%s", f->message);
	/* A trace without fetch ends cannot say whether it was in it. */
	cr_expect(says(f, "does not record whether it ended"), "%s",
		  f->evidence);
	cr_expect(says(f, "out-of-memory"), "%s", f->fix);
	s_done(&r);
}

Test(rules, worker_died_by_status_but_not_by_sigterm)
{
	struct s_run r = {.model = aw_model_create()};
	workers_over_epochs(r.model, 1, 1, "python3");
	s_exit(r.model, 200, 200, 1, -1);
	s_exit(r.model, 100, 201, -1, SIGTERM); /* the DataLoader's shutdown */
	s_finish(&r);
	cr_expect_eq(s_count(&r.findings, "worker-died"), 1);
	const struct aw_finding *f = get(&r, "worker-died");
	cr_expect_eq(number(f, "pid"), 200);
	cr_expect_eq(number(f, "status"), 1);
	s_done(&r);
}

/* --- worker-stuck ------------------------------------------------------------
 */

/* Rank 0's workers (pids 200, 201, one epoch, persistent): worker 0 fetches
 * 0..3 and ends; worker 1's fetch #1 of [17, 19, 21, 23] starts at 1.0 s
 * and, if `end`, ends. */
static void worker_fetches(struct aw_model *m, bool end)
{
	workers_over_epochs(m, 1, 1, "python3");
	uint32_t first[4] = {0, 1, 2, 3}, stuck[4] = {17, 19, 21, 23};
	s_clock(m, 0.5);
	s_worker_fetch(m, 200, 0, 0, 0, 0, first, 4);
	s_worker_fetch_end(m, 200, 0, 0, 0, 0, true);
	s_worker_fetch(m, 201, 1, 0, 0, 0, first, 4);
	s_worker_fetch_end(m, 201, 1, 0, 0, 0, true);
	s_clock(m, 1.0);
	s_worker_fetch(m, 201, 1, 0, 0, 1, stuck, 4);
	if (end)
		s_worker_fetch_end(m, 201, 1, 0, 0, 1, true);
	s_clock(m, 9.5);
}

Test(rules, worker_stuck_names_the_fetch_its_indices_and_how_long)
{
	/* DataLoader(timeout=...) expired; the shutdown SIGTERMed worker 1. */
	struct s_run r = {.model = aw_model_create()};
	worker_fetches(r.model, false);
	s_exit(r.model, 100, 200, 0, -1);
	s_exit(r.model, 100, 201, -1, SIGTERM);
	s_finish(&r);
	expect_only(&r.findings, "worker-stuck");
	cr_expect_eq(s_count(&r.findings, "worker-stuck"), 1);
	const struct aw_finding *f = get(&r, "worker-stuck");
	cr_expect_eq(f->severity, AW_SEVERITY_ERROR);
	cr_expect_eq(f->loader, 0);
	cr_expect_eq(f->epoch, 0);
	cr_expect(has_rank(f, 0) && f->n_ranks == 1);
	cr_expect_eq(number(f, "pid"), 201);
	cr_expect_eq(number(f, "worker_id"), 1);
	cr_expect_eq(number(f, "fetch"), 1);
	cr_expect_eq(number(f, "fetch_size"), 4);
	cr_expect_eq(number(f, "first_index"), 17);
	cr_expect_eq(number(f, "signal"), SIGTERM);
	cr_expect(says(f, "worker 1 of L0 (train.py:10) on rank 0 (pid 201)"),
		  "%s", f->message);
	cr_expect(says(f, "fetch #1 of epoch 0 (indices [17, 19, 21, 23])"),
		  "%s", f->message);
	cr_expect(says(f, "for 8.5 s"), "%s", f->message);
	cr_expect(says(f, "SIGTERM"), "%s", f->message);
	cr_expect(says(f, "num_workers=0"), "%s", f->fix);
	cr_expect(says(f, "py-spy dump --pid 201"), "%s", f->fix);
	s_done(&r);
}

Test(rules, worker_stuck_when_it_answered_the_sigterm_with_exit_0)
{
	/* torch's workers _exit(0) on their parent's SIGTERM: the worker's
	 * own exit event says status 0. */
	struct s_run r = {.model = aw_model_create()};
	worker_fetches(r.model, false);
	s_exit(r.model, 201, 201, 0, -1);
	s_finish(&r);
	expect_only(&r.findings, "worker-stuck");
	const struct aw_finding *f = get(&r, "worker-stuck");
	cr_expect_eq(number(f, "status"), 0);
	cr_expect(says(f, "for 8.5 s, until it exited with status 0"), "%s",
		  f->message);
	s_done(&r);
}

Test(rules, worker_stuck_when_the_trace_ended_inside_the_fetch)
{
	struct s_run r = {.model = aw_model_create()};
	worker_fetches(r.model, false);
	s_finish(&r);
	expect_only(&r.findings, "worker-stuck");
	const struct aw_finding *f = get(&r, "worker-stuck");
	cr_expect(says(f, "still in it when the trace ended"), "%s",
		  f->message);
	cr_expect(says(f, "for 8.5 s"), "%s", f->message);
	s_done(&r);

	/* Without clock records: no duration, the rest the same. */
	r.model = aw_model_create();
	worker_fetches(r.model, false);
	r.model->clock_ns = -1;
	r.model->processes[3].fetch_start_ns = -1;
	s_finish(&r);
	f = get(&r, "worker-stuck");
	cr_expect(!says(f, " s, "), "%s", f->message);
	cr_expect(says(f, "[17, 19, 21, 23]"), "%s", f->message);
	s_done(&r);
}

Test(rules, no_worker_stuck_when_the_fetch_ended)
{
	/* The fetch ended, then the shutdown SIGTERMed the idle worker. */
	struct s_run r = {.model = aw_model_create()};
	worker_fetches(r.model, true);
	s_exit(r.model, 100, 201, -1, SIGTERM);
	s_finish(&r);
	expect_only(&r.findings, NULL);
	s_done(&r);

	/* Terminated 0.5 s into an ordinary fetch (at interpreter exit):
	 * too short for a hang. */
	r.model = aw_model_create();
	worker_fetches(r.model, false);
	r.model->clock_ns = 1500000000;
	s_exit(r.model, 100, 201, -1, SIGTERM);
	s_finish(&r);
	expect_only(&r.findings, NULL);
	s_done(&r);

	/* Events were lost: the end may be one of them. */
	r.model = aw_model_create();
	worker_fetches(r.model, false);
	r.model->stats.discarded_events = 3;
	s_finish(&r);
	expect_only(&r.findings, "trace-incomplete");
	s_done(&r);

	/* A recorder without worker_fetch_end: every fetch looks open. */
	r.model = aw_model_create();
	workers_over_epochs(r.model, 1, 1, "python3");
	uint32_t idx[4] = {17, 19, 21, 23};
	s_worker_fetch(r.model, 201, 1, 0, 0, 1, idx, 4);
	s_exit(r.model, 100, 201, -1, SIGTERM);
	s_finish(&r);
	expect_only(&r.findings, NULL);
	s_done(&r);
}

Test(rules, worker_stuck_on_its_first_fetch_when_the_trace_declares_ends)
{
	/* Every worker hangs on its first fetch (a fork deadlock): no end was
	 * recorded, but the metadata says the recorder had the event. */
	struct s_run r = {.model = aw_model_create()};
	workers_over_epochs(r.model, 1, 1, "python3");
	r.model->stats.declared_kinds = 1u << AW_EVENT_WORKER_FETCH_END;
	uint32_t idx[2] = {0, 1};
	s_worker_fetch(r.model, 200, 0, 0, 0, 0, idx, 2);
	s_worker_fetch(r.model, 201, 1, 0, 0, 0, idx, 2);
	s_finish(&r);
	expect_only(&r.findings, "worker-stuck");
	cr_expect_eq(s_count(&r.findings, "worker-stuck"), 2);
	s_done(&r);
}

Test(rules, a_crashed_worker_is_worker_died_only_and_says_it_was_fetching)
{
	struct s_run r = {.model = aw_model_create()};
	worker_fetches(r.model, false);
	s_exit(r.model, 100, 201, -1, SIGSEGV);
	s_finish(&r);
	expect_only(&r.findings, "worker-died");
	cr_expect_eq(s_count(&r.findings, "worker-stuck"), 0);
	const struct aw_finding *f = get(&r, "worker-died");
	cr_expect_eq(number(f, "fetch_open"), 1);
	cr_expect(says(f, "in the middle of its fetch #1 of epoch 0 (indices "
			  "[17, 19, 21, 23])"),
		  "%s", f->message);
	cr_expect(says(f, "was still in progress"), "%s", f->evidence);
	s_done(&r);

	/* Died between fetches: said so, with how the last one ended. */
	r.model = aw_model_create();
	worker_fetches(r.model, true);
	s_exit(r.model, 100, 201, -1, SIGKILL);
	s_finish(&r);
	expect_only(&r.findings, "worker-died");
	f = get(&r, "worker-died");
	cr_expect_eq(number(f, "fetch_open"), 0);
	cr_expect(says(f, "between fetches (its last, #1 of epoch 0, had "
			  "returned)"),
		  "%s", f->message);
	s_done(&r);
}

/* --- rank-died ---------------------------------------------------------------
 */

/* Two ranks (N = 100, B = 10): rank 0 reads its 50 to the end, rank 1
 * draws 3 batches of 50.. and neither ends nor exits (yet). */
static void rank_cut_short(struct aw_model *m)
{
	s_ranks(m, 2, &base);
	s_rank_reads(m, 0, 0, 0, 50, 10);
	uint32_t idx[30];
	s_range(idx, 50, 30, 1);
	struct s_epoch e = {
	    .indices = idx, .count = 30, .batch_size = 10, .end = false};
	s_epoch(m, 101, 0, 0, &e);
}

Test(rules, rank_died_names_the_rank_signal_epoch_and_last_batch)
{
	/* The launcher (torch imported, so traced) reaped rank 1, killed by
	 * SIGKILL mid-epoch, then stopped rank 2 with SIGTERM. */
	struct s_run r = {.model = aw_model_create()};
	s_ranks(r.model, 3, &base);
	s_rank_reads(r.model, 0, 0, 0, 30, 10);
	uint32_t idx[30];
	s_range(idx, 50, 30, 1);
	struct s_epoch e = {
	    .indices = idx, .count = 30, .batch_size = 10, .end = false};
	s_epoch(r.model, 101, 0, 0, &e);
	s_range(idx, 30, 20, 1);
	e.count = 20;
	s_epoch(r.model, 102, 0, 0, &e);
	s_exit(r.model, 99, 101, -1, SIGKILL);
	s_exit(r.model, 99, 102, -1, SIGTERM);
	s_finish(&r);
	expect_only(&r.findings, "rank-died");
	cr_expect_eq(s_count(&r.findings, "rank-died"), 1,
		     "rank 2 was stopped because rank 1 died");
	cr_expect_eq(s_count(&r.findings, "trace-incomplete"), 0);
	const struct aw_finding *f = get(&r, "rank-died");
	cr_expect_eq(f->severity, AW_SEVERITY_ERROR);
	cr_expect(has_rank(f, 1) && f->n_ranks == 1);
	cr_expect_eq(f->loader, 0);
	cr_expect_eq(f->epoch, 0);
	cr_expect_eq(number(f, "pid"), 101);
	cr_expect_eq(number(f, "signal"), SIGKILL);
	cr_expect_eq(number(f, "batch"), 2);
	cr_expect_eq(number(f, "batches"), 3);
	cr_expect_eq(number(f, "first_index"), 70);
	cr_expect(says(f, "rank 1 (pid 101) was killed by signal 9 (SIGKILL) "
			  "in epoch 0 of L0 (train.py:10)"),
		  "%s", f->message);
	cr_expect(says(f, "the last #2 with indices [70, 71, 72, 73, 74, 75, "
			  "76, 77, ...] (10 indices)"),
		  "%s", f->message);
	cr_expect(says(f, "rank 2 (pid 102) was stopped by SIGTERM too, in "
			  "epoch 0 of L0 (train.py:10) after 2 batches"),
		  "%s", f->evidence);
	cr_expect(says(f, "out-of-memory"), "%s", f->fix);
	s_done(&r);
}

Test(rules, rank_died_by_sigterm_alone_or_by_status)
{
	struct s_run r = {.model = aw_model_create()};
	rank_cut_short(r.model);
	s_exit(r.model, 99, 101, -1, SIGTERM);
	s_finish(&r);
	expect_only(&r.findings, "rank-died");
	const struct aw_finding *f = get(&r, "rank-died");
	cr_expect(has_rank(f, 1));
	cr_expect(says(f, "stopped from outside"), "%s", f->fix);
	s_done(&r);

	/* Rank 0 raised outside its loop (its pass had ended); the launcher
	 * then stopped ranks 1 and 2 mid-epoch: one finding for both. */
	r.model = aw_model_create();
	s_ranks(r.model, 3, &base);
	s_rank_reads(r.model, 0, 0, 0, 30, 10);
	uint32_t idx[20];
	s_range(idx, 30, 20, 1);
	struct s_epoch e = {
	    .indices = idx, .count = 20, .batch_size = 10, .end = false};
	s_epoch(r.model, 101, 0, 0, &e);
	s_epoch(r.model, 102, 0, 0, &e);
	s_exit(r.model, 99, 100, 1, -1);
	s_exit(r.model, 99, 101, -1, SIGTERM);
	s_exit(r.model, 99, 102, -1, SIGTERM);
	s_finish(&r);
	expect_only(&r.findings, "rank-died");
	cr_expect_eq(s_count(&r.findings, "rank-died"), 1);
	f = get(&r, "rank-died");
	cr_expect(has_rank(f, 1) && has_rank(f, 2) && !has_rank(f, 0));
	cr_expect(says(f, "rank 0 (pid 100) exited with status 1 outside any "
			  "pass over a loader"),
		  "%s", f->evidence);
	cr_expect(says(f, "rank 2 (pid 102) was stopped by SIGTERM too"), "%s",
		  f->evidence);
	s_done(&r);

	r.model = aw_model_create();
	rank_cut_short(r.model);
	s_exit(r.model, 101, 101, 3, -1); /* its own _exit(3) */
	s_finish(&r);
	expect_only(&r.findings, "rank-died");
	f = get(&r, "rank-died");
	cr_expect_eq(number(f, "status"), 3);
	cr_expect(says(f, "exited with status 3"), "%s", f->message);
	s_done(&r);
}

Test(rules, no_rank_died_after_its_epochs_or_for_a_clean_exit)
{
	/* Killed after its loop ended: not a data-loading death. */
	struct s_run r = {.model = aw_model_create()};
	s_ranks(r.model, 2, &base);
	s_rank_reads(r.model, 0, 0, 0, 50, 10);
	s_rank_reads(r.model, 1, 0, 50, 100, 10);
	s_exit(r.model, 99, 101, -1, SIGKILL);
	s_finish(&r);
	expect_only(&r.findings, NULL);
	s_done(&r);

	/* os._exit(0) mid-epoch: it chose to; nothing to say. */
	r.model = aw_model_create();
	rank_cut_short(r.model);
	s_exit(r.model, 101, 101, 0, -1);
	s_finish(&r);
	expect_only(&r.findings, NULL);
	s_done(&r);
}

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

Test(rules, iterable_duplicate_across_workers)
{
	/* Both workers of each rank replay the rank's 50 items. */
	struct s_run r = {.model = aw_model_create()};
	iterable_epoch(r.model, 2, "IndexStream");
	for (int rank = 0; rank < 2; rank++)
		for (int32_t w = 0; w < 2; w++)
			items_of(r.model, rank, w, 100 * (uint64_t)rank, 50);
	s_finish(&r);
	expect_only(&r.findings, "iterable-duplicate");
	const struct aw_finding *f = get(&r, "iterable-duplicate");
	cr_expect_eq(number(f, "repeated_items"), 100);
	cr_expect_eq(number(f, "distinct_items"), 100);
	cr_expect_eq(number(f, "across_workers"), 100);
	cr_expect_eq(number(f, "across_ranks"), 0);
	cr_expect_eq(f->n_ranks, 2);
	cr_expect(says(f, "worker 0 (pid 300) and rank 0 worker 1 (pid 301)"),
		  "%s", f->evidence);
	cr_expect(says(f, "get_worker_info"), "%s", f->fix);
	const struct aw_cell *c =
	    &r.model->loaders_global[0].epochs[0].cells[0];
	cr_expect(c->from_items);
	cr_expect_eq(c->samples, 100);
	cr_expect_eq(c->unique, 50);
	s_done(&r);
}

Test(rules, iterable_split_by_worker_and_rank_is_clean)
{
	struct s_run r = {.model = aw_model_create()};
	iterable_epoch(r.model, 2, "IndexStream");
	for (int rank = 0; rank < 2; rank++)
		for (int32_t w = 0; w < 2; w++)
			items_of(r.model, rank, w,
				 100 * (uint64_t)rank + 50 * (uint64_t)w, 50);
	s_finish(&r);
	expect_only(&r.findings, NULL);
	const struct aw_epoch *e = &r.model->loaders_global[0].epochs[0];
	cr_expect_eq(e->union_count, 200);
	cr_expect_eq(e->samples, 200);
	s_done(&r);
}

Test(rules, iterable_dataset_shard_padding_is_allowed)
{
	/* accelerate's IterableDatasetShard pads the last buffer cyclically:
	 * up to W*B-1 items on two ranks (here 3 of W*B = 20). */
	struct s_run r = {.model = aw_model_create()};
	iterable_epoch(r.model, 2, "IterableDatasetShard");
	items_of(r.model, 0, 0, 0, 50);
	items_of(r.model, 1, 0, 50, 50);
	items_of(r.model, 1, 1, 0, 3);
	s_finish(&r);
	expect_only(&r.findings, NULL);
	s_done(&r);
}

/* --- trace-incomplete --------------------------------------------------------
 */

Test(rules, trace_incomplete_discards_and_vanished_processes)
{
	struct s_run r = {.model = aw_model_create()};
	s_ranks(r.model, 2, &base);
	s_rank_reads(r.model, 0, 0, 0, 50, 10);
	uint32_t idx[20];
	s_range(idx, 50, 20, 1);
	struct s_epoch e = {
	    .indices = idx, .count = 20, .batch_size = 10, .end = false};
	s_epoch(r.model, 101, 0, 0, &e); /* rank 1 vanished */
	r.model->stats.discarded_events = 40;
	r.model->stats.discarded_events_messages = 2;
	s_finish(&r);
	expect_only(&r.findings, "trace-incomplete");
	const struct aw_finding *f = get(&r, "trace-incomplete");
	cr_expect_eq(f->severity, AW_SEVERITY_WARNING);
	cr_expect_eq(number(f, "discarded_events"), 40);
	cr_expect_eq(number(f, "vanished_iterations"), 1);
	cr_expect(has_rank(f, 1) && !has_rank(f, 0));
	cr_expect(says(f, "lower bounds"), "%s", f->message);
	cr_expect(says(f, "rank 1 (pid 101): epoch 0 of L0"), "%s",
		  f->evidence);
	cr_expect(says(f, "the last batch it drew: #1, indices [60, 61, 62, "
			  "63, 64, 65, 66, 67, ...] (10 indices)"),
		  "%s", f->evidence);
	cr_expect(says(f, "(rank 1: L0 epoch 0, last batch #1)"), "%s",
		  f->message);
	cr_expect_eq(s_count(&r.findings, "rank-died"), 0, "no exit seen");
	s_done(&r);
}

Test(rules, no_trace_incomplete_when_the_end_is_known)
{
	/* The process exited (its end is known) or the trace is whole. */
	struct s_run r = {.model = aw_model_create()};
	s_ranks(r.model, 1, &base);
	uint32_t idx[20];
	s_range(idx, 0, 20, 1);
	struct s_epoch e = {
	    .indices = idx, .count = 20, .batch_size = 10, .end = false};
	s_epoch(r.model, 100, 0, 0, &e);
	s_exit(r.model, 100, 100, 1, -1);
	s_finish(&r);
	cr_expect_eq(s_count(&r.findings, "trace-incomplete"), 0);
	s_done(&r);

	r.model = aw_model_create();
	s_ranks(r.model, 1, &base);
	r.model->stats.read_error = true;
	strcpy(r.model->stats.read_error_message, "packet 3 is cut short");
	s_finish(&r);
	const struct aw_finding *f = get(&r, "trace-incomplete");
	cr_expect(says(f, "packet 3 is cut short"), "%s", f->evidence);
	s_done(&r);
}
