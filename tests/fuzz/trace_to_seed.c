/* SPDX-License-Identifier: MIT */
/* Turns a recorded trace into a fuzz input: the event stream the reader's
 * babeltrace2 half writes (analyzer/read/event_codec.h), saved to a file.
 *   accwatch_trace_to_seed OUT TRACE... */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "reader.h"

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: accwatch_trace_to_seed OUT TRACE...\n");
		return 2;
	}
	int fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0) {
		fprintf(stderr, "accwatch_trace_to_seed: cannot write %s: %s\n",
			argv[1], strerror(errno));
		return 2;
	}
	char error[1024] = "";
	enum aw_reader_status status =
	    aw_reader_dump((const char *const *)argv + 2, (size_t)argc - 2, fd,
			   error, sizeof(error));
	if (close(fd) != 0 && status == AW_READER_OK) {
		snprintf(error, sizeof(error), "cannot write %s: %s", argv[1],
			 strerror(errno));
		status = AW_READER_ERROR;
	}
	if (status != AW_READER_OK) {
		fprintf(stderr, "accwatch_trace_to_seed: %s\n", error);
		return 2;
	}
	return 0;
}
