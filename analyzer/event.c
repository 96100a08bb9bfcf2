/* Names of the accwatch events, as the recorder's tracepoints spell them. */
#include "event.h"

#include <stddef.h>

static const char *const aw_event_names[AW_EVENT_KIND_COUNT] = {
    [AW_EVENT_PROCESS] = "process",
    [AW_EVENT_DIST_INIT] = "dist_init",
    [AW_EVENT_FORK] = "fork",
    [AW_EVENT_EXEC] = "exec",
    [AW_EVENT_EXIT] = "exit",
    [AW_EVENT_LOADER_NEW] = "loader_new",
    [AW_EVENT_LOADER_WRAP] = "loader_wrap",
    [AW_EVENT_LOADER_LEN] = "loader_len",
    [AW_EVENT_ITER_BEGIN] = "iter_begin",
    [AW_EVENT_BATCH] = "batch",
    [AW_EVENT_BATCH_WIDE] = "batch_wide",
    [AW_EVENT_ITER_END] = "iter_end",
    [AW_EVENT_WORKER_START] = "worker_start",
    [AW_EVENT_WORKER_FETCH] = "worker_fetch",
    [AW_EVENT_WORKER_FETCH_WIDE] = "worker_fetch_wide",
    [AW_EVENT_ITEM_FETCH] = "item_fetch",
    [AW_EVENT_WORKER_FETCH_END] = "worker_fetch_end",
};

const char *aw_event_kind_name(enum aw_event_kind kind)
{
	if ((unsigned)kind >= AW_EVENT_KIND_COUNT)
		return NULL;
	return aw_event_names[kind];
}
