/* SPDX-License-Identifier: MIT */
/* What the check files (checks_*.c) share: evidence helpers, findings
 * pre-filled with an epoch's numbers, and the check functions that the
 * table in checks.c runs. */
#ifndef AW_CHECKS_PRIVATE_H
#define AW_CHECKS_PRIVATE_H

#include <stdbool.h>
#include <stdint.h>

#include "checks.h"
#include "util.h"

/* Per-rank lines of evidence shown at most; the rest is summarized. */
#define AW_EVIDENCE_RANKS 8
/* unsharded: every rank read at least this share (in percent) of the
 * samples the ranks read together in the epoch, beyond the padding
 * allowance: 90 leaves room for the shards' own padding and a rank's early
 * stop, and still tells "each read (nearly) everything" from sharding. */
#define AW_UNSHARDED_PERCENT 90
/* overlap: up to this many ranks, the evidence counts the samples of each
 * pair of ranks (beyond, the list of pairs outgrows what anyone reads). */
#define AW_PAIRWISE_RANKS_MAX 4

double aw_percent(uint64_t part, uint64_t whole);
const char *aw_or_unknown(const char *s);
void aw_add_all_ranks(struct aw_finding *f, const struct aw_epoch *e);
void aw_evidence_more(struct aw_finding *f, const struct aw_epoch *e);
/* The loader's classes and how every rank built a sharding sampler. */
void aw_evidence_sampler(struct aw_finding *f, const struct aw_check_input *in);
/* A finding about in's loader and epoch, with world, batch_size, union and
 * dataset_len among its numbers. */
struct aw_finding *aw_epoch_finding(const struct aw_check_input *in,
				    struct aw_findings *out, const char *id,
				    enum aw_severity severity);
/* Processes of the trace that ran partly unrecorded: not taken by the
 * session daemon in time, or stopped recording at the stall bound (their
 * notes, trace-incomplete). A count found short may be theirs: what rests
 * on such a count is then a warning, never an error. */
size_t aw_partly_unrecorded(const struct aw_model *model);
/* Evidence of a finding resting on counts when some processes ran partly
 * unrecorded (nothing when none did). */
void aw_evidence_unrecorded(struct aw_finding *f, const struct aw_model *model);
/* "L2 (train.py:33)": a loader object named by its global loader. */
const char *aw_loader_name(const struct aw_model *model, uint32_t loader,
			   char *buf, size_t size);
/* Evidence and fix of a finding `id` that rests on a link whose rule is
 * its own (aw_own_rule_link): what it states, and how to say it is meant. */
void aw_evidence_own_rule(struct aw_finding *f, const struct aw_check_input *in,
			  const struct aw_sampler_link *link, const char *id);
/* Evidence and fix of a finding `id` whose samples were read through the
 * index list of a dataset of the program's own (aw_epoch_own_map): the
 * list it was taken from, and that reading through it is assumed (no fix
 * when id is NULL: the finding's own stands). */
void aw_evidence_own_map(struct aw_finding *f,
			 const struct aw_mapping_level *level, const char *id);
/* "Partition.index": the class and the attribute of an own map level. */
const char *aw_own_map_name(const struct aw_mapping_level *level);
/* The k-th loader object of in: of its epoch's passes when it has one
 * (a loader rebuilt every epoch has thousands of objects, the epoch only
 * its ranks'), else of its global loader; NULL past the last. */
const struct aw_loader *aw_input_loader(const struct aw_check_input *in,
					size_t k);
/* A class name without its module: "DistributedSampler". */
const char *aw_short_class(const char *name);
/* "rank 1" or "the ranks 0-3" for a sorted list. */
void aw_format_ranks(const int32_t *ranks, size_t n, struct aw_text *out);
/* The global loader a DataLoader worker served, AW_NONE. */
uint32_t aw_worker_global(const struct aw_model *model,
			  const struct aw_process *w);
/* The epoch of its global loader that pass `iteration` of the worker's
 * rank's loader `loader_id` is (the ids a worker event carries),
 * ACCWATCH_UNKNOWN when not known. */
uint32_t aw_worker_epoch(const struct aw_model *model,
			 const struct aw_process *w, uint32_t loader_id,
			 uint32_t iteration);

/* Whether every rank's loader object of the epoch's loader was built with
 * one sharding rank (*shard): each reads the same shard. */
bool aw_ranks_share_one_shard(const struct aw_check_input *in, int32_t *shard);

/* Whether the epoch's rows count item fingerprints whose repeats are not
 * a replicated stream (items_rate.c): equal items by chance, or drawn with
 * replacement (drawn: only those). */
bool aw_epoch_items_by_chance(const struct aw_check_input *in, bool drawn);

/* Whether the program went through accelerate (a loader it built). */
bool aw_model_uses_accelerate(const struct aw_model *model);

/* checks_sharding.c: per loader and epoch. */
aw_check_fn aw_check_unsharded, aw_check_split_diverged,
    aw_check_order_diverged, aw_check_overlap, aw_check_missing,
    aw_check_padding, aw_check_index_range, aw_check_group_diverged;
/* Whether the sharding checks leave the epoch alone: a dispatched loader
 * whose shares could not be rebuilt, or a remainder read on every rank on
 * purpose (shared-remainder). */
bool aw_unjudgeable(const struct aw_check_input *in);

/* checks_uneven.c: ranks that consumed different numbers of batches. */
aw_check_fn aw_check_uneven_batches;

/* checks_loader.c: loaders, their len() and lineage. */
aw_check_fn aw_check_never_read, aw_check_unused_prepared, aw_check_len,
    aw_check_read_amplification;
/* checks_order.c: the order of the epochs. */
aw_check_fn aw_check_same_order, aw_check_worker_stale_epoch;

/* checks_remainder.c: the remainder a sharded loader left out, read on
 * every rank on purpose. */
aw_check_fn aw_check_shared_remainder;
bool aw_epoch_is_remainder(const struct aw_check_input *in);

/* checks_resume.c: resumed passes and the passes they continue. */
aw_check_fn aw_check_resume_repeats;

/* checks_process.c: forks, DataLoader workers, processes of one rank. */
aw_check_fn aw_check_forks, aw_check_worker_respawn, aw_check_duplicate_rank;

/* checks_exit.c: workers that died or hung, and what the checks of how a
 * process ended share. */
aw_check_fn aw_check_worker_died, aw_check_worker_stuck;
/* "SIGKILL", "a signal" for one not named. */
const char *aw_signal_name(int32_t sig);
/* The signals launchers, schedulers, users and the DataLoader itself stop
 * processes with: the process was stopped, it did not crash. */
bool aw_stop_signal(int32_t sig);
/* "was killed by signal 9 (SIGKILL)" or "exited with status 1" into buf;
 * the finding gets the number. */
void aw_how_ended(struct aw_finding *f, const struct aw_process *p, char *buf,
		  size_t size);
/* Seconds between two readings of the trace clock, -1 if unknown. */
double aw_seconds(int64_t from_ns, int64_t to_ns);
/* " of L0 (train.py:10)", or "" when the loader is unknown. */
void aw_of_loader(const struct aw_model *model, uint32_t global, char *buf,
		  size_t size);

/* checks_rank_exit.c: ranks whose end cut a pass short or came after
 * their data. */
aw_check_fn aw_check_rank_died;

/* checks_trace.c: item fingerprints and the trace itself. */
aw_check_fn aw_check_iterable_duplicate, aw_check_resampled,
    aw_check_trace_incomplete;

#endif
