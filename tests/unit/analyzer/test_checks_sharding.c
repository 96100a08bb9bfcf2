/* SPDX-License-Identifier: MIT */
/* The sharding checks (checks_sharding.c) on event streams built here, with
 * their edges: unsharded, overlap and padding (at the allowance and one past
 * it), missing (drop_last, loops left early), uneven-batches (and what a
 * program does about it: Join, shares uneven by design) and partial epochs,
 * index-range; W = 1, empty epochs, prefetched batches, ranks that never
 * sent iter_end. */
#include <criterion/criterion.h>
#include <signal.h>
#include <string.h>

#include "cli.h"
#include "stream.h"

/* N = 100, B = 10, no drop_last, a sampler that does not shard. */
static const struct s_loader_opts base = S_BASE_LOADER(2);
/* The same without workers. */
static const struct s_loader_opts base0 = S_BASE_LOADER(0);

static void expect_well_formed(const struct aw_finding *f)
{
	cr_expect_neq(f->loader, AW_NONE);
	cr_expect_geq(f->epoch, 0);
	cr_expect_gt(f->n_ranks, 0);
	cr_expect(f->message && *f->message);
	cr_expect(f->fix && *f->fix);
	for (size_t i = 1; i < f->n_ranks; i++)
		cr_expect_lt(f->ranks[i - 1], f->ranks[i]);
}

/* A finished run where the ranks read `reads`, whose only finding is `id`
 * (NULL: none at all). */
static struct s_run reads_exactly(int world, const struct s_loader_opts *o,
				  const struct s_read *reads, const char *id)
{
	struct s_run r = s_run_reading(world, o, reads);
	s_finish(&r);
	s_expect_exactly(&r.findings, id);
	return r;
}

/* reads_exactly, and nothing more to look at. */
static void expect_reads(int world, const struct s_loader_opts *o,
			 const struct s_read *reads, const char *id)
{
	struct s_run r = reads_exactly(world, o, reads, id);
	s_done(&r);
}

Test(checks_sharding, sharded_ranks_are_clean)
{
	expect_reads(2, &base, S_READS({0, 0, 0, 50, 10}, {1, 0, 50, 100, 10}),
		     NULL);
}

Test(checks_sharding, unsharded)
{
	struct s_run r = s_run_of(4, &base);
	for (int rank = 0; rank < 4; rank++)
		s_rank_reads(r.model, rank, 0, 0, 100, 10);
	s_finish(&r);
	s_expect_exactly(&r.findings, "unsharded");
	const struct aw_finding *f = aw_findings_find(&r.findings, "unsharded");
	cr_assert(f);
	expect_well_formed(f);
	cr_expect_eq(f->severity, AW_SEVERITY_ERROR);
	cr_expect_eq(f->n_ranks, 4);
	cr_expect_eq(s_number(f, "world"), 4);
	cr_expect_eq(s_number(f, "union"), 100);
	cr_expect(strstr(
	    f->fix, "DistributedSampler(dataset, num_replicas=4, rank=r)"));
	s_expect_says(f, "goes through the whole data");
	cr_expect_not(strstr(f->fix, "accelerator"), "no accelerate: %s",
		      f->fix);
	s_done(&r);
}

Test(checks_sharding, unsharded_out_of_prepare_for_one_process)
{
	/* The loader each rank iterates is accelerate's, wrapped for a world
	 * of 1 (process_index 0): prepare() was used; the ranks did not join
	 * one job. */
	struct s_run r = s_run_of(2, &base);
	struct s_loader_opts outer = base;
	outer.loader_class = "accelerate.data_loader.DataLoaderShard";
	for (int rank = 0; rank < 2; rank++) {
		s_loader(r.model, 100 + rank, 1, &outer);
		s_loader_wrap(r.model, 100 + rank, 1, 0, "shard", 0, 1, 1, 0);
		s_rank_reads(r.model, rank, 0, 0, 100, 10);
	}
	const struct aw_finding *f = s_finish_only(&r, "unsharded");
	cr_assert(f);
	s_expect_says(f, "came out of accelerator.prepare(), which built "
			 "it for 1 process (process_index 0) while 2 "
			 "ranks read it");
	cr_expect_not(strstr(f->fix, "pass the loader through"), "%s", f->fix);
	s_done(&r);
}

Test(checks_sharding, unsharded_at_ninety_percent)
{
	/* Rank 1 reads exactly 90% of the union (10 batches too): still
	 * unsharded; 89%: overlap. */
	expect_reads(2, &base, S_READS({0, 0, 0, 100, 10}, {1, 0, 10, 100, 9}),
		     "unsharded");
	expect_reads(2, &base, S_READS({0, 0, 0, 100, 10}, {1, 0, 11, 100, 9}),
		     "overlap");
}

Test(checks_sharding, unsplit_chains_that_share_samples_are_unsharded)
{
	/* Each rank a RandomSampler of its own over all 100 samples (its
	 * chain recorded, nothing splits), each reading 60 before its loop
	 * stops: 0..59 and 30..89 share 30. Not 90% of the union each, but
	 * nothing splits the data: unsharded, said so. */
	struct s_run r = s_run_of(2, &base);
	for (int rank = 0; rank < 2; rank++) {
		s_random_chain(r.model, 100 + rank, 0, 10, 100);
		s_rank_reads_cut(r.model, rank, 0, 30 * (uint32_t)rank,
				 30 * (uint32_t)rank + 60, 10);
	}
	s_finish(&r);
	const struct aw_finding *f = s_get(&r, "unsharded");
	cr_expect_null(aw_findings_find(&r.findings, "overlap"));
	s_expect_says(f, "no rank's sampler chain splits the data");
	s_done(&r);
}

Test(checks_sharding, a_list_of_indices_per_rank_is_no_unsplit_chain)
{
	/* Hand-made shards (a list given as sampler: the recorder asks it no
	 * len()) that overlap: overlap, not unsharded. */
	struct s_run r = s_run_of(2, &base);
	for (int rank = 0; rank < 2; rank++) {
		struct aw_event_sampler links[2] = {s_link("BatchSampler"),
						    s_link("builtins.list")};
		links[0].batch_size = 10;
		links[0].own_iter = links[1].own_iter = 0;
		s_chain(r.model, 100 + rank, 0, links, 2);
		s_rank_reads(r.model, rank, 0, 30 * (uint32_t)rank,
			     30 * (uint32_t)rank + 60, 10);
	}
	s_finish(&r);
	cr_expect_null(aw_findings_find(&r.findings, "unsharded"));
	cr_expect(aw_findings_find(&r.findings, "overlap") != NULL);
	s_done(&r);
}

Test(checks_sharding, unsharded_ranks_that_never_joined_a_group_are_told_so)
{
	/* The ranks never called init_process_group: the fix says they each
	 * train alone, not only "use DistributedSampler". */
	struct s_run r = s_run_of(0, NULL);
	s_process(r.model, 99, 1, -1, 2, "launcher");
	for (int rank = 0; rank < 2; rank++) {
		s_process(r.model, 100 + rank, 99, rank, 2, "rank");
		s_loader(r.model, 100 + rank, 0, &base);
		s_rank_reads(r.model, rank, 0, 0, 100, 10);
	}
	s_finish(&r);
	const struct aw_finding *f = s_get(&r, "unsharded");
	cr_expect(strstr(f->fix, "no rank initialised torch.distributed"), "%s",
		  f->fix);
	s_done(&r);
}

Test(checks_sharding, single_rank_is_never_unsharded)
{
	expect_reads(1, &base, S_READS({0, 0, 0, 100, 10}, {0, 1, 0, 100, 10}),
		     NULL);
}

Test(checks_sharding, padding_at_allowance_then_overlap_one_past)
{
	/* No sampler chain in the trace (an older recorder): W = 2, B = 10,
	 * the allowance W*B - 1 = 19 cross-rank duplicates. */
	struct s_run r = s_run_of(2, &base);
	/* Epoch 0: 60 and 59, 41..59 shared (19); epoch 1: 40..59 (20). */
	for (uint32_t epoch = 0; epoch < 2; epoch++) {
		s_rank_reads(r.model, 0, epoch, 0, 60, 10);
		s_rank_reads(r.model, 1, epoch, 41 - epoch, 100, 10);
	}
	s_finish(&r);
	cr_expect_eq(r.findings.n, 2);
	const struct aw_finding *padding =
	    aw_findings_find(&r.findings, "padding");
	const struct aw_finding *overlap =
	    aw_findings_find(&r.findings, "overlap");
	cr_assert(padding && overlap);
	cr_expect_eq(padding->epoch, 0);
	cr_expect_eq(padding->severity, AW_SEVERITY_INFO);
	cr_expect_eq(s_number(padding, "cross_rank_duplicates"), 19);
	cr_expect_eq(s_number(padding, "padding"), 19);
	s_expect_says(padding, "no sampler chain");
	cr_expect_eq(overlap->epoch, 1);
	cr_expect_eq(overlap->severity, AW_SEVERITY_ERROR);
	cr_expect_eq(s_number(overlap, "cross_rank_duplicates"), 20);
	expect_well_formed(padding);
	expect_well_formed(overlap);
	cr_expect_eq(padding->n_ranks, 2);
	/* Errors sort before infos. */
	cr_expect_str_eq(r.findings.items[0].id, "overlap");
	s_done(&r);
}

Test(checks_sharding, padding_of_a_tiny_dataset_is_not_unsharded)
{
	/* N = 1 over 2 ranks: DistributedSampler gives both rank index 0. */
	struct s_loader_opts o = base;
	o.dataset_len = 1;
	o.batch_size = 1;
	expect_reads(2, &o, S_READS({0, 0, 0, 1, 1}, {1, 0, 0, 1, 1}),
		     "padding");
}

Test(checks_sharding, padding_only_exits_clean)
{
	struct s_run r = reads_exactly(
	    2, &base, S_READS({0, 0, 0, 55, 11}, {1, 0, 50, 100, 10}),
	    "padding");
	struct aw_options opts = {.fail_on = AW_FAIL_ON_ERROR};
	cr_expect_eq(aw_cli_exit_status(
			 &opts,
			 aw_findings_count(&r.findings, AW_SEVERITY_ERROR),
			 aw_findings_count(&r.findings, AW_SEVERITY_WARNING),
			 aw_model_judged(r.model)),
		     AW_EXIT_CLEAN);
	s_done(&r);
}

Test(checks_sharding, missing_with_coverage)
{
	struct s_run r = reads_exactly(
	    2, &base, S_READS({0, 0, 0, 25, 5}, {1, 0, 25, 50, 5}), "missing");
	const struct aw_finding *f = aw_findings_find(&r.findings, "missing");
	expect_well_formed(f);
	cr_expect_eq(s_number(f, "missing"), 50);
	cr_expect_eq(s_number(f, "drop_allowance"), 0);
	cr_expect(strstr(f->message, "coverage 50.0%"), "%s", f->message);
	s_done(&r);
}

Test(checks_sharding, missing_explained_by_drop_last)
{
	/* drop_last, W = 2, B = 8: allowance W*B - 1 = 15 unread samples. */
	struct s_loader_opts o = base;
	o.batch_size = 8;
	o.drop_last = 1;
	/* Epoch 0: 96 read, 4 missing; 1: 85 read, 15 missing (5 batches
	 * each); 2: 84 read, 16 missing. */
	struct s_run r = reads_exactly(
	    2, &o,
	    S_READS({0, 0, 0, 48, 8}, {1, 0, 50, 98, 8}, {0, 1, 0, 40, 8},
		    {1, 1, 50, 95, 9}, {0, 2, 0, 40, 8}, {1, 2, 50, 94, 9}),
	    "missing");
	cr_assert_eq(r.findings.n, 1);
	const struct aw_finding *f = &r.findings.items[0];
	cr_expect_eq(f->epoch, 2);
	cr_expect_eq(s_number(f, "missing"), 16);
	cr_expect_eq(s_number(f, "drop_allowance"), 15);
	s_done(&r);
}

Test(checks_sharding, missing_allowance_of_distributed_sampler_drop_last)
{
	/* Loader without drop_last, DistributedSampler over 2 replicas: its own
	 * drop_last may leave 1 sample, not 2. */
	struct s_loader_opts o = base;
	o.sampler_replicas = 2;
	o.sampler = "DistributedSampler";
	expect_reads(2, &o, S_READS({0, 0, 0, 50, 10}, {1, 0, 50, 99, 10}),
		     NULL);
	expect_reads(2, &o, S_READS({0, 0, 0, 50, 10}, {1, 0, 50, 98, 10}),
		     "missing");
}

Test(checks_sharding, missing_skipped_when_a_loop_left_early)
{
	struct s_run r = s_run_of(2, &base);
	const struct s_epoch left = {
	    .batch_size = 10, .end = true, .abandoned = true};
	s_rank_reads_as(r.model, 0, 0, 0, 20, &left);
	s_rank_reads_as(r.model, 1, 0, 50, 70, &left);
	s_finish(&r);
	s_expect_exactly(&r.findings, NULL);
	s_done(&r);
}

/* Rank `rank` of 2 (pid 100 + rank) reads its half of 100 samples in
 * batches of 10 from `from` on, `short_by` short of its end. */
static void half_read_from(struct aw_model *m, int rank, uint32_t from,
			   uint32_t short_by)
{
	uint32_t half = 50 * (uint32_t)rank;
	s_reads(m, 100 + rank, 0, 0, half + from, half + 50 - short_by, 10,
		true);
}

Test(checks_sharding, a_resumed_pass_skips_the_batches_its_state_had_read)
{
	/* Each of 2 ranks resumes a pass from a state_dict whose sampler had
	 * yielded 2 batches of 10: 20 samples each left out on purpose; one
	 * more unread is missing. */
	for (uint32_t short_by = 0; short_by < 2; short_by++) {
		struct s_run r = s_run_of(2, &base);
		for (int rank = 0; rank < 2; rank++) {
			half_read_from(r.model, rank, 20, rank ? short_by : 0);
			/* What the pass began with (after its batches: the
			 * helper above sends a begin of its own). */
			s_iter_begin_resumed(r.model, 100 + rank, 0, 0, 2);
		}
		s_finish(&r);
		s_expect_exactly(&r.findings, short_by ? "missing" : NULL);
		s_done(&r);
	}
}

Test(checks_sharding, a_resume_at_the_epochs_last_batch)
{
	/* The state had yielded 4 of each rank's 5 batches: the resumed pass
	 * reads the last one only, the rest left out on purpose. */
	struct s_run r = s_run_of(2, &base);
	for (int rank = 0; rank < 2; rank++) {
		half_read_from(r.model, rank, 40, 0);
		s_iter_begin_resumed(r.model, 100 + rank, 0, 0, 4);
	}
	s_finish(&r);
	s_expect_exactly(&r.findings, NULL);
	s_done(&r);
}

Test(checks_sharding, each_rank_skips_its_own_batches_below_an_unknown_sampler)
{
	/* skip_first_batches(loader, 2) on each of 2 ranks over a sampler of
	 * the user's that gives each rank its half: 20 samples each left out
	 * on purpose (the chain cannot count the ranks); one more unread is
	 * missing. */
	for (uint32_t short_by = 0; short_by < 2; short_by++) {
		struct s_run r = s_run_of(2, &base);
		for (int rank = 0; rank < 2; rank++) {
			int32_t pid = 100 + rank;
			struct aw_event_sampler links[3] = {
			    s_link("accelerate.data_loader.SkipBatchSampler"),
			    s_link("torch.utils.data.sampler.BatchSampler"),
			    s_link("train.HalfSampler")};
			links[0].skip = 2;
			links[1].batch_size = 10;
			s_chain(r.model, pid, 0, links, 3);
			half_read_from(r.model, rank, 20, rank ? short_by : 0);
		}
		s_finish(&r);
		s_expect_exactly(&r.findings, short_by ? "missing" : NULL);
		s_done(&r);
	}
}

Test(checks_sharding, missing_skipped_for_subset_samplers_and_unknown_len)
{
	struct s_loader_opts o = base;
	o.sampler = "SubsetRandomSampler";
	expect_reads(1, &o, S_READS({0, 0, 0, 30, 10}), NULL);
	o = base;
	o.dataset_len = -1;
	expect_reads(1, &o, S_READS({0, 0, 0, 30, 10}), NULL);
}

Test(checks_sharding, uneven_batches)
{
	/* 4, 4 and 3 batches. */
	struct s_run r = s_run_reading(
	    3, &base,
	    S_READS({0, 0, 0, 34, 10}, {1, 0, 34, 67, 10}, {2, 0, 67, 97, 10}));
	s_finish(&r);
	cr_expect_eq(s_count(&r.findings, "uneven-batches"), 1);
	const struct aw_finding *f =
	    aw_findings_find(&r.findings, "uneven-batches");
	cr_assert(f);
	expect_well_formed(f);
	cr_expect_eq(s_number(f, "fewest_batches"), 3);
	cr_expect_eq(s_number(f, "most_batches"), 4);
	cr_expect_eq(f->n_ranks, 3);
	s_done(&r);
}

Test(checks_sharding, uneven_batches_not_claimed_without_iter_end)
{
	/* Rank 1 died mid-epoch: its counts are those of a crash. */
	struct s_run r = s_run_reading(2, &base, S_READS({0, 0, 0, 50, 10}));
	s_rank_reads_cut(r.model, 1, 0, 50, 70, 10);
	s_finish(&r);
	cr_expect_eq(s_count(&r.findings, "uneven-batches"), 0);
	cr_expect_eq(s_count(&r.findings, "missing"), 0);
	cr_expect_eq(r.model->incomplete_iterations, 1);
	s_done(&r);
}

Test(checks_sharding, prefetched_batches_are_not_consumed)
{
	/* Each rank's workers drew 4 batches past the end of its loop, from the
	 * other rank's shard: no overlap, no padding. */
	struct s_run r = s_run_of(2, &base);
	for (int rank = 0; rank < 2; rank++) {
		uint32_t idx[50];
		s_range(idx, (uint32_t)rank * 50, 50, 1);
		struct s_epoch e = {.indices = idx,
				    .count = 50,
				    .batch_size = 10,
				    .prefetched = 4,
				    .prefetch_index = rank ? 0 : 99,
				    .end = true};
		s_epoch(r.model, 100 + rank, 0, 0, &e);
	}
	s_finish(&r);
	s_expect_exactly(&r.findings, NULL);
	s_done(&r);
}

Test(checks_sharding, chunked_batches_count_once)
{
	struct s_run r = s_run_of(2, &base);
	for (int rank = 0; rank < 2; rank++) {
		int32_t pid = 100 + rank;
		s_iter_begin(r.model, pid, 0, 0);
		for (uint32_t b = 0; b < 5; b++) {
			uint32_t idx[10];
			s_range(idx, (uint32_t)rank * 50 + b * 10, 10, 1);
			s_batch(r.model, pid, 0, 0, b, 0, 10, idx, 4);
			s_batch(r.model, pid, 0, 0, b, 4, 10, idx + 4, 6);
		}
		s_iter_end(r.model, pid, 0, 0, 5, 5, 1);
	}
	s_finish(&r);
	s_expect_exactly(&r.findings, NULL);
	const struct aw_epoch *e = &r.model->loaders_global[0].epochs[0];
	cr_expect_eq(e->samples, 100);
	cr_expect_eq(e->union_count, 100);
	cr_expect_eq(e->cells[0].batches, 5);
	s_done(&r);
}

Test(checks_sharding, empty_epoch)
{
	struct s_run r = s_run_of(2, &base);
	for (int rank = 0; rank < 2; rank++) {
		s_iter_begin(r.model, 100 + rank, 0, 0);
		s_iter_end(r.model, 100 + rank, 0, 0, 0, 0, 1);
	}
	s_finish(&r);
	/* Nothing read at all of 100 samples: missing, nothing else. */
	s_expect_exactly(&r.findings, "missing");
	s_done(&r);

	struct s_loader_opts o = base;
	o.dataset_len = 0;
	r.model = aw_model_create();
	s_ranks(r.model, 2, &o);
	for (int rank = 0; rank < 2; rank++) {
		s_iter_begin(r.model, 100 + rank, 0, 0);
		s_iter_end(r.model, 100 + rank, 0, 0, 0, 0, 1);
	}
	s_finish(&r);
	s_expect_exactly(&r.findings, NULL);
	s_done(&r);
}

Test(checks_sharding, never_iterated_loader_has_no_epochs)
{
	struct s_run r = s_run_of(2, &base);
	s_finish(&r);
	s_expect_exactly(&r.findings, NULL);
	cr_expect_eq(r.model->loaders_global[0].n_epochs, 0);
	s_done(&r);
}

Test(checks_sharding, padding_allowance_and_drop_allowance_formulas)
{
	struct aw_loader d;
	memset(&d, 0, sizeof(d));
	cr_expect_eq(aw_padding_allowance(1, 32), 0);
	cr_expect_eq(aw_padding_allowance(4, 32), 127);
	cr_expect_eq(aw_padding_allowance(4, 0), 3);
	d.drop_last = 1;
	cr_expect_eq(aw_drop_allowance(&d, 4, 32), 127);
	d.drop_last = -1; /* unknown: as if set */
	cr_expect_eq(aw_drop_allowance(&d, 4, 32), 127);
	d.drop_last = 0;
	d.sampler_replicas = -1;
	cr_expect_eq(aw_drop_allowance(&d, 4, 32), 0);
	d.sampler_replicas = 4;
	cr_expect_eq(aw_drop_allowance(&d, 4, 32), 3);
	cr_expect_eq(aw_drop_allowance(&d, 0, 32), 0);
}

Test(checks_sharding, findings_sorted_by_severity_then_loader_id_epoch)
{
	struct s_run r = s_run_reading(
	    2, &base, S_READS({0, 0, 0, 60, 10}, {1, 0, 41, 100, 10}));
	/* Epoch 0: padding; epochs 1-2: unsharded. */
	for (uint32_t epoch = 1; epoch < 3; epoch++) {
		s_rank_reads(r.model, 0, epoch, 0, 100, 10);
		s_rank_reads(r.model, 1, epoch, 0, 100, 10);
	}
	s_finish(&r);
	cr_assert_eq(r.findings.n, 3);
	cr_expect_str_eq(r.findings.items[0].id, "unsharded");
	cr_expect_eq(r.findings.items[0].epoch, 1);
	cr_expect_str_eq(r.findings.items[1].id, "unsharded");
	cr_expect_eq(r.findings.items[1].epoch, 2);
	cr_expect_str_eq(r.findings.items[2].id, "padding");
	s_done(&r);
}

Test(checks_sharding, same_sampler_rank_everywhere_is_named)
{
	/* DistributedSampler(num_replicas=2, rank=0) on both ranks. */
	struct s_loader_opts o = base;
	o.sampler_replicas = 2;
	o.sampler = "DistributedSampler";
	struct s_run r =
	    s_run_reading(2, &o, S_READS({0, 0, 0, 50, 10}, {1, 0, 0, 50, 10}));
	s_finish(&r);
	const struct aw_finding *f = aw_findings_find(&r.findings, "unsharded");
	cr_assert(f);
	cr_expect(strstr(f->evidence, "num_replicas=2, rank=0: the same shard"),
		  "%s", f->evidence);
	cr_expect(s_says(f, "every rank reads the same 50.0% of the 100 "
			    "samples"),
		  "not the whole data: %s", f->message);
	s_expect_says(f, "every rank passed rank=0");
	/* Half the data is never read, too. */
	cr_expect_eq(s_count(&r.findings, "missing"), 1);
	s_done(&r);
}

/* --- padding, uneven-batches, partial epochs --------------------------------
 */

Test(checks_sharding, padding_of_distributed_sampler_is_explained)
{
	/* N = 402 over 4 ranks: DistributedSampler pads 2 (ceil(402/4)*4). */
	struct s_loader_opts o = base;
	o.dataset_len = 402;
	o.batch_size = 8;
	struct s_run r = s_run_distributed(4, o);
	s_distributed_chain(r.model, 4, 0, 402, 8, 0);
	uint32_t idx[101];
	for (int rank = 0; rank < 4; rank++) {
		for (uint32_t i = 0; i < 101; i++)
			idx[i] = ((uint32_t)rank + 4 * i) % 402;
		s_reads_in_order(r.model, rank, 0, 0, idx, 101, 8);
	}
	s_finish(&r);
	s_expect_only(&r.findings, NULL);
	const struct aw_finding *f = s_get(&r, "padding");
	cr_expect_eq(s_number(f, "cross_rank_duplicates"), 2);
	s_expect_says(f, "not a duplication bug");
	s_expect_says(f, "DistributedSampler(drop_last=False)");
	s_expect_says(f, "repeats 2 of the first samples of its order");
	cr_expect_eq(s_number(f, "padding"), 2, "W*ceil(N/W) - N");
	s_done(&r);
}

Test(checks_sharding, padding_of_even_batches_is_explained)
{
	/* accelerate's shard loader: the inner DataLoader (id 0) wrapped by
	 * DataLoaderShard (id 1) with even_batches. */
	struct s_loader_opts o = base;
	o.batch_size = -1;
	o.dataset_len = 95;
	o.batch_sampler = "accelerate.data_loader.BatchSamplerShard";
	struct s_run r = s_run_of(2, &o);
	for (int rank = 0; rank < 2; rank++) {
		struct aw_event_sampler links[3] = {
		    s_link("accelerate.data_loader.BatchSamplerShard"),
		    s_link("torch.utils.data.sampler.BatchSampler"),
		    s_link("torch.utils.data.sampler.RandomSampler")};
		links[0].num_replicas = 2;
		links[0].rank = rank;
		links[0].batch_size = 10;
		links[1].batch_size = 10;
		links[1].drop_last = 0;
		links[2].shuffle = 1;
		s_chain(r.model, 100 + rank, 0, links, 3);
	}
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
	s_reads_in_order(r.model, 1, 0, 0, idx, 50, 10);
	s_finish(&r);
	const struct aw_finding *f = s_get(&r, "padding");
	s_expect_says(f, "even_batches=True");
	cr_expect_eq(s_number(f, "cross_rank_duplicates"), 5);
	cr_expect_eq(s_number(f, "padding"), 5, "ceil(10/2)*2*10 - 95");
	s_done(&r);
}

/* 2 ranks over 40 samples through one sharding link that batches itself
 * (B = 4) and states total_size (a DistributedSampler subclass padding its
 * length buckets): rank r reads [20 r, 20 r + 20) and then `extra` samples
 * of the other rank's head again. */
static struct s_run stated_total(int64_t total_size, uint32_t extra,
				 uint32_t from)
{
	struct s_loader_opts o = base;
	o.batch_size = -1;
	o.dataset_len = 40;
	o.batch_sampler = "data_utils.DistributedBucketSampler";
	struct s_run r = s_run_of(2, &o);
	uint32_t idx[64];
	for (int rank = 0; rank < 2; rank++) {
		struct aw_event_sampler link =
		    s_link("data_utils.DistributedBucketSampler");
		link.num_replicas = 2;
		link.rank = rank;
		link.shuffle = 1;
		link.drop_last = 0;
		link.batch_size = 4;
		link.num_samples = total_size / 2;
		link.total_size = total_size;
		s_chain(r.model, 100 + rank, 0, &link, 1);
		s_range(idx, 20 * (uint32_t)rank, 20, 1);
		s_range(idx + 20, from + 20 * (uint32_t)(1 - rank), extra, 1);
		s_reads_in_order(r.model, rank, 0, 0, idx, 20 + extra, 4);
	}
	s_finish(&r);
	return r;
}

Test(checks_sharding, padding_a_sampler_states_in_its_total_size)
{
	/* total_size 48 for 40 samples: 8 drawn again, 4 by each rank. */
	struct s_run r = stated_total(48, 4, 0);
	s_expect_only(&r.findings, NULL);
	const struct aw_finding *f = s_get(&r, "padding");
	cr_expect_eq(s_number(f, "padding"), 8);
	cr_expect_eq(s_number(f, "cross_rank_duplicates"), 8);
	s_expect_says(f, "DistributedBucketSampler states total_size=48");
	cr_expect(!s_says(f, "accelerate") && !s_says(f, "even_batches"), "%s",
		  f->message);
	s_done(&r);
	/* One more shared than the sampler states: overlap. */
	r = stated_total(46, 4, 0);
	const struct aw_finding *o = s_get(&r, "overlap");
	cr_assert(o);
	cr_expect_eq(s_number(o, "padding"), 6);
	s_done(&r);
}

Test(checks_sharding, samples_a_sampler_states_it_leaves_out_are_not_missing)
{
	/* total_size 32 of 40: 8 samples left out on purpose (4 per rank's
	 * share unread); 16 read by each rank. */
	struct s_loader_opts o = base;
	o.batch_size = -1;
	o.dataset_len = 40;
	struct s_run r = s_run_of(2, &o);
	for (int rank = 0; rank < 2; rank++) {
		struct aw_event_sampler link = s_link("mine.BucketSampler");
		link.num_replicas = 2;
		link.rank = rank;
		link.batch_size = 4;
		link.num_samples = 16;
		link.total_size = 32;
		s_chain(r.model, 100 + rank, 0, &link, 1);
		s_rank_reads(r.model, rank, 0, 20 * (uint32_t)rank,
			     20 * (uint32_t)rank + 16, 4);
	}
	s_finish(&r);
	s_expect_exactly(&r.findings, NULL);
	s_done(&r);
}

Test(checks_sharding, uneven_batches_when_samplers_ran_out_differently)
{
	/* 5 and 4 batches. */
	struct s_run r = s_run_reading(
	    2, &base0, S_READS({0, 0, 0, 50, 10}, {1, 0, 50, 90, 10}));
	s_finish(&r);
	const struct aw_finding *f = s_get(&r, "uneven-batches");
	cr_expect_eq(s_number(f, "fewest_batches"), 4);
	cr_expect_eq(s_number(f, "most_batches"), 5);
	s_done(&r);
}

Test(checks_sharding, a_rank_that_left_early_is_partial_not_uneven)
{
	/* Rank 1's loop broke after 2 batches (exhausted = 0): a partial
	 * epoch, counts as read, neither uneven-batches nor missing. */
	struct s_run r = s_run_of(2, &base0);
	s_rank_reads(r.model, 0, 0, 0, 50, 10);
	s_rank_reads_as(r.model, 1, 0, 50, 70,
			&(const struct s_epoch){.batch_size = 10,
						.prefetched = 2,
						.prefetch_index = 99,
						.end = true,
						.abandoned = true});
	s_finish(&r);
	s_expect_only(&r.findings, NULL);
	const struct aw_epoch *ep = &r.model->loaders_global[0].epochs[0];
	cr_expect_not(ep->exhausted);
	cr_expect(ep->complete);
	cr_expect_eq(ep->cells[1].batches, 2);
	cr_expect_eq(ep->cells[1].samples, 20);
	cr_expect_not(ep->cells[1].exhausted);
	s_done(&r);
}

Test(checks_sharding, a_rank_still_going_past_another_ranks_end_is_uneven)
{
	/* Rank 0's sampler ran out after 4 batches; rank 1 consumed 5 and
	 * never ended its epoch (it hung in a collective and was killed). */
	struct s_run r = s_run_reading(2, &base0, S_READS({0, 0, 0, 40, 10}));
	s_rank_reads_cut(r.model, 1, 0, 50, 100, 10);
	s_exit(r.model, 101, 101, -1, SIGKILL);
	s_finish(&r);
	const struct aw_finding *f = s_get(&r, "uneven-batches");
	cr_expect_eq(s_number(f, "most_batches"), 5);
	cr_expect_eq(s_count(&r.findings, "trace-incomplete"), 0,
		     "the process's end is known");
	s_done(&r);
}

/* --- uneven-batches and what the program does about it ---------------------
 */

/* Two ranks (pids 100, 101) over N = 90, each inside a Join of its own
 * process around its pass: rank 0 reads 5 batches of 10, rank 1 4. The
 * Join ends on the ranks in `left` (bit r), enable as given. */
static struct s_run joined_uneven(unsigned left, int8_t enable)
{
	struct s_loader_opts o = base0;
	o.dataset_len = 90;
	struct s_run r = s_run_of(2, &o);
	for (int rank = 0; rank < 2; rank++) {
		int32_t pid = 100 + rank;
		s_join(r.model, pid, true, enable, -1);
		s_rank_reads(r.model, rank, 0, rank ? 50 : 0, rank ? 90 : 50,
			     10);
		if (left & (1u << rank))
			s_join(r.model, pid, false, enable, 0);
	}
	return r;
}

Test(checks_sharding, uneven_inside_join_that_every_rank_left_is_info)
{
	/* One rank short by one batch, both inside Join, both out of it and
	 * exited cleanly: nothing hung. */
	struct s_run r = joined_uneven(3, 1);
	s_exit(r.model, 99, 100, 0, -1);
	s_exit(r.model, 99, 101, 0, -1);
	const struct aw_finding *f = s_finish_only(&r, NULL);
	cr_expect_null(f);
	f = s_get(&r, "uneven-batches");
	cr_expect_eq(f->severity, AW_SEVERITY_INFO);
	cr_expect_eq(s_number(f, "fewest_batches"), 4);
	cr_expect_eq(s_number(f, "most_batches"), 5);
	s_expect_says(f, "handled");
	s_expect_says(f, "Join (1 joinable)");
	s_expect_says(f, "nothing to change");
	s_done(&r);
}

Test(checks_sharding, uneven_inside_join_when_a_rank_died_is_an_error)
{
	/* Rank 1 (5 batches) was killed inside the Join: rank 0 waits in
	 * Join's exit for ever, and never leaves it. */
	struct s_run r = s_run_of(2, &base0);
	s_join(r.model, 100, true, 1, -1);
	s_join(r.model, 101, true, 1, -1);
	s_rank_reads(r.model, 0, 0, 50, 90, 10);
	s_rank_reads_cut(r.model, 1, 0, 0, 50, 10);
	s_exit(r.model, 99, 101, -1, SIGKILL);
	const struct aw_finding *f =
	    s_finish_get(&r, "uneven-batches", AW_SEVERITY_ERROR);
	s_expect_says(f, "Join did not settle it");
	s_expect_says(f, "rank 0 never left its Join");
	s_done(&r);
}

Test(checks_sharding, uneven_inside_join_then_a_rank_crashed_is_an_error)
{
	/* Both left the Join, but rank 1 then ended by a signal: the
	 * program did not end cleanly. */
	struct s_run r = joined_uneven(3, 1);
	s_exit(r.model, 99, 100, 0, -1);
	s_exit(r.model, 99, 101, -1, SIGSEGV);
	s_finish_says(&r, "uneven-batches", AW_SEVERITY_ERROR,
		      "rank 1 was ended by signal");
	s_done(&r);
}

Test(checks_sharding, uneven_inside_join_the_trace_ends_in_is_an_error)
{
	/* Rank 0 ran out and waits in Join's exit; the trace ends there (no
	 * exit of anyone): the hang itself. */
	struct s_run r = joined_uneven(2, 1);
	s_finish_says(&r, "uneven-batches", AW_SEVERITY_ERROR,
		      "rank 0 never left its Join: it was still "
		      "waiting for the other ranks when the trace ended");
	s_done(&r);
}

Test(checks_sharding, a_rank_waiting_in_its_join_is_judged_later)
{
	/* A snapshot of a trace still being read: rank 0 ran out and waits
	 * inside its Join, rank 1 is still in its pass. Not a hang yet;
	 * when the trace ends there, it is one. */
	struct s_run r = joined_uneven(0, 1);
	aw_findings_init(&r.findings);
	aw_model_snapshot(r.model);
	aw_checks_run(r.model, &r.findings);
	cr_expect_eq(s_count(&r.findings, "uneven-batches"), 0);
	aw_findings_fini(&r.findings);
	s_finish(&r);
	cr_expect_eq(s_get(&r, "uneven-batches")->severity, AW_SEVERITY_ERROR);
	s_done(&r);
}

Test(checks_sharding, uneven_with_a_disabled_join_is_an_error)
{
	struct s_run r = joined_uneven(3, 0);
	s_finish_says(&r, "uneven-batches", AW_SEVERITY_ERROR,
		      "disabled (enable=False)");
	s_done(&r);
}

Test(checks_sharding, uneven_with_a_rank_outside_join_is_an_error)
{
	/* Rank 1 entered its Join only after its pass. */
	struct s_run r = s_run_of(2, &base0);
	s_join(r.model, 100, true, 1, -1);
	s_rank_reads(r.model, 0, 0, 0, 50, 10);
	s_join(r.model, 100, false, 1, 0);
	s_rank_reads(r.model, 1, 0, 50, 90, 10);
	s_join(r.model, 101, true, 1, -1);
	s_join(r.model, 101, false, 1, 0);
	s_finish_says(&r, "uneven-batches", AW_SEVERITY_ERROR,
		      "rank 1 drew batches outside any Join");
	s_done(&r);
}

Test(checks_sharding, a_join_left_by_an_exception_the_program_survived)
{
	/* throw_on_early_termination: rank 1 raised out of its Join, then
	 * exited cleanly (the program caught it). */
	struct s_run r = s_run_of(2, &base0);
	for (int rank = 0; rank < 2; rank++) {
		struct aw_event e = s_event(AW_EVENT_JOIN, 100 + rank);
		e.u.join =
		    (struct aw_event_join){.begin = 1,
					   .joinables = 2,
					   .enable = 1,
					   .throw_on_early_termination = 1,
					   .raised = -1};
		aw_model_add_event(r.model, &e);
		s_rank_reads(r.model, rank, 0, rank ? 50 : 0, rank ? 90 : 50,
			     10);
		e.u.join.begin = 0;
		e.u.join.raised = rank;
		aw_model_add_event(r.model, &e);
		s_exit(r.model, 99, 100 + rank, 0, -1);
	}
	const struct aw_finding *f =
	    s_finish_get(&r, "uneven-batches", AW_SEVERITY_INFO);
	s_expect_says(f, "Join (2 joinables)");
	s_expect_says(f, "rank 1 left its Join by an exception "
			 "(throw_on_early_termination=True");
	cr_expect_not(s_says(f, "rank 0 left its Join"), "%s", f->evidence);
	s_done(&r);
}

/* Four ranks over N = 130, B = 8, sharded by a sampler that states each
 * rank's share (Lightning's UnrepeatedDistributedSamplerWrapper): 33, 33,
 * 32, 32 samples, total_size `total`, over a SequentialSampler of 130.
 * Rank r reads r, r + 4, ... (`short_by` fewer on rank 3). */
static struct s_run by_design(int64_t total, uint32_t short_by)
{
	struct s_loader_opts o = base0;
	o.dataset_len = 130;
	o.batch_size = 8;
	o.sampler = "lightning.pytorch.overrides.distributed."
		    "UnrepeatedDistributedSamplerWrapper";
	struct s_run r = s_run_of(4, &o);
	for (int rank = 0; rank < 4; rank++) {
		struct aw_event_sampler links[3] = {
		    s_link("torch.utils.data.sampler.BatchSampler"),
		    s_link("lightning.pytorch.overrides.distributed."
			   "UnrepeatedDistributedSamplerWrapper"),
		    s_link("torch.utils.data.sampler.SequentialSampler")};
		links[0].batch_size = 8;
		links[0].drop_last = 0;
		links[1].num_replicas = 4;
		links[1].rank = rank;
		links[1].shuffle = 0;
		links[1].drop_last = 0;
		links[1].num_samples = rank < 2 ? 33 : 32;
		links[1].total_size = total;
		links[2].length = 130;
		s_chain(r.model, 100 + rank, 0, links, 3);
		uint32_t idx[33];
		uint32_t n = (rank < 2 ? 33 : 32) - (rank == 3 ? short_by : 0);
		s_range(idx, (uint32_t)rank, n, 4);
		s_reads_in_order(r.model, rank, 0, 0, idx, n, 8);
	}
	return r;
}

Test(checks_sharding, uneven_by_design_is_info)
{
	/* 5, 5, 4, 4 batches: the shares the chain states, together the 130
	 * once; every rank finished and exited 0. */
	struct s_run r = by_design(130, 0);
	for (int rank = 0; rank < 4; rank++)
		s_exit(r.model, 99, 100 + rank, 0, -1);
	cr_expect_null(s_finish_only(&r, NULL));
	const struct aw_finding *f = s_get(&r, "uneven-batches");
	cr_expect_eq(f->severity, AW_SEVERITY_INFO);
	cr_expect_eq(s_number(f, "fewest_batches"), 4);
	cr_expect_eq(s_number(f, "most_batches"), 5);
	s_expect_says(f, "by design");
	s_expect_says(f, "UnrepeatedDistributedSamplerWrapper");
	s_expect_says(f, "33, 33, 32, 32");
	s_done(&r);
}

Test(checks_sharding, uneven_by_design_stated_by_a_programs_len)
{
	/* detectron2's InferenceSampler keeps only _rank, _world_size and
	 * its range: its share is its len() (13, 13, 13, 11 of 50), the whole
	 * what it shards. */
	struct s_loader_opts o = base0;
	o.dataset_len = 50;
	o.batch_size = 4;
	struct s_run r = s_run_of(4, &o);
	for (int rank = 0; rank < 4; rank++) {
		uint32_t n = rank < 3 ? 13 : 11;
		struct aw_event_sampler links[2] = {
		    s_link("torch.utils.data.sampler.BatchSampler"),
		    s_link("eval.InferenceShard")};
		links[0].batch_size = 4;
		links[0].drop_last = 0;
		links[1].num_replicas = 4;
		links[1].rank = rank;
		links[1].length = n;
		links[1].own_iter = 1;
		s_chain(r.model, 100 + rank, 0, links, 2);
		uint32_t idx[13];
		s_range(idx, (uint32_t)rank * 13, n, 1);
		s_reads_in_order(r.model, rank, 0, 0, idx, n, 4);
		s_exit(r.model, 99, 100 + rank, 0, -1);
	}
	cr_expect_null(s_finish_only(&r, NULL));
	const struct aw_finding *f = s_get(&r, "uneven-batches");
	cr_assert(f);
	cr_expect_eq(f->severity, AW_SEVERITY_INFO);
	s_expect_says(f, "13, 13, 13, 11");
	s_done(&r);
}

/* Four ranks over N = 240 through a link of the program's own that states
 * num_samples and total_size, len() 60 each; ranks 0 and 2 read 0-59,
 * ranks 1 and 3 read 20-79: 80 of the 240 in all. */
static struct s_run own_link(int64_t num_samples, int64_t total_size)
{
	struct s_loader_opts o = base0;
	o.dataset_len = 240;
	o.batch_size = 6;
	struct s_run r = s_run_of(4, &o);
	for (int rank = 0; rank < 4; rank++) {
		struct aw_event_sampler links[2] = {
		    s_link("torch.utils.data.sampler.BatchSampler"),
		    s_link("train.RepeatedAugmentationSampler")};
		links[0].batch_size = 6;
		links[0].drop_last = 0;
		links[1].num_replicas = 4;
		links[1].rank = rank;
		links[1].num_samples = num_samples;
		links[1].total_size = total_size;
		links[1].length = 60;
		links[1].own_iter = 1;
		s_chain(r.model, 100 + rank, 0, links, 2);
		uint32_t idx[60];
		s_range(idx, rank % 2 ? 20 : 0, 60, 1);
		s_reads_in_order(r.model, rank, 0, 0, idx, 60, 6);
	}
	return r;
}

Test(checks_sharding, what_a_link_of_its_own_leaves_out_is_a_warning)
{
	/* It states 180 draws a rank of 720 but keeps 60: no plain split,
	 * its rule decides, a warning naming it. */
	struct s_run r = own_link(180, 720);
	const struct aw_finding *f =
	    s_finish_get(&r, "missing", AW_SEVERITY_WARNING);
	s_expect_says(f, "RepeatedAugmentationSampler draws with code of its "
			 "own");
	s_expect_says(f, "num_samples=180, total_size=720, len()=60");
	s_expect_says(f, "`# accwatch: allow missing`");
	s_done(&r);

	/* Stating DistributedSampler's split (60 each of 240), it is held to
	 * it: the 160 never read are an error. */
	r = own_link(60, 240);
	s_finish(&r);
	f = s_get(&r, "missing");
	cr_assert(f);
	cr_expect_eq(f->severity, AW_SEVERITY_ERROR);
	s_done(&r);
}

/* Two ranks over N = 100 through a sampler of the program's own that does
 * not shard, len() `length`: rank 0 reads 0-39, rank 1 40-79. */
static struct s_run own_shuffler(int64_t length)
{
	struct s_loader_opts o = base0;
	o.dataset_len = 100;
	o.batch_size = 10;
	struct s_run r = s_run_of(2, &o);
	for (int rank = 0; rank < 2; rank++) {
		struct aw_event_sampler links[2] = {
		    s_link("torch.utils.data.sampler.BatchSampler"),
		    s_link("train.GroupedByLength")};
		links[0].batch_size = 10;
		links[0].drop_last = 0;
		links[1].length = length;
		links[1].own_iter = 1;
		s_chain(r.model, 100 + rank, 0, links, 2);
		uint32_t idx[40];
		s_range(idx, (uint32_t)rank * 40, 40, 1);
		s_reads_in_order(r.model, rank, 0, 0, idx, 40, 10);
	}
	return r;
}

Test(checks_sharding, a_shuffler_of_its_own_over_all_its_input_is_held_to_it)
{
	/* Its len() is all of its input: it states that it yields it all,
	 * and the 20 never read are an error. */
	struct s_run r = own_shuffler(100);
	s_finish(&r);
	const struct aw_finding *f = s_get(&r, "missing");
	cr_assert(f);
	cr_expect_eq(f->severity, AW_SEVERITY_ERROR);
	s_done(&r);

	/* A len() of 50: it draws fewer by a rule of its own, a warning. */
	r = own_shuffler(50);
	s_finish(&r);
	f = s_get(&r, "missing");
	cr_assert(f);
	cr_expect_eq(f->severity, AW_SEVERITY_WARNING);
	s_expect_says(f, "GroupedByLength draws with code of its own");
	s_done(&r);
}

Test(checks_sharding, uneven_by_design_with_a_rank_that_died_is_an_error)
{
	struct s_run r = by_design(130, 0);
	s_exit(r.model, 99, 102, 1, -1);
	s_finish_says(&r, "uneven-batches", AW_SEVERITY_ERROR,
		      "sharding unevenly by design did not settle it: "
		      "rank 2 exited with status 1");
	s_done(&r);
}

Test(checks_sharding, uneven_shares_that_do_not_cover_once_are_an_error)
{
	/* The stated shares add up to 130, but the sampler claims to draw
	 * 132 (padded): not an unpadded cover. */
	struct s_run r = by_design(132, 0);
	s_finish(&r);
	cr_expect_eq(s_get(&r, "uneven-batches")->severity, AW_SEVERITY_ERROR);
	s_done(&r);
}

Test(checks_sharding, uneven_beyond_the_stated_shares_is_an_error)
{
	/* Rank 3 read 24 of its stated 32 (3 batches): the unevenness is
	 * not the one the sampler states. */
	struct s_run r = by_design(130, 8);
	const struct aw_finding *f =
	    s_finish_get(&r, "uneven-batches", AW_SEVERITY_ERROR);
	cr_expect_eq(s_number(f, "fewest_batches"), 3);
	s_done(&r);
}

Test(checks_sharding, uneven_with_no_remedy_stays_an_error)
{
	/* Hand-made shards, no Join, no stated shares: as before. */
	struct s_run r = s_run_reading(
	    2, &base0, S_READS({0, 0, 0, 50, 10}, {1, 0, 50, 90, 10}));
	s_exit(r.model, 99, 100, 0, -1);
	s_exit(r.model, 99, 101, 0, -1);
	const struct aw_finding *f =
	    s_finish_get(&r, "uneven-batches", AW_SEVERITY_ERROR);
	s_expect_says(f, "waits in a collective");
	cr_expect_not(s_says(f, "did not settle"), "%s", f->evidence);
	s_done(&r);
}

Test(checks_sharding, single_rank_has_no_padding_or_uneven)
{
	expect_reads(1, &base0, S_READS({0, 0, 0, 100, 10}, {0, 1, 0, 100, 10}),
		     NULL);
}

/* --- index-range ------------------------------------------------------------
 */

Test(checks_sharding, index_range_at_n_and_negative)
{
	/* Rank 1 reads 100 = N, which is out. */
	struct s_run r = s_run_reading(
	    2, &base0, S_READS({0, 0, 0, 50, 10}, {1, 0, 50, 101, 11}));
	const struct aw_finding *f = s_finish_only(&r, "index-range");
	cr_expect_eq(f->severity, AW_SEVERITY_ERROR);
	cr_expect_eq(s_number(f, "out_of_range"), 1);
	cr_expect(s_has_rank(f, 1) && !s_has_rank(f, 0));
	s_expect_says(f, "e.g. 100");
	s_expect_says(f, "[0, 100)");
	s_done(&r);

	/* N - 1 is fine; -1 (batch_wide) is not. */
	r.model = aw_model_create();
	s_ranks(r.model, 1, &base0);
	s_iter_begin(r.model, 100, 0, 0);
	int64_t wide[3] = {99, -1, 5};
	s_batch_wide(r.model, 100, 0, 0, 0, 0, 3, wide, 3);
	s_iter_end(r.model, 100, 0, 0, 1, 1, 1);
	s_finish(&r);
	f = s_get(&r, "index-range");
	cr_expect_eq(s_number(f, "out_of_range"), 0);
	cr_expect_eq(s_number(f, "unrepresentable"), 1);
	s_expect_says(f, "-1");
	s_done(&r);
}

/* --- padding from the sampler chain ---------------------------------------
 */

/* W ranks under DistributedSampler(num_replicas=W, drop_last) over n
 * samples, batch 4; rank r reads [r*per_rank - r*shared, ...+per_rank),
 * so neighbours share `shared` samples (cross-rank duplicates (W-1)*shared),
 * the last rank's indices wrapping to the head. */
static struct s_run distributed_reads(int world, int64_t n, int8_t drop_last,
				      uint32_t per_rank, uint32_t shared)
{
	struct s_loader_opts o = base;
	o.dataset_len = n;
	o.batch_size = 4;
	struct s_run r = s_run_distributed(world, o);
	s_distributed_chain(r.model, world, 0, n, 4, drop_last);
	uint32_t idx[512];
	cr_assert_leq(per_rank, 512);
	for (int rank = 0; rank < world; rank++) {
		uint32_t start = (uint32_t)rank * (per_rank - shared);
		for (uint32_t i = 0; i < per_rank; i++)
			idx[i] = (start + i) % (uint32_t)n;
		s_reads_in_order(r.model, rank, 0, 0, idx, per_rank, 4);
	}
	s_finish(&r);
	return r;
}

/* The run's overlap finding, with its numbers. */
static const struct aw_finding *expect_overlap(struct s_run *r, int64_t shared,
					       int64_t padding)
{
	const struct aw_finding *f = s_get(r, "overlap");
	cr_expect_eq(s_number(f, "cross_rank_duplicates"), shared);
	cr_expect_eq(s_number(f, "padding"), padding);
	return f;
}

Test(checks_sharding, padding_exactly_its_size_then_overlap_one_more)
{
	/* N = 402, W = 4: 101 each, 2 of them again from the head. */
	struct s_run r = distributed_reads(4, 402, 0, 101, 0);
	const struct aw_finding *f = s_get(&r, "padding");
	cr_expect_eq(s_number(f, "cross_rank_duplicates"), 2);
	cr_expect_eq(s_number(f, "padding"), 2);
	s_expect_only(&r.findings, NULL);
	s_done(&r);
	/* Neighbours sharing one sample each: 401 distinct of 404, one
	 * repeat more than the padding. */
	r = distributed_reads(4, 402, 0, 101, 1);
	f = expect_overlap(&r, 3, 2);
	s_expect_says(f, "more than the 2 the data path pads with");
	s_done(&r);
}

Test(checks_sharding, drop_last_sampler_pads_nothing)
{
	/* DistributedSampler(drop_last=True): 100 each of 402, no repeat; any
	 * shared sample is an overlap. */
	struct s_run r = distributed_reads(4, 402, 1, 100, 0);
	s_expect_exactly(&r.findings, NULL);
	s_done(&r);
	r = distributed_reads(4, 402, 1, 100, 1);
	const struct aw_finding *f = expect_overlap(&r, 3, 0);
	s_expect_says(f, "no sampler of this loader pads");
	s_done(&r);
}

Test(checks_sharding, overlap_by_a_third_is_not_padding_at_any_batch_size)
{
	/* 120 over 4 ranks (no padding), ranks seeded apart sharing 10 each:
	 * W*B-1 = 63 at B = 16 would have called it padding. */
	struct s_run r = distributed_reads(4, 120, 0, 30, 10);
	expect_overlap(&r, 30, 0);
	s_done(&r);
}

Test(checks_sharding, fewer_samples_than_ranks_pad_and_one_rank_never_pads)
{
	/* N = 2, W = 4: each rank 1 sample, 2 of them repeats. */
	struct s_run r = distributed_reads(4, 2, 0, 1, 0);
	const struct aw_finding *f = s_get(&r, "padding");
	cr_expect_eq(s_number(f, "padding"), 2);
	s_expect_only(&r.findings, NULL);
	s_done(&r);
	/* W = 1: nothing to share, nothing padded. */
	r = distributed_reads(1, 10, 0, 10, 0);
	s_expect_exactly(&r.findings, NULL);
	s_done(&r);
}

/* --- coverage from the sampler chain --------------------------------------
 */

/* One rank (pid 100) over n samples with the chain given, outermost
 * first, reading [0, end) in batches of 10 to the end of its sampler. */
static struct s_run covered_of(int64_t n, const struct aw_event_sampler *links,
			       size_t n_links, uint32_t end)
{
	struct s_loader_opts o = base;
	o.dataset_len = n;
	struct s_run r = s_run_of(1, &o);
	s_chain(r.model, 100, 0, links, n_links);
	s_rank_reads(r.model, 0, 0, 0, end, 10);
	s_finish(&r);
	return r;
}

static struct s_run covered(const struct aw_event_sampler *links, size_t n,
			    uint32_t end)
{
	return covered_of(100, links, n, end);
}

static struct aw_event_sampler batches_of_10(int8_t drop_last, int64_t skip)
{
	struct aw_event_sampler l =
	    s_link("torch.utils.data.sampler.BatchSampler");
	l.batch_size = 10;
	l.drop_last = drop_last;
	l.skip = skip;
	return l;
}

static struct aw_event_sampler drawing(const char *name, int64_t length,
				       int8_t replacement)
{
	struct aw_event_sampler l = s_link(name);
	l.length = length;
	l.replacement = replacement;
	return l;
}

Test(checks_sharding, sampling_with_replacement_promises_no_coverage)
{
	struct aw_event_sampler chain[2] = {
	    batches_of_10(0, -1),
	    drawing("torch.utils.data.sampler.WeightedRandomSampler", 100, 1)};
	struct s_run r = covered(chain, 2, 40);
	s_expect_only(&r.findings, NULL);
	s_done(&r);
}

Test(checks_sharding, skipped_batches_and_a_subset_are_left_out_on_purpose)
{
	/* skip_first_batches(2): 20 of 100 skipped; 80 read is complete. */
	struct aw_event_sampler chain[2] = {
	    batches_of_10(0, 2),
	    drawing("torch.utils.data.sampler.SequentialSampler", 100, -1)};
	struct s_run r = covered(chain, 2, 80);
	s_expect_only(&r.findings, NULL);
	s_done(&r);
	r = covered(chain, 2, 70);
	const struct aw_finding *f = s_get(&r, "missing");
	cr_expect_eq(s_number(f, "drop_allowance"), 20);
	s_expect_says(f, "20 skipped by skip_first_batches");
	s_done(&r);
	/* A subset sampler of 50 indices. */
	chain[0] = batches_of_10(0, -1);
	chain[1] =
	    drawing("torch.utils.data.sampler.SubsetRandomSampler", 50, -1);
	r = covered(chain, 2, 50);
	s_expect_only(&r.findings, NULL);
	s_done(&r);
}

Test(checks_sharding, drop_last_of_the_batch_sampler_leaves_its_remainder)
{
	/* 95 samples in batches of 10 with drop_last: 5 left; 90 read. */
	struct aw_event_sampler chain[2] = {
	    batches_of_10(1, -1),
	    drawing("torch.utils.data.sampler.SequentialSampler", 95, -1)};
	struct s_run r = covered_of(95, chain, 2, 90);
	s_expect_only(&r.findings, NULL);
	s_done(&r);
	/* Without drop_last the same 90 of 95 are 5 missing. */
	chain[0] = batches_of_10(0, -1);
	r = covered_of(95, chain, 2, 90);
	cr_expect_eq(s_number(s_get(&r, "missing"), "drop_allowance"), 0);
	s_done(&r);
}

Test(checks_sharding, a_batch_sampler_of_its_own_may_drop_one_batch_per_rank)
{
	/* A bucketing batch sampler of the user's: no parameters known. */
	struct aw_event_sampler chain[2] = {
	    s_link("train.BucketBatchSampler"),
	    drawing("torch.utils.data.sampler.RandomSampler", 100, 0)};
	struct s_run r = covered(chain, 2, 90);
	s_expect_only(&r.findings, NULL);
	s_done(&r);
	r = covered(chain, 2, 80);
	const struct aw_finding *f = s_get(&r, "missing");
	s_expect_says(f, "one batch per rank a batch sampler of its own");
	s_done(&r);
}

/* --- order-diverged --------------------------------------------------------
 */

/* Two ranks under DistributedSampler(shuffle=True) over 100: rank r began
 * epoch 0 with seeds[r] and set_epoch(epochs[r]) and read [begins[r],
 * begins[r] + 50) in batches of 10. */
static struct s_run two_permutations(const int64_t seeds[2],
				     const int64_t epochs[2],
				     const uint32_t begins[2])
{
	struct s_run r = s_run_distributed(2, base);
	s_distributed_chain(r.model, 2, 0, 100, 10, 0);
	for (int rank = 0; rank < 2; rank++) {
		int32_t pid = 100 + rank;
		struct aw_event e = s_event(AW_EVENT_ITER_BEGIN, pid);
		e.u.iter_begin =
		    (struct aw_event_iter_begin){.loader = 0,
						 .iteration = 0,
						 .sampler_epoch = epochs[rank],
						 .seed = seeds[rank]};
		aw_model_add_event(r.model, &e);
		uint32_t idx[50];
		s_range(idx, begins[rank], 50, 1);
		for (uint32_t b = 0; b < 5; b++)
			s_batch(r.model, pid, 0, 0, b, 0, 10, idx + 10 * b, 10);
		s_iter_end(r.model, pid, 0, 0, 5, 5, 1);
	}
	s_finish(&r);
	return r;
}

Test(checks_sharding, order_diverged_names_the_seeds_not_overlap_and_missing)
{
	struct s_run r =
	    two_permutations((const int64_t[]){1, 2}, (const int64_t[]){0, 0},
			     (const uint32_t[]){0, 30});
	s_expect_exactly(&r.findings, "order-diverged");
	const struct aw_finding *f = s_get(&r, "order-diverged");
	cr_expect_eq(s_number(f, "cross_rank_duplicates"), 20);
	cr_expect_eq(s_number(f, "missing"), 20);
	s_expect_says(f, "rank 0: seed 1, rank 1: 2");
	s_expect_says(f, "the same seed");
	s_done(&r);
}

Test(checks_sharding, order_diverged_below_a_batch_sharding_link)
{
	/* accelerate's BatchSamplerShard over BatchSampler(10) over a
	 * RandomSampler whose generator each rank seeded its own way: rank r
	 * reads [begins[r], +50). */
	struct s_loader_opts o = base;
	o.batch_size = -1;
	o.dataset_len = 100;
	struct s_run r = s_run_of(2, &o);
	const uint32_t begins[2] = {0, 30};
	for (int rank = 0; rank < 2; rank++) {
		int32_t pid = 100 + rank;
		struct aw_event_sampler links[3] = {
		    s_link("accelerate.data_loader.BatchSamplerShard"),
		    s_link("torch.utils.data.sampler.BatchSampler"),
		    s_link("torch.utils.data.sampler.RandomSampler")};
		links[0].num_replicas = 2;
		links[0].rank = rank;
		links[0].batch_size = 10;
		links[1].batch_size = 10;
		links[1].drop_last = 0;
		links[2].shuffle = 1;
		s_chain(r.model, pid, 0, links, 3);
		s_reads(r.model, pid, 0, 0, begins[rank], begins[rank] + 50, 10,
			true);
		struct aw_event e = s_event(AW_EVENT_ITER_BEGIN, pid);
		e.u.iter_begin =
		    (struct aw_event_iter_begin){.loader = 0,
						 .iteration = 0,
						 .sampler_epoch = -1,
						 .seed = 7 + rank,
						 .dataset_epoch = -1,
						 .resumed = -1};
		aw_model_add_event(r.model, &e);
	}
	s_finish(&r);
	s_expect_exactly(&r.findings, "order-diverged");
	const struct aw_finding *f = s_get(&r, "order-diverged");
	s_expect_says(f, "the ranks' RandomSamplers drew different "
			 "permutations");
	s_expect_says(f, "rank 0: seed 7, rank 1: 8");
	s_expect_says(f, "seed the shuffling sampler (RandomSampler)");
	cr_expect_not(s_says(f, "shard once"), "%s", f->fix);
	s_done(&r);
}

Test(checks_sharding, order_diverged_by_set_epoch_and_not_when_they_agree)
{
	struct s_run r =
	    two_permutations((const int64_t[]){1, 1}, (const int64_t[]){0, 3},
			     (const uint32_t[]){0, 30});
	const struct aw_finding *f = s_get(&r, "order-diverged");
	s_expect_says(f, "set_epoch 0, rank 1: 3");
	s_expect_says(f, "the same epoch on every rank");
	s_done(&r);
	/* One permutation, and yet shared samples: overlap and missing, of
	 * another cause. */
	r = two_permutations((const int64_t[]){1, 1}, (const int64_t[]){0, 0},
			     (const uint32_t[]){0, 30});
	cr_expect_eq(s_count(&r.findings, "order-diverged"), 0);
	cr_expect_eq(s_count(&r.findings, "overlap"), 1);
	cr_expect_eq(s_count(&r.findings, "missing"), 1);
	s_done(&r);
}

Test(checks_sharding, a_skipping_link_without_a_batch_size_skips_batches)
{
	/* accelerate's SkipBatchSampler(skip_batches=2) has no batch_size of
	 * its own: the epoch's batches of 10 are what it skips. */
	struct aw_event_sampler skip =
	    s_link("accelerate.data_loader.SkipBatchSampler");
	skip.skip = 2;
	struct aw_event_sampler chain[3] = {
	    skip, batches_of_10(0, -1),
	    drawing("torch.utils.data.sampler.SequentialSampler", 100, -1)};
	struct s_run r = covered(chain, 3, 80);
	s_expect_only(&r.findings, NULL);
	s_done(&r);
}

Test(checks_sharding, ranks_drawing_with_replacement_share_by_chance)
{
	/* Two ranks each draw 60 of 100 with replacement: 20 shared, no
	 * overlap and no missing. */
	struct s_run r = s_run_of(2, &base);
	for (int rank = 0; rank < 2; rank++) {
		struct aw_event_sampler chain[2] = {
		    batches_of_10(0, -1),
		    drawing("torch.utils.data.sampler.RandomSampler", 60, 1)};
		s_chain(r.model, 100 + rank, 0, chain, 2);
		s_rank_reads(r.model, rank, 0, 40 * (uint32_t)rank,
			     40 * (uint32_t)rank + 60, 10);
	}
	s_finish(&r);
	s_expect_only(&r.findings, NULL);
	s_done(&r);
}

/* --- split-diverged --------------------------------------------------------
 */

/* DistributedSampler on 2 ranks over subsets of 20 of a base of 40 made by
 * `kind`: rank r's subset starts at 10 r (they share 10..19, 30..39
 * unread). */
static struct s_run subsets_apart(const char *kind)
{
	struct s_run r = s_run_distributed(2, base);
	s_distributed_chain(r.model, 2, 0, 20, 5, 0);
	for (int rank = 0; rank < 2; rank++) {
		uint32_t to[20];
		s_range(to, 10 * (uint32_t)rank, 20, 1);
		s_dataset_map_of(r.model, 100 + rank, 0, kind, 0, 40, to, 20, 0,
				 20);
		s_rank_reads(r.model, rank, 0, 10 * (uint32_t)rank,
			     10 * (uint32_t)rank + 10, 5);
	}
	s_finish(&r);
	return r;
}

Test(checks_sharding, ranks_holding_different_subsets_are_split_diverged)
{
	struct s_run r = subsets_apart("subset");
	s_expect_exactly(&r.findings, "split-diverged");
	const struct aw_finding *f = s_get(&r, "split-diverged");
	s_expect_says(f, "rank 0's and rank 1's index maps differ");
	cr_expect(strstr(f->fix, "random_split") != NULL, "%s", f->fix);
	s_done(&r);
}

Test(checks_sharding, a_hf_split_apart_is_fixed_with_its_seed)
{
	/* The maps are HF datasets' (train_test_split without seed= on each
	 * rank): the fix names its seed, not torch's random_split. */
	struct s_run r = subsets_apart("datasets");
	s_expect_exactly(&r.findings, "split-diverged");
	const struct aw_finding *f = s_get(&r, "split-diverged");
	cr_expect(strstr(f->fix, "train_test_split(..., seed=") != NULL, "%s",
		  f->fix);
	cr_expect(strstr(f->fix, "random_split") == NULL, "%s", f->fix);
	s_done(&r);
}

Test(checks_sharding, parts_a_programs_dataset_keeps_are_a_warning_naming_it)
{
	/* The maps are the index lists of a dataset of the program's own:
	 * that its __getitem__ reads through them is assumed, so the finding
	 * is a warning naming the class and the list, with the fix for a
	 * rank's part sharded again. */
	struct s_run r = subsets_apart("own:train.Partition.index");
	s_expect_exactly(&r.findings, "split-diverged");
	const struct aw_finding *f = s_get(&r, "split-diverged");
	cr_expect_eq(f->severity, AW_SEVERITY_WARNING);
	s_expect_says(f, "Partition is a dataset of the program's own "
			 "(train.Partition)");
	cr_expect(strstr(f->fix, "`Partition.index`") != NULL, "%s", f->fix);
	cr_expect(strstr(f->fix, "split the data twice") != NULL, "%s", f->fix);
	s_done(&r);
}

/* --- data-parallel groups ----------------------------------------------------
 */

/* How the ranks of grouped() said which process groups they are in. */
enum s_groups {
	S_NO_GROUPS,    /* none: no evidence of model parallelism */
	S_WORLD_GROUP,  /* the world's group only */
	S_REPLICA_GROUP /* and each its replica's ranks (new_group) */
};

/* The process groups of rank (of world) whose replica's ranks are the
 * ranks r' with the same r' / per (r' % replicas when strided). */
static void s_groups_of(struct aw_model *m, int world, int replicas,
			bool strided, int rank, enum s_groups groups)
{
	char list[256] = "", *at = list;
	if (groups == S_NO_GROUPS)
		return;
	for (int r = 0; r < world; r++)
		at += sprintf(at, "%s%d", r ? "," : "", r);
	s_dist_group(m, 100 + rank, rank, list);
	if (groups != S_REPLICA_GROUP)
		return;
	at = list;
	int per = world / replicas;
	for (int r = 0; r < world; r++) {
		bool same = strided ? r % replicas == rank % replicas
				    : r / per == rank / per;
		if (same)
			at += sprintf(at, "%s%d", at == list ? "" : ",", r);
	}
	s_dist_group(m, 100 + rank, rank, list);
}

/* world ranks over a dataset of 40 whose DistributedSamplers shard over
 * `replicas`: rank r gets replica r / (world / replicas) (r % replicas when
 * strided), and reads [begin[r], begin[r] + length[r]); each rank tells the
 * process groups `groups` says. */
static struct s_run grouped_by(int world, int replicas, bool strided,
			       enum s_groups groups, const uint32_t *begin,
			       const uint32_t *length)
{
	struct s_loader_opts o = base;
	o.dataset_len = 40;
	struct s_run r = s_run_distributed(world, o);
	for (int rank = 0; rank < world; rank++) {
		struct aw_event_sampler links[2] = {
		    s_link("torch.utils.data.sampler.BatchSampler"),
		    s_link("torch.utils.data.distributed.DistributedSampler")};
		links[0].batch_size = 10;
		links[1].num_replicas = replicas;
		links[1].rank =
		    strided ? rank % replicas : rank / (world / replicas);
		links[1].shuffle = 0;
		links[1].drop_last = 0;
		links[1].num_samples = (40 + replicas - 1) / replicas;
		s_chain(r.model, 100 + rank, 0, links, 2);
		s_groups_of(r.model, world, replicas, strided, rank, groups);
		s_rank_reads(r.model, rank, 0, begin[rank],
			     begin[rank] + length[rank], 10);
	}
	return r;
}

/* grouped_by with the ranks of each replica in a process group. */
static struct s_run grouped(int world, int replicas, bool strided,
			    const uint32_t *begin, const uint32_t *length)
{
	return grouped_by(world, replicas, strided, S_REPLICA_GROUP, begin,
			  length);
}

Test(checks_sharding, ranks_sharing_a_replica_without_groups_overlap)
{
	/* DistributedSampler(num_replicas=2, rank=rank % 2) on 4 ranks and no
	 * process group but the world's: ranks 0 and 2 read [0, 20), 1 and 3
	 * [20, 40): no data-parallel groups, each sample read twice. */
	for (int g = S_NO_GROUPS; g <= S_WORLD_GROUP; g++) {
		struct s_run r = grouped_by(4, 2, true, (enum s_groups)g,
					    (uint32_t[]){0, 20, 0, 20},
					    (uint32_t[]){20, 20, 20, 20});
		const struct aw_finding *f = s_finish_only(&r, "overlap");
		cr_assert(f);
		cr_expect_eq(s_number(f, "world"), 4);
		cr_expect_eq(s_number(f, "cross_rank_duplicates"), 40);
		cr_expect(!r.model->loaders_global[0].epochs[0].by_group);
		s_done(&r);
	}
	/* The same sampler with each pair in a group of its own: grouped. */
	struct s_run r = grouped(4, 2, true, (uint32_t[]){0, 20, 0, 20},
				 (uint32_t[]){20, 20, 20, 20});
	s_finish(&r);
	s_expect_exactly(&r.findings, NULL);
	cr_expect(r.model->loaders_global[0].epochs[0].by_group);
	s_done(&r);
}

Test(checks_sharding, groups_that_bind_other_ranks_are_no_evidence)
{
	/* Ranks 0,1 and 2,3 are in groups, but the sampler pairs 0 with 2
	 * (rank % 2): the groups do not hold the ranks that read alike. */
	struct s_run r =
	    grouped_by(4, 2, true, S_WORLD_GROUP, (uint32_t[]){0, 20, 0, 20},
		       (uint32_t[]){20, 20, 20, 20});
	s_dist_group(r.model, 100, 0, "0,1");
	s_dist_group(r.model, 101, 1, "0,1");
	s_dist_group(r.model, 102, 2, "2,3");
	s_dist_group(r.model, 103, 3, "2,3");
	s_finish_only(&r, "overlap");
	cr_expect(!r.model->loaders_global[0].epochs[0].by_group);
	s_done(&r);
}

Test(checks_sharding, groups_that_read_their_shares_are_sharded)
{
	/* Tensor-parallel pairs: ranks 0,1 read [0, 20), ranks 2,3 [20, 40). */
	struct s_run r = grouped(4, 2, false, (uint32_t[]){0, 0, 20, 20},
				 (uint32_t[]){20, 20, 20, 20});
	s_finish(&r);
	s_expect_exactly(&r.findings, NULL);
	const struct aw_epoch *e = &r.model->loaders_global[0].epochs[0];
	cr_assert(e->by_group);
	cr_expect_eq(e->by_group->n_cells, 2);
	cr_expect_eq(e->by_group->cross_rank_duplicates, 0);
	cr_expect_eq(e->by_group->missing, 0);
	s_done(&r);
}

Test(checks_sharding, a_rank_reading_other_data_than_its_group_diverged)
{
	/* Rank 1 reads group 1's share: its pair (rank 0) has none of it. */
	struct s_run r = grouped(4, 2, false, (uint32_t[]){0, 20, 20, 20},
				 (uint32_t[]){20, 20, 20, 20});
	const struct aw_finding *f = s_finish_only(&r, "group-diverged");
	cr_assert(f);
	cr_expect(s_has_rank(f, 0) && s_has_rank(f, 1));
	cr_expect(!s_has_rank(f, 3));
	cr_expect_eq(s_number(f, "diverged_ranks"), 1);
	s_expect_says(f, "ranks 0 and 1 have only 0 samples in common");
	s_done(&r);
}

Test(checks_sharding, shares_overlapping_across_groups_overlap)
{
	/* Group 0 reads [0, 30), group 1 [10, 40): judged on 2 groups. */
	struct s_run r = grouped(4, 2, false, (uint32_t[]){0, 0, 10, 10},
				 (uint32_t[]){30, 30, 30, 30});
	const struct aw_finding *f = s_finish_only(&r, "overlap");
	cr_assert(f);
	cr_expect_eq(s_number(f, "world"), 2);
	cr_expect_eq(s_number(f, "cross_rank_duplicates"), 20);
	s_done(&r);
}

Test(checks_sharding, no_groups_over_one_replica_or_groups_of_unequal_size)
{
	/* num_replicas=1 on 2 ranks: both read everything, unsharded. */
	struct s_run r =
	    grouped(2, 1, false, (uint32_t[]){0, 0}, (uint32_t[]){40, 40});
	s_finish_only(&r, "unsharded");
	cr_expect(!r.model->loaders_global[0].epochs[0].by_group);
	s_done(&r);
	/* 3 ranks over 2 replicas (ranks 0 and 2 get replica 0): no groups,
	 * and ranks 0 and 2 reading one share overlap. */
	r = grouped(3, 2, true, (uint32_t[]){0, 20, 0},
		    (uint32_t[]){20, 20, 20});
	s_finish_only(&r, "overlap");
	cr_expect(!r.model->loaders_global[0].epochs[0].by_group);
	s_done(&r);
}

Test(checks_sharding, ranks_dropping_their_own_subsets_tails_miss_nothing)
{
	/* Hand sharding: rank r reads Subset(base of 50, range(r, 50, 2)),
	 * 25 samples, through BatchSampler(10, drop_last=True): each drops
	 * its own 5. 10 samples unread in all, what the two chains leave. */
	struct s_loader_opts o = base0;
	o.dataset_len = 25;
	o.drop_last = 1;
	o.sampler = "torch.utils.data.sampler.RandomSampler";
	struct s_run r = s_run_of(2, &o);
	for (int rank = 0; rank < 2; rank++) {
		struct aw_event_sampler links[2] = {
		    s_link("torch.utils.data.sampler.BatchSampler"),
		    s_link("torch.utils.data.sampler.RandomSampler")};
		links[0].batch_size = 10;
		links[0].drop_last = 1;
		links[1].shuffle = 1;
		links[1].replacement = 0;
		links[1].num_samples = 25;
		s_chain(r.model, 100 + rank, 0, links, 2);
		uint32_t to[25];
		s_range(to, (uint32_t)rank, 25, 2);
		s_dataset_map(r.model, 100 + rank, 0, 0, 50, to, 25, 0, 25);
		s_rank_reads(r.model, rank, 0, 0, 20, 10);
	}
	s_finish(&r);
	s_expect_only(&r.findings, NULL);
	s_done(&r);
}

/* --- index maps that differ: coverage of the dataset below them -----------
 */

/* world ranks, each reading its whole own part of a base of base_len
 * through Subset maps: rank r's outermost map is its `parts[r]`, count
 * entries into the dataset below (into the base when parent is NULL, else
 * into the `parent_len` positions of a parent Subset, the same on every
 * rank, into the base). Each rank's chain: BatchSampler(7) over a
 * RandomSampler of its part. */
static struct s_run own_parts(int world, int64_t base_len,
			      const uint32_t *const *parts, uint32_t count,
			      const uint32_t *parent, uint32_t parent_len)
{
	struct s_loader_opts o = base0;
	o.dataset_len = count;
	o.batch_size = 7;
	struct s_run r = s_run_of(world, &o);
	for (int rank = 0; rank < world; rank++) {
		struct aw_event_sampler links[2] = {
		    s_link("torch.utils.data.sampler.BatchSampler"),
		    s_link("torch.utils.data.sampler.RandomSampler")};
		links[0].batch_size = 7;
		links[0].drop_last = 0;
		links[1].shuffle = 1;
		links[1].replacement = 0;
		links[1].num_samples = count;
		s_chain(r.model, 100 + rank, 0, links, 2);
		s_dataset_map(r.model, 100 + rank, 0, 0,
			      parent ? parent_len : base_len, parts[rank],
			      count, 0, count);
		if (parent)
			s_dataset_map(r.model, 100 + rank, 0, 1, base_len,
				      parent, parent_len, 0, parent_len);
		s_rank_reads(r.model, rank, 0, 0, count, 7);
	}
	s_finish(&r);
	return r;
}

/* The errors and warnings of a run. */
static size_t judged(const struct aw_findings *f)
{
	size_t n = 0;
	for (size_t i = 0; i < f->n; i++)
		n += f->items[i].severity != AW_SEVERITY_INFO;
	return n;
}

Test(checks_sharding, hand_made_shards_that_leave_the_tail_unread_miss_it)
{
	/* The example: 4 ranks, a base of 100, rank r reads
	 * Subset(base, range(20 r, 20 r + 28)): the parts overlap by 8 and
	 * together end at 87, so samples 88-99 are in no rank's map. */
	uint32_t parts[4][28];
	const uint32_t *of[4];
	for (uint32_t rank = 0; rank < 4; rank++) {
		s_range(parts[rank], 20 * rank, 28, 1);
		of[rank] = parts[rank];
	}
	struct s_run r = own_parts(4, 100, of, 28, NULL, 0);
	cr_expect_eq(judged(&r.findings), 2, "overlap and missing");
	cr_expect_eq(s_count(&r.findings, "overlap"), 1);
	const struct aw_finding *f = s_get(&r, "missing");
	expect_well_formed(f);
	cr_expect_eq(f->severity, AW_SEVERITY_ERROR);
	cr_expect_eq(s_number(f, "missing"), 12);
	cr_expect_eq(s_number(f, "in_no_map"), 12);
	cr_expect_eq(s_number(f, "outside_shared_part"), 0);
	s_expect_says(f, "read 88 of the 100 samples");
	s_expect_says(f, "coverage 88.0%");
	s_expect_says(f, "12 are in no rank's index map (samples 88-99)");
	cr_expect(!strstr(f->message, "100.0%"), "%s", f->message);
	s_expect_says(f, "range(rank, len(dataset), 4)");
	/* The table's coverage is of the base too. */
	const struct aw_global_loader *g = &r.model->loaders_global[0];
	const struct aw_epoch *e = &g->epochs[0];
	cr_expect(e->gaps.judged);
	cr_expect_eq(aw_epoch_to_cover(aw_model_describe(r.model, g), e), 100);
	cr_expect_eq(e->union_in_range, 88);
	cr_expect_eq(e->missing, 12);
	s_done(&r);
}

Test(checks_sharding, holes_between_hand_made_shards_are_named)
{
	/* 2 ranks over a base of 40: rank 0 holds 0-9, rank 1 20-29 and
	 * 35: the holes are 10-19, 30-34 and 36-39. */
	uint32_t a[11], b[11];
	s_range(a, 0, 11, 1);
	a[10] = 9; /* a repeated entry: the part holds 0-9 */
	s_range(b, 20, 10, 1);
	b[10] = 35;
	const uint32_t *of[2] = {a, b};
	struct s_run r = own_parts(2, 40, of, 11, NULL, 0);
	const struct aw_finding *f = s_get(&r, "missing");
	cr_expect_eq(f->severity, AW_SEVERITY_ERROR);
	cr_expect_eq(s_number(f, "in_no_map"), 19);
	s_expect_says(f, "(samples 10-19, 30-34 and 36-39)");
	s_done(&r);
}

Test(checks_sharding, shards_of_a_split_every_rank_shares_leave_its_rest)
{
	/* Every rank takes the same training part of a base of 100 (samples
	 * 20-99, a parent Subset alike on all ranks) and its own quarter of
	 * it: together they cover the part; 0-19 are another loader's. */
	uint32_t parent[80], parts[4][20];
	const uint32_t *of[4];
	s_range(parent, 20, 80, 1);
	for (uint32_t rank = 0; rank < 4; rank++) {
		s_range(parts[rank], rank, 20, 4);
		of[rank] = parts[rank];
	}
	struct s_run r = own_parts(4, 100, of, 20, parent, 80);
	cr_expect_eq(judged(&r.findings), 1, "missing alone");
	const struct aw_finding *f = s_get(&r, "missing");
	expect_well_formed(f);
	cr_expect_eq(f->severity, AW_SEVERITY_WARNING);
	cr_expect_eq(s_number(f, "in_no_map"), 0);
	cr_expect_eq(s_number(f, "outside_shared_part"), 20);
	s_expect_says(f, "coverage 80.0%");
	s_expect_says(f, "20 are outside the 80 samples of the part every "
			 "rank's index maps share");
	s_expect_says(f, "# accwatch: allow missing");
	s_done(&r);
}

Test(checks_sharding, holes_inside_a_shared_split_are_an_error)
{
	/* The same training part, but rank r holds its positions
	 * [20 r, 20 r + 15): 20 of the part's samples in no rank's map. */
	uint32_t parent[80], parts[4][15];
	const uint32_t *of[4];
	s_range(parent, 20, 80, 1);
	for (uint32_t rank = 0; rank < 4; rank++) {
		s_range(parts[rank], 20 * rank, 15, 1);
		of[rank] = parts[rank];
	}
	struct s_run r = own_parts(4, 100, of, 15, parent, 80);
	const struct aw_finding *f = s_get(&r, "missing");
	cr_expect_eq(f->severity, AW_SEVERITY_ERROR);
	cr_expect_eq(s_number(f, "in_no_map"), 20);
	cr_expect_eq(s_number(f, "outside_shared_part"), 20);
	cr_expect_eq(s_number(f, "missing"), 40);
	s_expect_says(f, "(samples 35-39, 55-59, 75-79 and 95-99)");
	s_expect_says(f, "left out of the 80 samples the ranks' differing "
			 "maps are cut from");
	s_done(&r);
}

Test(checks_sharding, identical_maps_are_judged_on_what_they_cover)
{
	/* Every rank the same Subset(base of 100, range(0, 80)) under
	 * DistributedSampler: the rest is not this loader's, as before. */
	struct s_loader_opts o = base;
	o.dataset_len = 80;
	struct s_run r = s_run_distributed(4, o);
	s_distributed_chain(r.model, 4, 0, 80, 10, 0);
	uint32_t to[80];
	s_range(to, 0, 80, 1);
	for (int rank = 0; rank < 4; rank++) {
		s_dataset_map(r.model, 100 + rank, 0, 0, 100, to, 80, 0, 80);
		s_rank_reads(r.model, rank, 0, 20 * (uint32_t)rank,
			     20 * (uint32_t)rank + 20, 10);
	}
	s_finish(&r);
	s_expect_exactly(&r.findings, NULL);
	const struct aw_global_loader *g = &r.model->loaders_global[0];
	const struct aw_epoch *e = &g->epochs[0];
	cr_expect(!e->gaps.judged);
	cr_expect_eq(aw_epoch_to_cover(aw_model_describe(r.model, g), e), 80);
	cr_expect_eq(e->missing, 0);
	s_done(&r);
}
