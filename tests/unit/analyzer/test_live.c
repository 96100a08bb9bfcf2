/* SPDX-License-Identifier: MIT */
/* Live findings (live.h): which findings of a snapshot are printed while a
 * session is recorded, and the moments the checks run at. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks.h"
#include "findings.h"
#include "live.h"
#include "live_early.h"
#include "model.h"
#include "stream.h"

/* Two ranks read all 100 samples in epoch 0 (unsharded); in epoch 1 rank 0
 * has read half, rank 1 nothing yet. */
static struct aw_model *unsharded_mid_epoch(void)
{
	struct aw_model *m = aw_model_create();
	s_ranks(m, 2, &(struct s_loader_opts)S_BASE_LOADER(0));
	for (int r = 0; r < 2; r++)
		s_rank_reads(m, r, 0, 0, 100, 10);
	s_rank_reads_cut(m, 0, 1, 0, 50, 10);
	return m;
}

static const struct aw_finding *find(const struct aw_findings *f,
				     const char *id, int64_t epoch)
{
	for (size_t i = 0; i < f->n; i++)
		if (strcmp(f->items[i].id, id) == 0 &&
		    f->items[i].epoch == epoch)
			return &f->items[i];
	return NULL;
}

Test(live, an_epoch_every_rank_ended_is_certain_an_open_one_is_not)
{
	struct aw_model *m = unsharded_mid_epoch();
	struct aw_findings f;
	aw_findings_init(&f);
	aw_model_snapshot(m);
	aw_checks_run(m, &f);
	const struct aw_finding *done = find(&f, "unsharded", 0);
	cr_assert(done, "epoch 0's unsharded in the snapshot");
	cr_expect(aw_live_certain(m, done));
	struct aw_finding open = *done;
	open.epoch = 1;
	cr_expect_not(aw_live_certain(m, &open), "epoch 1 is still open");
	struct aw_finding info = *done;
	info.severity = AW_SEVERITY_INFO;
	cr_expect_not(aw_live_certain(m, &info), "infos are never live");
	struct aw_finding whole = *done;
	whole.id = "unused-prepared";
	cr_expect_not(aw_live_certain(m, &whole), "whole-run verdicts wait");
	aw_findings_fini(&f);
	aw_model_destroy(m);
}

Test(live, a_rank_missing_from_the_world_keeps_an_epoch_uncertain)
{
	struct aw_model *m = aw_model_create();
	s_ranks(m, 3, &(struct s_loader_opts)S_BASE_LOADER(0));
	for (int r = 0; r < 2; r++)
		s_rank_reads(m, r, 0, 0, 100, 10);
	struct aw_findings f;
	aw_findings_init(&f);
	aw_model_snapshot(m);
	aw_checks_run(m, &f);
	for (size_t i = 0; i < f.n; i++)
		cr_expect_not(aw_live_certain(m, &f.items[i]),
			      "%s: rank 2 has not read epoch 0", f.items[i].id);
	aw_findings_fini(&f);
	aw_model_destroy(m);
}

/* Two processes with no rank of their own (mp.spawn's children), sharded
 * by DistributedSampler(num_replicas=2, rank=r): while only rank 0 has
 * read, the world is not known (one rank seen so far) and its half of the
 * data is no finding yet; a pid-order world is never known while the job
 * runs. */
Test(live, a_world_only_inferred_from_the_ranks_seen_is_not_certain)
{
	struct aw_model *m = aw_model_create();
	struct s_loader_opts o = S_BASE_LOADER(0);
	o.sampler = "DistributedSampler";
	o.sampler_replicas = 2;
	o.sampler_rank = 0;
	s_process(m, 300, 1, -1, -1, "other");
	s_loader(m, 300, 0, &o);
	s_reads(m, 300, 0, 0, 0, 50, 10, true);
	aw_model_snapshot(m);
	cr_expect(m->ranks_inferred && m->world_size == 1);
	cr_expect_eq(aw_live_world(m), -1, "num_replicas says 2");
	struct aw_findings f;
	aw_findings_init(&f);
	aw_checks_run(m, &f);
	for (size_t i = 0; i < f.n; i++)
		cr_expect_not(aw_live_certain(m, &f.items[i]),
			      "%s: rank 1 is yet to come", f.items[i].id);
	aw_findings_fini(&f);

	o.sampler_rank = 1;
	s_process(m, 301, 1, -1, -1, "other");
	s_loader(m, 301, 0, &o);
	s_reads(m, 301, 0, 0, 50, 100, 10, true);
	aw_model_snapshot(m);
	cr_expect_eq(aw_live_world(m), 2, "both samplers: 2 replicas");

	o.sampler_replicas = -1;
	s_process(m, 302, 1, -1, -1, "other");
	s_loader(m, 302, 0, &o);
	s_reads(m, 302, 0, 0, 0, 100, 10, true);
	aw_model_snapshot(m);
	cr_expect_eq(aw_live_world(m), -1, "a rank in pid order");
	aw_model_destroy(m);
}

Test(live, moments_move_at_a_first_batch_and_an_end_not_per_batch)
{
	struct aw_model *m = aw_model_create();
	s_ranks(m, 2, &(struct s_loader_opts)S_BASE_LOADER(0));
	uint64_t before = aw_live_moments(m);
	s_rank_reads_cut(m, 0, 0, 0, 10, 10);
	uint64_t first = aw_live_moments(m);
	cr_expect_gt(first, before, "a pass got its first batch");
	s_rank_reads(m, 1, 0, 0, 100, 10);
	cr_expect_eq(aw_live_moments(m), first + 2, "rank 1: begun, ended");
	aw_model_destroy(m);
}

Test(live, prints_each_certain_finding_once_and_stops_on_error)
{
	struct aw_model *m = unsharded_mid_epoch();
	char *text = NULL;
	size_t size = 0;
	FILE *out = open_memstream(&text, &size);
	struct aw_live live;
	aw_live_init(&live, out, 1.0, true, NULL);
	cr_expect_not(aw_live_tick(&live, m), "fail-fast: stop");
	cr_expect(aw_live_tick(&live, m) == false, "nothing new: still");
	fclose(out);
	cr_expect(strstr(text, ": unsharded (error), L0 ("), "%s", text);
	cr_expect(strstr(text, "epoch 0, ranks 0-1\n"), "%s", text);
	cr_expect_null(strstr(text, "epoch 1"), "%s", text);
	cr_expect_eq(live.errors, 1);
	aw_live_fini(&live);
	free(text);
	aw_model_destroy(m);
}

/* The early verdicts of a snapshot where every rank drew `count` samples
 * in batches of 10 from begin[r] of epoch 0 and nothing more. */
static void early_reads(struct aw_findings *early, struct aw_model *m,
			const uint32_t *begin, int world, uint32_t count)
{
	for (int r = 0; r < world; r++)
		s_rank_reads_cut(m, r, 0, begin[r], begin[r] + count, 10);
	struct aw_findings f;
	aw_findings_init(&f);
	aw_findings_init(early);
	aw_model_snapshot(m);
	aw_checks_run(m, &f);
	aw_live_early(m, &f, early);
	aw_findings_fini(&f);
}

Test(live, every_rank_drawing_one_first_batch_unsharded_is_early)
{
	struct aw_model *m = aw_model_create();
	s_ranks(m, 3, &(struct s_loader_opts)S_BASE_LOADER(0));
	struct aw_findings early;
	early_reads(&early, m, (const uint32_t[]){0, 0, 0}, 3, 10);
	const struct aw_finding *f = find(&early, "unsharded", 0);
	cr_assert(f, "unsharded at the first batches");
	cr_expect_eq(f->n_ranks, 3);
	cr_expect_eq(f->severity, AW_SEVERITY_ERROR);
	aw_findings_fini(&early);
	aw_model_destroy(m);
}

Test(live, first_batches_that_differ_or_a_rank_yet_to_draw_say_nothing)
{
	struct aw_model *m = aw_model_create();
	s_ranks(m, 2, &(struct s_loader_opts)S_BASE_LOADER(0));
	struct aw_findings early;
	early_reads(&early, m, (const uint32_t[]){0, 10}, 2, 10);
	cr_expect_eq(early.n, 0, "different first batches: %zu", early.n);
	aw_findings_fini(&early);
	aw_model_destroy(m);

	m = aw_model_create();
	s_ranks(m, 3, &(struct s_loader_opts)S_BASE_LOADER(0));
	early_reads(&early, m, (const uint32_t[]){0, 0}, 2, 10);
	cr_expect_eq(early.n, 0, "rank 2 has drawn nothing: %zu", early.n);
	aw_findings_fini(&early);
	aw_model_destroy(m);
}

/* Every rank's loader reads through a RandomSampler (its chain recorded:
 * a BatchSampler over it, neither splitting). */
static void random_sampler_ranks(struct aw_model *m, int world)
{
	s_ranks(m, world, &(struct s_loader_opts)S_BASE_LOADER(0));
	for (int r = 0; r < world; r++)
		s_random_chain(m, 100 + r, 0, 10, 100);
}

Test(live, ranks_of_their_own_permutations_sharing_samples_are_unsharded_early)
{
	/* Each rank its own order over the whole data (a RandomSampler,
	 * nothing splits): reads 0..59 and 30..89 already share samples,
	 * so unsharded now, not at the epoch's end. Disjoint reads say
	 * nothing yet. */
	struct aw_model *m = aw_model_create();
	random_sampler_ranks(m, 2);
	struct aw_findings early;
	early_reads(&early, m, (const uint32_t[]){0, 30}, 2, 60);
	cr_expect(find(&early, "unsharded", 0), "unsharded before the end");
	aw_findings_fini(&early);
	aw_model_destroy(m);

	m = aw_model_create();
	random_sampler_ranks(m, 2);
	early_reads(&early, m, (const uint32_t[]){0, 60}, 2, 60);
	cr_expect_null(find(&early, "unsharded", 0));
	aw_findings_fini(&early);
	aw_model_destroy(m);
}

Test(live, a_sharding_sampler_is_never_unsharded_early)
{
	struct aw_model *m = aw_model_create();
	struct s_loader_opts o = S_BASE_LOADER(0);
	o.sampler = "DistributedSampler";
	o.sampler_replicas = 2;
	s_ranks(m, 2, &o);
	struct aw_findings early;
	early_reads(&early, m, (const uint32_t[]){0, 0}, 2, 10);
	cr_expect_null(find(&early, "unsharded", 0));
	aw_findings_fini(&early);
	aw_model_destroy(m);
}

/* What a --fail-fast stop leaves: the ranks of one sequence cut short at
 * different batches. The final report says unsharded, as the live line
 * did; the same reads of passes that ended with their loops say overlap. */
Test(live, an_epoch_cut_short_on_one_sequence_is_unsharded_at_the_end)
{
	struct s_run cut = s_run_of(2, &(struct s_loader_opts)S_BASE_LOADER(0));
	s_rank_reads_cut(cut.model, 0, 0, 0, 40, 10);
	s_rank_reads_cut(cut.model, 1, 0, 0, 10, 10);
	s_finish(&cut);
	cr_expect_eq(s_count(&cut.findings, "unsharded"), 1);
	cr_expect_eq(s_count(&cut.findings, "overlap"), 0);
	s_done(&cut);

	struct s_run apart =
	    s_run_of(2, &(struct s_loader_opts)S_BASE_LOADER(0));
	s_rank_reads_cut(apart.model, 0, 0, 0, 40, 10);
	s_rank_reads_cut(apart.model, 1, 0, 50, 60, 10);
	s_finish(&apart);
	cr_expect_eq(s_count(&apart.findings, "unsharded"), 0,
		     "first batches differ: not one sequence");
	s_done(&apart);
}

/* Rank 1's sampler ran out after 3 batches while rank 0 drew 9 and goes
 * on, outside any Join: uneven-batches is certain before rank 0 ends. */
Test(live, uneven_batches_is_certain_once_a_rank_ran_out_and_another_went_on)
{
	struct aw_model *m = aw_model_create();
	s_ranks(m, 2, &(struct s_loader_opts)S_BASE_LOADER(0));
	s_rank_reads_cut(m, 0, 0, 0, 90, 10);
	s_rank_reads(m, 1, 0, 0, 30, 10);
	struct aw_findings f;
	aw_findings_init(&f);
	aw_model_snapshot(m);
	aw_checks_run(m, &f);
	const struct aw_finding *uneven = find(&f, "uneven-batches", 0);
	cr_assert(uneven, "uneven-batches in the snapshot");
	cr_expect_eq(uneven->severity, AW_SEVERITY_ERROR);
	cr_expect(aw_live_certain(m, uneven), "rank 0 went past rank 1's 3");
	aw_findings_fini(&f);
	aw_model_destroy(m);
}
