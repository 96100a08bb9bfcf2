/* SPDX-License-Identifier: MIT */
/* Whether an epoch's repeated items are a replicated stream or draws with
 * replacement, from the fingerprints alone.
 *
 * Drawing with replacement (webdataset's resampled shards, any stream that
 * draws again) gives each draw to any source: an item read by several
 * sources is now and then read twice by one of them, about as often as its
 * draws pair up in one source. A replicated stream hands other sources the
 * same items and no source any item twice. A copy shows as a source whose
 * whole read was also read by the same other sources; its items are the
 * evidence, each on its own, and their chance under drawing with
 * replacement decides. Repeats that are not copies (sources sharing part
 * of what they read) are collisions of draws. The sources of a rank draw
 * from one pool, and ranks that read items in common share theirs: an
 * item's chance is taken among the sources of its pool, so the ranks of a
 * stream split by rank (no item in common) are pools apart. */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "items.h"
#include "util.h"

/* splitmix64's finaliser: a key that changes with every bit of its input. */
static uint64_t aw_mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

/* Which sources read a source's items, while all its items agree. */
struct aw_source_facts {
	uint64_t readers; /* key of the set of sources of its items */
	bool seen, mixed;
};

/* A distinct item read by two sources or more. */
struct aw_repeated_item {
	size_t first; /* its first read in the sorted reads */
	uint32_t reads;
	bool within; /* a source read it twice */
};

/* The end of the run of reads of the item read first at `i`. */
static size_t aw_run_end(const struct aw_item_read *reads, size_t total,
			 size_t i)
{
	size_t j = i;
	while (j < total && reads[j].hash == reads[i].hash)
		j++;
	return j;
}

/* The end of the reads of one item by one source, from `k`. */
static size_t aw_slot_end(const struct aw_item_read *reads, size_t end,
			  size_t k)
{
	size_t j = k;
	while (j < end && reads[j].slot == reads[k].slot)
		j++;
	return j;
}

/* The pool of a source: the root of the sources linked by shared items. */
static size_t aw_pool(size_t *parent, size_t s)
{
	while (parent[s] != s)
		s = parent[s] = parent[parent[s]];
	return s;
}

/* For each run of one item's reads: the pairs inside and across sources,
 * who read it for each of its sources, and the pools its sources join.
 * Returns the repeated items. */
static struct aw_repeated_item *
aw_scan_items(const struct aw_item_read *reads, size_t total,
	      struct aw_source_facts *src, size_t *pool,
	      struct aw_item_rate *out, size_t *n_repeated)
{
	struct aw_repeated_item *rep = NULL;
	size_t n = 0, cap = 0;
	for (size_t i = 0; i < total;) {
		size_t end = aw_run_end(reads, total, i);
		uint64_t readers = 0x6a09e667f3bcc908ULL, squares = 0, t = 0;
		uint32_t sources = 0;
		bool within = false;
		for (size_t k = i; k < end; k = aw_slot_end(reads, end, k)) {
			uint64_t c = aw_slot_end(reads, end, k) - k;
			readers = aw_mix(readers ^ reads[k].slot);
			squares += c * c;
			out->within_pairs += c * (c - 1) / 2;
			within |= c > 1;
			t += c;
			sources++;
		}
		out->across_pairs += (t * t - squares) / 2;
		for (size_t k = i; k < end; k = aw_slot_end(reads, end, k)) {
			struct aw_source_facts *s = &src[reads[k].slot];
			if (s->seen && s->readers != readers)
				s->mixed = true;
			s->seen = true;
			s->readers = readers;
			pool[aw_pool(pool, reads[k].slot)] =
			    aw_pool(pool, reads[i].slot);
		}
		if (sources > 1) {
			AW_GROW(rep, cap, n + 1);
			rep[n++] = (struct aw_repeated_item){
			    .first = i,
			    .reads = (uint32_t)AW_MIN(t, UINT32_MAX),
			    .within = within,
			};
		}
		i = end;
	}
	*n_repeated = n;
	return rep;
}

/* Whether one of the item's sources read nothing but items of these same
 * sources: its whole read is a copy of (part of) theirs. */
static bool aw_item_copied(const struct aw_item_read *reads, size_t total,
			   const struct aw_repeated_item *item,
			   const struct aw_source_facts *src)
{
	size_t end = aw_run_end(reads, total, item->first);
	for (size_t k = item->first; k < end; k = aw_slot_end(reads, end, k))
		if (!src[reads[k].slot].mixed)
			return true;
	return false;
}

/* none[t] = P(t reads, each in source i with probability p_i = its share
 * of the reads, all in different sources) = t! e_t(p), for t <= max_t:
 * the recurrence on g_t = t! e_t stays within [0, 1]. */
static double *aw_distinct_chances(const uint64_t *source_reads, size_t n,
				   uint32_t max_t)
{
	double *g = aw_xcalloc((size_t)max_t + 1, sizeof(*g));
	uint64_t all = 0;
	for (size_t i = 0; i < n; i++)
		all += source_reads[i];
	g[0] = 1.0;
	for (size_t i = 0; i < n && all; i++) {
		double p = (double)source_reads[i] / (double)all;
		for (uint32_t k = max_t; k > 0; k--)
			g[k] += k * p * g[k - 1];
	}
	return g;
}

/* P(at most `seen` successes) of independent trials with `expected`
 * successes on average: exact when none was seen (exp(log_none), the
 * product of each trial's chance of none), else the Chernoff bound, which
 * over-states it: replication is never concluded from the bound's slack. */
static double aw_lower_tail(double log_none, double expected, double seen)
{
	if (seen <= 0)
		return exp(log_none);
	if (seen >= expected)
		return 1.0;
	return exp(-(expected - seen) * (expected - seen) / (2 * expected));
}

/* The chances of aw_distinct_chances among the sources of one pool (the
 * others read none of its items), made once a pool. */
static const double *aw_pool_chances(double **tables, const size_t *pool,
				     size_t root, const uint64_t *source_reads,
				     size_t n_sources, uint32_t max_t)
{
	if (tables[root])
		return tables[root];
	uint64_t *members = aw_xcalloc(n_sources, sizeof(*members));
	size_t m = 0;
	for (size_t s = 0; s < n_sources; s++)
		if (pool[s] == root)
			members[m++] = source_reads[s];
	tables[root] = aw_distinct_chances(members, m, max_t);
	free(members);
	return tables[root];
}

void aw_item_rate_judge(const struct aw_item_read *reads, size_t total,
			const uint64_t *source_reads,
			const int32_t *source_rank, size_t n_sources,
			struct aw_item_rate *out)
{
	memset(out, 0, sizeof(*out));
	size_t slots = n_sources ? n_sources : 1;
	struct aw_source_facts *src = aw_xcalloc(slots, sizeof(*src));
	size_t *pool = aw_xcalloc(slots, sizeof(*pool));
	for (size_t s = 0; s < n_sources; s++) {
		pool[s] = s;
		for (size_t t = 0; t < s; t++)
			if (source_rank[t] == source_rank[s]) {
				pool[s] = aw_pool(pool, t);
				break;
			}
	}
	size_t n_rep = 0;
	struct aw_repeated_item *rep =
	    aw_scan_items(reads, total, src, pool, out, &n_rep);
	for (size_t s = 0; s < n_sources; s++)
		pool[s] = aw_pool(pool, s);
	uint32_t max_t = 0;
	for (size_t i = 0; i < n_rep; i++)
		max_t = AW_MAX(max_t, rep[i].reads);
	max_t = (uint32_t)AW_MIN((size_t)max_t, n_sources);
	double **tables = aw_xcalloc(slots, sizeof(*tables));
	double log_none = 0;
	for (size_t i = 0; i < n_rep; i++) {
		if (!aw_item_copied(reads, total, &rep[i], src))
			continue;
		const double *none = aw_pool_chances(
		    tables, pool, pool[reads[rep[i].first].slot], source_reads,
		    n_sources, max_t);
		/* more reads than sources: some source read it twice */
		double p = rep[i].reads <= max_t ? none[rep[i].reads] : 0.0;
		out->copied_items++;
		out->copied_repeated += rep[i].within;
		out->copied_expected += 1.0 - p;
		log_none += log(p);
	}
	out->copied_chance = aw_lower_tail(log_none, out->copied_expected,
					   (double)out->copied_repeated);
	if (out->across_pairs == 0)
		out->verdict = AW_REPEATS_NONE;
	else if (out->copied_chance < AW_ITEM_CHANCE_LIMIT)
		out->verdict = AW_REPEATS_REPLICATED;
	else if (out->within_pairs > 0)
		out->verdict = AW_REPEATS_DRAWN;
	else
		out->verdict = AW_REPEATS_CHANCE;
	for (size_t s = 0; s < n_sources; s++)
		free(tables[s]);
	free(tables);
	free(pool);
	free(rep);
	free(src);
}
