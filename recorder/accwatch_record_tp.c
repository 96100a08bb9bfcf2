/* SPDX-License-Identifier: MIT */
/* The LTTng-UST provider `accwatch`, compiled into the recorder: loading
 * libaccwatch-record.so is what starts LTTng-UST, in torch processes only. */
#define LTTNG_UST_TRACEPOINT_CREATE_PROBES
#define LTTNG_UST_TRACEPOINT_DEFINE
#include "accwatch_tp.h"
