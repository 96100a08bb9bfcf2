/* SPDX-License-Identifier: MIT */
/* The babeltrace2 side of the reader, run in a child process: one src.ctf.fs
 * per trace directory -> flt.utils.muxer -> a simple sink that turns each
 * accwatch event into a struct aw_event and writes it as a record. */
#include "accwatch_common.h"
#include "reader_bt.h"

#include <babeltrace2/babeltrace.h>
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "accwatch_events.h"
#include "event_codec.h"
#include "event_fields.h"
#include "index_map.h"
#include "util.h"

#define AW_PROVIDER_PREFIX ACCWATCH_PROVIDER ":"
/* Records are written in batches of about this size ... */
#define AW_FLUSH_BYTES (256u * 1024u)
/* ... or after this many seconds, checked every so many messages. */
#define AW_FLUSH_SECONDS 1
#define AW_CLOCK_CHECK_MESSAGES 4096u

/* A live source with nothing new is asked again after this long (the relay
 * daemon gets new data once per live timer period, 100 ms from
 * accwatch-run). */
#define AW_LIVE_RETRY_NS 20000000

#define AW_MAX_MEMBERS 32
/* Clock records are sent when the trace clock moved this far: durations
 * in findings need no more, and a busy trace gets at most 1000 a second. */
#define AW_CLOCK_RESOLUTION_NS 1000000

/* How to read one member of one event class: absent when the payload
 * lacks it or has it of a type we do not expect. */
struct aw_member_read {
	const struct aw_member_spec *spec;
	uint64_t index; /* in the payload structure */
	enum {
		AW_READ_ABSENT,
		AW_READ_UNSIGNED,
		AW_READ_SIGNED,
		AW_READ_STRING
	} how;
};

/* One event class of one trace, resolved on its first event. */
struct aw_class_entry {
	/* NULL: not an accwatch event we know. */
	const struct aw_event_spec *spec;
	bool accwatch; /* the provider is accwatch */
	/* Every member in the codec's order (aw_common_members, then the
	 * spec's): the record is written as the payload is read. */
	struct aw_member_read reads[AW_MAX_MEMBERS];
	size_t n_reads;
	bool has_array;
	uint64_t array_index;
	bool array_signed;
};

struct aw_bt_reader {
	/* Records go to fd through enc, flushed when enc grows past
	 * AW_FLUSH_BYTES or AW_FLUSH_SECONDS passed (the parent's watchdog
	 * takes silence for a hang). */
	int fd;
	bool write_failed;
	struct aw_encoder enc;
	struct timespec last_flush;
	uint32_t since_clock_check;
	struct aw_read_counts counts;
	/* Packets begun as the last progress record said. */
	uint64_t packets_sent;
	const struct aw_trace_dirs *dirs;
	struct aw_reader_part part;
	struct aw_index_map class_index; /* event class pointer -> entry */
	struct aw_class_entry *classes;
	size_t n_classes, classes_cap;
	/* Host (trace `hostname`) of each stream, numbered: the event's source.
	 */
	struct aw_index_map stream_source;
	const bt_stream *last_stream;
	uint32_t last_source, last_dir;
	/* The trace directory of each stream (src.ctf.fs names a stream by
	 * its file's path), told apart by the directories' real paths. */
	struct aw_index_map stream_dir;
	char **real_dirs;
	/* (directory, run) pairs already sent, the last one cached. */
	struct aw_index_map dir_runs;
	bool run_sent;
	uint32_t run_dir, run;
	/* Stream classes whose declared accwatch events were sent. */
	struct aw_index_map declared_classes;
	/* aw_reader_clean's copy of a string with control characters. */
	char *scratch;
	size_t scratch_cap;
	/* The clock last sent, once one was. */
	bool clock_sent;
	int64_t clock_ns;
	char **hosts;
	size_t n_hosts, hosts_cap;
};

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
	uint64_t index;
	bt_field_class_type type;
	if (entry->n_reads == AW_MAX_MEMBERS)
		return;
	struct aw_member_read *read = &entry->reads[entry->n_reads++];
	read->spec = spec;
	read->how = AW_READ_ABSENT;
	if (!aw_find_member(payload, spec->name, &index, &type))
		return;
	read->index = index;
	if (spec->slot == ACCWATCH_KIND_str &&
	    bt_field_class_type_is(type, BT_FIELD_CLASS_TYPE_STRING))
		read->how = AW_READ_STRING;
	else if (spec->slot != ACCWATCH_KIND_str &&
		 bt_field_class_type_is(type,
					BT_FIELD_CLASS_TYPE_SIGNED_INTEGER))
		read->how = AW_READ_SIGNED;
	else if (spec->slot != ACCWATCH_KIND_str &&
		 bt_field_class_type_is(type,
					BT_FIELD_CLASS_TYPE_UNSIGNED_INTEGER))
		read->how = AW_READ_UNSIGNED;
	/* else a type we do not expect: the field counts as absent */
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

static struct aw_class_entry *aw_reader_class(struct aw_bt_reader *reader,
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
	entry->spec = aw_event_spec_by_name(name + strlen(AW_PROVIDER_PREFIX));
	if (!entry->spec)
		return entry; /* a newer recorder's event: counted, not read */
	if (AW_N_COMMON_MEMBERS + entry->spec->n_members > AW_MAX_MEMBERS) {
		entry->spec = NULL; /* more members than a record here holds */
		return entry;
	}

	const bt_field_class *payload =
	    bt_event_class_borrow_payload_field_class_const(event_class);
	for (size_t i = 0; i < AW_N_COMMON_MEMBERS; i++)
		aw_resolve_member(entry, payload, &aw_common_members[i]);
	for (size_t i = 0; i < entry->spec->n_members; i++)
		aw_resolve_member(entry, payload, &entry->spec->members[i]);
	aw_resolve_array(entry, payload);
	return entry;
}

/* Element i of an integer array as its 64 bits, signed or not: each array
 * kind keeps the width it stores. */
static uint64_t aw_array_element_bits(const bt_field *array, uint64_t i,
				      bool is_signed)
{
	const bt_field *e =
	    bt_field_array_borrow_element_field_by_index_const(array, i);
	return is_signed ? (uint64_t)bt_field_integer_signed_get_value(e)
			 : bt_field_integer_unsigned_get_value(e);
}

/* The event's sequence, its count and elements, straight from the
 * payload into the record (none: a count of 0). */
static void aw_reader_put_array(struct aw_bt_reader *reader,
				const struct aw_class_entry *entry,
				const bt_field *payload)
{
	enum aw_array_kind kind = entry->spec->array_kind;
	if (kind == AW_ARRAY_NONE)
		return;
	if (!entry->has_array) {
		aw_encode_elements_begin(&reader->enc, 0);
		return;
	}
	const bt_field *array =
	    bt_field_structure_borrow_member_field_by_index_const(
		payload, entry->array_index);
	uint64_t length = bt_field_array_get_length(array);
	if (length > UINT32_MAX)
		length = UINT32_MAX;
	aw_encode_elements_begin(&reader->enc, (uint32_t)length);
	if (kind == AW_ARRAY_PACKED && !entry->array_signed) {
		/* The bulk of a trace: two calls and a store a word, through a
		 * local pointer (the calls could not move the encoder's). */
		unsigned char *out = reader->enc.data + reader->enc.len;
		for (uint64_t i = 0; i < length; i++) {
			uint64_t word = bt_field_integer_unsigned_get_value(
			    bt_field_array_borrow_element_field_by_index_const(
				array, i));
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
			word = __builtin_bswap64(word);
#endif
			memcpy(out + 8 * i, &word, 8);
		}
		reader->enc.len += (size_t)length * 8;
		return;
	}
	for (uint64_t i = 0; i < length; i++)
		aw_encode_element(
		    &reader->enc, kind,
		    aw_array_element_bits(array, i, entry->array_signed));
}

static uint32_t aw_reader_host(struct aw_bt_reader *reader, const char *host)
{
	for (size_t i = 0; i < reader->n_hosts; i++)
		if (strcmp(reader->hosts[i], host) == 0)
			return (uint32_t)i;
	AW_GROW(reader->hosts, reader->hosts_cap, reader->n_hosts + 1);
	reader->hosts[reader->n_hosts] = aw_xstrdup(host);
	return (uint32_t)reader->n_hosts++;
}

/* The trace directory of a stream, AW_RECORD_NO_DIR when no directory
 * matches the path of its file. */
static uint32_t aw_reader_stream_dir(const struct aw_bt_reader *reader,
				     const bt_stream *stream)
{
	const char *name = bt_stream_get_name(stream);
	const char *slash = name ? strrchr(name, '/') : NULL;
	if (!slash)
		return AW_RECORD_NO_DIR;
	size_t len = (size_t)(slash - name);
	for (size_t i = 0; i < reader->dirs->n; i++)
		if (strlen(reader->real_dirs[i]) == len &&
		    strncmp(reader->real_dirs[i], name, len) == 0)
			return (uint32_t)i;
	return AW_RECORD_NO_DIR;
}

/* The event's source (its trace's host, numbered in order of appearance)
 * and trace directory, in reader->last_source and last_dir. */
static void aw_reader_locate(struct aw_bt_reader *reader, const bt_event *event)
{
	const bt_stream *stream = bt_event_borrow_stream_const(event);
	if (stream == reader->last_stream)
		return;
	uint64_t key = (uint64_t)(uintptr_t)stream;
	uint32_t source = aw_index_map_get(&reader->stream_source, key);
	if (source == AW_NONE) {
		const bt_value *hostname =
		    bt_trace_borrow_environment_entry_value_by_name_const(
			bt_stream_borrow_trace_const(stream), "hostname");
		const char *host = hostname && bt_value_is_string(hostname)
				       ? bt_value_string_get(hostname)
				       : "";
		size_t known = reader->n_hosts;
		source = aw_reader_host(reader, host);
		if (reader->part.count > 1 && reader->n_hosts > known)
			aw_encode_host(&reader->enc, source, host);
		aw_index_map_put(&reader->stream_source, key, source);
		aw_index_map_put(&reader->stream_dir, key,
				 aw_reader_stream_dir(reader, stream));
	}
	reader->last_stream = stream;
	reader->last_source = source;
	reader->last_dir = aw_index_map_get(&reader->stream_dir, key);
}

/* A trace-run record the first time a directory shows a run: a directory
 * holding several runs mixes unrelated programs. */
static void aw_reader_note_run(struct aw_bt_reader *reader, uint32_t dir,
			       uint32_t run)
{
	if (reader->run_sent && reader->run_dir == dir && reader->run == run)
		return;
	reader->run_sent = true;
	reader->run_dir = dir;
	reader->run = run;
	uint64_t key = aw_key2(dir, run);
	if (aw_index_map_get(&reader->dir_runs, key) != AW_NONE)
		return;
	aw_index_map_put(&reader->dir_runs, key, 0);
	aw_encode_trace_run(&reader->enc, dir, run);
}

/* A clock record when the event's time moved past the last one sent by the
 * resolution (a split reader: always): the events that follow happened at
 * about that time. Returns whether one was written. */
static bool aw_reader_clock(struct aw_bt_reader *reader,
			    const bt_message *message)
{
	int64_t ns;
	if (!bt_message_event_borrow_stream_class_default_clock_class_const(
		message))
		return false;
	const bt_clock_snapshot *snapshot =
	    bt_message_event_borrow_default_clock_snapshot_const(message);
	if (bt_clock_snapshot_get_ns_from_origin(snapshot, &ns) !=
	    BT_CLOCK_SNAPSHOT_GET_NS_FROM_ORIGIN_STATUS_OK)
		return false;
	if (reader->clock_sent && reader->part.count == 1 &&
	    ns - reader->clock_ns < AW_CLOCK_RESOLUTION_NS)
		return false;
	aw_encode_clock(&reader->enc, ns);
	reader->clock_sent = true;
	reader->clock_ns = ns;
	return true;
}

/* The accwatch events a stream's class declares, sent once per class: the
 * trace's metadata says what its recorder could emit, which tells an event
 * that never happened from one the recorder did not have. */
static void aw_reader_declared(struct aw_bt_reader *reader,
			       const bt_message *message)
{
	const bt_stream_class *stream_class = bt_stream_borrow_class_const(
	    bt_message_stream_beginning_borrow_stream_const(message));
	uint64_t key = (uint64_t)(uintptr_t)stream_class;
	if (aw_index_map_get(&reader->declared_classes, key) != AW_NONE)
		return;
	aw_index_map_put(&reader->declared_classes, key, 0);
	uint64_t kinds = 0;
	uint64_t n = bt_stream_class_get_event_class_count(stream_class);
	for (uint64_t i = 0; i < n; i++) {
		const char *name = bt_event_class_get_name(
		    bt_stream_class_borrow_event_class_by_index_const(
			stream_class, i));
		if (!name || strncmp(name, AW_PROVIDER_PREFIX,
				     strlen(AW_PROVIDER_PREFIX)) != 0)
			continue;
		const struct aw_event_spec *spec =
		    aw_event_spec_by_name(name + strlen(AW_PROVIDER_PREFIX));
		if (spec)
			kinds |= (uint64_t)1 << spec->kind;
	}
	if (kinds)
		aw_encode_declared(&reader->enc, kinds);
}

/* Each member of the event in the codec's order: integers in values
 * (absent ones at their absent value), strings in strings ("" absent). */
static void aw_reader_members(const struct aw_class_entry *entry,
			      const bt_field *payload, int64_t *values,
			      const char **strings)
{
	for (size_t i = 0; i < entry->n_reads; i++) {
		const struct aw_member_read *read = &entry->reads[i];
		const bt_field *field =
		    read->how == AW_READ_ABSENT
			? NULL
			: bt_field_structure_borrow_member_field_by_index_const(
			      payload, read->index);
		values[i] = read->spec->absent;
		strings[i] = "";
		switch (read->how) {
		case AW_READ_ABSENT:
			break;
		case AW_READ_UNSIGNED:
			values[i] =
			    (int64_t)bt_field_integer_unsigned_get_value(field);
			break;
		case AW_READ_SIGNED:
			values[i] = bt_field_integer_signed_get_value(field);
			break;
		case AW_READ_STRING:
			strings[i] = bt_field_string_get_value(field);
			if (!strings[i])
				strings[i] = "";
			break;
		}
	}
}

/* The string members whose text is lines (stacks, the Python threads at a
 * fork): their newlines are kept. */
static const char *const aw_reader_line_members[] = {
    "stack", "py_stack", "native_stack", "py_threads"};

/* text as the analyzer takes it: a control character of a recorded string
 * (a newline or an escape in a script's path, an exception's message)
 * never reaches a report raw, so that it cannot forge a line of the text
 * report or move the terminal: tabs and line ends become spaces (newlines
 * kept in the members of lines), any other one '?'. text itself when it
 * has none; else a copy in *scratch, good until the next call. */
static const char *aw_reader_clean(const struct aw_member_spec *spec,
				   const char *text, char **scratch,
				   size_t *cap)
{
	size_t len = 0;
	bool control = false;
	for (const unsigned char *c = (const unsigned char *)text; *c;
	     c++, len++)
		control |= *c < 0x20 || *c == 0x7f;
	if (!control)
		return text;
	bool lines = false;
	for (size_t i = 0; i < sizeof(aw_reader_line_members) /
				   sizeof(aw_reader_line_members[0]);
	     i++)
		lines |= strcmp(spec->name, aw_reader_line_members[i]) == 0;
	AW_GROW(*scratch, *cap, len + 1);
	for (size_t i = 0; i <= len; i++) {
		unsigned char c = (unsigned char)text[i];
		if (c == '\n' && lines)
			(*scratch)[i] = '\n';
		else if (c == '\n' || c == '\r' || c == '\t')
			(*scratch)[i] = ' ';
		else if (c && (c < 0x20 || c == 0x7f))
			(*scratch)[i] = '?';
		else
			(*scratch)[i] = (char)c;
	}
	return *scratch;
}

static void aw_reader_on_event(struct aw_bt_reader *reader,
			       const bt_message *message)
{
	const bt_event *bt_event = bt_message_event_borrow_event_const(message);
	struct aw_read_counts *stats = &reader->counts;
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

	aw_reader_locate(reader, bt_event);
	const bt_field *payload = bt_event_borrow_payload_field_const(bt_event);
	if (!payload)
		return;
	int64_t values[AW_MAX_MEMBERS];
	const char *strings[AW_MAX_MEMBERS];
	aw_reader_members(entry, payload, values, strings);
	/* run: the first common member, a u32 slot. */
	aw_reader_note_run(reader, reader->last_dir, (uint32_t)values[0]);
	/* Split readers: every event right after its own time (the last
	 * one's when it has none), the two the unit the analyzer merges. */
	if (!aw_reader_clock(reader, message) && reader->part.count > 1)
		aw_encode_clock(&reader->enc,
				reader->clock_sent ? reader->clock_ns : -1);
	aw_encode_event_head(&reader->enc, entry->spec->kind,
			     reader->last_source);
	for (size_t i = 0; i < entry->n_reads; i++) {
		const struct aw_member_spec *spec = entry->reads[i].spec;
		if (spec->slot == ACCWATCH_KIND_str)
			aw_encode_member_string(
			    &reader->enc,
			    aw_reader_clean(spec, strings[i], &reader->scratch,
					    &reader->scratch_cap));
		else
			aw_encode_member(&reader->enc, spec, values[i]);
	}
	aw_reader_put_array(reader, entry, payload);
}

/* One stream's discarded-events message, named by the stream (its file,
 * for src.ctf.fs). */
static void aw_reader_stream_discards(struct aw_bt_reader *reader,
				      const bt_stream *stream, uint64_t count,
				      bool known)
{
	const char *name = stream ? bt_stream_get_name(stream) : NULL;
	char fallback[48];
	if (!name) {
		snprintf(fallback, sizeof(fallback), "stream %" PRIu64,
			 stream ? bt_stream_get_id(stream) : 0);
		name = fallback;
	}
	aw_encode_discards(&reader->enc, name, count, known);
}

static void aw_reader_on_message(struct aw_bt_reader *reader,
				 const bt_message *message)
{
	struct aw_read_counts *stats = &reader->counts;
	uint64_t count;
	switch (bt_message_get_type(message)) {
	case BT_MESSAGE_TYPE_EVENT:
		aw_reader_on_event(reader, message);
		break;
	case BT_MESSAGE_TYPE_DISCARDED_EVENTS: {
		stats->discarded_events_messages++;
		bool known =
		    bt_message_discarded_events_get_count(message, &count) ==
		    BT_PROPERTY_AVAILABILITY_AVAILABLE;
		if (known)
			stats->discarded_events += count;
		aw_reader_stream_discards(
		    reader,
		    bt_message_discarded_events_borrow_stream_const(message),
		    known ? count : 0, known);
		break;
	}
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
		aw_reader_declared(reader, message);
		break;
	default:
		break;
	}
}

/* Writes the buffered records to the analyzer, after the packets begun
 * when there are more. */
static void aw_reader_flush(struct aw_bt_reader *reader)
{
	size_t done = 0;
	if (reader->counts.packets != reader->packets_sent) {
		aw_encode_progress(&reader->enc, reader->counts.packets);
		reader->packets_sent = reader->counts.packets;
	}
	while (done < reader->enc.len && !reader->write_failed) {
		ssize_t n = write(reader->fd, reader->enc.data + done,
				  reader->enc.len - done);
		if (n > 0)
			done += (size_t)n;
		else if (n < 0 && errno != EINTR)
			reader->write_failed = true;
	}
	reader->enc.len = 0;
	clock_gettime(CLOCK_MONOTONIC, &reader->last_flush);
}

/* Sends the counts and flushes when the buffer is large or has waited long
 * enough: the counts double as a heartbeat through long stretches of events
 * of other providers. */
static void aw_reader_maybe_flush(struct aw_bt_reader *reader,
				  uint64_t messages)
{
	if (reader->enc.len >= AW_FLUSH_BYTES) {
		aw_reader_flush(reader);
		return;
	}
	reader->since_clock_check += (uint32_t)AW_MIN(messages, UINT32_MAX);
	if (reader->since_clock_check < AW_CLOCK_CHECK_MESSAGES)
		return;
	reader->since_clock_check = 0;
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (now.tv_sec - reader->last_flush.tv_sec >= AW_FLUSH_SECONDS) {
		aw_encode_counts(&reader->enc, &reader->counts);
		aw_reader_flush(reader);
	}
}

static bt_graph_simple_sink_component_consume_func_status
aw_reader_consume(bt_message_iterator *iterator, void *data)
{
	struct aw_bt_reader *reader = data;
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
	aw_reader_maybe_flush(reader, count);
	/* The analyzer is gone: nobody to read for. */
	return reader->write_failed
		   ? BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_ERROR
		   : BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_OK;
}

uint32_t aw_take_bt_error(const struct aw_trace_dirs *dirs, char *out,
			  size_t size)
{
	uint32_t dir = AW_RECORD_NO_DIR;
	const bt_error *error = bt_current_thread_take_error();
	if (!error) {
		snprintf(out, size, "babeltrace2 gave no reason");
		return dir;
	}
	uint64_t n = bt_error_get_cause_count(error);
	snprintf(out, size, "%s",
		 n ? bt_error_cause_get_message(
			 bt_error_borrow_cause_by_index(error, 0))
		   : "?");
	for (uint64_t i = 0; i < n && dir == AW_RECORD_NO_DIR; i++) {
		const bt_error_cause *cause =
		    bt_error_borrow_cause_by_index(error, i);
		unsigned long which;
		if (bt_error_cause_get_actor_type(cause) ==
			BT_ERROR_CAUSE_ACTOR_TYPE_COMPONENT &&
		    sscanf(bt_error_cause_component_actor_get_component_name(
			       cause),
			   "src-%lu", &which) == 1 &&
		    which < dirs->n)
			dir = (uint32_t)which;
	}
	for (char *c = out; *c; c++)
		if (*c == '\n')
			*c = ' ';
	size_t len = strlen(out);
	while (len && (out[len - 1] == '.' || out[len - 1] == ' '))
		out[--len] = '\0';
	bt_error_release(error);
	return dir;
}

static bt_logging_level aw_log_level(void)
{
	return accwatch_debug_on() ? BT_LOGGING_LEVEL_WARNING
				   : BT_LOGGING_LEVEL_NONE;
}

/* Adds one src.ctf.fs per trace directory and connects its ports. A phase
 * record goes out before each, so that if babeltrace2 crashes or hangs in
 * it the analyzer can name the trace. */
static enum aw_read_end aw_add_sources(struct aw_bt_reader *reader,
				       bt_graph *graph, const bt_plugin *ctf,
				       const bt_component_filter *muxer,
				       char *error, size_t error_size,
				       uint32_t *failed_dir)
{
	const struct aw_trace_dirs *dirs = reader->dirs;
	uint64_t numbered = 0; /* output ports, over every source */
	const char *kind = dirs->live ? "lttng-live" : "fs";
	const bt_component_class_source *fs =
	    bt_plugin_borrow_source_component_class_by_name_const(ctf, kind);
	if (!fs) {
		snprintf(error, error_size,
			 "babeltrace2's ctf plugin has no `%s` source: check "
			 "the babeltrace2 install",
			 kind);
		return AW_READ_END_INTERNAL;
	}
	for (size_t i = 0; i < dirs->n; i++) {
		char reason[512];
		*failed_dir = (uint32_t)i;
		aw_encode_phase(&reader->enc, AW_PHASE_OPENING, (uint32_t)i);
		aw_reader_flush(reader);
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
		/* A live session that is gone (destroyed once its command
		 * ended) ends the reading. */
		if (ok && dirs->live)
			ok = bt_value_map_insert_string_entry(
				 params, "session-not-found-action", "end") ==
			     BT_VALUE_MAP_INSERT_ENTRY_STATUS_OK;
		if (ok)
			ok = bt_graph_add_source_component(
				 graph, fs, name, params, aw_log_level(),
				 &source) == BT_GRAPH_ADD_COMPONENT_STATUS_OK;
		bt_value_put_ref(params);
		if (!ok) {
			aw_take_bt_error(dirs, reason, sizeof(reason));
			snprintf(error, error_size,
				 "cannot read the trace in %s: %s; it may be "
				 "corrupt or still being written (stop the "
				 "LTTng session first; `babeltrace2 %s` shows "
				 "the details)",
				 dirs->dirs[i], reason, dirs->dirs[i]);
			return AW_READ_END_OPEN;
		}
		uint64_t ports =
		    bt_component_source_get_output_port_count(source);
		for (uint64_t p = 0; p < ports; p++, numbered++) {
			/* Another reader's stream: left unconnected, so never
			 * decoded here. */
			if (numbered % reader->part.count != reader->part.index)
				continue;
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
				aw_take_bt_error(dirs, reason, sizeof(reason));
				snprintf(error, error_size,
					 "cannot read the trace in %s: %s",
					 dirs->dirs[i], reason);
				return AW_READ_END_OPEN;
			}
		}
	}
	*failed_dir = AW_RECORD_NO_DIR;
	return AW_READ_END_OK;
}

/* Builds and runs the graph; returns how it ended, with error and the trace
 * directory concerned set when it did not end well. */
static enum aw_read_end aw_run_graph(struct aw_bt_reader *reader, char *error,
				     size_t error_size, uint32_t *dir)
{
	enum aw_read_end end = AW_READ_END_INTERNAL;
	const struct aw_trace_dirs *dirs = reader->dirs;
	const bt_plugin *ctf = NULL, *utils = NULL;
	bt_graph *graph = NULL;
	const bt_component_filter *muxer = NULL;
	const bt_component_sink *sink = NULL;
	char reason[512];
	*dir = AW_RECORD_NO_DIR;

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
		aw_take_bt_error(dirs, reason, sizeof(reason));
		snprintf(error, error_size,
			 "babeltrace2 could not build its graph: %s", reason);
		goto end;
	}
	end = aw_add_sources(reader, graph, ctf, muxer, error, error_size, dir);
	if (end != AW_READ_END_OK)
		goto end;
	end = AW_READ_END_INTERNAL;
	if (bt_graph_connect_ports(
		graph,
		bt_component_filter_borrow_output_port_by_index_const(muxer, 0),
		bt_component_sink_borrow_input_port_by_index_const(sink, 0),
		NULL) != BT_GRAPH_CONNECT_PORTS_STATUS_OK) {
		aw_take_bt_error(dirs, reason, sizeof(reason));
		snprintf(error, error_size,
			 "babeltrace2 could not build its graph: %s", reason);
		goto end;
	}

	aw_encode_phase(&reader->enc, AW_PHASE_READING, AW_RECORD_NO_DIR);
	aw_reader_flush(reader);
	for (;;) {
		bt_graph_run_status run = bt_graph_run(graph);
		if (run == BT_GRAPH_RUN_STATUS_OK)
			break;
		if (run == BT_GRAPH_RUN_STATUS_AGAIN) {
			/* Nothing more for now (a live session between two
			 * flushes of its streams): what came goes out now. */
			if (reader->enc.len)
				aw_reader_flush(reader);
			nanosleep(
			    &(struct timespec){.tv_nsec = dirs->live
							      ? AW_LIVE_RETRY_NS
							      : 1000000},
			    NULL);
			continue;
		}
		/* A corrupt or truncated part: what came before it stands. */
		*dir = aw_take_bt_error(dirs, reason, sizeof(reason));
		snprintf(error, error_size, "%s", reason);
		end = AW_READ_END_STOPPED;
		goto end;
	}
	end = AW_READ_END_OK;
end:
	bt_graph_put_ref(graph);
	bt_plugin_put_ref(ctf);
	bt_plugin_put_ref(utils);
	return end;
}

enum aw_reader_bt_status aw_reader_bt_dump(const struct aw_trace_dirs *dirs,
					   struct aw_reader_part part, int fd)
{
	struct aw_bt_reader reader = {.fd = fd, .dirs = dirs, .part = part};
	if (reader.part.count == 0 || reader.part.index >= reader.part.count)
		reader.part = (struct aw_reader_part){0, 1};
	char error[1024] = "";
	uint32_t dir;
	aw_encoder_init(&reader.enc);
	aw_index_map_init(&reader.class_index);
	aw_index_map_init(&reader.stream_source);
	aw_index_map_init(&reader.declared_classes);
	aw_index_map_init(&reader.stream_dir);
	aw_index_map_init(&reader.dir_runs);
	reader.real_dirs =
	    aw_xcalloc(dirs->n ? dirs->n : 1, sizeof(*reader.real_dirs));
	for (size_t i = 0; i < dirs->n; i++) {
		reader.real_dirs[i] = realpath(dirs->dirs[i], NULL);
		if (!reader.real_dirs[i])
			reader.real_dirs[i] = aw_xstrdup(dirs->dirs[i]);
	}
	clock_gettime(CLOCK_MONOTONIC, &reader.last_flush);
	if (!accwatch_debug_on())
		bt_logging_set_global_level(BT_LOGGING_LEVEL_NONE);

	enum aw_read_end end =
	    aw_run_graph(&reader, error, sizeof(error), &dir);
	aw_encode_counts(&reader.enc, &reader.counts);
	aw_encode_end(&reader.enc, end, dir,
		      end == AW_READ_END_OK ? "" : error);
	aw_reader_flush(&reader);

	bool failed = reader.write_failed;
	aw_encoder_fini(&reader.enc);
	free(reader.classes);
	aw_index_map_fini(&reader.class_index);
	aw_index_map_fini(&reader.stream_source);
	aw_index_map_fini(&reader.declared_classes);
	free(reader.scratch);
	aw_index_map_fini(&reader.stream_dir);
	aw_index_map_fini(&reader.dir_runs);
	for (size_t i = 0; i < dirs->n; i++)
		free(reader.real_dirs[i]);
	free(reader.real_dirs);
	for (size_t i = 0; i < reader.n_hosts; i++)
		free(reader.hosts[i]);
	free(reader.hosts);
	return failed ? AW_READER_BT_WRITE_ERROR : AW_READER_BT_OK;
}
