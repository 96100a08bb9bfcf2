/* SPDX-License-Identifier: MIT */
/* The members of every accwatch event: which payload field of the trace fills
 * which member of struct aw_event. The reader resolves fields by these names;
 * the event codec writes and reads the members in this order. */
#ifndef AW_EVENT_FIELDS_H
#define AW_EVENT_FIELDS_H

#include <stddef.h>
#include <stdint.h>

#include "event.h"

struct aw_member_spec {
	const char *name;
	size_t offset;           /* in struct aw_event */
	enum accwatch_kind slot; /* how it is stored in struct aw_event */
	int64_t absent;          /* value when the trace lacks the member */
};

/* The integer sequence of a chunk event, and its element type. */
enum aw_array_kind {
	AW_ARRAY_NONE,
	AW_ARRAY_U32,
	AW_ARRAY_I64,
	AW_ARRAY_U64,
	AW_ARRAY_PACKED, /* 64-bit words of packed indices: accwatch_packed.h */
};

struct aw_event_spec {
	const char *name; /* without the provider */
	enum aw_event_kind kind;
	const struct aw_member_spec *members;
	size_t n_members;
	const char *array; /* the index or hash sequence, or NULL */
	enum aw_array_kind array_kind;
};

/* run and pid, which every event carries before its own members. */
#define AW_N_COMMON_MEMBERS 2
extern const struct aw_member_spec aw_common_members[AW_N_COMMON_MEMBERS];

/* NULL when kind is out of range. */
const struct aw_event_spec *aw_event_spec_by_kind(enum aw_event_kind kind);
/* name without the provider ("batch"); NULL when unknown. */
const struct aw_event_spec *aw_event_spec_by_name(const char *name);

/* An event of this kind with every member at its `absent` value. */
void aw_event_init_absent(struct aw_event *event, enum aw_event_kind kind);

/* Stores an integer member, narrowed to its slot; a string member becomes "".
 */
void aw_slot_store(struct aw_event *event, const struct aw_member_spec *spec,
		   int64_t value);
/* An integer member, widened (unsigned slots zero-extended). */
int64_t aw_slot_load(const struct aw_event *event,
		     const struct aw_member_spec *spec);
/* A string member (never NULL: "" for a NULL pointer). */
const char *aw_slot_string(const struct aw_event *event,
			   const struct aw_member_spec *spec);
void aw_slot_set_string(struct aw_event *event,
			const struct aw_member_spec *spec, const char *value);

#endif
