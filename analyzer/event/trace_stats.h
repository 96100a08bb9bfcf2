/* SPDX-License-Identifier: MIT */
/* What the reader saw besides the events it handed over: kept by the model,
 * sent over the event stream (event_codec.h) by the reader's child. */
#ifndef AW_TRACE_STATS_H
#define AW_TRACE_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "event.h"

/* A run of discarded events in one stream of the trace. */
struct aw_stream_discards {
	char *stream; /* the stream's name or "stream <id>" */
	uint64_t events, messages;
};

/* A process that stopped recording after an event waited the stall bound
 * for buffer space (its note, left by the recorder in accwatch-run's trace
 * directory); -1: not told. */
struct aw_stall_note {
	int64_t pid, loader, iteration, batch, stall_ms;
	char event[32];
};

/* A process the session daemon did not take (register) within the stall
 * bound of its start: it ran on unrecorded until it was taken (its note,
 * left by the recorder beside the stall notes). */
struct aw_unregistered_note {
	int64_t pid, parent, waited_ms;
};

/* One run whose events a trace directory holds. */
struct aw_trace_run {
	char *dir; /* the trace directory, "" when unknown */
	uint32_t run;
};

_Static_assert(AW_EVENT_KIND_COUNT < 64,
	       "declared_kinds holds a bit per event kind: widen it");

/* What the reader saw besides the events it handed over. */
struct aw_trace_stats {
	uint64_t trace_dirs, streams, packets;
	uint64_t discarded_events; /* sum of known counts */
	/* Messages, with or without a count. */
	uint64_t discarded_events_messages;
	uint64_t discarded_packets;
	uint64_t events, foreign_events, unknown_accwatch_events;
	uint64_t by_kind[AW_EVENT_KIND_COUNT];
	/* Bit k: the trace's metadata declares event kind k (the recorder
	 * had it), whether or not any such event was recorded. */
	uint64_t declared_kinds;
	bool read_error; /* reading stopped before the end */
	char read_error_message[512];
	/* Per stream (per CPU with per-UID buffers, not per rank). */
	struct aw_stream_discards *discards;
	size_t n_discards, discards_cap;
	/* The runs of each trace directory, by first appearance: a directory
	 * with several holds unrelated programs (runs.h). */
	struct aw_trace_run *trace_runs;
	size_t n_trace_runs, trace_runs_cap;
	uint64_t other_run_events; /* of runs --run did not select */
	/* Processes that stopped recording (stall notes), by pid. */
	struct aw_stall_note *stalls;
	size_t n_stalls, stalls_cap;
	/* Processes that waited in vain for the session daemon, by pid. */
	struct aw_unregistered_note *unregistered;
	size_t n_unregistered, unregistered_cap;
};

#endif
