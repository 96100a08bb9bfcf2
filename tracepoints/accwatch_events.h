/* SPDX-License-Identifier: MIT */
/* Names, limits and argument structs of the `accwatch` trace events
 * (accwatch_catalogue.def), shared by the recorder (which fills them) and the
 * analyzer (which reads them). */
#ifndef ACCWATCH_EVENTS_H
#define ACCWATCH_EVENTS_H

#include <stdint.h>

#include "accwatch_catalogue.def"

#define ACCWATCH_PROVIDER "accwatch"
/* Environment variable carrying the run id that every event repeats. */
#define ACCWATCH_ENV_RUN "ACCWATCH_RUN"
/* Set to 1 to keep libaccwatch dormant even in a torch process. */
#define ACCWATCH_ENV_DISABLE "ACCWATCH_DISABLE"
/* Set to 1 for diagnostics of the preload on stderr. */
#define ACCWATCH_ENV_DEBUG "ACCWATCH_DEBUG"
/* The stall bound, in milliseconds, that accwatch-run gave its channel as
 * the blocking timeout: an event that waited that long for buffer space was
 * dropped (the consumer is stuck or gone), and the process stops recording.
 * Absent or 0: no bound is known (a session of one's own). */
#define ACCWATCH_ENV_STALL_MS "ACCWATCH_STALL_MS"
/* Where a process that stopped recording leaves its note: the trace
 * directory of accwatch-run. A note is one file, ACCWATCH_STALL_NOTE
 * followed by the pid, of one line (see accwatch_record_stall.c). */
#define ACCWATCH_ENV_STALL_DIR "ACCWATCH_STALL_DIR"
#define ACCWATCH_STALL_NOTE "accwatch-stalled."
/* The note, in the same directory, of a process the session daemon had not
 * taken (registered) within the stall bound of its start: it ran on, and
 * what it emitted until the daemon took it is not in the trace
 * (accwatch_record_register.c). */
#define ACCWATCH_UNREGISTERED_NOTE "accwatch-unregistered."
/* accwatch-run's note in its output directory when recording could not work
 * there (/dev/shm full or read-only...): the cause and its fix, one line. */
#define ACCWATCH_UNRECORDED_NOTE "accwatch-unrecorded"

/* A loader, iteration or batch number the recorder could not know. */
#define ACCWATCH_UNKNOWN UINT32_MAX
/* Indices per event at most; longer batches are split (offset/total). */
#define ACCWATCH_CHUNK_MAX 4096u
/* Bytes of a string field at most: a longer one is recorded cut (at a
 * character's boundary) and a string_cut event says so. With at most 8
 * strings an event, or ACCWATCH_CHUNK_MAX 64-bit indices, no event is
 * above 40 KiB: less than the smallest sub-buffer accwatch-run takes
 * (LTTng drops an event larger than a sub-buffer). */
#define ACCWATCH_STR_MAX 4096u

/* The kinds of field of the catalogue, for the recorder's keyword tables
 * and the analyzer's member tables alike. */
enum accwatch_kind {
	ACCWATCH_KIND_u8,
	ACCWATCH_KIND_i8,
	ACCWATCH_KIND_u32,
	ACCWATCH_KIND_i32,
	ACCWATCH_KIND_u64,
	ACCWATCH_KIND_i64,
	ACCWATCH_KIND_str,
};

/* Stores value, narrowed to kind, at `at`; nothing for str. */
static inline void accwatch_kind_store(void *at, enum accwatch_kind kind,
				       int64_t value)
{
	switch (kind) {
	case ACCWATCH_KIND_u8:
		*(uint8_t *)at = (uint8_t)value;
		break;
	case ACCWATCH_KIND_i8:
		*(int8_t *)at = (int8_t)value;
		break;
	case ACCWATCH_KIND_u32:
		*(uint32_t *)at = (uint32_t)value;
		break;
	case ACCWATCH_KIND_i32:
		*(int32_t *)at = (int32_t)value;
		break;
	case ACCWATCH_KIND_u64:
		*(uint64_t *)at = (uint64_t)value;
		break;
	case ACCWATCH_KIND_i64:
		*(int64_t *)at = value;
		break;
	case ACCWATCH_KIND_str:
		break;
	}
}

/* The integer of kind at `at`, widened (unsigned kinds zero-extended); 0
 * for str. */
static inline int64_t accwatch_kind_load(const void *at,
					 enum accwatch_kind kind)
{
	switch (kind) {
	case ACCWATCH_KIND_u8:
		return *(const uint8_t *)at;
	case ACCWATCH_KIND_i8:
		return *(const int8_t *)at;
	case ACCWATCH_KIND_u32:
		return *(const uint32_t *)at;
	case ACCWATCH_KIND_i32:
		return *(const int32_t *)at;
	case ACCWATCH_KIND_u64:
		return (int64_t) * (const uint64_t *)at;
	case ACCWATCH_KIND_i64:
		return *(const int64_t *)at;
	case ACCWATCH_KIND_str:
		break;
	}
	return 0;
}

/* The C type of each kind of field of the catalogue. */
#define ACCWATCH_CTYPE_u8 uint8_t
#define ACCWATCH_CTYPE_i8 int8_t
#define ACCWATCH_CTYPE_u32 uint32_t
#define ACCWATCH_CTYPE_i32 int32_t
#define ACCWATCH_CTYPE_u64 uint64_t
#define ACCWATCH_CTYPE_i64 int64_t
#define ACCWATCH_CTYPE_str const char *

/* The members every struct accwatch_<list>_info begins with. */
struct accwatch_info_head {
	uint32_t run;
	int32_t pid;
};

/* struct accwatch_<list>_info: what the recorder hands to the tracepoint of
 * an event of that field list (accwatch_tp.h), run and pid first; count is
 * the length of the event's sequence, if it has one. */
#define ACCWATCH_INFO_MEMBER(X, kind, name, absent) ACCWATCH_CTYPE_##kind name;
#define ACCWATCH_INFO_STRUCT(list)                                             \
	struct accwatch_##list##_info {                                        \
		uint32_t run;                                                  \
		int32_t pid;                                                   \
		ACCWATCH_FIELDS_##list(ACCWATCH_INFO_MEMBER,                   \
				       ~) uint32_t count;                      \
	};
ACCWATCH_FIELD_LISTS(ACCWATCH_INFO_STRUCT)

#endif
