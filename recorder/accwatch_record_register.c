/* SPDX-License-Identifier: MIT */
/* Waiting for the session daemon to take a new process. lttng-ust waits 3 s
 * for it (LTTNG_UST_REGISTER_TIMEOUT) and then lets the process run
 * untaken: what it emits until the daemon catches up is lost, uncounted
 * (100 ranks forked at once, a loaded machine). Under accwatch-run (its
 * session enables accwatch:*, so a taken process has its tracepoints on),
 * a process whose tracepoints are still off waits on, up to the stall
 * bound from its start; past it, it runs on and leaves a note
 * (ACCWATCH_UNREGISTERED_NOTE) for accwatch-run and the report. A child
 * forked by a process that was itself not taken at that moment does not
 * wait: the daemon is gone, stuck, or the session over. */
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "accwatch_debug.h"
#include "accwatch_events.h"
#include "accwatch_record.h"
#include "accwatch_tp.h"

/* The bound without a stall bound (accwatch-run --stall-timeout 0). */
#define ACCWATCH_REGISTER_DEFAULT_NS (10 * 1000000000LL)
#define ACCWATCH_REGISTER_POLL_NS 10000000L

static int64_t accwatch_register_now(void)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
}

int accwatch_register_done(void)
{
	return lttng_ust_tracepoint_enabled(accwatch, exit) != 0;
}

static void accwatch_register_note(int64_t waited_ns)
{
	char line[128];
	int length = snprintf(
	    line, sizeof(line), "pid=%ld ppid=%ld run=%u waited_ms=%lld\n",
	    (long)accwatch_recorder.pid, (long)getppid(), accwatch_recorder.run,
	    (long long)(waited_ns / 1000000));

	if ((size_t)length < sizeof(line))
		accwatch_record_note(ACCWATCH_UNREGISTERED_NOTE, line, length);
}

void accwatch_register_wait(void)
{
	struct timespec pause = {0, ACCWATCH_REGISTER_POLL_NS};
	int64_t bound = accwatch_recorder.stall_ns
			    ? accwatch_recorder.stall_ns
			    : ACCWATCH_REGISTER_DEFAULT_NS;
	int64_t start = accwatch_register_now();

	if (!getenv(ACCWATCH_ENV_RUN) || accwatch_register_done())
		return;
	while (!accwatch_register_done()) {
		if (accwatch_register_now() - start >= bound) {
			ACCWATCH_DEBUG("not taken by the session daemon within "
				       "%lld ms: running on unrecorded",
				       (long long)(bound / 1000000));
			accwatch_register_note(accwatch_register_now() - start);
			return;
		}
		nanosleep(&pause, NULL);
	}
	ACCWATCH_DEBUG(
	    "taken by the session daemon after %lld ms",
	    (long long)((accwatch_register_now() - start) / 1000000));
}
