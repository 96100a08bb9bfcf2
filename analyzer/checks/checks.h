/* SPDX-License-Identifier: MIT */
/* The checks: one table (checks.c) of finding ids, each with its
 * severities, a summary and the function that reads the finished model and
 * adds its findings. Each rule, in terms of the recorded facts, is in
 * docs/findings.md; what it means to a user in the README's findings table
 * (a unit test compares that table with this one). A new finding is its
 * table row, its function (checks_private.h, a checks_*.c), its README row
 * and its docs/findings.md section. Dispatched loaders are judged on the
 * ranks' shares rebuilt from rank 0's reads; when they cannot be rebuilt,
 * the sharding rules stay silent. */
#ifndef AW_CHECKS_H
#define AW_CHECKS_H

#include <stdbool.h>
#include <stdint.h>

#include "findings.h"
#include "model.h"

/* What a check is called for. */
enum aw_check_scope {
	/* once per loader and epoch: one cell per data-parallel group when
	 * the epoch has groups (groups.h), sharding is judged on those */
	AW_CHECK_EPOCH,
	AW_CHECK_RANKS,  /* once per loader and epoch, one cell per rank */
	AW_CHECK_LOADER, /* once per loader (epoch is NULL) */
	AW_CHECK_TRACE,  /* once (loader, desc and epoch are NULL) */
};

struct aw_check_input {
	const struct aw_model *model;
	const struct aw_global_loader *loader;
	const struct aw_loader *desc; /* the loader's description */
	uint32_t loader_index;        /* into model->loaders_global */
	const struct aw_epoch *epoch;
	uint64_t world; /* W: ranks that iterated the loader in this epoch */
	/* B: the loader's batch_size, else its longest batch. */
	uint64_t batch_size;
};

/* A check: reads in, adds what it finds to out. */
typedef void aw_check_fn(const struct aw_check_input *in,
			 struct aw_findings *out);

/* A severity's bit in aw_check.severities. */
#define AW_SEV(name) (1u << AW_SEVERITY_##name)

/* One finding id: the severities its findings may have, what it says in a
 * few words (SARIF's rule description), and the check that adds it; a check
 * adding two ids (a family) is listed under the first, the second's run is
 * NULL. The one list of finding ids: --help, suppressions, SARIF and the
 * README's table (a test compares) take it from here. */
struct aw_check {
	const char *id;
	unsigned severities;
	const char *summary;
	enum aw_check_scope scope;
	aw_check_fn *run;
};

/* Runs every check of the table over the model (finished), then sorts. */
void aw_checks_run(const struct aw_model *model, struct aw_findings *out);
/* The finding ids of the table, i from 0 (NULL past the last): every id a
 * finding may have. */
const char *aw_checks_finding_id(size_t i);
/* The table's entry of id, NULL when it has none. */
const struct aw_check *aw_checks_find(const char *id);
/* Whether id is one of them. */
bool aw_checks_known_id(const char *id);

/* The rules' numbers, for the tests and the report. */

/* Reads of samples another rank also read (cross-rank duplicates) that
 * DistributedSampler's padding or accelerate's even_batches can cause: both
 * complete the last round so that each of W ranks gets the same number of
 * batches of B, adding fewer than W*B samples. Allowance: W*B - 1; 0 if W < 2.
 */
uint64_t aw_padding_allowance(uint64_t world, uint64_t batch_size);
/* Samples drop_last may leave unread in one epoch. With drop_last on the
 * loader (or unknown): W*B - 1, the worst of DataLoader(drop_last) dropping
 * B-1 per rank plus DistributedSampler(drop_last) dropping W-1, and of
 * accelerate's BatchSamplerShard dropping its last partial round of up to
 * W-1 full batches plus the last partial batch; the same for accelerate's
 * dispatcher with drop_last (its last partial step). Without it: replicas - 1
 * when the sampler is a DistributedSampler (its own drop_last is not traced),
 * else 0. */
uint64_t aw_drop_allowance(const struct aw_loader *desc, uint64_t world,
			   uint64_t batch_size);
/* The repeated samples the data path adds to an epoch on purpose, from
 * the loader's recorded facts: accelerate's dispatcher (its replay knows
 * how many it gave again), else the sharding links of the sampler chain:
 * DistributedSampler(drop_last=False) W*ceil(N/W) - N, accelerate's
 * even_batches ceil(nb/W)*W*B - N (nb batches of B over N), none with
 * drop_last; nothing else pads. Without a recorded chain (an older
 * recorder) it is the allowance W*B-1 and `derived` is false. */
struct aw_padding {
	uint64_t samples;               /* all of it */
	uint64_t sampler, even_batches; /* its parts, when derived */
	/* The sharding link whose stated total_size the sampler part comes
	 * from when its rule is not DistributedSampler's ceil(N/W), NULL. */
	const struct aw_sampler_link *stated;
	bool shards; /* the chain has a sharding link (padding or not) */
	bool dispatcher;
	bool derived;
};
struct aw_padding aw_epoch_padding(const struct aw_check_input *in);

/* The samples of an epoch the data path leaves unread on purpose, from the
 * sampler chain, innermost link out: a sampler drawing fewer than it is
 * given (a subset's len, num_samples), DistributedSampler(drop_last) N mod
 * W, a batch sampler's drop_last the rest of its last batch per rank,
 * accelerate's BatchSamplerShard(drop_last) its last incomplete round, a
 * skipping batch sampler (skip_batches) its skipped batches, and a batch
 * sampler of the user's (its rule unknown) one batch per rank. A link
 * drawing with replacement promises no coverage. Without a chain, or for
 * accelerate's dispatcher, aw_drop_allowance and `derived` false. */
struct aw_coverage {
	uint64_t left_out; /* all of it */
	uint64_t by_subset, by_drop_last, by_skip, by_unknown_batches;
	/* A skipping link's samples per stream, and the streams it counted
	 * them for. */
	uint64_t skip_each, skip_streams;
	bool promised; /* false: sampling with replacement */
	bool derived;
};
struct aw_coverage aw_epoch_coverage(const struct aw_check_input *in);

/* The sharding link of a loader's chain (DistributedSampler's indices,
 * BatchSamplerShard's batches), NULL when none. */
const struct aw_sampler_link *aw_shard_link(const struct aw_loader *d);
/* How many link i of the chain draws from: the len() of the link below
 * it, the dataset's length under the innermost; -1 unknown. */
int64_t aw_link_below(const struct aw_loader *d, uint32_t i);
/* The first link of the chain whose rule the report does not know: it
 * draws with code of its own (the program's, or a package's the report
 * does not model) and its numbers state no plain rule (a sharding link
 * DistributedSampler's split, another a len() of all it draws from); NULL
 * when there is none. A verdict on what such a chain reads rests on that
 * rule. */
const struct aw_sampler_link *aw_own_rule_link(const struct aw_loader *d);
/* aw_own_rule_link, or a link of its own that states DistributedSampler's
 * split while a rank that ran the epoch to its end read another count
 * than its num_samples: what it yields is not what it states. */
const struct aw_sampler_link *
aw_epoch_own_rule_link(const struct aw_check_input *in);
/* The outermost index map level of the epoch's ranks read from a dataset
 * of the program's own (aw_mapping_own), NULL when none is: a verdict on
 * the samples below it rests on that dataset reading through it. */
const struct aw_mapping_level *
aw_epoch_own_map(const struct aw_check_input *in);
/* The link whose permutation a sharding link cuts the ranks' shares from:
 * the sharding link itself when it shuffles (DistributedSampler), or a
 * shuffling link below it (a RandomSampler under accelerate's
 * BatchSamplerShard); NULL when the chain shards nothing shuffled. */
const struct aw_sampler_link *aw_shuffling_link(const struct aw_loader *d);
/* The ranks' sharding links state shares of one total that differ and add
 * up to it once (uneven by design, as uneven-batches' rule reads them),
 * whatever the ranks then read. */
bool aw_epoch_stated_uneven(const struct aw_model *model,
			    const struct aw_epoch *e);
/* Ranks whose shuffling link must share one permutation began the epoch
 * with different seeds or set_epoch values (*a and *b two of them), and
 * share more samples than the padding: their shards overlap and leave
 * gaps, one cause for both. */
bool aw_epoch_order_diverged(const struct aw_check_input *in,
			     const struct aw_cell **a,
			     const struct aw_cell **b);
/* Two ranks of the epoch (*a, *b) read it through index maps that differ:
 * each holds its own part of the data (Subset, ConcatDataset, HF shard). */
bool aw_epoch_maps_differ(const struct aw_check_input *in,
			  const struct aw_cell **a, const struct aw_cell **b);
/* Ranks whose DistributedSampler expects one dataset on every rank hold
 * different subsets of the data (index maps that differ: random_split
 * without a shared generator, say; *a and *b two of them). */
bool aw_epoch_split_diverged(const struct aw_check_input *in,
			     const struct aw_cell **a,
			     const struct aw_cell **b);

/* Every rank consumed at least 90% of the epoch's union, with W >= 2 and
 * more cross-rank duplicates than the epoch's padding; or the epoch was
 * cut short (a rank's pass never ended) and the ranks go through one
 * sequence (aw_epoch_one_sequence); or no rank's chain splits and they
 * already share samples (aw_epoch_unsplit_sharing). */
bool aw_epoch_unsharded(const struct aw_check_input *in);
/* Every rank (W >= 2) has one pass in the epoch over a map-style dataset
 * without index maps, no link of its chain splits the data, draws with
 * replacement or draws with code of its own (which may split by a rule
 * it does not state), and its innermost link's len() is the dataset's:
 * each draws from the whole dataset. */
bool aw_epoch_unsplit(const struct aw_check_input *in);
/* aw_epoch_unsplit, and the ranks read more samples in common than the
 * epoch's padding: each reads from the whole dataset, in whatever order
 * and however far it got (each rank its own permutation, a loop stopped
 * early). */
bool aw_epoch_unsplit_sharing(const struct aw_check_input *in);
/* Every rank (W >= 2) has one pass in the epoch over a map-style dataset
 * without index maps, no link of its chain splits the data or draws with
 * replacement, and all drew the same first batch with the same seed and
 * sampler epoch: each goes through the sequence every other one does. */
bool aw_epoch_one_sequence(const struct aw_check_input *in);
/* A rank's pass the epoch was cut short in: it never ended (the trace ended
 * inside it), or its process's uncaught exception or a signal ended it
 * there; NULL when none was. */
const struct aw_cell *aw_epoch_cut(const struct aw_model *model,
				   const struct aw_epoch *e);

#endif
