/* SPDX-License-Identifier: MIT */
/* The index maps below a loader's dataset (dataset_map events): what turns
 * the positions its sampler draws into indices of the dataset at the bottom
 * (torch's Subset and random_split, a HF datasets.Dataset after shard,
 * select or shuffle), so that ranks are compared on the samples themselves. */
#ifndef AW_MAPPING_H
#define AW_MAPPING_H

#include <stdbool.h>
#include <stdint.h>

#include "event.h"
#include "sample_set.h"

/* Levels kept, and entries kept at most over all the maps of a trace (the
 * recorder sends up to 2^24 per map): a map beyond it is left out, its
 * loader's positions counted as they are. */
#define AW_MAPPING_LEVELS_MAX 4
#define AW_MAPPING_ENTRIES_MAX (1u << 26)
/* An entry no part of the map told (no index: they are at most INT64_MAX). */
#define AW_UNMAPPED UINT64_MAX

struct aw_mapping_level {
	uint64_t *to; /* position -> position below, AW_UNMAPPED */
	uint32_t n;
	int64_t base_len; /* of the dataset below, -1 unknown */
	/* Made by HF datasets (an indices mapping: select, shuffle,
	 * train_test_split), whose permutations take a seed= argument. */
	bool datasets;
	/* Read from a dataset of the program's own ("<class>.<attribute>"
	 * of the list it keeps), NULL for a framework's: that its
	 * __getitem__ reads through the list is assumed. */
	char *own;
};

/* Outermost first; owned by its loader, on the heap (iterations point at
 * it while the loaders array moves). */
struct aw_mapping {
	struct aw_mapping_level levels[AW_MAPPING_LEVELS_MAX];
	uint32_t n_levels;
};

/* Takes one dataset_map or dataset_map_wide part; a new level's entries
 * come out of *budget (false: it did not fit, the part is left out). */
bool aw_mapping_add(struct aw_mapping *m, const struct aw_event *event,
		    uint64_t *budget);
void aw_mapping_free(struct aw_mapping *m);
/* The bottom index of a position, AW_UNMAPPED when a level lacks it. */
uint64_t aw_mapping_apply(const struct aw_mapping *m, uint64_t position);
/* Adds the image of every position of the top level to out. */
void aw_mapping_image(const struct aw_mapping *m, struct aw_sample_set *out);
/* The image of every position of level `from` through that level and the
 * ones below it (from 0: aw_mapping_image). */
void aw_mapping_image_from(const struct aw_mapping *m, uint32_t from,
			   struct aw_sample_set *out);
/* How many innermost levels a and b have alike (the same entries into
 * datasets of the same length): a dataset both cut their own part out
 * of, made the same way in both (a split every rank made alike). */
uint32_t aw_mapping_common_levels(const struct aw_mapping *a,
				  const struct aw_mapping *b);
/* The outermost level of a that b does not have alike (the cut where two
 * ranks' maps part), NULL when they are alike all the way. */
const struct aw_mapping_level *aw_mapping_parting(const struct aw_mapping *a,
						  const struct aw_mapping *b);
/* The outermost level read from a dataset of the program's own, NULL
 * when none is. */
const struct aw_mapping_level *aw_mapping_own(const struct aw_mapping *m);
/* Whether two maps send every position to the same index. */
bool aw_mapping_equal(const struct aw_mapping *a, const struct aw_mapping *b);
/* The length of the dataset at the bottom, -1 unknown. */
int64_t aw_mapping_base_len(const struct aw_mapping *m);

#endif
