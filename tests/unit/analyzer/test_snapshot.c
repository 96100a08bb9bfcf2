/* SPDX-License-Identifier: MIT */
/* aw_model_snapshot: the checks and renderers on a model that is still
 * taking events. On every recorded stream of the fuzz seeds (real e2e
 * traces), a model snapshotted, checked and rendered at points along the
 * way must end with the report of a model that was not. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks.h"
#include "findings.h"
#include "ingest.h"
#include "model.h"
#include "render.h"
#include "stream.h"

#ifndef AW_SEEDS_DIR
#error "AW_SEEDS_DIR names tests/fuzz/seeds/ingest"
#endif

/* Points along a stream where the model is snapshotted. */
#define SNAPSHOTS 7

static uint8_t *read_seed(const char *name, size_t *size)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", AW_SEEDS_DIR, name);
	FILE *f = fopen(path, "rb");
	cr_assert(f, "%s", path);
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	uint8_t *data = malloc((size_t)n + 1);
	cr_assert_eq(fread(data, 1, (size_t)n, f), (size_t)n, "%s", path);
	fclose(f);
	*size = (size_t)n;
	return data;
}

/* The report of the model as it stands (checks run on it). */
static json_t *report_of(struct aw_model *m)
{
	struct aw_findings findings;
	aw_findings_init(&findings);
	aw_checks_run(m, &findings);
	json_t *report = aw_render_json_object(m, &findings, NULL);
	FILE *text = fopen("/dev/null", "w");
	aw_render_text(text, m, &findings, NULL, false);
	fclose(text);
	aw_findings_fini(&findings);
	return report;
}

/* The final report after feeding the stream in `steps` prefixes, with a
 * snapshot, checks and both renderers after each but the last. */
static json_t *fed_in_steps(const uint8_t *data, size_t size, int steps)
{
	struct aw_model *m = aw_model_create();
	struct aw_ingest ingest;
	aw_ingest_init(&ingest, m, NULL);
	size_t taken = 0;
	for (int step = 1; step <= steps; step++) {
		size_t end = size * (size_t)step / (size_t)steps, used = 0;
		aw_ingest_feed(&ingest, data + taken, end - taken, &used);
		taken += used;
		if (step == steps)
			break;
		aw_model_snapshot(m);
		json_t *partial = report_of(m);
		cr_expect(json_is_object(partial));
		json_decref(partial);
	}
	aw_ingest_fini(&ingest);
	aw_model_finish(m);
	json_t *report = report_of(m);
	aw_model_destroy(m);
	return report;
}

Test(snapshot, reports_mid_stream_leave_the_final_one_unchanged)
{
	DIR *dir = opendir(AW_SEEDS_DIR);
	cr_assert(dir, "%s", AW_SEEDS_DIR);
	int seeds = 0;
	for (struct dirent *e; (e = readdir(dir));) {
		if (e->d_name[0] == '.')
			continue;
		size_t size;
		uint8_t *data = read_seed(e->d_name, &size);
		json_t *straight = fed_in_steps(data, size, 1);
		json_t *stepped = fed_in_steps(data, size, SNAPSHOTS + 1);
		char *a = json_dumps(straight, JSON_SORT_KEYS);
		char *b = json_dumps(stepped, JSON_SORT_KEYS);
		cr_expect_str_eq(b, a, "seed %s", e->d_name);
		free(a);
		free(b);
		json_decref(straight);
		json_decref(stepped);
		free(data);
		seeds++;
	}
	closedir(dir);
	cr_expect_geq(seeds, 5, "the seeds are there");
}

/* Two ranks read all 100 samples in epoch 0; in epoch 1 rank 0 has drawn
 * 50 batches of 2 when the snapshot is taken. */
static struct aw_model *mid_epoch(void)
{
	struct aw_model *m = aw_model_create();
	s_ranks(m, 2, &(struct s_loader_opts)S_BASE_LOADER(0));
	for (int r = 0; r < 2; r++)
		s_rank_reads(m, r, 0, 0, 100, 10);
	uint32_t idx[100];
	s_range(idx, 0, 100, 1);
	s_epoch(
	    m, 100, 0, 1,
	    &(struct s_epoch){.indices = idx, .count = 100, .batch_size = 2});
	return m;
}

Test(snapshot, checks_see_the_reads_so_far)
{
	struct aw_model *m = mid_epoch();
	aw_model_snapshot(m);
	cr_assert_eq(m->n_ranks, 2);
	cr_assert_eq(m->n_loaders_global, 1);
	const struct aw_global_loader *g = &m->loaders_global[0];
	cr_assert_eq(g->n_epochs, 2);
	cr_expect_eq(g->epochs[0].union_count, 100);
	/* Without iter_end, a batch is known consumed once the prefetch window
	 * (2 x prefetch_factor 2 x 1 + 16 = 20 batches) was drawn after it. */
	cr_expect_eq(g->epochs[1].cells[0].unique, 60,
		     "epoch 1 so far: the 30 batches known consumed");
	cr_expect_not(g->epochs[1].complete, "still open");
	cr_expect_eq(m->incomplete_iterations, 0, "open is not cut short");
	struct aw_findings f;
	aw_findings_init(&f);
	aw_checks_run(m, &f);
	cr_expect_gt(s_count(&f, "unsharded"), 0, "epoch 0 is over: seen");
	aw_findings_fini(&f);
	aw_model_destroy(m);
}

Test(snapshot, is_the_same_twice_and_nothing_after_finish)
{
	struct aw_model *m = mid_epoch();
	aw_model_snapshot(m);
	json_t *first = report_of(m);
	aw_model_snapshot(m);
	json_t *second = report_of(m);
	cr_expect(json_equal(first, second));
	aw_model_finish(m);
	json_t *finished = report_of(m);
	aw_model_snapshot(m);
	json_t *after = report_of(m);
	cr_expect(json_equal(finished, after), "finished stays finished");
	cr_expect_eq(m->incomplete_iterations, 1, "the open pass, at the end");
	json_decref(first);
	json_decref(second);
	json_decref(finished);
	json_decref(after);
	aw_model_destroy(m);
}
