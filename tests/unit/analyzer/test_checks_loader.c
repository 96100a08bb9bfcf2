/* SPDX-License-Identifier: MIT */
/* The loader checks (checks_loader.c) on event streams built here, with their
 * edges: same-order, unused-prepared, stale-len, len-mismatch. */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <signal.h>
#include <string.h>

#include "stream.h"

static const struct s_loader_opts base = S_BASE_LOADER(0);

/* --- same-order -------------------------------------------------------------
 */

Test(checks_loader, same_order_when_a_shuffling_sampler_repeats)
{
	struct s_loader_opts o = base;
	o.shuffle = 1;
	struct s_run r = s_run_distributed(2, o);
	uint32_t order[50];
	for (int rank = 0; rank < 2; rank++) {
		for (uint32_t i = 0; i < 50; i++)
			order[i] = (uint32_t)rank + 2 * ((i * 7) % 50);
		for (uint32_t epoch = 0; epoch < 3; epoch++)
			s_reads_in_order(r.model, rank, 0, epoch, order, 50,
					 10);
	}
	const struct aw_finding *f = s_finish_only(&r, "same-order");
	cr_expect_eq(s_count(&r.findings, "same-order"), 1);
	cr_expect_eq(f->severity, AW_SEVERITY_WARNING);
	cr_expect_eq(f->epoch, 1);
	cr_expect_eq(f->n_ranks, 2);
	cr_expect_eq(s_number(f, "epoch_pairs"), 4);
	s_expect_says(f, "set_epoch");
	/* s_iter_begin reports sampler_epoch = iteration: it changed. */
	cr_expect_not(s_says(f, "was not called"));
	s_done(&r);
}

Test(checks_loader, same_order_needs_shuffle_the_same_sequence_and_two_samples)
{
	uint32_t a[10], b[10];
	s_range(a, 0, 10, 1);
	for (uint32_t i = 0; i < 10; i++)
		b[i] = 9 - i; /* the same set, another order */
	struct s_loader_opts o = base;
	o.shuffle = 1;
	struct s_run r = s_run_of(1, &o);
	s_reads_in_order(r.model, 0, 0, 0, a, 10, 5);
	s_reads_in_order(r.model, 0, 0, 1, b, 10, 5);
	s_finish(&r);
	cr_expect_eq(s_count(&r.findings, "same-order"), 0);
	s_done(&r);

	o.shuffle = 0; /* a sequential sampler repeats by design */
	r.model = aw_model_create();
	s_ranks(r.model, 1, &o);
	s_reads_in_order(r.model, 0, 0, 0, a, 10, 5);
	s_reads_in_order(r.model, 0, 0, 1, a, 10, 5);
	s_finish(&r);
	cr_expect_eq(s_count(&r.findings, "same-order"), 0);
	s_done(&r);

	o.shuffle = 1; /* one sample: no order to speak of */
	o.dataset_len = 1;
	r.model = aw_model_create();
	s_ranks(r.model, 1, &o);
	s_reads_in_order(r.model, 0, 0, 0, a, 1, 1);
	s_reads_in_order(r.model, 0, 0, 1, a, 1, 1);
	/* empty epochs neither */
	s_reads_in_order(r.model, 0, 0, 2, a, 0, 1);
	s_reads_in_order(r.model, 0, 0, 3, a, 0, 1);
	s_finish(&r);
	cr_expect_eq(s_count(&r.findings, "same-order"), 0);
	s_done(&r);
}

Test(checks_loader, same_order_names_a_sampler_epoch_that_did_not_move)
{
	struct s_loader_opts o = base;
	o.shuffle = 1;
	struct s_run r = s_run_of(1, &o);
	uint32_t idx[10];
	s_range(idx, 0, 10, 1);
	for (uint32_t epoch = 0; epoch < 2; epoch++) {
		s_iter_begin_sampler(r.model, 100, 0, epoch, 0, -1);
		s_batch(r.model, 100, 0, epoch, 0, 0, 10, idx, 10);
		s_iter_end(r.model, 100, 0, epoch, 1, 1, 1);
	}
	s_finish(&r);
	const struct aw_finding *f = s_get(&r, "same-order");
	s_expect_says(f, "set_epoch() was not called");
	s_done(&r);
}

Test(checks_loader, same_order_names_a_set_epoch_that_came_after_the_draw)
{
	/* Epochs 0 and 1 begin with the sampler's epoch 0, epoch 2 with 1
	 * (a loader that keeps one iterator and prefetches the next epoch
	 * before set_epoch): set_epoch was called, late. */
	struct s_loader_opts o = base;
	o.shuffle = 1;
	struct s_run r = s_run_of(1, &o);
	uint32_t idx[10];
	const int64_t sampler_epoch[3] = {0, 0, 1};
	for (uint32_t epoch = 0; epoch < 3; epoch++) {
		s_range(idx, epoch == 2 ? 5 : 0, 10, 1);
		s_iter_begin_sampler(r.model, 100, 0, epoch,
				     sampler_epoch[epoch], -1);
		s_batch(r.model, 100, 0, epoch, 0, 0, 10, idx, 10);
		s_iter_end(r.model, 100, 0, epoch, 1, 1, 1);
	}
	s_finish(&r);
	const struct aw_finding *f = s_get(&r, "same-order");
	s_expect_says(f, "set_epoch() was called after epoch 1's pass had "
			 "begun drawing");
	cr_expect(strstr(f->fix, "persistent_workers=True") != NULL, "%s",
		  f->fix);
	s_done(&r);
}

/* A new DataLoader every epoch around one DistributedSampler(shuffle=True)
 * (DeepSpeed's loader builds one on each iter()): each loader object has
 * one pass, the epochs are the loader objects'. Without set_epoch every
 * one reads the same order (its sampler's epoch 0 at each start). */
static struct s_run loader_per_epoch(bool set_epoch)
{
	struct s_loader_opts o = base;
	o.shuffle = 1;
	o.sampler = "torch.utils.data.distributed.DistributedSampler";
	struct s_run r = s_run_of(0, NULL);
	s_process(r.model, 99, 1, -1, 2, "launcher");
	uint32_t order[50];
	for (int rank = 0; rank < 2; rank++) {
		int32_t pid = 100 + rank;
		s_process(r.model, pid, 99, rank, 2, "rank");
		for (uint32_t epoch = 0; epoch < 3; epoch++) {
			uint32_t step = set_epoch ? 7 + 2 * epoch : 7;
			for (uint32_t i = 0; i < 50; i++)
				order[i] =
				    (uint32_t)rank + 2 * ((i * step) % 50);
			s_loader_around(r.model, pid, epoch, &o, 7);
			s_iter_begin_sampler(r.model, pid, epoch, 0,
					     set_epoch ? epoch : 0, 0);
			for (uint32_t b = 0; b < 5; b++)
				s_batch(r.model, pid, epoch, 0, b, 0, 10,
					order + 10 * b, 10);
			s_iter_end(r.model, pid, epoch, 0, 5, 5, true);
		}
	}
	return r;
}

Test(checks_loader, same_order_over_a_dataloader_built_every_epoch)
{
	struct s_run r = loader_per_epoch(false);
	const struct aw_finding *f = s_finish_only(&r, "same-order");
	cr_expect_eq(f->epoch, 1);
	cr_expect_eq(f->n_ranks, 2);
	cr_expect_eq(s_number(f, "epoch_pairs"), 4);
	s_expect_says(f, "set_epoch() was not called");
	s_expect_says(f, "epochs 0 and 1");
	s_done(&r);

	r = loader_per_epoch(true);
	s_finish_only(&r, NULL);
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
	s_reads_in_order(m, rank, loader, epoch, idx, end - begin, 10);
}

Test(checks_loader, unused_prepared_when_the_users_loader_is_iterated)
{
	struct s_run r = s_run_of(0, NULL);
	prepared_loaders(r.model, 2);
	for (int rank = 0; rank < 2; rank++)
		read_loader(r.model, rank, 0, 0, 0, 100);
	const struct aw_finding *f =
	    s_finish_get(&r, "unused-prepared", AW_SEVERITY_ERROR);
	cr_expect_eq(f->n_ranks, 2);
	cr_expect_eq(f->loader, 0, "about the loader iterated (L0)");
	s_expect_says(f, "you iterate the loader created at train.py:31");
	s_expect_says(f, "prepare() returned a sharded one");
	s_expect_says(f, "built at train.py:33");
	s_expect_says(f, "use its return value");
	cr_expect_eq(s_count(&r.findings, "unused-prepared"), 1,
		     "the inner and outer loader are one finding");
	cr_expect_eq(s_count(&r.findings, "unsharded"), 1);
	s_done(&r);
}

Test(checks_loader, no_unused_prepared_when_the_prepared_loader_is_iterated)
{
	struct s_run r = s_run_of(0, NULL);
	prepared_loaders(r.model, 2);
	read_loader(r.model, 0, 1, 0, 0, 50);
	read_loader(r.model, 1, 1, 0, 50, 100);
	s_finish_only(&r, NULL);
	/* Lineage: the inner loader was built from the user's. */
	const struct aw_loader *inner =
	    &r.model->loaders[s_loader_of(r.model, 100, 1)];
	cr_expect_eq(inner->wrapper, s_loader_of(r.model, 100, 2));
	cr_expect_eq(inner->built_from, s_loader_of(r.model, 100, 0));
	cr_expect(inner->sharded);
	cr_expect_not(r.model->loaders[s_loader_of(r.model, 100, 0)].sharded);
	s_done(&r);
}

Test(checks_loader, unused_prepared_needs_the_users_loader_iterated)
{
	/* Neither iterated (a rank that only prepared), or the user's loader
	 * shards itself (DistributedSampler): no finding. */
	struct s_run r = s_run_of(0, NULL);
	prepared_loaders(r.model, 2);
	s_finish_only(&r, NULL);
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
	const struct aw_finding *f = s_get(&r, "unused-prepared");
	s_expect_says(f, "a sharded loader over the same dataset");
	s_done(&r);
}

Test(checks_loader, stale_len_of_the_loader_before_prepare)
{
	struct s_run r = s_run_of(0, NULL);
	prepared_loaders(r.model, 2);
	for (int rank = 0; rank < 2; rank++) {
		s_loader_len(r.model, 100 + rank, 0, 10); /* the user's */
		for (uint32_t epoch = 0; epoch < 2; epoch++)
			read_loader(r.model, rank, 1, epoch,
				    50 * (uint32_t)rank,
				    50 * (uint32_t)rank + 50);
	}
	const struct aw_finding *f = s_finish_only(&r, "stale-len");
	cr_expect_eq(f->severity, AW_SEVERITY_WARNING);
	cr_expect_eq(s_number(f, "len"), 10);
	cr_expect_eq(s_number(f, "batches"), 5);
	cr_expect_eq(f->n_ranks, 2);
	cr_expect_eq(f->loader, 0);
	s_expect_says(f, "never iterated");
	s_expect_says(f, "after prepare()");
	s_done(&r);
}

/* Rank `pid - 100` prepared a scheduler with accelerate. */
static void s_scheduler(struct aw_model *m, int32_t pid, int8_t split_batches,
			int32_t num_processes)
{
	struct aw_event e;
	memset(&e, 0, sizeof(e));
	e.kind = AW_EVENT_SCHEDULER;
	e.run = 7;
	e.pid = pid;
	e.u.scheduler = (struct aw_event_scheduler){
	    .class_name = "torch.optim.lr_scheduler.LinearLR",
	    .step_with_optimizer = 1,
	    .split_batches = split_batches,
	    .num_processes = num_processes,
	    .site = "train.py:40"};
	aw_model_add_event(m, &e);
}

Test(checks_loader, no_stale_len_for_a_scheduler_prepared_to_step_per_process)
{
	/* len() before prepare() (10) sizes a scheduler accelerate steps
	 * twice per step of the 5-batch loop: what that schedule needs. With
	 * split_batches it steps once: the warning stays. */
	for (int8_t split = 0; split < 2; split++) {
		struct s_run r = s_run_of(0, NULL);
		prepared_loaders(r.model, 2);
		for (int rank = 0; rank < 2; rank++) {
			s_loader_len(r.model, 100 + rank, 0, 10);
			s_scheduler(r.model, 100 + rank, split, 2);
			read_loader(r.model, rank, 1, 0, 50 * (uint32_t)rank,
				    50 * (uint32_t)rank + 50);
		}
		s_finish(&r);
		cr_expect_eq(s_count(&r.findings, "stale-len"), split,
			     "split_batches=%d", split);
		s_done(&r);
	}
}

Test(checks_loader, no_stale_len_when_the_counts_agree_or_nothing_was_iterated)
{
	struct s_run r = s_run_of(0, NULL);
	prepared_loaders(r.model, 2);
	for (int rank = 0; rank < 2; rank++) {
		s_loader_len(r.model, 100 + rank, 0, 5);
		read_loader(r.model, rank, 1, 0, 50 * (uint32_t)rank,
			    50 * (uint32_t)rank + 50);
	}
	s_finish_only(&r, NULL);
	s_done(&r);

	r.model = aw_model_create();
	prepared_loaders(r.model, 2);
	s_loader_len(r.model, 100, 0, 10);
	s_finish_only(&r, NULL);
	s_done(&r);
}

Test(checks_loader, no_stale_len_for_the_batches_a_resumed_pass_skips)
{
	/* Trainer's resume: len() of the loader it prepared (7 batches), then
	 * a pass over skip_first_batches(loader, 2), which runs the last 5 of
	 * the epoch; without the skip the 5 are stale-len. */
	for (int skip = 2; skip >= 0; skip -= 2) {
		struct s_run r = s_run_of(0, NULL);
		prepared_loaders(r.model, 2);
		for (int rank = 0; rank < 2; rank++) {
			struct aw_event_sampler chain[2] = {
			    s_link("accelerate.data_loader.SkipBatchSampler"),
			    s_link("accelerate.data_loader.BatchSamplerShard")};
			chain[0].skip = skip;
			chain[1].batch_size = 10;
			chain[1].num_replicas = 2;
			chain[1].rank = rank;
			s_chain(r.model, 100 + rank, 1, chain, 2);
			s_chain(r.model, 100 + rank, 2, chain, 2);
			s_loader_len(r.model, 100 + rank, 0, 7);
			read_loader(r.model, rank, 1, 0, 50 * (uint32_t)rank,
				    50 * (uint32_t)rank + 50);
		}
		s_finish(&r);
		cr_expect_eq(s_count(&r.findings, "stale-len"), skip ? 0 : 1,
			     "skip %d", skip);
		s_done(&r);
	}
}

Test(checks_loader, len_mismatch_in_a_full_epoch_only)
{
	struct s_run r = s_run_of(1, &base);
	s_loader_len(r.model, 100, 0, 11);
	s_rank_reads(r.model, 0, 0, 0, 100, 10);
	const struct aw_finding *f = s_finish_only(&r, "len-mismatch");
	cr_expect_eq(s_number(f, "len"), 11);
	cr_expect_eq(s_number(f, "batches"), 10);
	cr_expect_eq(f->epoch, 0);
	cr_expect_not(s_says(f, "accelerate itself"));
	s_done(&r);

	/* The same len() with a loop that left early: nothing to compare. */
	r.model = aw_model_create();
	s_ranks(r.model, 1, &base);
	s_loader_len(r.model, 100, 0, 11);
	s_rank_reads_as(r.model, 0, 0, 0, 30,
			&(const struct s_epoch){
			    .batch_size = 10, .end = true, .abandoned = true});
	s_finish_only(&r, NULL);
	s_done(&r);
}

Test(checks_loader, len_mismatch_of_split_batches_without_even_batches)
{
	/* accelerate does this itself: still a warning, but it says so. */
	struct s_run r = s_run_of(0, NULL);
	prepared_loaders(r.model, 2);
	for (int rank = 0; rank < 2; rank++) {
		s_loader_wrap(r.model, 100 + rank, 2, 1, "shard", 1, 0, 2,
			      rank);
		s_loader_len(r.model, 100 + rank, 2, 6);
		read_loader(r.model, rank, 1, 0, 50 * (uint32_t)rank,
			    50 * (uint32_t)rank + 50);
	}
	const struct aw_finding *f =
	    s_finish_get(&r, "len-mismatch", AW_SEVERITY_WARNING);
	s_expect_says(f, "accelerate itself does this with "
			 "split_batches=True and even_batches=False");
	cr_expect_eq(s_count(&r.findings, "stale-len"), 0,
		     "len() of the outer loader counts for the inner one");
	s_done(&r);
}

/* --- never-read -------------------------------------------------------------
 */

/* Two ranks, `epochs` epochs each stopped after 2 batches of 10 (the loop
 * broke). Over the dataset of 100: rank r reads [50r + shift*e, ... + 20)
 * in epoch e. With `subsets`, rank r holds Subset(dataset,
 * range(r, 100, 2)) (len 50) and those are positions in it, from
 * shift*e. */
static struct s_run stopped_early_in(uint32_t epochs, uint32_t shift,
				     bool subsets)
{
	struct s_loader_opts o = base;
	if (subsets)
		o.dataset_len = 50;
	struct s_run r = s_run_of(2, &o);
	for (int rank = 0; rank < 2 && subsets; rank++) {
		uint32_t to[50];
		s_range(to, (uint32_t)rank, 50, 2);
		s_dataset_map(r.model, 100 + rank, 0, 0, 100, to, 50, 0, 50);
	}
	for (uint32_t e = 0; e < epochs; e++)
		for (int rank = 0; rank < 2; rank++) {
			uint32_t begin =
			    (subsets ? 0 : 50 * (uint32_t)rank) + shift * e;
			s_rank_reads_as(r.model, rank, e, begin, begin + 20,
					&(struct s_epoch){.batch_size = 10,
							  .end = true,
							  .abandoned = true});
		}
	return r;
}

static struct s_run stopped_early(uint32_t epochs, uint32_t shift)
{
	return stopped_early_in(epochs, shift, false);
}

Test(checks_loader, never_read_when_every_epoch_stops_at_the_same_samples)
{
	struct s_run r = stopped_early(3, 0);
	const struct aw_finding *f = s_finish_only(&r, "never-read");
	cr_assert(f);
	cr_expect_eq(f->severity, AW_SEVERITY_WARNING);
	cr_expect_eq(s_number(f, "never_read"), 60);
	s_expect_says(f, "60 of the 100 samples of L0");
	s_expect_says(f, "same 40 samples");
	s_done(&r);
}

Test(checks_loader, no_never_read_when_epochs_move_on_or_one_epoch)
{
	/* Each epoch starts 20 samples further on: together they read more
	 * than any one of them; and one epoch is missing's to judge. */
	struct s_run r = stopped_early(3, 20);
	s_finish(&r);
	cr_expect_eq(s_count(&r.findings, "never-read"), 0);
	s_done(&r);
	r = stopped_early(1, 0);
	s_finish(&r);
	cr_expect_eq(s_count(&r.findings, "never-read"), 0);
	s_done(&r);
}

Test(checks_loader, never_read_over_index_maps_counts_what_they_cover)
{
	/* 40 of the 100 samples the two subsets cover are read. */
	struct s_run r = stopped_early_in(2, 0, true);
	const struct aw_finding *f = s_finish_only(&r, "never-read");
	cr_assert(f);
	cr_expect_eq(s_number(f, "never_read"), 60);
	s_done(&r);
}

/* --- read-amplification ----------------------------------------------------
 */

/* 2 ranks each read 30 items of an iterable loader in their main process,
 * its stream split over 2 replicas as the link says. */
static struct s_run split_stream(const char *class_name, int64_t shards,
				 int8_t whole)
{
	struct s_loader_opts o = base;
	o.iterable = 1;
	o.dataset_len = -1;
	o.num_workers = 0;
	o.sampler = "_InfiniteConstantSampler";
	struct s_run r = s_run_of(2, &o);
	for (int rank = 0; rank < 2; rank++) {
		int32_t pid = 100 + rank;
		s_stream_split(r.model, pid, 0, class_name, 2, shards, whole);
		s_iter_begin(r.model, pid, 0, 0);
		uint64_t h[30];
		for (uint32_t i = 0; i < 30; i++)
			h[i] = 0x5000 + 30 * (uint64_t)rank + i;
		s_item_fetch(r.model, pid, -1, 0, 0, 0, h, 30);
		s_iter_end(r.model, pid, 0, 0, 3, 3, true);
	}
	return r;
}

Test(checks_loader, a_split_whose_shards_do_not_divide_amplifies_reads)
{
	struct s_run r =
	    split_stream("datasets.iterable_dataset.IterableDataset", 3, 1);
	const struct aw_finding *f = s_finish_only(&r, "read-amplification");
	cr_assert(f);
	cr_expect_eq(f->severity, AW_SEVERITY_WARNING);
	cr_expect_eq(s_number(f, "num_replicas"), 2);
	s_expect_says(f, "has 3 shards");
	s_expect_says(f, "read 2 x 30 = 60");
	s_done(&r);
}

Test(checks_loader, a_batch_slicing_split_is_an_info_and_own_shards_nothing)
{
	struct s_run r =
	    split_stream("accelerate.data_loader.IterableDatasetShard", -1, 1);
	const struct aw_finding *f = s_finish_only(&r, NULL);
	cr_expect_null(f);
	cr_expect_eq(s_count(&r.findings, "read-amplification"), 1);
	cr_expect_eq(r.findings.items[0].severity, AW_SEVERITY_INFO);
	s_done(&r);
	r = split_stream("datasets.iterable_dataset.IterableDataset", 4, 0);
	s_finish(&r);
	cr_expect_eq(s_count(&r.findings, "read-amplification"), 0);
	s_done(&r);
}

/* --- worker-stale-epoch ----------------------------------------------------
 */

/* Rank 0's iterable loader over 2 workers (pids 300, 301), persistent or
 * not, for 2 epochs whose dataset epochs are given: worker w produces 10
 * items 0x7000 + 10 w + i, reversed in epoch 1 when `reshuffles`. */
static struct s_run shuffled_stream_epochs(int8_t shuffle, int8_t persistent,
					   int64_t first, int64_t second,
					   bool reshuffles)
{
	struct s_loader_opts o = base;
	o.shuffle = shuffle;
	o.iterable = 1;
	o.dataset_len = -1;
	o.num_workers = 2;
	o.persistent_workers = persistent;
	o.sampler = "_InfiniteConstantSampler";
	struct s_run r = s_run_of(1, &o);
	for (int32_t w = 0; w < 2; w++) {
		s_process(r.model, 300 + w, 100, 0, 1, "worker");
		s_worker(r.model, 300 + w, w, 0, 0);
	}
	for (uint32_t e = 0; e < 2; e++) {
		s_iter_begin_dataset(r.model, 100, 0, e, e ? second : first);
		for (int32_t w = 0; w < 2; w++) {
			uint64_t h[10];
			for (uint32_t i = 0; i < 10; i++)
				h[e && reshuffles ? 9 - i : i] =
				    0x7000 + 10 * (uint64_t)w + i;
			s_item_fetch(r.model, 300 + w, w, 0, e, 0, h, 10);
		}
		s_iter_end(r.model, 100, 0, e, 2, 2, true);
	}
	return r;
}

static struct s_run stream_epochs(int8_t persistent, int64_t first,
				  int64_t second, bool reshuffles)
{
	return shuffled_stream_epochs(0, persistent, first, second, reshuffles);
}

Test(checks_loader, a_stream_that_says_it_shuffles_repeating_its_order)
{
	/* The dataset's own shuffle flag, its epoch never moved: same-order
	 * from the items; a new order, or a dataset that does not say it
	 * shuffles, or an epoch the persistent workers missed
	 * (worker-stale-epoch's): no same-order. */
	struct s_run r = shuffled_stream_epochs(1, 0, -1, -1, false);
	const struct aw_finding *f = s_finish_only(&r, "same-order");
	cr_assert(f);
	s_expect_says(f, "although its dataset");
	cr_expect_eq(s_number(f, "samples"), 20);
	s_done(&r);
	r = shuffled_stream_epochs(1, 0, -1, -1, true);
	s_finish_only(&r, NULL);
	s_done(&r);
	r = shuffled_stream_epochs(0, 0, -1, -1, false);
	s_finish_only(&r, NULL);
	s_done(&r);
	r = shuffled_stream_epochs(1, 1, 0, 1, false);
	s_finish_only(&r, "worker-stale-epoch");
	s_done(&r);
}

Test(checks_loader, persistent_workers_missing_the_epoch_repeat_their_order)
{
	struct s_run r = stream_epochs(1, 0, 1, false);
	const struct aw_finding *f = s_finish_only(&r, "worker-stale-epoch");
	cr_assert(f);
	cr_expect_eq(f->severity, AW_SEVERITY_WARNING);
	cr_expect_eq(s_number(f, "epoch_pairs"), 1);
	s_expect_says(f, "set the dataset's epoch to 1");
	s_done(&r);
}

Test(checks_loader, no_stale_epoch_when_the_order_moves_or_nothing_set_it)
{
	/* The workers saw the epoch (another order); the dataset holds no
	 * epoch or the same one (a stream read as it is); workers made anew. */
	struct s_run r = stream_epochs(1, 0, 1, true);
	s_finish_only(&r, NULL);
	s_done(&r);
	r = stream_epochs(1, -1, -1, false);
	s_finish_only(&r, NULL);
	s_done(&r);
	r = stream_epochs(1, 3, 3, false);
	s_finish_only(&r, NULL);
	s_done(&r);
	r = stream_epochs(0, 0, 1, false);
	s_finish_only(&r, NULL);
	s_done(&r);
}

Test(checks_loader, a_pass_left_early_counts_the_items_the_loop_got)
{
	/* 2 workers, 6 tasks of 4 items fetched (worker w runs tasks w, w + 2,
	 * w + 4), the loop stops after 3 batches: tasks 0-2 count, 12 items
	 * (the rest was fetched ahead); the same pass run to its end counts
	 * all 24. */
	for (int exhausted = 0; exhausted < 2; exhausted++) {
		struct s_loader_opts o = base;
		o.iterable = 1;
		o.dataset_len = -1;
		o.num_workers = 2;
		o.sampler = "_InfiniteConstantSampler";
		struct s_run r = s_run_of(1, &o);
		for (int32_t w = 0; w < 2; w++) {
			s_process(r.model, 300 + w, 100, 0, 1, "worker");
			s_worker(r.model, 300 + w, w, 0, 0);
		}
		s_iter_begin(r.model, 100, 0, 0);
		for (uint32_t task = 0; task < 6; task++) {
			uint64_t h[4];
			for (uint32_t i = 0; i < 4; i++)
				h[i] = 0x9000 + 4 * (uint64_t)task + i;
			s_item_fetch(r.model, 300 + (int32_t)(task % 2),
				     (int32_t)(task % 2), 0, 0, task, h, 4);
		}
		s_iter_end(r.model, 100, 0, 0, exhausted ? 6 : 3,
			   exhausted ? 6 : 3, exhausted);
		s_finish(&r);
		const struct aw_cell *cell =
		    &r.model->loaders_global[0].epochs[0].cells[0];
		cr_expect_eq(cell->samples, exhausted ? 24 : 12, "%" PRIu64,
			     cell->samples);
		cr_expect_eq(cell->unique, exhausted ? 24 : 12);
		s_done(&r);
	}
}

Test(checks_loader, an_iterator_dropped_before_its_first_batch_is_no_epoch)
{
	/* Each of 2 ranks opens a pass and drops it unread (a framework
	 * checking the loader it built), then reads its half in pass 1: one
	 * epoch row (epoch 1), no empty partial one, no finding. */
	struct s_run r = s_run_of(2, &base);
	for (int rank = 0; rank < 2; rank++) {
		s_iter_begin(r.model, 100 + rank, 0, 0);
		s_iter_end(r.model, 100 + rank, 0, 0, 0, 0, false);
		s_rank_reads(r.model, rank, 1, 50 * (uint32_t)rank,
			     50 * (uint32_t)rank + 50, 10);
	}
	s_finish(&r);
	const struct aw_global_loader *g = &r.model->loaders_global[0];
	cr_assert_eq(g->n_epochs, 1);
	cr_expect_eq(g->epochs[0].epoch, 1);
	cr_expect_eq(g->epochs[0].n_cells, 2);
	s_done(&r);
}

/* --- resume-repeats-epoch --------------------------------------------------
 */

/* Rank 0 trains L0's epoch 0 (samples 0..39, sampler epoch 0, seed 1), then
 * resumes a loader of the same dataset that skips 2 batches, its sampler at
 * `epoch`, reading [begin, begin + 20). */
static struct s_run resumed_at(int64_t epoch, uint32_t begin)
{
	struct s_loader_opts o = base;
	o.dataset_len = 40;
	o.shuffle = 1;
	struct s_run r = s_run_of(1, &o);
	o.site = "train.py:20";
	s_loader(r.model, 100, 1, &o);
	for (uint32_t l = 0; l < 2; l++) {
		struct aw_event_sampler links[3] = {
		    s_link("accelerate.data_loader.SkipBatchSampler"),
		    s_link("torch.utils.data.sampler.BatchSampler"),
		    s_link("torch.utils.data.distributed.DistributedSampler")};
		links[0].skip = 2;
		links[1].batch_size = 10;
		links[2].num_replicas = 1;
		links[2].rank = 0;
		links[2].shuffle = 1;
		links[2].seed = 1;
		s_chain(r.model, 100, l, l ? links : links + 1, l ? 3 : 2);
	}
	s_reads(r.model, 100, 0, 0, 0, 40, 10, true);
	s_iter_begin_sampler(r.model, 100, 0, 0, 0, 1);
	s_reads(r.model, 100, 1, 0, begin, begin + 20, 10, true);
	s_iter_begin_sampler(r.model, 100, 1, 0, epoch, 1);
	return r;
}

Test(checks_loader, a_resume_whose_sampler_epoch_was_reset_repeats_an_epoch)
{
	struct s_run r = resumed_at(0, 20);
	const struct aw_finding *f = s_finish_only(&r, "resume-repeats-epoch");
	cr_assert(f);
	cr_expect_eq(s_number(f, "skip"), 2);
	s_expect_says(f, "epoch 0 of L0");
	cr_expect(s_has_rank(f, 0));
	s_done(&r);
}

Test(checks_loader, a_resume_at_its_own_epoch_or_other_samples_repeats_none)
{
	struct s_run r = resumed_at(2, 20);
	s_finish_only(&r, NULL);
	s_done(&r);
	/* The same seed and epoch but samples L0 never read: not its order. */
	r = resumed_at(0, 30);
	s_finish(&r);
	cr_expect_eq(s_count(&r.findings, "resume-repeats-epoch"), 0);
	s_done(&r);
}

/* --- a resumed pass joined with its head ----------------------------------
 */

/* iter_begin of a pass resumed from a state_dict after `skip` batches, its
 * sampler's epoch `sampler_epoch` (-1: a sampler without one). */
static void resumed_from(struct aw_model *m, int32_t pid, int64_t sampler_epoch,
			 int64_t skip)
{
	struct aw_event e = s_event(AW_EVENT_ITER_BEGIN, pid);
	e.u.iter_begin =
	    (struct aw_event_iter_begin){.loader = 0,
					 .iteration = 0,
					 .sampler_epoch = sampler_epoch,
					 .seed = -1,
					 .dataset_epoch = -1,
					 .resumed = skip};
	aw_model_add_event(m, &e);
}

/* Rank 0's first process (attempt 0) reads epoch 0 whole ([0, 100) in
 * batches of 10), then `head` batches of epoch 1 ([0, 10 * head)), and
 * exits with status 1; rank 0's next process (attempt 1) resumes epoch 1
 * after `skip` batches and reads [from, to). */
static struct s_run resumed_after_restart(uint32_t head, int64_t skip,
					  int64_t sampler_epoch, uint32_t from,
					  uint32_t to)
{
	struct s_run r = {.model = aw_model_create()};
	struct aw_model *m = r.model;
	aw_model_set_clock(m, 0);
	s_process(m, 100, 1, 0, 1, "rank");
	s_loader(m, 100, 0, &base);
	s_reads(m, 100, 0, 0, 0, 100, 10, true);
	s_reads(m, 100, 0, 1, 0, 10 * head, 10, false);
	aw_model_set_clock(m, 1000);
	s_exit(m, 1, 100, 1, -1);
	aw_model_set_clock(m, 2000);
	s_process(m, 150, 1, 0, 1, "rank");
	s_loader(m, 150, 0, &base);
	s_reads(m, 150, 0, 0, from, to, 10, true);
	resumed_from(m, 150, sampler_epoch, skip);
	s_finish(&r);
	cr_assert_eq(r.model->n_attempts, 2);
	return r;
}

static void expect_joined(const struct s_run *r, uint64_t twice)
{
	for (int i = 0; i < 2; i++) {
		const char *id = i ? "missing" : "overlap";
		cr_assert_eq(s_count(&r->findings, id), twice ? 1 : 0, "%s",
			     id);
		if (!twice)
			continue;
		const struct aw_finding *f = s_get(r, id);
		char at_least[64];
		snprintf(at_least, sizeof(at_least), "at least %" PRIu64,
			 twice);
		cr_expect(s_has_rank(f, 0));
		s_expect_says(f, "continues epoch 1 of L0");
		cr_expect(s_says(f, at_least), "%s", f->evidence);
	}
	cr_expect_eq(s_count(&r->findings, "resume-repeats-epoch"), 0);
}

Test(checks_loader, a_resume_in_the_order_of_its_head_joins_whole)
{
	/* The head read 5 batches, the checkpoint had 3: the resumed pass
	 * reads batches 3.. of the same order, 2 of them again. */
	struct s_run r = resumed_after_restart(5, 3, -1, 30, 100);
	expect_joined(&r, 0);
	s_done(&r);
}

Test(checks_loader, a_resume_in_another_order_reads_its_head_again)
{
	/* The resumed pass draws another order: its 70 samples are [0, 70),
	 * 50 of them read by the head, which read 20 after its 3rd batch:
	 * at least 30 of the first 3 batches' read twice, 30 never. */
	struct s_run r = resumed_after_restart(5, 3, -1, 0, 70);
	expect_joined(&r, 30);
	s_done(&r);
}

Test(checks_loader, a_resume_at_the_epochs_last_batch_joins_its_head)
{
	/* The head read 9 of the 10 batches; the resumed pass reads the last
	 * one: [90, 100) in the head's order, [80, 90) in another. */
	struct s_run r = resumed_after_restart(9, 9, 1, 90, 100);
	expect_joined(&r, 0);
	s_done(&r);
	r = resumed_after_restart(9, 9, 1, 80, 90);
	expect_joined(&r, 10);
	s_done(&r);
	/* The head read the whole epoch: every sample the last batch holds
	 * was among its replayed ones, nothing to tell. */
	r = resumed_after_restart(10, 9, 1, 80, 90);
	expect_joined(&r, 0);
	s_done(&r);
}

Test(checks_loader, a_resume_whose_head_was_never_recorded_is_judged_alone)
{
	/* Attempt 0 died before epoch 1's first batch: no pass of sampler
	 * epoch 1 read the 3 batches the resumed pass skips. */
	struct s_run r = resumed_after_restart(0, 3, 1, 0, 70);
	expect_joined(&r, 0);
	s_done(&r);
	/* Without a sampler epoch the newest pass with 3 batches is epoch
	 * 0, read whole: what the resumed pass shares with it is no more than
	 * it read after its 3rd batch. */
	r = resumed_after_restart(0, 3, -1, 0, 70);
	expect_joined(&r, 0);
	s_done(&r);
}
