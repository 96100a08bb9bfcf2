/* SPDX-License-Identifier: MIT */
/* The accwatch trace events as plain structs: the reader turns each babeltrace2
 * event into one of these, unit tests build them by hand, the model eats them.
 */
#ifndef AW_EVENT_H
#define AW_EVENT_H

#include <stdint.h>

#include "accwatch_events.h"

/* One kind per event of the catalogue (tracepoints/accwatch_catalogue.def), in
 * its order: AW_EVENT_PROCESS, AW_EVENT_BATCH, ... */
#define AW_EVENT_KIND(name, NAME, list, model, sequence) AW_EVENT_##NAME,
enum aw_event_kind { ACCWATCH_EVENTS(AW_EVENT_KIND) AW_EVENT_KIND_COUNT };

/* The event's name without the provider ("batch"); NULL if out of range. */
const char *aw_event_kind_name(enum aw_event_kind kind);

/* struct aw_event_<model>: the members of a model of the catalogue, the
 * fields of its list. Strings are borrowed for the duration of the call
 * that receives the event; a field absent from the trace holds its
 * catalogue's absent value ("" for strings). The five chunk events (batch,
 * batch_wide, worker_fetch, worker_fetch_wide, item_fetch) share struct
 * aw_event_chunk: one chunk [offset, offset + count) of a sequence `total`
 * long; worker_id is -1 for batch events, which lack it. */
#define AW_EVENT_MEMBER(X, kind, name, absent) ACCWATCH_CTYPE_##kind name;
#define AW_EVENT_STRUCT(model)                                                 \
	struct aw_event_##model {                                              \
		ACCWATCH_FIELDS_##model(AW_EVENT_MEMBER, ~)                    \
	};
ACCWATCH_MODELS(AW_EVENT_STRUCT)

#define AW_EVENT_UNION_MEMBER(model) struct aw_event_##model model;

struct aw_event {
	enum aw_event_kind kind;
	/* Whose pid namespace `pid` is in: the reader numbers the hosts of the
	 * traces (their `hostname`), so equal pids of two nodes stay apart.
	 * 0 when there is one host or it is unknown. */
	uint32_t source;
	uint32_t run;
	int32_t pid;
	union {
		ACCWATCH_MODELS(AW_EVENT_UNION_MEMBER)
	} u;
	/* The integer sequence of the chunk events: u32 for batch and
	 * worker_fetch, i64 for the _wide ones, u64 (hashes) for item_fetch. */
	union {
		const uint32_t *u32;
		const int64_t *i64;
		const uint64_t *u64;
	} values;
	uint32_t count;
};

#endif
