/* SPDX-License-Identifier: MIT */
/* Between the model's event handlers (model.c) and those of the worker
 * events (model_fetch.c): not for the checks. */
#ifndef AW_MODEL_EVENTS_H
#define AW_MODEL_EVENTS_H

#include "event.h"
#include "model.h"

/* Keeps a known value: later events may know less than earlier ones. */
void aw_model_set_known(int32_t *field, int32_t value);
/* The iteration `ordinal` of a loader object, made at its first event. */
uint32_t aw_model_iteration(struct aw_model *model, uint32_t loader,
			    uint32_t ordinal);

/* The handlers of the worker events (model_fetch.c). */
void aw_take_worker_start(struct aw_model *model, uint32_t process,
			  const struct aw_event *event);
void aw_take_worker_fetch(struct aw_model *model, uint32_t process,
			  const struct aw_event *event);
void aw_take_item_fetch(struct aw_model *model, uint32_t process,
			const struct aw_event *event);
void aw_take_worker_fetch_end(struct aw_model *model, uint32_t process,
			      const struct aw_event *event);

#endif
