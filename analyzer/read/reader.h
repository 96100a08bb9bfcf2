/* SPDX-License-Identifier: MIT */
/* The trace reader: the only part of the analyzer that knows babeltrace2. It
 * runs one graph over every trace found under the given paths, in a child
 * process, and hands each accwatch event to the model as a plain struct
 * aw_event. */
#ifndef AW_READER_H
#define AW_READER_H

#include <stdbool.h>
#include <stddef.h>

#include "model.h"

/* Seconds babeltrace2 may go without sending anything before the reader
 * takes it for hung and stops it, and the seconds the analysis after the
 * reading may take in all (accwatch-report's main); 0: wait forever. */
#define AW_ENV_READ_TIMEOUT "ACCWATCH_REPORT_TIMEOUT"
#define AW_READ_TIMEOUT_S 60
/* MiB of data (heap) babeltrace2 may use; 0: no limit. A damaged sequence
 * length makes it allocate a field per claimed element. */
#define AW_ENV_READ_MEMORY "ACCWATCH_REPORT_MEMORY"
#define AW_READ_MEMORY_MIB 4096
/* Below this babeltrace2 cannot even start (its libraries and GLib). */
#define AW_READ_MEMORY_MIB_MIN 64
/* A day: longer is no watchdog. */
#define AW_READ_TIMEOUT_S_MAX 86400
/* How many babeltrace2 processes decode the streams, each a part of them
 * (1: one for all); unset or 0: one a processor, at most 4. */
#define AW_ENV_READ_READERS "ACCWATCH_REPORT_READERS"
/* Set to 1 to skip the metadata framing check (aw_metadata_check). */
#define AW_ENV_NO_METADATA_CHECK "ACCWATCH_REPORT_NO_METADATA_CHECK"

enum aw_reader_status {
	AW_READER_OK,        /* read to the end, or stopped by a corrupt part
			      * after some events (model->stats.read_error) */
	AW_READER_NO_TRACE,  /* a path unreadable, or without a trace */
	AW_READER_NO_EVENTS, /* traces, but no accwatch event in them */
	AW_READER_ERROR,     /* babeltrace2 could not open or read the traces */
	AW_READER_BAD_SETTING, /* an ACCWATCH_REPORT_* variable makes no sense
				*/
};

/* Fills model (not finished) from the traces under paths. On any status but
 * OK, error holds one line naming the path and what to do. */
/* ACCWATCH_REPORT_TIMEOUT's seconds (checked by aw_reader_read), 0 none. */
long long aw_reader_timeout(void);

enum aw_reader_status aw_reader_read(const char *const *paths, size_t n_paths,
				     struct aw_model *model, char *error,
				     size_t error_size);

/* Live reading: told after each batch of events the model took, and every
 * second while none come; returns false to stop the reading. */
typedef bool aw_reader_tick_fn(void *context, struct aw_model *model);

/* Fills model (not finished) from a live session on a relay daemon (url:
 * net://HOST[:PORT]/host/HOSTNAME/SESSION) while it is recorded, until the
 * session is destroyed or tick asks to stop (then AW_READER_OK too). */
enum aw_reader_status aw_reader_read_live(const char *url,
					  struct aw_model *model,
					  aw_reader_tick_fn *tick,
					  void *context, char *error,
					  size_t error_size);

/* Writes the records of the traces under paths (event_codec.h) to fd, in
 * this process: what the fuzz seeds are made from. */
enum aw_reader_status aw_reader_dump(const char *const *paths, size_t n_paths,
				     int fd, char *error, size_t error_size);

#endif
