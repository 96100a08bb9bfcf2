/* SPDX-License-Identifier: MIT */
/* The event stream between the reader's babeltrace2 process and the
 * analyzer: every member of every kind survives the trip, a record cut
 * anywhere asks for more bytes, nonsense is refused, strings come out as
 * clean UTF-8, and the intake applies counts, discards, the clock, the
 * declared kinds, the runs of each trace and the end, and merges the records
 * of several readers in time order. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "event_codec.h"
#include "event_fields.h"
#include "ingest.h"
#include "model.h"

/* Every member of kind set to a value derived from its position, strings
 * to "<name>=<position>", the sequence (if any) to values at the edges. */
static void fill(struct aw_event *e, enum aw_event_kind kind, char *strings,
		 uint32_t *u32, int64_t *i64, uint64_t *u64)
{
	const struct aw_event_spec *spec = aw_event_spec_by_kind(kind);
	aw_event_init_absent(e, kind);
	e->source = 7;
	e->run = 4000000000u;
	e->pid = -123;
	for (size_t i = 0; i < spec->n_members; i++) {
		const struct aw_member_spec *m = &spec->members[i];
		if (m->slot == ACCWATCH_KIND_str) {
			char *s = strings + i * 64;
			snprintf(s, 64, "%s=%zu \xc3\xa9", m->name, i);
			aw_slot_set_string(e, m, s);
		} else {
			/* Negative for signed slots, large for unsigned. */
			aw_slot_store(e, m, (int64_t)i * -1000003 - 1);
		}
	}
	static const uint32_t u32_values[] = {0, 1, 127, 128, UINT32_MAX};
	static const int64_t i64_values[] = {0, -1, INT64_MIN, INT64_MAX, 1};
	static const uint64_t u64_values[] = {0, UINT64_MAX, 1ull << 63, 5, 6};
	memcpy(u32, u32_values, sizeof(u32_values));
	memcpy(i64, i64_values, sizeof(i64_values));
	memcpy(u64, u64_values, sizeof(u64_values));
	switch (spec->array_kind) {
	case AW_ARRAY_U32:
		e->values.u32 = u32;
		e->count = 5;
		break;
	case AW_ARRAY_I64:
		e->values.i64 = i64;
		e->count = 5;
		break;
	case AW_ARRAY_U64:
	case AW_ARRAY_PACKED: /* words, as the record carries them */
		e->values.u64 = u64;
		e->count = 5;
		break;
	case AW_ARRAY_NONE:
		break;
	}
}

static void expect_same(const struct aw_event *a, const struct aw_event *b)
{
	const struct aw_event_spec *spec = aw_event_spec_by_kind(a->kind);
	cr_assert_eq(b->kind, a->kind);
	cr_expect_eq(b->source, a->source);
	cr_expect_eq(b->run, a->run);
	cr_expect_eq(b->pid, a->pid);
	for (size_t i = 0; i < spec->n_members; i++) {
		const struct aw_member_spec *m = &spec->members[i];
		if (m->slot == ACCWATCH_KIND_str)
			cr_expect_str_eq(aw_slot_string(b, m),
					 aw_slot_string(a, m), "%s.%s",
					 spec->name, m->name);
		else
			cr_expect_eq(aw_slot_load(b, m), aw_slot_load(a, m),
				     "%s.%s", spec->name, m->name);
	}
	cr_assert_eq(b->count, a->count, "%s", spec->name);
	for (uint32_t i = 0; i < a->count; i++) {
		switch (spec->array_kind) {
		case AW_ARRAY_U32:
			cr_expect_eq(b->values.u32[i], a->values.u32[i]);
			break;
		case AW_ARRAY_I64:
			cr_expect_eq(b->values.i64[i], a->values.i64[i]);
			break;
		case AW_ARRAY_U64:
		case AW_ARRAY_PACKED:
			cr_expect_eq(b->values.u64[i], a->values.u64[i]);
			break;
		case AW_ARRAY_NONE:
			break;
		}
	}
}

Test(event_codec, every_kind_round_trips_and_cuts_ask_for_more)
{
	for (int k = 0; k < AW_EVENT_KIND_COUNT; k++) {
		if (!aw_event_spec_by_kind((enum aw_event_kind)k))
			continue;
		char strings[32 * 64];
		uint32_t u32[5];
		int64_t i64[5];
		uint64_t u64[5];
		struct aw_event e;
		fill(&e, (enum aw_event_kind)k, strings, u32, i64, u64);
		struct aw_encoder enc;
		struct aw_decoder dec;
		struct aw_record r;
		size_t used = 0;
		aw_encoder_init(&enc);
		aw_decoder_init(&dec);
		aw_encode_event(&enc, &e);
		cr_assert_eq(
		    aw_decode_record(&dec, enc.data, enc.len, &used, &r),
		    AW_DECODE_OK);
		cr_expect_eq(used, enc.len);
		cr_assert_eq(r.type, AW_RECORD_TYPE_EVENT);
		expect_same(&e, &r.event);
		for (size_t cut = 0; cut < enc.len; cut++)
			cr_expect_eq(
			    aw_decode_record(&dec, enc.data, cut, &used, &r),
			    AW_DECODE_SHORT, "kind %d cut at %zu", k, cut);
		aw_decoder_fini(&dec);
		aw_encoder_fini(&enc);
	}
}

Test(event_codec, kinds_keep_their_tags)
{
	/* A kind is the tag of its records: the seeds and regressions of
	 * tests/fuzz were recorded with these, so new kinds go last. */
	cr_expect_eq(AW_EVENT_PROCESS, 0);
	cr_expect_eq(AW_EVENT_BATCH, 9);
	cr_expect_eq(AW_EVENT_WORKER_FETCH, 13);
	cr_expect_eq(AW_EVENT_ITEM_FETCH, 15);
	cr_expect_eq(AW_EVENT_WORKER_FETCH_END, 16);
	cr_expect_str_eq(aw_event_kind_name(AW_EVENT_WORKER_FETCH_END),
			 "worker_fetch_end");
	cr_expect_eq(aw_event_spec_by_name("worker_fetch_end")->kind,
		     AW_EVENT_WORKER_FETCH_END);
}

Test(event_codec, reader_records_round_trip)
{
	struct aw_encoder enc;
	struct aw_decoder dec;
	struct aw_record r;
	size_t used, at = 0;
	struct aw_read_counts counts = {1, 2, 3, 4, 5, 6, 7, UINT64_MAX};
	aw_encoder_init(&enc);
	aw_decoder_init(&dec);
	aw_encode_counts(&enc, &counts);
	aw_encode_phase(&enc, AW_PHASE_OPENING, 3);
	aw_encode_end(&enc, AW_READ_END_STOPPED, AW_RECORD_NO_DIR,
		      "bad packet");
	aw_encode_discards(&enc, "/t/ust/uid/0/64-bit/accwatch_1", 42, true);
	aw_encode_clock(&enc, 1700000000123456789);
	aw_encode_declared(&enc, 1u << AW_EVENT_WORKER_FETCH_END |
				     1u << AW_EVENT_PROCESS);
	aw_encode_trace_run(&enc, 2, UINT32_MAX);

	cr_assert_eq(aw_decode_record(&dec, enc.data, enc.len, &used, &r),
		     AW_DECODE_OK);
	cr_assert_eq(r.type, AW_RECORD_TYPE_STATS);
	cr_expect(memcmp(&r.counts, &counts, sizeof(counts)) == 0);
	at += used;
	cr_assert_eq(
	    aw_decode_record(&dec, enc.data + at, enc.len - at, &used, &r),
	    AW_DECODE_OK);
	cr_expect(r.type == AW_RECORD_TYPE_PHASE &&
		  r.phase == AW_PHASE_OPENING && r.dir == 3);
	at += used;
	cr_assert_eq(
	    aw_decode_record(&dec, enc.data + at, enc.len - at, &used, &r),
	    AW_DECODE_OK);
	cr_expect(r.type == AW_RECORD_TYPE_END &&
		  r.end == AW_READ_END_STOPPED && r.dir == AW_RECORD_NO_DIR);
	cr_expect_str_eq(r.message, "bad packet");
	at += used;
	cr_assert_eq(
	    aw_decode_record(&dec, enc.data + at, enc.len - at, &used, &r),
	    AW_DECODE_OK);
	cr_expect(r.type == AW_RECORD_TYPE_DISCARDS && r.discarded == 42 &&
		  r.count_known);
	cr_expect_str_eq(r.stream, "/t/ust/uid/0/64-bit/accwatch_1");
	at += used;
	cr_assert_eq(
	    aw_decode_record(&dec, enc.data + at, enc.len - at, &used, &r),
	    AW_DECODE_OK);
	cr_expect(r.type == AW_RECORD_TYPE_CLOCK &&
		  r.clock_ns == 1700000000123456789);
	at += used;
	cr_assert_eq(
	    aw_decode_record(&dec, enc.data + at, enc.len - at, &used, &r),
	    AW_DECODE_OK);
	cr_expect(r.type == AW_RECORD_TYPE_DECLARED &&
		  r.declared == (1u << AW_EVENT_WORKER_FETCH_END |
				 1u << AW_EVENT_PROCESS));
	at += used;
	cr_assert_eq(
	    aw_decode_record(&dec, enc.data + at, enc.len - at, &used, &r),
	    AW_DECODE_OK);
	cr_expect(r.type == AW_RECORD_TYPE_TRACE_RUN && r.dir == 2 &&
		  r.run == UINT32_MAX);
	cr_expect_eq(at + used, enc.len);
	aw_decoder_fini(&dec);
	aw_encoder_fini(&enc);
}

Test(event_codec, nonsense_is_refused)
{
	struct aw_decoder dec;
	struct aw_record r;
	size_t used;
	aw_decoder_init(&dec);
	/* An unknown tag. */
	const unsigned char tag[] = {0x7f, 0, 0};
	cr_expect_eq(aw_decode_record(&dec, tag, sizeof(tag), &used, &r),
		     AW_DECODE_MALFORMED);
	/* A varint of eleven bytes. */
	unsigned char varint[16] = {AW_RECORD_PHASE};
	memset(varint + 1, 0xff, 10);
	varint[11] = 0x01;
	cr_expect_eq(aw_decode_record(&dec, varint, 12, &used, &r),
		     AW_DECODE_MALFORMED);
	/* A phase that does not exist. */
	const unsigned char phase[] = {AW_RECORD_PHASE, 9, 0};
	cr_expect_eq(aw_decode_record(&dec, phase, sizeof(phase), &used, &r),
		     AW_DECODE_MALFORMED);
	/* A run that does not fit 32 bits. */
	const unsigned char run[] = {
	    AW_RECORD_TRACE_RUN, 0, 0x80, 0x80, 0x80, 0x80, 0x10};
	cr_expect_eq(aw_decode_record(&dec, run, sizeof(run), &used, &r),
		     AW_DECODE_MALFORMED);
	/* A declared kind that does not exist (bit 40). */
	const unsigned char kinds[] = {
	    AW_RECORD_DECLARED, 0x80, 0x80, 0x80, 0x80, 0x80, 0x20};
	_Static_assert(AW_EVENT_KIND_COUNT <= 40, "pick a bit past the kinds");
	cr_expect_eq(aw_decode_record(&dec, kinds, sizeof(kinds), &used, &r),
		     AW_DECODE_MALFORMED);
	/* A sequence claiming 2^32 elements. */
	const unsigned char seq[] = {9, 0,    0,    0,    0,    0,    0, 0, 0,
				     0, 0x80, 0x80, 0x80, 0x80, 0x10, 1, 2};
	cr_expect_eq(aw_decode_record(&dec, seq, sizeof(seq), &used, &r),
		     AW_DECODE_MALFORMED);
	aw_decoder_fini(&dec);
}

Test(event_codec, strings_become_clean_utf8)
{
	struct aw_encoder enc;
	struct aw_decoder dec;
	struct aw_record r;
	size_t used;
	aw_encoder_init(&enc);
	aw_decoder_init(&dec);
	/* Overlong, surrogate, lone continuation, cut sequence, escape and
	 * NUL; tab, newline and real characters stay. */
	const char dirty[] = "a\xc0\xaf|\xed\xa0\x80|\x80|\x1b[2J|\t\n|"
			     "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80|\xe2\x82";
	aw_encode_end(&enc, AW_READ_END_OK, 0, dirty);
	/* A NUL inside, which an encoded length can carry. */
	enc.data[enc.len - 3] = '\0';
	cr_assert_eq(aw_decode_record(&dec, enc.data, enc.len, &used, &r),
		     AW_DECODE_OK);
	cr_expect_str_eq(r.message,
			 "a??|???|?|?[2J|\t\n|"
			 "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80?\?\?");
	aw_decoder_fini(&dec);
	aw_encoder_fini(&enc);
}

Test(ingest, counts_discards_and_a_stop)
{
	struct aw_model *m = aw_model_create();
	struct aw_ingest in;
	struct aw_encoder enc;
	struct aw_event e;
	size_t used;
	uint32_t indices[] = {1, 2, 3};
	aw_encoder_init(&enc);
	aw_event_init_absent(&e, AW_EVENT_BATCH);
	e.pid = 10;
	e.u.chunk.loader = e.u.chunk.iteration = e.u.chunk.batch = 0;
	e.u.chunk.total = 3;
	e.values.u32 = indices;
	e.count = 3;
	aw_encode_event(&enc, &e);
	aw_encode_discards(&enc, "s0", 5, true);
	aw_encode_discards(&enc, "s0", 0, false);
	aw_encode_discards(&enc, "s1", 7, true);
	struct aw_read_counts counts = {.events = 1, .discarded_events = 12};
	aw_encode_counts(&enc, &counts);
	aw_encode_clock(&enc, 5000000000);
	aw_encode_declared(&enc, 1u << AW_EVENT_WORKER_FETCH_END);
	aw_encode_clock(&enc, 4000000000); /* a skewed clock going back */
	aw_encode_trace_run(&enc, 0, 4343);
	aw_encode_trace_run(&enc, AW_RECORD_NO_DIR, 4344);
	aw_encode_end(&enc, AW_READ_END_STOPPED, 0, "a corrupt packet");

	cr_expect_eq(m->clock_ns, -1, "no clock before a clock record");
	cr_expect(!aw_model_knows_fetch_ends(m));
	aw_ingest_init(&in, m, NULL);
	/* Fed byte by byte: records cut anywhere wait for their rest. */
	size_t fed = 0, taken = 0;
	while (fed < enc.len) {
		fed++;
		cr_assert_eq(
		    aw_ingest_feed(&in, enc.data + taken, fed - taken, &used),
		    AW_INGEST_OK);
		taken += used;
	}
	cr_expect_eq(taken, enc.len);
	cr_expect_eq(m->stats.by_kind[AW_EVENT_BATCH], 1);
	cr_expect_eq(m->stats.discarded_events, 12);
	cr_assert_eq(m->stats.n_discards, 2);
	cr_expect_str_eq(m->stats.discards[0].stream, "s0");
	cr_expect_eq(m->stats.discards[0].events, 5);
	cr_expect_eq(m->stats.discards[0].messages, 2);
	cr_expect_eq(m->stats.discards[1].events, 7);
	cr_expect(in.ended && in.end == AW_READ_END_STOPPED);
	cr_expect(m->stats.read_error);
	cr_expect(strstr(m->stats.read_error_message, "a corrupt packet"));
	cr_expect_eq(m->clock_ns, 5000000000);
	cr_expect(aw_model_knows_fetch_ends(m));
	cr_assert_eq(m->stats.n_trace_runs, 2);
	cr_expect_eq(m->stats.trace_runs[0].run, 4343);
	cr_expect_str_eq(m->stats.trace_runs[1].dir, "", "no directory known");

	const unsigned char junk[] = {0x99};
	cr_expect_eq(aw_ingest_feed(&in, junk, 1, &used), AW_INGEST_MALFORMED);
	aw_ingest_fini(&in);
	aw_encoder_fini(&enc);
	aw_model_destroy(m);
}

/* One lane's units: a clock and a batch event of pid at each time. */
static void lane_units(struct aw_encoder *enc, uint32_t source,
		       const int32_t *pids, const int64_t *times, size_t n)
{
	static uint32_t indices[] = {1, 2, 3};
	for (size_t i = 0; i < n; i++) {
		struct aw_event e;
		aw_event_init_absent(&e, AW_EVENT_BATCH);
		e.source = source;
		e.pid = pids[i];
		e.u.chunk.loader = e.u.chunk.iteration = e.u.chunk.batch = 0;
		e.u.chunk.total = 3;
		e.values.u32 = indices;
		e.count = 3;
		aw_encode_clock(enc, times[i]);
		aw_encode_event(enc, &e);
	}
}

Test(ingest, lanes_merge_in_time_order_and_sum_their_counts)
{
	struct aw_model *m = aw_model_create();
	struct aw_ingest in;
	struct aw_encoder enc[2];
	struct aw_read_counts counts[2] = {{.streams = 1, .events = 1},
					   {.streams = 2, .events = 2}};
	const int32_t pids[2][2] = {{30, 0}, {10, 20}};
	const int64_t times[2][2] = {{30000000, 0}, {10000000, 20000000}};
	/* Each lane numbers its host 0: the analyzer numbers them in the
	 * order of their first events. */
	for (int l = 0; l < 2; l++) {
		aw_encoder_init(&enc[l]);
		aw_encode_host(&enc[l], 0, l == 0 ? "late" : "early");
		lane_units(&enc[l], 0, pids[l], times[l], l == 0 ? 1 : 2);
		aw_encode_counts(&enc[l], &counts[l]);
		aw_encode_progress(&enc[l], 4);
		aw_encode_end(&enc[l], AW_READ_END_OK, AW_RECORD_NO_DIR, "");
	}
	aw_ingest_init(&in, m, NULL);
	aw_ingest_set_lanes(&in, 2);
	size_t at[2] = {0, 0}, used;
	for (int l = 0; l < 2; l++) {
		cr_assert_eq(aw_ingest_lane_feed(&in, (size_t)l, enc[l].data,
						 enc[l].len, &used),
			     AW_INGEST_OK);
		at[l] = used;
		cr_assert(in.lanes[l].has_unit, "a unit waits in lane %d", l);
	}
	/* Taken earliest first, each lane fed on after its unit. */
	for (;;) {
		int best = -1;
		for (int l = 0; l < 2; l++)
			if (in.lanes[l].has_unit &&
			    (best < 0 ||
			     in.lanes[l].unit_ns < in.lanes[best].unit_ns))
				best = l;
		if (best < 0)
			break;
		aw_ingest_lane_take(&in, (size_t)best);
		cr_assert_eq(aw_ingest_lane_feed(
				 &in, (size_t)best, enc[best].data + at[best],
				 enc[best].len - at[best], &used),
			     AW_INGEST_OK);
		at[best] += used;
	}
	cr_expect_eq(at[0], enc[0].len);
	cr_expect_eq(at[1], enc[1].len);
	cr_assert_eq(m->n_processes, 3);
	cr_expect_eq(m->processes[0].pid, 10);
	cr_expect_eq(m->processes[1].pid, 20);
	cr_expect_eq(m->processes[2].pid, 30);
	cr_expect_eq(m->processes[0].source, 0, "host early numbered first");
	cr_expect_eq(m->processes[2].source, 1);
	cr_expect_eq(m->processes[2].first_ns, 30000000);
	cr_expect_eq(m->stats.streams, 3, "counts summed over the lanes");
	cr_expect_eq(m->stats.events, 3);
	cr_expect_eq(in.decoded_packets, 8);
	cr_expect(in.ended && in.end == AW_READ_END_OK);
	aw_ingest_fini(&in);
	for (int l = 0; l < 2; l++)
		aw_encoder_fini(&enc[l]);
	aw_model_destroy(m);
}
