/* SPDX-License-Identifier: MIT */
/* Storage for the answers to --sample and --rank/--epoch: a capped list of
 * reads of one sample, and sequences of consumed indices. */
#include "query.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

void aw_query_results_fini(struct aw_query_results *results)
{
	free(results->hits);
	memset(results, 0, sizeof(*results));
}

void aw_query_results_add(struct aw_query_results *results,
			  const struct aw_hit *hit)
{
	if (results->n_hits >= AW_QUERY_HITS_MAX) {
		results->hits_dropped++;
		return;
	}
	AW_GROW(results->hits, results->hits_cap, results->n_hits + 1);
	results->hits[results->n_hits++] = *hit;
}

void aw_sequence_fini(struct aw_sequence *sequence)
{
	free(sequence->indices);
	free(sequence->batch_ends);
	memset(sequence, 0, sizeof(*sequence));
}

void aw_sequence_add_batch(struct aw_sequence *sequence,
			   const uint32_t *indices, const int64_t *wide,
			   size_t count)
{
	AW_GROW(sequence->indices, sequence->cap, sequence->n + count);
	for (size_t i = 0; i < count; i++)
		sequence->indices[sequence->n + i] =
		    wide ? wide[i] : (int64_t)indices[i];
	sequence->n += count;
	AW_GROW(sequence->batch_ends, sequence->batches_cap,
		sequence->n_batches + 1);
	sequence->batch_ends[sequence->n_batches++] = sequence->n;
}

bool aw_query_loader_matches(const char *wanted, const char *id,
			     const char *site)
{
	if (!wanted || !*wanted)
		return true;
	if (id && strcmp(wanted, id) == 0)
		return true;
	if (!site)
		return false;
	size_t n = strlen(wanted), m = strlen(site);
	if (n > m || strcmp(site + m - n, wanted) != 0)
		return false;
	/* A whole path component: "in.py:3" must not match "train.py:3". */
	return n == m || site[m - n - 1] == '/';
}
