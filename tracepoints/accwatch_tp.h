/* SPDX-License-Identifier: MIT */
/* The LTTng-UST provider `accwatch`, made from the catalogue
 * (accwatch_catalogue.def): one tracepoint per event, taking the event's
 * struct accwatch_<list>_info (and its sequence, if it has one). */

#undef LTTNG_UST_TRACEPOINT_PROVIDER
#define LTTNG_UST_TRACEPOINT_PROVIDER accwatch

#undef LTTNG_UST_TRACEPOINT_INCLUDE
#define LTTNG_UST_TRACEPOINT_INCLUDE "accwatch_tp.h"

#if !defined(ACCWATCH_TP_H) || defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)
#define ACCWATCH_TP_H

#include <lttng/tracepoint.h>
#include <stdint.h>

#include "accwatch_events.h"

/* LTTng-UST reads this header several times, each time with another meaning
 * of lttng_ust_field_*: the macros below only name them, so they are defined
 * once. */
#ifndef ACCWATCH_TP_MACROS
#define ACCWATCH_TP_MACROS

/* LTTng-UST's field lists are juxtaposed macro calls, not C expressions:
 * clang-format would indent each as the continuation of the one before. */
// clang-format off

#define ACCWATCH_TP_FIELD_u8(name) lttng_ust_field_integer(uint8_t, name, info->name)
#define ACCWATCH_TP_FIELD_i8(name) lttng_ust_field_integer(int8_t, name, info->name)
#define ACCWATCH_TP_FIELD_u32(name) lttng_ust_field_integer(uint32_t, name, info->name)
#define ACCWATCH_TP_FIELD_i32(name) lttng_ust_field_integer(int32_t, name, info->name)
#define ACCWATCH_TP_FIELD_u64(name) lttng_ust_field_integer(uint64_t, name, info->name)
#define ACCWATCH_TP_FIELD_i64(name) lttng_ust_field_integer(int64_t, name, info->name)
#define ACCWATCH_TP_FIELD_str(name) lttng_ust_field_string(name, info->name)
#define ACCWATCH_TP_FIELD(X, kind, name, absent) ACCWATCH_TP_FIELD_##kind(name)

/* Every event starts with the run id (accwatch-run filters on it, so parallel
 * sessions of one user do not see each other) and the emitting pid (per-UID
 * buffers mix processes; the trace must not depend on session contexts). */
#define ACCWATCH_TP_COMMON                                                     \
	lttng_ust_field_integer(uint32_t, run, info->run)                      \
	lttng_ust_field_integer(int32_t, pid, info->pid)

#define ACCWATCH_TP_EVENT_none(name, list)                                     \
	LTTNG_UST_TRACEPOINT_EVENT(accwatch, name,                             \
		LTTNG_UST_TP_ARGS(const struct accwatch_##list##_info *, info), \
		LTTNG_UST_TP_FIELDS(ACCWATCH_TP_COMMON                         \
			ACCWATCH_FIELDS_##list(ACCWATCH_TP_FIELD, ~)))

#define ACCWATCH_TP_EVENT_SEQUENCE(name, list, type, field)                    \
	LTTNG_UST_TRACEPOINT_EVENT(accwatch, name,                             \
		LTTNG_UST_TP_ARGS(const struct accwatch_##list##_info *, info, \
			const type *, field),                                  \
		LTTNG_UST_TP_FIELDS(ACCWATCH_TP_COMMON                         \
			ACCWATCH_FIELDS_##list(ACCWATCH_TP_FIELD, ~)           \
			lttng_ust_field_sequence(type, field, field, uint32_t, \
				info->count)))

/* An event with a sequence: its element type and name from the catalogue. */
#define ACCWATCH_TP_EVENT_SEQ(name, list, sequence)                            \
	ACCWATCH_TP_EVENT_SEQUENCE(name, list, ACCWATCH_SEQ_TYPE_##sequence,   \
				   ACCWATCH_SEQ_NAME_##sequence)
#define ACCWATCH_TP_EVENT_u32_indices(name, list)                              \
	ACCWATCH_TP_EVENT_SEQ(name, list, u32_indices)
#define ACCWATCH_TP_EVENT_i64_indices(name, list)                              \
	ACCWATCH_TP_EVENT_SEQ(name, list, i64_indices)
/* Packed indices: count (a field) indices in words 64-bit words. */
#define ACCWATCH_TP_EVENT_packed_indices(name, list)                           \
	LTTNG_UST_TRACEPOINT_EVENT(accwatch, name,                             \
		LTTNG_UST_TP_ARGS(const struct accwatch_##list##_info *, info, \
			const uint64_t *, packed, uint16_t, words),            \
		LTTNG_UST_TP_FIELDS(ACCWATCH_TP_COMMON                         \
			ACCWATCH_FIELDS_##list(ACCWATCH_TP_FIELD, ~)           \
			lttng_ust_field_sequence(uint64_t, packed, packed,     \
				uint16_t, words)))
/* A _bits event: the list's strings stay fields, its integers lead the
 * words (accwatch_packed.h). */
#define ACCWATCH_TP_STRING_u8(name)
#define ACCWATCH_TP_STRING_i8(name)
#define ACCWATCH_TP_STRING_u32(name)
#define ACCWATCH_TP_STRING_i32(name)
#define ACCWATCH_TP_STRING_u64(name)
#define ACCWATCH_TP_STRING_i64(name)
#define ACCWATCH_TP_STRING_str(name) ACCWATCH_TP_FIELD_str(name)
#define ACCWATCH_TP_STRING(X, kind, name, absent) ACCWATCH_TP_STRING_##kind(name)
#define ACCWATCH_TP_EVENT_bits_indices(name, list)                             \
	LTTNG_UST_TRACEPOINT_EVENT(accwatch, name,                             \
		LTTNG_UST_TP_ARGS(const struct accwatch_##list##_info *, info, \
			const uint64_t *, packed, uint16_t, words),            \
		LTTNG_UST_TP_FIELDS(ACCWATCH_TP_COMMON                         \
			ACCWATCH_FIELDS_##list(ACCWATCH_TP_STRING, ~)          \
			lttng_ust_field_sequence(uint64_t, packed, packed,     \
				uint16_t, words)))
#define ACCWATCH_TP_EVENT_u64_hashes(name, list)                               \
	ACCWATCH_TP_EVENT_SEQ(name, list, u64_hashes)

#define ACCWATCH_TP_EVENT(name, NAME, list, model, sequence)                   \
	ACCWATCH_TP_EVENT_##sequence(name, list)

// clang-format on
#endif /* ACCWATCH_TP_MACROS */

ACCWATCH_EVENTS(ACCWATCH_TP_EVENT)

#endif /* ACCWATCH_TP_H */

#include <lttng/tracepoint-event.h>
