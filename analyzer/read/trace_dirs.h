/* SPDX-License-Identifier: MIT */
/* Finding CTF traces on disk: every directory holding a `metadata` file under
 * the paths the user gave (LTTng writes DIR/ust/uid/0/64-bit/metadata). */
#ifndef AW_TRACE_DIRS_H
#define AW_TRACE_DIRS_H

#include <stdbool.h>
#include <stddef.h>

struct aw_trace_dirs {
	char **dirs; /* sorted, no duplicates */
	size_t n, cap;
	/* The one entry is the URL of a live session on a relay daemon
	 * (net://HOST[:PORT]/host/HOSTNAME/SESSION), read as it is recorded. */
	bool live;
};

enum aw_trace_dirs_status {
	AW_TRACE_DIRS_OK,
	AW_TRACE_DIRS_UNREADABLE, /* the path cannot be opened: message in error
				   */
	AW_TRACE_DIRS_NONE,       /* readable, but no trace under it */
};

void aw_trace_dirs_init(struct aw_trace_dirs *dirs);
void aw_trace_dirs_fini(struct aw_trace_dirs *dirs);
/* Adds the trace directories under path (a directory, or a metadata file). */
enum aw_trace_dirs_status aw_trace_dirs_find(struct aw_trace_dirs *dirs,
					     const char *path, char *error,
					     size_t error_size);

struct aw_trace_stats;
/* Adds the processes' notes directly in dir to stats: stall notes
 * (accwatch-stalled.<pid>) and unregistered ones (accwatch-unregistered.
 * <pid>, see accwatch_events.h); what is not a note's line is passed
 * over. */
void aw_stall_notes_read(const char *dir, struct aw_trace_stats *stats);

enum aw_metadata_status {
	AW_METADATA_OK,
	AW_METADATA_CORRUPT, /* message in error */
};

/* Checks the framing of dir/metadata when it is packetized (LTTng's form):
 * every packet header whole, sizes consistent, the last packet complete.
 * babeltrace2 2.0 loops forever on a metadata file cut inside a packet. */
enum aw_metadata_status aw_metadata_check(const char *dir, char *error,
					  size_t error_size);

enum aw_streams_status {
	AW_STREAMS_OK,
	AW_STREAMS_SHORT,   /* a stream file is cut: message in error */
	AW_STREAMS_SPECIAL, /* a FIFO, socket or device: message in error */
};

/* Checks the files of trace directory dir before babeltrace2 opens them:
 * none may be a FIFO or a device (babeltrace2 would block on it for good),
 * and each stream file is compared with its LTTng index
 * (dir/index/NAME.idx), when there is one: a stream file shorter than the
 * packets its index lists was cut (copied while being written, or
 * truncated at a packet boundary, which babeltrace2 reads without a word).
 */
enum aw_streams_status aw_streams_check(const char *dir, char *error,
					size_t error_size);

#endif
