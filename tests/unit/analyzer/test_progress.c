/* SPDX-License-Identifier: MIT */
/* The progress line: its words and numbers, that it stays off when stderr
 * is no terminal, and the progress record through the event stream. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "event_codec.h"
#include "ingest.h"
#include "progress.h"

Test(progress, line_says_bytes_share_rate_and_time_left)
{
	char line[128];
	aw_progress_line(line, sizeof(line), 50u << 20, 200u << 20, 2.0);
	cr_assert_str_eq(line, "reading 50.0 of 200.0 MiB (25%), 25.0 MiB/s, "
			       "6 s left");
	/* More decoded than the files held when they were measured. */
	aw_progress_line(line, sizeof(line), 300u << 20, 200u << 20, 4.0);
	cr_assert_str_eq(line, "reading 200.0 of 200.0 MiB (100%), 50.0 "
			       "MiB/s, 0 s left");
	aw_progress_line(line, sizeof(line), 0, 200u << 20, 0.0);
	cr_assert_str_eq(line, "reading 0.0 of 200.0 MiB (0%)");
}

/* The analysis's line: drawn on a terminal only, from two seconds after the
 * report's start, with its stage and count. */
Test(progress, analysis_line_says_stage_and_count)
{
	char buffer[256] = "";
	FILE *out = fmemopen(buffer, sizeof(buffer), "w");
	cr_assert_not_null(out);
	struct aw_progress p;
	aw_progress_start_analysis(&p, out, 100.0);
	cr_expect_null(p.out, "a memory stream is no terminal");
	/* As on a terminal: */
	p.out = out;
	aw_progress_step(&p, "checks", 5, 10, 101.0);
	fflush(out);
	cr_expect_str_empty(buffer, "nothing in the first two seconds");
	aw_progress_step(&p, "checks", 5, 10, 103.0);
	aw_progress_step(&p, "checks", 6, 10, 103.1); /* too soon again */
	fclose(out);
	cr_expect_str_eq(buffer,
			 "\raccwatch-report: analysing, checks 5 of 10 (50%)"
			 "\033[K");
}

/* Bytes of the stream files, packets of the index files. */
Test(progress, measures_streams_and_index_files)
{
	char dir[] = "/tmp/aw-progress-XXXXXX";
	char path[256];
	cr_assert_not_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/index", dir);
	cr_assert_eq(mkdir(path, 0700), 0);
	const struct {
		const char *name;
		size_t size;
	} files[] = {{"metadata", 5000}, {"chan_0", 3000}, {"chan_1", 1000}};
	for (size_t i = 0; i < 3; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, files[i].name);
		FILE *f = fopen(path, "wb");
		for (size_t b = 0; b < files[i].size; b++)
			fputc(0, f);
		fclose(f);
	}
	/* chan_0.idx: 3 entries of 72 bytes; junk.idx: no index file */
	static const unsigned char header[16] = {
	    0xc1, 0xf1, 0xdc, 0xc1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 72};
	snprintf(path, sizeof(path), "%s/index/chan_0.idx", dir);
	FILE *f = fopen(path, "wb");
	fwrite(header, 1, sizeof(header), f);
	for (size_t b = 0; b < 3 * 72; b++)
		fputc(0, f);
	fclose(f);
	snprintf(path, sizeof(path), "%s/index/junk.idx", dir);
	f = fopen(path, "wb");
	fputs("not an index at all", f);
	fclose(f);
	char *names[] = {dir};
	struct aw_trace_dirs dirs = {.dirs = names, .n = 1};
	uint64_t bytes, packets;
	aw_progress_measure(&dirs, &bytes, &packets);
	cr_assert_eq(bytes, 4000);
	cr_assert_eq(packets, 3);
	snprintf(path, sizeof(path), "rm -rf '%s'", dir);
	cr_assert_eq(system(path), 0);
}

Test(progress, nothing_when_the_stream_is_no_terminal)
{
	FILE *file = tmpfile();
	struct aw_progress p;
	char *names[] = {"/nonexistent"};
	struct aw_trace_dirs dirs = {.dirs = names, .n = 1};
	aw_progress_start(&p, file, &dirs, 0.0);
	aw_progress_update(&p, 10, 5.0);
	aw_progress_end(&p);
	cr_assert_eq(ftell(file), 0);
	fclose(file);
}

Test(progress, the_record_reaches_the_ingest)
{
	struct aw_encoder enc;
	struct aw_ingest ingest;
	struct aw_model *model = aw_model_create();
	size_t used = 0;
	aw_encoder_init(&enc);
	aw_encode_progress(&enc, 123456789);
	aw_ingest_init(&ingest, model, NULL);
	cr_assert_eq(aw_ingest_feed(&ingest, enc.data, enc.len, &used),
		     AW_INGEST_OK);
	cr_assert_eq(used, enc.len);
	cr_assert_eq(ingest.decoded_packets, 123456789);
	aw_ingest_fini(&ingest);
	aw_encoder_fini(&enc);
	aw_model_destroy(model);
}
