/* SPDX-License-Identifier: MIT */
/* The questions of a debugging session as an observer of the model: while
 * events come, it keeps the reads of --sample and the sequence --rank/--epoch
 * asks for, and nothing when neither was asked. main.c installs it; the
 * answers (answers.h) read it with the finished model. */
#ifndef AW_WATCH_H
#define AW_WATCH_H

#include <stddef.h>
#include <stdint.h>

#include "observer.h"
#include "query.h"

/* The sequence kept for one iteration. */
struct aw_kept_sequence {
	uint32_t iteration; /* index in model->iterations */
	struct aw_sequence sequence;
};

struct aw_query_watch {
	struct aw_query query;
	struct aw_query_results hits;  /* --sample */
	struct aw_kept_sequence *kept; /* --rank/--epoch */
	size_t n_kept, kept_cap;
	size_t last_kept; /* the one found last: batches come in runs */
};

void aw_query_watch_init(struct aw_query_watch *watch,
			 const struct aw_query *query);
void aw_query_watch_fini(struct aw_query_watch *watch);
/* The observer to install in the model (aw_model_observe); it refers to
 * watch, which must outlive the model's intake. */
struct aw_model_observer aw_query_watch_observer(struct aw_query_watch *watch);

#endif
