/* SPDX-License-Identifier: MIT */
/* The analyzer's intake: decodes the event stream (event_codec.h) and hands
 * its events and counts to the model. The reader feeds it what its child
 * process writes; the fuzz harness feeds it arbitrary bytes. */
#ifndef AW_INGEST_H
#define AW_INGEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "event_codec.h"
#include "model.h"
#include "trace_dirs.h"

/* Records of one of several readers (reader_bt.h's parts): its events come
 * as units, a clock record and the event, taken in time order over the
 * lanes (reader.c); its counts and progress are summed with the others'. */
struct aw_ingest_lane {
	struct aw_decoder decoder;
	bool has_unit; /* a unit was decoded and waits to be taken */
	int64_t unit_ns;
	struct aw_event unit; /* borrows from decoder */
	struct aw_read_counts counts;
	uint64_t packets;
	bool ended;
	/* The lane's source numbers: their hosts (NULL: not told) and the
	 * analyzer's number (AW_NONE until the first event). */
	char **hosts;
	uint32_t *global;
	size_t n_sources, hosts_cap;
};

/* Clock records are taken when the clock moved this far (reader_bt.c's
 * resolution). */
#define AW_INGEST_CLOCK_NS 1000000

struct aw_ingest {
	struct aw_model *model;
	const struct aw_trace_dirs *dirs; /* names the traces; may be NULL */
	struct aw_decoder decoder;
	/* The last phase record: where the reader was. */
	bool phase_seen;
	enum aw_reader_phase phase;
	uint32_t phase_dir;
	/* The end record, once it came. */
	bool ended;
	enum aw_read_end end;
	uint32_t end_dir;
	char message[1024];
	/* Packets begun, as the last progress record said. */
	uint64_t decoded_packets;
	/* A _packed event's indices, unpacked: reused, never freed per event.
	 */
	int64_t *i64;
	uint32_t *u32;
	/* Lanes (aw_ingest_set_lanes), the hosts numbered over them, and the
	 * clock last taken from them. */
	struct aw_ingest_lane *lanes;
	size_t n_lanes;
	char **hosts;
	size_t n_hosts, hosts_cap;
	bool lane_failed; /* a lane's end was not OK: it is the end kept */
	bool clock_taken;
	int64_t clock_ns;
};

enum aw_ingest_status {
	AW_INGEST_OK,
	AW_INGEST_MALFORMED, /* bytes that are no record: stop feeding */
};

void aw_ingest_init(struct aw_ingest *ingest, struct aw_model *model,
		    const struct aw_trace_dirs *dirs);
void aw_ingest_fini(struct aw_ingest *ingest);
/* Takes every complete record at the start of data; *used says how many
 * bytes they were (an incomplete record at the end is left for the next
 * call, with more bytes). An end record that says reading stopped marks
 * the model's stats (read_error). */
enum aw_ingest_status aw_ingest_feed(struct aw_ingest *ingest,
				     const unsigned char *data, size_t size,
				     size_t *used);
/* Makes n lanes, fed by the two calls below instead of aw_ingest_feed. */
void aw_ingest_set_lanes(struct aw_ingest *ingest, size_t n);

/* Takes lane index's records at the start of data up to its next unit
 * (then lanes[index].has_unit, the unit's bytes counted in *used), or to
 * the end of the complete records. */
enum aw_ingest_status aw_ingest_lane_feed(struct aw_ingest *ingest,
					  size_t index,
					  const unsigned char *data,
					  size_t size, size_t *used);

/* Hands lane index's unit to the model. */
void aw_ingest_lane_take(struct aw_ingest *ingest, size_t index);

/* The trace directory called dir, or NULL. */
const char *aw_ingest_dir_name(const struct aw_ingest *ingest, uint32_t dir);

#endif
