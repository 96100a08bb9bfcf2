/* The progress line: its words and numbers, that it stays off when stderr
 * is no terminal, and the progress record through the event stream. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

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

Test(progress, nothing_when_the_stream_is_no_terminal)
{
	FILE *file = tmpfile();
	struct aw_progress p;
	aw_progress_start(&p, file, 1000, 0.0);
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
	cr_assert_eq(ingest.decoded_bytes, 123456789);
	aw_ingest_fini(&ingest);
	aw_encoder_fini(&enc);
	aw_model_destroy(model);
}
