/* SPDX-License-Identifier: MIT */
/* What the ranks read against the dataset's bounds, per loader and
 * epoch: indices outside [0, N) (index-range). */
#include <inttypes.h>
#include <stdio.h>

#include "checks_private.h"
#include "util.h"

/* The length indices are judged against: the dataset at the bottom of the
 * loader's index maps, else its own. */
static int64_t aw_universe(const struct aw_check_input *in)
{
	return in->epoch->mapped ? in->epoch->base_len : in->desc->dataset_len;
}

/* The distinct indices a rank read at or above len(dataset), 0 when the
 * length is unknown. */
static uint64_t aw_distinct_above(int64_t n, const struct aw_cell *cell)
{
	if (n < 0)
		return 0;
	return cell->unique -
	       aw_sample_set_unique_below(cell->set, (uint64_t)n);
}

/* Indices outside [0, N): read, but not samples of this dataset. */
void aw_check_index_range(const struct aw_check_input *in,
			  struct aw_findings *out)
{
	const struct aw_epoch *e = in->epoch;
	const struct aw_loader *d = in->desc;
	int64_t n = aw_universe(in);
	if (d->iterable)
		return;
	uint64_t beyond = 0, bad_reads = 0;
	for (size_t c = 0; c < e->n_cells; c++) {
		const struct aw_cell *cell = &e->cells[c];
		beyond += aw_distinct_above(n, cell);
		bad_reads += cell->set->unrepresentable;
	}
	if (beyond == 0 && bad_reads == 0)
		return;
	struct aw_finding *f =
	    aw_epoch_finding(in, out, "index-range", AW_SEVERITY_ERROR);
	aw_finding_add_integer(f, "out_of_range", (int64_t)e->out_of_range);
	aw_finding_add_integer(f, "unrepresentable", (int64_t)bad_reads);
	char bound[64];
	if (n >= 0)
		snprintf(bound, sizeof(bound), "[0, %" PRId64 ")", n);
	else
		snprintf(bound, sizeof(bound), "[0, 2^63)");
	for (size_t c = 0, shown = 0; c < e->n_cells; c++) {
		const struct aw_cell *cell = &e->cells[c];
		uint64_t above[4];
		size_t n_above = n >= 0 ? aw_sample_set_at_or_above(
					      cell->set, (uint64_t)n, above, 4)
					: 0;
		if (!n_above && !cell->set->unrepresentable)
			continue;
		aw_finding_add_rank(f, cell->rank);
		if (shown++ >= AW_EVIDENCE_RANKS)
			continue;
		char examples[160] = "";
		size_t used = 0;
		for (size_t i = 0; i < n_above; i++)
			used += (size_t)snprintf(
			    examples + used, sizeof(examples) - used,
			    "%s%" PRIu64, used ? ", " : "", above[i]);
		for (uint32_t i = 0; i < cell->set->n_examples; i++)
			used += (size_t)snprintf(examples + used,
						 sizeof(examples) - used,
						 "%s%" PRId64, used ? ", " : "",
						 cell->set->examples[i]);
		uint64_t distinct_above = aw_distinct_above(n, cell);
		if (cell->set->unrepresentable)
			aw_finding_add_evidence(
			    f,
			    "rank %d: %" PRIu64 " distinct index%s >= %s, "
			    "%" PRIu64 " read%s of negative ones "
			    "(e.g. %s)",
			    cell->rank, distinct_above,
			    distinct_above == 1 ? "" : "es",
			    n >= 0 ? "len(dataset)" : "2^63",
			    cell->set->unrepresentable,
			    cell->set->unrepresentable == 1 ? "" : "s",
			    examples);
		else
			aw_finding_add_evidence(
			    f,
			    "rank %d: %" PRIu64 " distinct index%s >= "
			    "len(dataset) (e.g. %s)",
			    cell->rank, distinct_above,
			    distinct_above == 1 ? "" : "es", examples);
	}
	char above_part[96] = "", bad_part[96] = "";
	if (beyond)
		snprintf(above_part, sizeof(above_part),
			 "%" PRIu64 " distinct index%s >= len(dataset)", beyond,
			 beyond == 1 ? "" : "es");
	if (bad_reads)
		snprintf(bad_part, sizeof(bad_part),
			 "%" PRIu64 " read%s of negative indices", bad_reads,
			 bad_reads == 1 ? "" : "s");
	aw_finding_set_message(
	    f,
	    "indices outside %s were read in epoch %u: %s%s%s; they are not "
	    "samples of this dataset (an IndexError, or silently another "
	    "sample when the dataset wraps indices)",
	    bound, e->epoch, above_part, beyond && bad_reads ? " and " : "",
	    bad_part);
	aw_finding_set_fix(
	    f,
	    "keep every index in %s: check the sampler's bounds (an "
	    "inclusive end where an exclusive one was meant?) and that "
	    "len(dataset) matches the data it serves",
	    bound);
}
