/* SPDX-License-Identifier: MIT */
/* The checks of the README's findings table (docs/findings.md): a table of
 * functions, each reading the finished model and adding findings. A new finding
 * is one function and one line in that table (checks.c).
 *
 * The rules (W ranks of the epoch, N dataset_len, B batch_size or the
 * longest batch; "full epoch" = every loop ran to the end of its sampler):
 *   unsharded        W >= 2, every rank's distinct >= 90% of the union, and
 *                    cross-rank duplicates > W*B-1
 *   order-diverged   DistributedSampler(shuffle) on every rank, ranks began
 *                    the epoch with different seed or set_epoch, and more
 *                    cross-rank duplicates than the padding (not overlap
 *                    nor missing then: one cause)
 *   split-diverged   DistributedSampler on every rank over index maps
 *                    (Subset, random_split) that differ between ranks
 *                    (not overlap, missing nor order-diverged then)
 *   overlap          cross-rank duplicates > W*B-1, not unsharded
 *   padding (info)   0 < cross-rank duplicates <= W*B-1
 *   missing          full epoch, N - |union in [0,N)| > drop allowance; or
 *                    every rank reads through an index map, the maps
 *                    differ, and their union leaves samples of the base
 *                    unread whatever is drawn: an error for those inside
 *                    what the maps are cut from (the innermost levels all
 *                    maps have alike, else the whole base), a warning
 *                    when only the rest of such a shared part is left
 *                    (N is then the base's length: coverage of the base)
 *   uneven-batches   the ranks whose sampler ran out differ in batches, or
 *                    a rank still going consumed more than one of them;
 *                    info when every rank drew them inside an enabled Join
 *                    and left it, or every rank's sharding link states its
 *                    own share (num_samples; the shares differ and sum to
 *                    total_size, the length it shards) and the rank read
 *                    it all; either with no rank ended by a signal or a
 *                    status > 0 (nor, by design, a pass without iter_end)
 *   index-range      an index >= N, or < 0
 *   iterable-duplicate  item fingerprints read by >1 source (worker or
 *                    main process) of the epoch: more than W*B-1 for
 *                    IterableDatasetShard (else 0), where a source's
 *                    whole read was read by the same other sources (a
 *                    copy), and fewer of those items read twice inside
 *                    one source than drawing with replacement gives, at a
 *                    chance < 1e-6 (items_rate.c)
 *   resampled (info) items read by >1 source, not iterable-duplicate, and
 *                    sources read items twice themselves (draws with
 *                    replacement): then not overlap nor unsharded either;
 *                    equal items without that are chance: not overlap
 *   same-order       shuffle=1, one rank, consecutive epochs (of one
 *                    loader object, or of the ones built per epoch around
 *                    one sampler: model.h): equal xxh64 of the consumed
 *                    sequence, equal and >= 2 samples
 *   never-read       >= 2 epochs, every one partial (not exhausted), and
 *                    together they read no sample the widest did not:
 *                    the rest of [0, N) is never read in the run
 *   unused-prepared  a rank iterated its own unsharded loader U; a sharding
 *                    loader S over the same dataset object (or prepared
 *                    from U), built after U, was never iterated by it
 *   stale-len        len() = L of a loader the rank never iterated; the
 *                    loader it iterated over the same dataset ran != L
 *                    batches in every full epoch
 *   len-mismatch     len() = L of an iterated loader (an outer loader's
 *                    passes are its inner's) != batches of every full epoch
 *   fork-threads     fork (no exec after) with threads > 1, one of them
 *                    named unlike the main thread
 *   fork-cuda        fork (no exec after) with the CUDA driver mapped
 *   worker-respawn   num_workers > 0, workers of one rank's loader started
 *                    in >= 2 epochs: persistent_workers not True, or its
 *                    epochs came from several loader objects (a new
 *                    DataLoader per epoch starts its own, persistent or not)
 *   duplicate-rank   >= 2 processes that iterated gave themselves one rank
 *                    (not inferred) and ran at the same time by the trace
 *                    clock (a restart, one after the other, adds up)
 *   worker-died      a worker's exit: signal > 0 other than SIGTERM, SIGINT,
 *                    SIGHUP (how launchers and the DataLoader stop them),
 *                    or status > 0; says whether its last fetch was open
 *   worker-stuck     a worker's last worker_fetch has no worker_fetch_end
 *                    (the trace's recorder has that event), the worker did
 *                    not crash (that is worker-died) and the fetch was open
 *                    >= 2 s until its exit or the end of the trace (when
 *                    the trace has a clock); none when events were lost
 *   rank-died        a rank (not a worker, rank >= 0) exited by a signal or
 *                    with status > 0 while a pass of its had no iter_end
 *                    (its exit is known only when its parent is traced);
 *                    ranks stopped by SIGTERM, SIGINT or SIGHUP are
 *                    evidence of the first crashed rank's finding, or
 *                    without one share a single finding
 *   trace-incomplete discarded events or packets, a read error, or a pass
 *                    without iter_end whose process has no exit
 * Dispatched loaders are judged on the ranks' shares rebuilt from rank 0's
 * reads; when they cannot be rebuilt, the sharding rules stay silent. */
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
	bool promised; /* false: sampling with replacement */
	bool derived;
};
struct aw_coverage aw_epoch_coverage(const struct aw_check_input *in);

/* The sharding link of a loader's chain (DistributedSampler's indices,
 * BatchSamplerShard's batches), NULL when none. */
const struct aw_sampler_link *aw_shard_link(const struct aw_loader *d);
/* The link whose permutation a sharding link cuts the ranks' shares from:
 * the sharding link itself when it shuffles (DistributedSampler), or a
 * shuffling link below it (a RandomSampler under accelerate's
 * BatchSamplerShard); NULL when the chain shards nothing shuffled. */
const struct aw_sampler_link *aw_shuffling_link(const struct aw_loader *d);
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
 * more cross-rank duplicates than the epoch's padding. */
bool aw_epoch_unsharded(const struct aw_check_input *in);

#endif
