/* SPDX-License-Identifier: MIT */
/* libFuzzer harness on the progress measure (analyzer/read/progress.c)
 * and the stream check (aw_streams_check, trace_dirs.c), the two readers of
 * LTTng's packet index files (index/NAME.idx): the input becomes a trace
 * directory's stream files (of sizes the input says) and their index
 * files, then the progress line is drawn for what they measure.
 *
 * Input: parts separated by AW_PROGRESS_SEP; each part is a stream: two
 * bytes (little-endian) of its size in 64-byte units, then its index
 * file's bytes. The first eight bytes of the first part past its size also
 * give the packets done and the seconds passed of the line. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz_util.h"
#include "progress.h"
#include "trace_dirs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define AW_PROGRESS_SEP "\n@@accwatch-part@@\n"
#define AW_PROGRESS_STREAMS 6

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *root = aw_fuzz_scratch();
	char trace[512], path[1024];
	snprintf(trace, sizeof(trace), "%s/trace", root);
	mkdir(trace, 0755);
	snprintf(path, sizeof(path), "%s/index", trace);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/metadata", trace);
	aw_fuzz_write(path, (const uint8_t *)"/* CTF 1.8 */\n", 14);

	const uint8_t *parts[AW_PROGRESS_STREAMS];
	size_t lens[AW_PROGRESS_STREAMS];
	size_t n = aw_fuzz_split(data, size, AW_PROGRESS_SEP, parts, lens,
				 AW_PROGRESS_STREAMS);
	for (size_t i = 0; i < n; i++) {
		size_t len = lens[i];
		const uint8_t *p = parts[i];
		off_t stream_size =
		    len >= 2 ? (off_t)(p[0] | p[1] << 8) * 64 : 0;
		snprintf(path, sizeof(path), "%s/accwatch_%zu", trace, i);
		aw_fuzz_write(path, NULL, 0);
		if (truncate(path, stream_size) != 0)
			abort();
		snprintf(path, sizeof(path), "%s/index/accwatch_%zu.idx", trace,
			 i);
		aw_fuzz_write(path, len >= 2 ? p + 2 : p,
			      len >= 2 ? len - 2 : 0);
	}

	struct aw_trace_dirs dirs;
	char error[1024];
	aw_trace_dirs_init(&dirs);
	if (aw_trace_dirs_find(&dirs, trace, error, sizeof(error)) !=
	    AW_TRACE_DIRS_OK)
		abort();
	uint64_t bytes, packets;
	aw_progress_measure(&dirs, &bytes, &packets);
	aw_streams_check(trace, error, sizeof(error));

	/* The line as the reader draws it (aw_progress_update). */
	uint32_t done = 0, seconds = 0;
	if (lens[0] >= 10) {
		memcpy(&done, parts[0] + 2, 4);
		memcpy(&seconds, parts[0] + 6, 4);
	}
	char line[128];
	if (packets > 0 && bytes > 0) {
		double share = (double)done / (double)packets;
		aw_progress_line(line, sizeof(line),
				 (uint64_t)(share * (double)bytes), bytes,
				 (double)seconds / 16.0);
		if (!memchr(line, '\0', sizeof(line)))
			abort();
	}
	aw_trace_dirs_fini(&dirs);
	aw_fuzz_empty(trace);
	return 0;
}
