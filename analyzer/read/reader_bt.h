/* SPDX-License-Identifier: MIT */
/* The babeltrace2 half of the reader: reads the traces and writes what it
 * finds as records of the event stream (event_codec.h). reader.c runs it in
 * a child process, so that a crash or a hang of babeltrace2 on a damaged
 * trace becomes a clear message instead of taking the analyzer along. */
#ifndef AW_READER_BT_H
#define AW_READER_BT_H

#include <stdint.h>

#include "trace_dirs.h"

enum aw_reader_bt_status {
	AW_READER_BT_OK,          /* every record written, the END last */
	AW_READER_BT_WRITE_ERROR, /* fd stopped taking bytes */
};

/* Which streams one reader decodes: the output ports of the sources, in
 * order over every trace, numbered from 0, whose number is `index` modulo
 * `count`. With count > 1 the reader also writes the exact time of each
 * event (a clock record before it) and the host of each source it numbers
 * (a host record): the analyzer merges several readers' records in time
 * order (reader.c). */
struct aw_reader_part {
	uint32_t index, count;
};

/* Reads every trace of dirs (the streams of part) and writes, to fd: a
 * phase record before each trace is opened and before the events, the
 * accwatch events, the counts (now and then, and at the end) and an end
 * record saying how it ended. */
enum aw_reader_bt_status aw_reader_bt_dump(const struct aw_trace_dirs *dirs,
					   struct aw_reader_part part, int fd);

/* babeltrace2's error as one line: its root cause (the first, deepest one),
 * which names the file or the packet. Returns the index of the trace
 * directory when the failing actor is one of our sources ("src-N"), else
 * AW_RECORD_NO_DIR. */
uint32_t aw_take_bt_error(const struct aw_trace_dirs *dirs, char *out,
			  size_t size);

/* reader_live.c: the URLs of the accwatch-run sessions (named accwatch-...;
 * every one with !accwatch_only) a relay daemon has (url: net://HOST[:PORT]),
 * added to dirs; false with error when the daemon cannot be asked. */
bool aw_reader_bt_live_sessions(const char *url, bool accwatch_only,
				struct aw_trace_dirs *dirs, char *error,
				size_t error_size);

#endif
