/* babeltrace2 graph: one src.ctf.fs per trace directory -> flt.utils.muxer ->
 * a simple sink that converts events. Each event class is looked up once:
 * its accwatch kind and the member index of every field it carries. */
#include "reader.h"

#include <babeltrace2/babeltrace.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "accwatch_events.h"
#include "index_map.h"
#include "trace_dirs.h"
#include "util.h"

#define AW_PROVIDER_PREFIX ACCWATCH_PROVIDER ":"

/* Where a payload member lands in struct aw_event. */
enum aw_slot {
	AW_SLOT_U8,
	AW_SLOT_I8,
	AW_SLOT_U32,
	AW_SLOT_I32,
	AW_SLOT_U64,
	AW_SLOT_I64,
	AW_SLOT_STRING,
};

struct aw_member_spec {
	const char *name;
	size_t offset;
	enum aw_slot slot;
	int64_t absent; /* value when the trace lacks the member */
};

enum aw_array_kind {
	AW_ARRAY_NONE,
	AW_ARRAY_U32,
	AW_ARRAY_I64,
	AW_ARRAY_U64,
};

struct aw_event_spec {
	const char *name; /* without the provider */
	enum aw_event_kind kind;
	const struct aw_member_spec *members;
	size_t n_members;
	const char *array; /* the index or hash sequence, or NULL */
	enum aw_array_kind array_kind;
};

/* Every event carries run and pid. */
static const struct aw_member_spec aw_common_members[] = {
    {"run", offsetof(struct aw_event, run), AW_SLOT_U32, 0},
    {"pid", offsetof(struct aw_event, pid), AW_SLOT_I32, -1},
};
#define AW_N_COMMON 2

/* clang-format off */
#define AW_M(part, field, slot, absent) \
	{ #field, offsetof(struct aw_event, u.part.field), slot, absent }
/* clang-format on */
#define AW_UNKNOWN_U32 ((int64_t)ACCWATCH_UNKNOWN)

static const struct aw_member_spec aw_process_members[] = {
    AW_M(process, ppid, AW_SLOT_I32, -1),
    AW_M(process, rank, AW_SLOT_I32, -1),
    AW_M(process, local_rank, AW_SLOT_I32, -1),
    AW_M(process, world_size, AW_SLOT_I32, -1),
    AW_M(process, local_world_size, AW_SLOT_I32, -1),
    AW_M(process, rank_source, AW_SLOT_STRING, 0),
    AW_M(process, host, AW_SLOT_STRING, 0),
    AW_M(process, role, AW_SLOT_STRING, 0),
    AW_M(process, argv, AW_SLOT_STRING, 0),
    AW_M(process, python, AW_SLOT_STRING, 0),
    AW_M(process, torch, AW_SLOT_STRING, 0),
};

static const struct aw_member_spec aw_dist_init_members[] = {
    AW_M(dist_init, rank, AW_SLOT_I32, -1),
    AW_M(dist_init, world_size, AW_SLOT_I32, -1),
    AW_M(dist_init, backend, AW_SLOT_STRING, 0),
};

static const struct aw_member_spec aw_fork_members[] = {
    AW_M(fork, child_pid, AW_SLOT_I32, -1),
    AW_M(fork, threads, AW_SLOT_U32, 0),
    AW_M(fork, thread_names, AW_SLOT_STRING, 0),
    AW_M(fork, cuda_mapped, AW_SLOT_U8, 0),
    AW_M(fork, py_stack, AW_SLOT_STRING, 0),
    AW_M(fork, native_stack, AW_SLOT_STRING, 0),
};

static const struct aw_member_spec aw_exec_members[] = {
    AW_M(exec, path, AW_SLOT_STRING, 0),
};

static const struct aw_member_spec aw_exit_members[] = {
    AW_M(exit, exited_pid, AW_SLOT_I32, -1),
    AW_M(exit, status, AW_SLOT_I32, -1),
    AW_M(exit, signal, AW_SLOT_I32, -1),
};

static const struct aw_member_spec aw_loader_new_members[] = {
    AW_M(loader_new, loader, AW_SLOT_U32, AW_UNKNOWN_U32),
    AW_M(loader_new, dataset_id, AW_SLOT_U64, 0),
    AW_M(loader_new, dataset_type, AW_SLOT_STRING, 0),
    AW_M(loader_new, dataset_len, AW_SLOT_I64, -1),
    AW_M(loader_new, iterable, AW_SLOT_U8, 0),
    AW_M(loader_new, loader_class, AW_SLOT_STRING, 0),
    AW_M(loader_new, sampler_class, AW_SLOT_STRING, 0),
    AW_M(loader_new, batch_sampler_class, AW_SLOT_STRING, 0),
    AW_M(loader_new, batch_size, AW_SLOT_I64, -1),
    AW_M(loader_new, drop_last, AW_SLOT_I8, -1),
    AW_M(loader_new, shuffle, AW_SLOT_I8, -1),
    AW_M(loader_new, num_workers, AW_SLOT_I32, -1),
    AW_M(loader_new, persistent_workers, AW_SLOT_I8, -1),
    AW_M(loader_new, prefetch_factor, AW_SLOT_I32, -1),
    AW_M(loader_new, start_method, AW_SLOT_STRING, 0),
    AW_M(loader_new, sampler_replicas, AW_SLOT_I32, -1),
    AW_M(loader_new, sampler_rank, AW_SLOT_I32, -1),
    AW_M(loader_new, site, AW_SLOT_STRING, 0),
    AW_M(loader_new, stack, AW_SLOT_STRING, 0),
};

static const struct aw_member_spec aw_loader_wrap_members[] = {
    AW_M(loader_wrap, outer, AW_SLOT_U32, AW_UNKNOWN_U32),
    AW_M(loader_wrap, inner, AW_SLOT_U32, AW_UNKNOWN_U32),
    AW_M(loader_wrap, kind, AW_SLOT_STRING, 0),
    AW_M(loader_wrap, split_batches, AW_SLOT_I8, -1),
    AW_M(loader_wrap, even_batches, AW_SLOT_I8, -1),
    AW_M(loader_wrap, num_processes, AW_SLOT_I32, -1),
    AW_M(loader_wrap, process_index, AW_SLOT_I32, -1),
};

static const struct aw_member_spec aw_loader_len_members[] = {
    AW_M(loader_len, loader, AW_SLOT_U32, AW_UNKNOWN_U32),
    AW_M(loader_len, value, AW_SLOT_I64, -1),
    AW_M(loader_len, site, AW_SLOT_STRING, 0),
};

static const struct aw_member_spec aw_iter_begin_members[] = {
    AW_M(iter_begin, loader, AW_SLOT_U32, AW_UNKNOWN_U32),
    AW_M(iter_begin, iteration, AW_SLOT_U32, AW_UNKNOWN_U32),
    AW_M(iter_begin, sampler_epoch, AW_SLOT_I64, -1),
    AW_M(iter_begin, seed, AW_SLOT_I64, -1),
};

/* batch, batch_wide, worker_fetch(_wide), item_fetch. */
static const struct aw_member_spec aw_chunk_members[] = {
    AW_M(chunk, worker_id, AW_SLOT_I32, -1),
    AW_M(chunk, loader, AW_SLOT_U32, AW_UNKNOWN_U32),
    AW_M(chunk, iteration, AW_SLOT_U32, AW_UNKNOWN_U32),
    AW_M(chunk, batch, AW_SLOT_U32, AW_UNKNOWN_U32),
    AW_M(chunk, offset, AW_SLOT_U32, 0),
    AW_M(chunk, total, AW_SLOT_U32, 0),
};

static const struct aw_member_spec aw_iter_end_members[] = {
    AW_M(iter_end, loader, AW_SLOT_U32, AW_UNKNOWN_U32),
    AW_M(iter_end, iteration, AW_SLOT_U32, AW_UNKNOWN_U32),
    AW_M(iter_end, drawn, AW_SLOT_U32, 0),
    AW_M(iter_end, yielded, AW_SLOT_U32, 0),
    AW_M(iter_end, exhausted, AW_SLOT_U8, 0),
};

static const struct aw_member_spec aw_worker_start_members[] = {
    AW_M(worker_start, worker_id, AW_SLOT_I32, -1),
    AW_M(worker_start, num_workers, AW_SLOT_I32, -1),
    AW_M(worker_start, seed, AW_SLOT_U64, 0),
    AW_M(worker_start, loader, AW_SLOT_U32, AW_UNKNOWN_U32),
    AW_M(worker_start, iteration, AW_SLOT_U32, AW_UNKNOWN_U32),
};

#define AW_SPEC(name, kind, members, array, array_kind)                        \
	{                                                                      \
		name, kind, members, sizeof(members) / sizeof(members[0]),     \
		    array, array_kind                                          \
	}

static const struct aw_event_spec aw_event_specs[] = {
    AW_SPEC("process", AW_EVENT_PROCESS, aw_process_members, NULL,
	    AW_ARRAY_NONE),
    AW_SPEC("dist_init", AW_EVENT_DIST_INIT, aw_dist_init_members, NULL,
	    AW_ARRAY_NONE),
    AW_SPEC("fork", AW_EVENT_FORK, aw_fork_members, NULL, AW_ARRAY_NONE),
    AW_SPEC("exec", AW_EVENT_EXEC, aw_exec_members, NULL, AW_ARRAY_NONE),
    AW_SPEC("exit", AW_EVENT_EXIT, aw_exit_members, NULL, AW_ARRAY_NONE),
    AW_SPEC("loader_new", AW_EVENT_LOADER_NEW, aw_loader_new_members, NULL,
	    AW_ARRAY_NONE),
    AW_SPEC("loader_wrap", AW_EVENT_LOADER_WRAP, aw_loader_wrap_members, NULL,
	    AW_ARRAY_NONE),
    AW_SPEC("loader_len", AW_EVENT_LOADER_LEN, aw_loader_len_members, NULL,
	    AW_ARRAY_NONE),
    AW_SPEC("iter_begin", AW_EVENT_ITER_BEGIN, aw_iter_begin_members, NULL,
	    AW_ARRAY_NONE),
    AW_SPEC("batch", AW_EVENT_BATCH, aw_chunk_members, "indices", AW_ARRAY_U32),
    AW_SPEC("batch_wide", AW_EVENT_BATCH_WIDE, aw_chunk_members, "indices",
	    AW_ARRAY_I64),
    AW_SPEC("iter_end", AW_EVENT_ITER_END, aw_iter_end_members, NULL,
	    AW_ARRAY_NONE),
    AW_SPEC("worker_start", AW_EVENT_WORKER_START, aw_worker_start_members,
	    NULL, AW_ARRAY_NONE),
    AW_SPEC("worker_fetch", AW_EVENT_WORKER_FETCH, aw_chunk_members, "indices",
	    AW_ARRAY_U32),
    AW_SPEC("worker_fetch_wide", AW_EVENT_WORKER_FETCH_WIDE, aw_chunk_members,
	    "indices", AW_ARRAY_I64),
    AW_SPEC("item_fetch", AW_EVENT_ITEM_FETCH, aw_chunk_members, "hashes",
	    AW_ARRAY_U64),
};

#define AW_MAX_MEMBERS 32

/* How to read one member of one event class. */
struct aw_member_read {
	const struct aw_member_spec *spec;
	uint64_t index; /* in the payload structure */
	enum { AW_READ_UNSIGNED, AW_READ_SIGNED, AW_READ_STRING } how;
};

/* One event class of one trace, resolved on its first event. */
struct aw_class_entry {
	/* NULL: not an accwatch event we know. */
	const struct aw_event_spec *spec;
	bool accwatch; /* the provider is accwatch */
	struct aw_member_read reads[AW_MAX_MEMBERS];
	size_t n_reads;
	bool has_array;
	uint64_t array_index;
	bool array_signed;
	struct aw_event template; /* kind and absent values preset */
};

struct aw_reader {
	struct aw_model *model;
	struct aw_index_map class_index; /* event class pointer -> entry */
	struct aw_class_entry *classes;
	size_t n_classes, classes_cap;
	/* Host (trace `hostname`) of each stream, numbered: the event's source.
	 */
	struct aw_index_map stream_source;
	const bt_stream *last_stream;
	uint32_t last_source;
	char **hosts;
	size_t n_hosts, hosts_cap;
	/* Index sequences of the current event: reused, never freed per event.
	 */
	uint32_t *u32;
	int64_t *i64;
	uint64_t *u64;
	size_t u32_cap, i64_cap, u64_cap;
};

static void aw_slot_store(struct aw_event *event,
			  const struct aw_member_spec *spec, int64_t value)
{
	char *at = (char *)event + spec->offset;
	switch (spec->slot) {
	case AW_SLOT_U8:
		*(uint8_t *)at = (uint8_t)value;
		break;
	case AW_SLOT_I8:
		*(int8_t *)at = (int8_t)value;
		break;
	case AW_SLOT_U32:
		*(uint32_t *)at = (uint32_t)value;
		break;
	case AW_SLOT_I32:
		*(int32_t *)at = (int32_t)value;
		break;
	case AW_SLOT_U64:
		*(uint64_t *)at = (uint64_t)value;
		break;
	case AW_SLOT_I64:
		*(int64_t *)at = value;
		break;
	case AW_SLOT_STRING:
		*(const char **)at = "";
		break;
	}
}

static const struct aw_event_spec *aw_spec_by_name(const char *name)
{
	for (size_t i = 0;
	     i < sizeof(aw_event_specs) / sizeof(aw_event_specs[0]); i++)
		if (strcmp(aw_event_specs[i].name, name) == 0)
			return &aw_event_specs[i];
	return NULL;
}

/* The payload member called name, if its type suits what we read. */
static bool aw_find_member(const bt_field_class *payload, const char *name,
			   uint64_t *index, bt_field_class_type *type)
{
	if (!payload ||
	    !bt_field_class_type_is(bt_field_class_get_type(payload),
				    BT_FIELD_CLASS_TYPE_STRUCTURE))
		return false;
	uint64_t n = bt_field_class_structure_get_member_count(payload);
	for (uint64_t i = 0; i < n; i++) {
		const bt_field_class_structure_member *member =
		    bt_field_class_structure_borrow_member_by_index_const(
			payload, i);
		if (strcmp(bt_field_class_structure_member_get_name(member),
			   name) == 0) {
			*index = i;
			*type = bt_field_class_get_type(
			    bt_field_class_structure_member_borrow_field_class_const(
				member));
			return true;
		}
	}
	return false;
}

static void aw_resolve_member(struct aw_class_entry *entry,
			      const bt_field_class *payload,
			      const struct aw_member_spec *spec)
{
	aw_slot_store(&entry->template, spec, spec->absent);
	uint64_t index;
	bt_field_class_type type;
	if (!aw_find_member(payload, spec->name, &index, &type) ||
	    entry->n_reads == AW_MAX_MEMBERS)
		return;
	struct aw_member_read *read = &entry->reads[entry->n_reads];
	read->spec = spec;
	read->index = index;
	if (spec->slot == AW_SLOT_STRING &&
	    bt_field_class_type_is(type, BT_FIELD_CLASS_TYPE_STRING))
		read->how = AW_READ_STRING;
	else if (spec->slot != AW_SLOT_STRING &&
		 bt_field_class_type_is(type,
					BT_FIELD_CLASS_TYPE_SIGNED_INTEGER))
		read->how = AW_READ_SIGNED;
	else if (spec->slot != AW_SLOT_STRING &&
		 bt_field_class_type_is(type,
					BT_FIELD_CLASS_TYPE_UNSIGNED_INTEGER))
		read->how = AW_READ_UNSIGNED;
	else
		return; /* a type we do not expect: the field counts as absent
			 */
	entry->n_reads++;
}

static void aw_resolve_array(struct aw_class_entry *entry,
			     const bt_field_class *payload)
{
	uint64_t index;
	bt_field_class_type type;
	if (!entry->spec->array ||
	    !aw_find_member(payload, entry->spec->array, &index, &type) ||
	    !bt_field_class_type_is(type, BT_FIELD_CLASS_TYPE_ARRAY))
		return;
	const bt_field_class_structure_member *member =
	    bt_field_class_structure_borrow_member_by_index_const(payload,
								  index);
	const bt_field_class *element =
	    bt_field_class_array_borrow_element_field_class_const(
		bt_field_class_structure_member_borrow_field_class_const(
		    member));
	bt_field_class_type element_type = bt_field_class_get_type(element);
	if (!bt_field_class_type_is(element_type, BT_FIELD_CLASS_TYPE_INTEGER))
		return;
	entry->has_array = true;
	entry->array_index = index;
	entry->array_signed = bt_field_class_type_is(
	    element_type, BT_FIELD_CLASS_TYPE_SIGNED_INTEGER);
}

static struct aw_class_entry *aw_reader_class(struct aw_reader *reader,
					      const bt_event_class *event_class)
{
	uint64_t key = (uint64_t)(uintptr_t)event_class;
	uint32_t index = aw_index_map_get(&reader->class_index, key);
	if (index != AW_NONE)
		return &reader->classes[index];

	AW_GROW(reader->classes, reader->classes_cap, reader->n_classes + 1);
	index = (uint32_t)reader->n_classes++;
	struct aw_class_entry *entry = &reader->classes[index];
	memset(entry, 0, sizeof(*entry));
	aw_index_map_put(&reader->class_index, key, index);

	const char *name = bt_event_class_get_name(event_class);
	if (!name ||
	    strncmp(name, AW_PROVIDER_PREFIX, strlen(AW_PROVIDER_PREFIX)) != 0)
		return entry;
	entry->accwatch = true;
	entry->spec = aw_spec_by_name(name + strlen(AW_PROVIDER_PREFIX));
	if (!entry->spec)
		return entry; /* a newer recorder's event: counted, not read */

	entry->template.kind = entry->spec->kind;
	const bt_field_class *payload =
	    bt_event_class_borrow_payload_field_class_const(event_class);
	for (size_t i = 0; i < AW_N_COMMON; i++)
		aw_resolve_member(entry, payload, &aw_common_members[i]);
	for (size_t i = 0; i < entry->spec->n_members; i++)
		aw_resolve_member(entry, payload, &entry->spec->members[i]);
	aw_resolve_array(entry, payload);
	return entry;
}

static void aw_reader_read_array(struct aw_reader *reader,
				 const struct aw_class_entry *entry,
				 const bt_field *payload,
				 struct aw_event *event)
{
	const bt_field *array =
	    bt_field_structure_borrow_member_field_by_index_const(
		payload, entry->array_index);
	uint64_t length = bt_field_array_get_length(array);
	if (length > UINT32_MAX)
		length = UINT32_MAX;
	event->count = (uint32_t)length;
	switch (entry->spec->array_kind) {
	case AW_ARRAY_U32:
		AW_GROW(reader->u32, reader->u32_cap, length);
		for (uint64_t i = 0; i < length; i++) {
			const bt_field *e =
			    bt_field_array_borrow_element_field_by_index_const(
				array, i);
			reader->u32[i] =
			    entry->array_signed
				? (uint32_t)bt_field_integer_signed_get_value(e)
				: (uint32_t)bt_field_integer_unsigned_get_value(
				      e);
		}
		event->values.u32 = reader->u32;
		break;
	case AW_ARRAY_I64:
		AW_GROW(reader->i64, reader->i64_cap, length);
		for (uint64_t i = 0; i < length; i++) {
			const bt_field *e =
			    bt_field_array_borrow_element_field_by_index_const(
				array, i);
			reader->i64[i] =
			    entry->array_signed
				? bt_field_integer_signed_get_value(e)
				: (int64_t)bt_field_integer_unsigned_get_value(
				      e);
		}
		event->values.i64 = reader->i64;
		break;
	case AW_ARRAY_U64:
		AW_GROW(reader->u64, reader->u64_cap, length);
		for (uint64_t i = 0; i < length; i++) {
			const bt_field *e =
			    bt_field_array_borrow_element_field_by_index_const(
				array, i);
			reader->u64[i] =
			    entry->array_signed
				? (uint64_t)bt_field_integer_signed_get_value(e)
				: bt_field_integer_unsigned_get_value(e);
		}
		event->values.u64 = reader->u64;
		break;
	case AW_ARRAY_NONE:
		event->count = 0;
		break;
	}
}

static uint32_t aw_reader_host(struct aw_reader *reader, const char *host)
{
	for (size_t i = 0; i < reader->n_hosts; i++)
		if (strcmp(reader->hosts[i], host) == 0)
			return (uint32_t)i;
	AW_GROW(reader->hosts, reader->hosts_cap, reader->n_hosts + 1);
	reader->hosts[reader->n_hosts] = aw_xstrdup(host);
	return (uint32_t)reader->n_hosts++;
}

/* The event's source: its trace's host, numbered in order of appearance. */
static uint32_t aw_reader_source(struct aw_reader *reader,
				 const bt_event *event)
{
	const bt_stream *stream = bt_event_borrow_stream_const(event);
	if (stream == reader->last_stream)
		return reader->last_source;
	uint64_t key = (uint64_t)(uintptr_t)stream;
	uint32_t source = aw_index_map_get(&reader->stream_source, key);
	if (source == AW_NONE) {
		const bt_value *hostname =
		    bt_trace_borrow_environment_entry_value_by_name_const(
			bt_stream_borrow_trace_const(stream), "hostname");
		const char *host = hostname && bt_value_is_string(hostname)
				       ? bt_value_string_get(hostname)
				       : "";
		source = aw_reader_host(reader, host);
		aw_index_map_put(&reader->stream_source, key, source);
	}
	reader->last_stream = stream;
	reader->last_source = source;
	return source;
}

static void aw_reader_on_event(struct aw_reader *reader,
			       const bt_message *message)
{
	const bt_event *bt_event = bt_message_event_borrow_event_const(message);
	struct aw_trace_stats *stats = &reader->model->stats;
	stats->events++;
	const struct aw_class_entry *entry =
	    aw_reader_class(reader, bt_event_borrow_class_const(bt_event));
	if (!entry->spec) {
		if (entry->accwatch)
			stats->unknown_accwatch_events++;
		else
			stats->foreign_events++;
		return;
	}

	struct aw_event event = entry->template;
	event.source = aw_reader_source(reader, bt_event);
	const bt_field *payload = bt_event_borrow_payload_field_const(bt_event);
	if (!payload)
		return;
	for (size_t i = 0; i < entry->n_reads; i++) {
		const struct aw_member_read *read = &entry->reads[i];
		const bt_field *field =
		    bt_field_structure_borrow_member_field_by_index_const(
			payload, read->index);
		switch (read->how) {
		case AW_READ_UNSIGNED:
			aw_slot_store(
			    &event, read->spec,
			    (int64_t)bt_field_integer_unsigned_get_value(
				field));
			break;
		case AW_READ_SIGNED:
			aw_slot_store(&event, read->spec,
				      bt_field_integer_signed_get_value(field));
			break;
		case AW_READ_STRING:
			*(const char **)((char *)&event + read->spec->offset) =
			    bt_field_string_get_value(field);
			break;
		}
	}
	if (entry->has_array)
		aw_reader_read_array(reader, entry, payload, &event);
	aw_model_add_event(reader->model, &event);
}

static void aw_reader_on_message(struct aw_reader *reader,
				 const bt_message *message)
{
	struct aw_trace_stats *stats = &reader->model->stats;
	uint64_t count;
	switch (bt_message_get_type(message)) {
	case BT_MESSAGE_TYPE_EVENT:
		aw_reader_on_event(reader, message);
		break;
	case BT_MESSAGE_TYPE_DISCARDED_EVENTS:
		stats->discarded_events_messages++;
		if (bt_message_discarded_events_get_count(message, &count) ==
		    BT_PROPERTY_AVAILABILITY_AVAILABLE)
			stats->discarded_events += count;
		break;
	case BT_MESSAGE_TYPE_DISCARDED_PACKETS:
		if (bt_message_discarded_packets_get_count(message, &count) ==
		    BT_PROPERTY_AVAILABILITY_AVAILABLE)
			stats->discarded_packets += count;
		else
			stats->discarded_packets++;
		break;
	case BT_MESSAGE_TYPE_PACKET_BEGINNING:
		stats->packets++;
		break;
	case BT_MESSAGE_TYPE_STREAM_BEGINNING:
		stats->streams++;
		break;
	default:
		break;
	}
}

static bt_graph_simple_sink_component_consume_func_status
aw_reader_consume(bt_message_iterator *iterator, void *data)
{
	struct aw_reader *reader = data;
	bt_message_array_const messages;
	uint64_t count;
	switch (bt_message_iterator_next(iterator, &messages, &count)) {
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_OK:
		break;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_END:
		return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_END;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_AGAIN:
		return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_AGAIN;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_MEMORY_ERROR:
		return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_MEMORY_ERROR;
	default:
		return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_ERROR;
	}
	for (uint64_t i = 0; i < count; i++) {
		aw_reader_on_message(reader, messages[i]);
		bt_message_put_ref(messages[i]);
	}
	return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_OK;
}

/* babeltrace2's error as one line: its root cause (the first, deepest one),
 * which names the file or the packet. *dir is set to the trace directory when
 * the failing actor is one of our sources ("src-N"). */
static void aw_take_bt_error(const struct aw_trace_dirs *dirs, char *out,
			     size_t size, const char **dir)
{
	*dir = NULL;
	const bt_error *error = bt_current_thread_take_error();
	if (!error) {
		snprintf(out, size, "babeltrace2 gave no reason");
		return;
	}
	uint64_t n = bt_error_get_cause_count(error);
	snprintf(out, size, "%s",
		 n ? bt_error_cause_get_message(
			 bt_error_borrow_cause_by_index(error, 0))
		   : "?");
	for (uint64_t i = 0; i < n && !*dir; i++) {
		const bt_error_cause *cause =
		    bt_error_borrow_cause_by_index(error, i);
		unsigned long which;
		if (bt_error_cause_get_actor_type(cause) ==
			BT_ERROR_CAUSE_ACTOR_TYPE_COMPONENT &&
		    sscanf(bt_error_cause_component_actor_get_component_name(
			       cause),
			   "src-%lu", &which) == 1 &&
		    which < dirs->n)
			*dir = dirs->dirs[which];
	}
	for (char *c = out; *c; c++)
		if (*c == '\n')
			*c = ' ';
	size_t len = strlen(out);
	while (len && (out[len - 1] == '.' || out[len - 1] == ' '))
		out[--len] = '\0';
	bt_error_release(error);
}

static bt_logging_level aw_log_level(void)
{
	const char *debug = getenv(ACCWATCH_ENV_DEBUG);
	return debug && *debug && strcmp(debug, "0") != 0
		   ? BT_LOGGING_LEVEL_WARNING
		   : BT_LOGGING_LEVEL_NONE;
}

/* Adds one src.ctf.fs per trace directory and connects its ports. */
static bool aw_add_sources(bt_graph *graph, const bt_plugin *ctf,
			   const bt_component_filter *muxer,
			   const struct aw_trace_dirs *dirs, char *error,
			   size_t error_size)
{
	const bt_component_class_source *fs =
	    bt_plugin_borrow_source_component_class_by_name_const(ctf, "fs");
	if (!fs) {
		snprintf(error, error_size,
			 "babeltrace2's ctf plugin has no `fs` source: check "
			 "the babeltrace2 install");
		return false;
	}
	for (size_t i = 0; i < dirs->n; i++) {
		char reason[512];
		if (aw_metadata_check(dirs->dirs[i], reason, sizeof(reason)) !=
		    AW_METADATA_OK) {
			snprintf(error, error_size,
				 "cannot read the trace in %s: %s; the trace "
				 "is damaged, or was copied while being "
				 "written (stop the LTTng session first)",
				 dirs->dirs[i], reason);
			return false;
		}
		bt_value *params = bt_value_map_create();
		bt_value *inputs = NULL;
		const bt_component_source *source = NULL;
		char name[32];
		snprintf(name, sizeof(name), "src-%zu", i);
		bool ok = params &&
			  bt_value_map_insert_empty_array_entry(
			      params, "inputs", &inputs) ==
			      BT_VALUE_MAP_INSERT_ENTRY_STATUS_OK &&
			  bt_value_array_append_string_element(inputs,
							       dirs->dirs[i]) ==
			      BT_VALUE_ARRAY_APPEND_ELEMENT_STATUS_OK;
		if (ok)
			ok = bt_graph_add_source_component(
				 graph, fs, name, params, aw_log_level(),
				 &source) == BT_GRAPH_ADD_COMPONENT_STATUS_OK;
		bt_value_put_ref(params);
		if (!ok) {
			const char *dir;
			aw_take_bt_error(dirs, reason, sizeof(reason), &dir);
			snprintf(error, error_size,
				 "cannot read the trace in %s: %s; it may be "
				 "corrupt or still being written (stop the "
				 "LTTng session first; `babeltrace2 %s` shows "
				 "the details)",
				 dirs->dirs[i], reason, dirs->dirs[i]);
			return false;
		}
		uint64_t ports =
		    bt_component_source_get_output_port_count(source);
		for (uint64_t p = 0; p < ports; p++) {
			const bt_port_output *out =
			    bt_component_source_borrow_output_port_by_index_const(
				source, p);
			/* The muxer always has one free input port: its last.
			 */
			const bt_port_input *in =
			    bt_component_filter_borrow_input_port_by_index_const(
				muxer, bt_component_filter_get_input_port_count(
					   muxer) -
					   1);
			if (bt_graph_connect_ports(graph, out, in, NULL) !=
			    BT_GRAPH_CONNECT_PORTS_STATUS_OK) {
				char reason[512];
				const char *dir;
				aw_take_bt_error(dirs, reason, sizeof(reason),
						 &dir);
				snprintf(error, error_size,
					 "cannot read the trace in %s: %s",
					 dirs->dirs[i], reason);
				return false;
			}
		}
	}
	return true;
}

static enum aw_reader_status aw_run_graph(struct aw_reader *reader,
					  const struct aw_trace_dirs *dirs,
					  char *error, size_t error_size)
{
	enum aw_reader_status status = AW_READER_ERROR;
	const bt_plugin *ctf = NULL, *utils = NULL;
	bt_graph *graph = NULL;
	const bt_component_filter *muxer = NULL;
	const bt_component_sink *sink = NULL;

	if (bt_plugin_find("ctf", BT_TRUE, BT_TRUE, BT_TRUE, BT_TRUE, BT_FALSE,
			   &ctf) != BT_PLUGIN_FIND_STATUS_OK ||
	    bt_plugin_find("utils", BT_TRUE, BT_TRUE, BT_TRUE, BT_TRUE,
			   BT_FALSE, &utils) != BT_PLUGIN_FIND_STATUS_OK) {
		bt_current_thread_clear_error();
		snprintf(error, error_size,
			 "babeltrace2's ctf and utils plugins were not found: "
			 "install babeltrace2 "
			 "(Debian: babeltrace2) or set BABELTRACE_PLUGIN_PATH");
		goto end;
	}
	graph = bt_graph_create(0);
	if (!graph) {
		snprintf(
		    error, error_size,
		    "babeltrace2 could not create a graph (out of memory?)");
		goto end;
	}
	const bt_component_class_filter *muxer_class =
	    bt_plugin_borrow_filter_component_class_by_name_const(utils,
								  "muxer");
	if (!muxer_class ||
	    bt_graph_add_filter_component(graph, muxer_class, "muxer", NULL,
					  aw_log_level(), &muxer) !=
		BT_GRAPH_ADD_COMPONENT_STATUS_OK ||
	    bt_graph_add_simple_sink_component(
		graph, "accwatch", NULL, aw_reader_consume, NULL, reader,
		&sink) != BT_GRAPH_ADD_COMPONENT_STATUS_OK) {
		char reason[512];
		const char *dir;
		aw_take_bt_error(dirs, reason, sizeof(reason), &dir);
		snprintf(error, error_size,
			 "babeltrace2 could not build its graph: %s", reason);
		goto end;
	}
	if (!aw_add_sources(graph, ctf, muxer, dirs, error, error_size))
		goto end;
	if (bt_graph_connect_ports(
		graph,
		bt_component_filter_borrow_output_port_by_index_const(muxer, 0),
		bt_component_sink_borrow_input_port_by_index_const(sink, 0),
		NULL) != BT_GRAPH_CONNECT_PORTS_STATUS_OK) {
		char reason[512];
		const char *dir;
		aw_take_bt_error(dirs, reason, sizeof(reason), &dir);
		snprintf(error, error_size,
			 "babeltrace2 could not build its graph: %s", reason);
		goto end;
	}

	for (;;) {
		bt_graph_run_status run = bt_graph_run(graph);
		if (run == BT_GRAPH_RUN_STATUS_OK)
			break;
		if (run == BT_GRAPH_RUN_STATUS_AGAIN) {
			nanosleep(&(struct timespec){.tv_nsec = 1000000}, NULL);
			continue;
		}
		/* A corrupt or truncated part: what came before it stands. */
		struct aw_trace_stats *stats = &reader->model->stats;
		char reason[384];
		const char *dir;
		aw_take_bt_error(dirs, reason, sizeof(reason), &dir);
		stats->read_error = true;
		snprintf(stats->read_error_message,
			 sizeof(stats->read_error_message), "%s%s%s",
			 dir ? dir : "", dir ? ": " : "", reason);
		if (aw_model_accwatch_events(reader->model) == 0) {
			snprintf(error, error_size,
				 "cannot read the trace in %s: %s; it may be "
				 "corrupt or still being written (stop the "
				 "LTTng session first; `babeltrace2 DIR` shows "
				 "the details)",
				 dir ? dir : "the given paths", reason);
			goto end;
		}
		break;
	}
	status = AW_READER_OK;
end:
	bt_graph_put_ref(graph);
	bt_plugin_put_ref(ctf);
	bt_plugin_put_ref(utils);
	return status;
}

enum aw_reader_status aw_reader_read(const char *const *paths, size_t n_paths,
				     struct aw_model *model, char *error,
				     size_t error_size)
{
	enum aw_reader_status status = AW_READER_NO_TRACE;
	struct aw_trace_dirs dirs;
	struct aw_reader reader = {.model = model};
	aw_trace_dirs_init(&dirs);
	aw_index_map_init(&reader.class_index);
	aw_index_map_init(&reader.stream_source);

	for (size_t i = 0; i < n_paths; i++)
		if (aw_trace_dirs_find(&dirs, paths[i], error, error_size) !=
		    AW_TRACE_DIRS_OK)
			goto end;
	model->stats.trace_dirs = dirs.n;

	status = aw_run_graph(&reader, &dirs, error, error_size);
	if (status != AW_READER_OK)
		goto end;
	if (aw_model_accwatch_events(model) == 0) {
		status = AW_READER_NO_EVENTS;
		if (n_paths == 1)
			snprintf(error, error_size,
				 "no accwatch events in %s: was it recorded "
				 "with accwatch-run?",
				 paths[0]);
		else
			snprintf(error, error_size,
				 "no accwatch events in %s and the %zu other "
				 "paths: were they recorded "
				 "with accwatch-run?",
				 paths[0], n_paths - 1);
	}
end:
	free(reader.classes);
	free(reader.u32);
	free(reader.i64);
	free(reader.u64);
	aw_index_map_fini(&reader.class_index);
	aw_index_map_fini(&reader.stream_source);
	for (size_t i = 0; i < reader.n_hosts; i++)
		free(reader.hosts[i]);
	free(reader.hosts);
	aw_trace_dirs_fini(&dirs);
	return status;
}
