/* SPDX-License-Identifier: MIT */
/* The answers to a debugging session's questions, read from the watch
 * (watch.h) and the finished model: where sample N was read (--sample), the
 * indices one rank consumed in one epoch (--rank/--epoch), and which loaders
 * --loader keeps. */
#ifndef AW_ANSWERS_H
#define AW_ANSWERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "findings.h"
#include "model.h"
#include "watch.h"

/* Whether --loader keeps this global loader; every one is kept when watch
 * is NULL (no question asked) or has no --loader. */
bool aw_answers_loader_shown(const struct aw_model *model,
			     const struct aw_query_watch *watch,
			     uint32_t global);
/* How many global loaders --loader keeps (all without it). */
size_t aw_answers_loaders_shown(const struct aw_model *model,
				const struct aw_query_watch *watch);
/* Drops the findings about loaders --loader does not keep; findings about
 * no loader stay. */
void aw_answers_filter_findings(const struct aw_model *model,
				const struct aw_query_watch *watch,
				struct aw_findings *findings);

/* One read of the sample, resolved. */
struct aw_answer_read {
	const struct aw_hit *hit;
	uint32_t global; /* AW_NONE: loader unknown */
	uint32_t epoch;  /* of the global loader, ACCWATCH_UNKNOWN */
	int32_t rank;    /* the rank it counts for (the receiving one) */
	int32_t pid;
};

/* The reads of --sample, sorted by loader, epoch, rank, kind; the caller
 * frees the array. Loaders --loader does not keep are left out. */
struct aw_answer_read *
aw_answers_sample_reads(const struct aw_model *model,
			const struct aw_query_watch *watch, size_t *n);

/* One kept sequence: what `rank` consumed in the epoch over a loader. */
struct aw_answer_sequence {
	const struct aw_sequence *sequence;
	uint32_t global;
	int32_t rank;
	int32_t pid;
	bool rebuilt; /* the dispatcher's share, cut from rank 0's reads */
};

/* The sequences of --rank/--epoch (caller frees the array). */
struct aw_answer_sequence *
aw_answers_sequences(const struct aw_model *model,
		     const struct aw_query_watch *watch, size_t *n);

const char *aw_read_kind_name(enum aw_read_kind kind);

#endif
