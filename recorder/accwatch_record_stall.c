/* SPDX-License-Identifier: MIT */
/* The bounded stall: every event is emitted between accwatch_stall_begin
 * and accwatch_stall_end (ACCWATCH_EMIT). accwatch-run's channel blocks an
 * event at most ACCWATCH_STALL_MS when its buffers are full; an event that
 * waited that long was dropped, so the consumer took nothing for that long
 * (stopped, on a stalled disk, or dead). The process then stops recording
 * for good: it goes on at full speed, and leaves a note of one line in the
 * trace directory (ACCWATCH_STALL_DIR) saying when and at which event, for
 * accwatch-run and the report. Without a known bound nothing is timed. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "accwatch_debug.h"
#include "accwatch_env.h"
#include "accwatch_events.h"
#include "accwatch_record.h"

static int64_t accwatch_stall_now(void)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
}

void accwatch_stall_init(void)
{
	accwatch_recorder.stall_ns =
	    (int64_t)accwatch_env_stall_ms(accwatch_env_getenv, NULL) * 1000000;
	atomic_store(&accwatch_recorder.stalled, 0);
}

int accwatch_stall_begin(int64_t *start)
{
	if (atomic_load_explicit(&accwatch_recorder.stalled,
				 memory_order_relaxed))
		return 0;
	*start = accwatch_recorder.stall_ns ? accwatch_stall_now() : 0;
	return 1;
}

void accwatch_record_note(const char *prefix, const char *line, int length)
{
	const char *dir = getenv(ACCWATCH_ENV_STALL_DIR);
	char path[4096];
	int fd, path_length;

	if (!dir || !*dir || length <= 0)
		return;
	path_length = snprintf(path, sizeof(path), "%s/%s%ld", dir, prefix,
			       (long)accwatch_recorder.pid);
	if (path_length <= 0 || (size_t)path_length >= sizeof(path))
		return;
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0)
		return;
	if (write(fd, line, (size_t)length) != length)
		ACCWATCH_DEBUG("note %s: short write", path);
	close(fd);
}

/* "<dir>/accwatch-stalled.<pid>": pid, event, loader, iteration, batch and
 * the bound, as key=value words. */
static void accwatch_stall_note(const char *event, uint32_t loader,
				uint32_t iteration, uint32_t batch)
{
	char line[256];
	int length =
	    snprintf(line, sizeof(line),
		     "pid=%ld run=%u event=%s loader=%ld iteration=%ld "
		     "batch=%ld stall_ms=%lld\n",
		     (long)accwatch_recorder.pid, accwatch_recorder.run, event,
		     loader == ACCWATCH_UNKNOWN ? -1L : (long)loader,
		     iteration == ACCWATCH_UNKNOWN ? -1L : (long)iteration,
		     batch == ACCWATCH_UNKNOWN ? -1L : (long)batch,
		     (long long)(accwatch_recorder.stall_ns / 1000000));

	if ((size_t)length < sizeof(line))
		accwatch_record_note(ACCWATCH_STALL_NOTE, line, length);
}

void accwatch_stall_end(int64_t start, const char *event, uint32_t loader,
			uint32_t iteration, uint32_t batch)
{
	int saved_errno;

	if (!accwatch_recorder.stall_ns ||
	    accwatch_stall_now() - start < accwatch_recorder.stall_ns)
		return;
	if (atomic_exchange(&accwatch_recorder.stalled, 1))
		return;
	saved_errno = errno;
	ACCWATCH_DEBUG("an event (%s) waited %lld ms for buffer space: "
		       "recording stops in this process",
		       event,
		       (long long)(accwatch_recorder.stall_ns / 1000000));
	accwatch_stall_note(event, loader, iteration, batch);
	errno = saved_errno;
}
