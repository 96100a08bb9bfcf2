/* SPDX-License-Identifier: MIT */
/* The accwatch events' member tables (the catalogue,
 * tracepoints/accwatch_catalogue.def, as struct aw_event sees it) and the
 * accessors that store and load members by slot. */
#include "event_fields.h"

#include <string.h>

#include "accwatch_events.h"

/* Every event carries run and pid. */
const struct aw_member_spec aw_common_members[AW_N_COMMON_MEMBERS] = {
    {"run", offsetof(struct aw_event, run), ACCWATCH_KIND_u32, 0},
    {"pid", offsetof(struct aw_event, pid), ACCWATCH_KIND_i32, -1},
};

/* aw_<model>_members: the catalogue's field list of each model. */
/* clang-format off */
#define AW_MEMBER_SPEC(model, kind, name, absent)                              \
	{#name, offsetof(struct aw_event, u.model.name), ACCWATCH_KIND_##kind,    \
	 (int64_t)(absent)},
#define AW_MODEL_MEMBERS(model)                                                \
	static const struct aw_member_spec aw_##model##_members[] = {          \
	    ACCWATCH_FIELDS_##model(AW_MEMBER_SPEC, model)};
/* clang-format on */
ACCWATCH_MODELS(AW_MODEL_MEMBERS)

/* The sequence of an event: its field's name and element type. */
#define AW_STRING(token) AW_STRING_OF(token)
#define AW_STRING_OF(token) #token
#define AW_SEQUENCE_none NULL, AW_ARRAY_NONE
#define AW_SEQUENCE_u32_indices                                                \
	AW_STRING(ACCWATCH_SEQ_NAME_u32_indices), AW_ARRAY_U32
#define AW_SEQUENCE_i64_indices                                                \
	AW_STRING(ACCWATCH_SEQ_NAME_i64_indices), AW_ARRAY_I64
#define AW_SEQUENCE_packed_indices                                             \
	AW_STRING(ACCWATCH_SEQ_NAME_packed_indices), AW_ARRAY_PACKED
#define AW_SEQUENCE_bits_indices                                               \
	AW_STRING(ACCWATCH_SEQ_NAME_bits_indices), AW_ARRAY_PACKED
#define AW_SEQUENCE_u64_hashes                                                 \
	AW_STRING(ACCWATCH_SEQ_NAME_u64_hashes), AW_ARRAY_U64

/* clang-format off */
#define AW_EVENT_SPEC(name, NAME, list, model, sequence)                       \
	[AW_EVENT_##NAME] = {#name, AW_EVENT_##NAME, aw_##model##_members,     \
			     sizeof(aw_##model##_members) /                    \
				 sizeof(aw_##model##_members[0]),              \
			     AW_SEQUENCE_##sequence},
/* clang-format on */
static const struct aw_event_spec aw_event_specs[AW_EVENT_KIND_COUNT] = {
    ACCWATCH_EVENTS(AW_EVENT_SPEC)};

const char *aw_event_kind_name(enum aw_event_kind kind)
{
	const struct aw_event_spec *spec = aw_event_spec_by_kind(kind);

	return spec ? spec->name : NULL;
}

const struct aw_event_spec *aw_event_spec_by_kind(enum aw_event_kind kind)
{
	if ((unsigned)kind >= AW_EVENT_KIND_COUNT || !aw_event_specs[kind].name)
		return NULL;
	return &aw_event_specs[kind];
}

const struct aw_event_spec *aw_event_spec_by_name(const char *name)
{
	for (size_t i = 0; i < AW_EVENT_KIND_COUNT; i++)
		if (aw_event_specs[i].name &&
		    strcmp(aw_event_specs[i].name, name) == 0)
			return &aw_event_specs[i];
	return NULL;
}

void aw_slot_store(struct aw_event *event, const struct aw_member_spec *spec,
		   int64_t value)
{
	char *at = (char *)event + spec->offset;
	if (spec->slot == ACCWATCH_KIND_str)
		*(const char **)at = "";
	else
		accwatch_kind_store(at, spec->slot, value);
}

int64_t aw_slot_load(const struct aw_event *event,
		     const struct aw_member_spec *spec)
{
	return accwatch_kind_load((const char *)event + spec->offset,
				  spec->slot);
}

const char *aw_slot_string(const struct aw_event *event,
			   const struct aw_member_spec *spec)
{
	const char *value =
	    *(const char *const *)((const char *)event + spec->offset);
	return value ? value : "";
}

void aw_slot_set_string(struct aw_event *event,
			const struct aw_member_spec *spec, const char *value)
{
	*(const char **)((char *)event + spec->offset) = value;
}

void aw_event_init_absent(struct aw_event *event, enum aw_event_kind kind)
{
	memset(event, 0, sizeof(*event));
	event->kind = kind;
	const struct aw_event_spec *spec = aw_event_spec_by_kind(kind);
	for (size_t i = 0; i < AW_N_COMMON_MEMBERS; i++)
		aw_slot_store(event, &aw_common_members[i],
			      aw_common_members[i].absent);
	for (size_t i = 0; spec && i < spec->n_members; i++)
		aw_slot_store(event, &spec->members[i],
			      spec->members[i].absent);
}
