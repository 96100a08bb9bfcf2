/* SPDX-License-Identifier: MIT */
/* Test helper, not a product: emits `accwatch:exec` events carrying the run id
 * from $ACCWATCH_RUN, so tests can check accwatch-run's per-run filter. */
#define LTTNG_UST_TRACEPOINT_CREATE_PROBES
#define LTTNG_UST_TRACEPOINT_DEFINE
#include "accwatch_tp.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

/* run_emitter TAG COUNT [PAUSE_MS]: COUNT events whose path is TAG. */
int main(int argc, char *argv[])
{
	const char *run_text = getenv(ACCWATCH_ENV_RUN);
	uint32_t run = run_text ? (uint32_t)strtoul(run_text, NULL, 10) : 0;
	long count, pause_ms;
	struct timespec pause;

	if (argc < 3) {
		fprintf(stderr, "usage: run_emitter TAG COUNT [PAUSE_MS]\n");
		return 2;
	}
	count = strtol(argv[2], NULL, 10);
	pause_ms = argc > 3 ? strtol(argv[3], NULL, 10) : 0;
	pause.tv_sec = pause_ms / 1000;
	pause.tv_nsec = (pause_ms % 1000) * 1000000L;
	for (long i = 0; i < count; i++) {
		lttng_ust_tracepoint(
		    accwatch, exec,
		    &(struct accwatch_exec_info){.run = run,
						 .pid = (int32_t)getpid(),
						 .path = argv[1],
						 .child_pid = 0});
		if (pause_ms > 0)
			nanosleep(&pause, NULL);
	}
	return 0;
}
