/* SPDX-License-Identifier: MIT */
/* Helpers of the checks: numbers and names as the findings print them. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "accwatch_events.h"
#include "checks_private.h"
#include "lineage.h"
#include "util.h"

double aw_percent(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

const char *aw_or_unknown(const char *s)
{
	return s && *s ? s : "?";
}

void aw_add_all_ranks(struct aw_finding *f, const struct aw_epoch *e)
{
	for (size_t c = 0; c < e->n_cells; c++)
		aw_finding_add_rank(f, e->cells[c].rank);
}

void aw_evidence_more(struct aw_finding *f, const struct aw_epoch *e)
{
	if (e->n_cells > AW_EVIDENCE_RANKS)
		aw_finding_add_evidence(
		    f, "... and %zu more ranks (see the table)",
		    e->n_cells - AW_EVIDENCE_RANKS);
}

/* The loader's classes and, for a sharding sampler, how every rank built it:
 * the same rank= on all ranks is the classic copy-paste bug. */
/* The first sharding link of a loader's chain, NULL when none. */
static const struct aw_sampler_link *aw_sharding_link(const struct aw_loader *l)
{
	for (uint32_t i = 0; i < l->n_chain; i++)
		if (l->chain[i].seen && l->chain[i].num_replicas >= 1 &&
		    l->chain[i].rank >= 0)
			return &l->chain[i];
	return NULL;
}

/* The sharding rank a loader object's sampler was built with, -1 none. */
static int32_t aw_built_shard(const struct aw_loader *l)
{
	const struct aw_sampler_link *link = aw_sharding_link(l);
	if (link)
		return link->rank;
	return l->sampler_replicas > 0 ? l->sampler_rank : -1;
}

const struct aw_loader *aw_input_loader(const struct aw_check_input *in,
					size_t k)
{
	const struct aw_model *model = in->model;
	if (!in->epoch)
		return k < in->loader->n_members
			   ? &model->loaders[in->loader->members[k]]
			   : NULL;
	if (k >= in->epoch->n_cells)
		return NULL;
	return in->epoch->cells[k].iteration < model->n_iterations
		   ? aw_model_cell_loader(model, &in->epoch->cells[k])
		   : &model->loaders[in->loader->members[0]];
}

bool aw_ranks_share_one_shard(const struct aw_check_input *in, int32_t *shard)
{
	size_t ranks = 0;
	bool all_same = true;
	*shard = -1;
	const struct aw_loader *l;
	for (size_t k = 0; (l = aw_input_loader(in, k)); k++) {
		const struct aw_process *p = &in->model->processes[l->process];
		int32_t built = aw_built_shard(l);
		if (p->is_worker || p->rank < 0 || !l->described || built < 0)
			continue;
		if (ranks++ == 0)
			*shard = built;
		all_same &= built == *shard;
	}
	return ranks > 1 && all_same;
}

void aw_evidence_sampler(struct aw_finding *f, const struct aw_check_input *in)
{
	const struct aw_loader *d = in->desc;
	if (d->n_chain) {
		struct aw_text chain = {0};
		aw_sampler_chain_text(d, &chain);
		aw_finding_add_evidence(f, "loader %s, sampler chain %s",
					aw_or_unknown(d->loader_class),
					aw_text_str(&chain));
		aw_text_fini(&chain);
	} else {
		aw_finding_add_evidence(
		    f, "loader %s, sampler %s, batch_sampler %s%s",
		    aw_or_unknown(d->loader_class),
		    aw_or_unknown(d->sampler_class),
		    aw_or_unknown(d->batch_sampler_class),
		    d->sampler_replicas > 0 ? " (sharding sampler)" : "");
	}
	int32_t shard;
	if (aw_ranks_share_one_shard(in, &shard)) {
		const struct aw_sampler_link *link = aw_sharding_link(d);
		aw_finding_add_evidence(
		    f,
		    "every rank built its sampler with num_replicas=%d, "
		    "rank=%d: the same shard everywhere",
		    link ? link->num_replicas : d->sampler_replicas, shard);
	}
}

struct aw_finding *aw_epoch_finding(const struct aw_check_input *in,
				    struct aw_findings *out, const char *id,
				    enum aw_severity severity)
{
	struct aw_finding *f = aw_findings_add(
	    out, id, severity, in->loader_index, in->epoch->epoch);
	aw_finding_add_integer(f, "world", (int64_t)in->world);
	aw_finding_add_integer(f, "batch_size", (int64_t)in->batch_size);
	aw_finding_add_integer(f, "union", (int64_t)in->epoch->union_count);
	if (in->desc->dataset_len >= 0)
		aw_finding_add_integer(f, "dataset_len", in->desc->dataset_len);
	return f;
}

size_t aw_partly_unrecorded(const struct aw_model *model)
{
	return model->stats.n_unregistered + model->stats.n_stalls;
}

void aw_evidence_unrecorded(struct aw_finding *f, const struct aw_model *model)
{
	size_t n = aw_partly_unrecorded(model);
	if (n)
		aw_finding_add_evidence(
		    f,
		    "%zu process%s of the run ran partly unrecorded (see "
		    "trace-incomplete): what %s read there may be what is "
		    "short here, so this is not said as an error",
		    n, n == 1 ? "" : "es", n == 1 ? "it" : "they");
}

const char *aw_loader_name(const struct aw_model *model, uint32_t loader,
			   char *buf, size_t size)
{
	const struct aw_loader *l = &model->loaders[loader];
	const struct aw_global_loader *g =
	    l->global < model->n_loaders_global
		? &model->loaders_global[l->global]
		: NULL;
	if (!g) {
		snprintf(buf, size, "? (unknown site)");
		return buf;
	}
	return aw_global_loader_label(model, g, buf, size);
}

void aw_evidence_own_rule(struct aw_finding *f, const struct aw_check_input *in,
			  const struct aw_sampler_link *link, const char *id)
{
	const char *name = aw_short_class(link->class_name);
	struct aw_text stated = {0};
	bool first = true;
	aw_chain_number(&stated, "num_replicas", link->num_replicas, &first);
	aw_chain_number(&stated, "rank", link->rank, &first);
	aw_chain_number(&stated, "num_samples", link->num_samples, &first);
	aw_chain_number(&stated, "total_size", link->total_size, &first);
	aw_chain_number(&stated, "len()", link->length, &first);
	aw_finding_add_evidence(
	    f,
	    "%s draws with code of its own (%s), whose rule accwatch does "
	    "not know (it states %s; its ranks' reads are not "
	    "DistributedSampler's split of the %" PRId64 " samples): "
	    "what it yields may be its design, so this is a warning, not "
	    "an error",
	    name, link->class_name,
	    stated.len ? aw_text_str(&stated) : "no share",
	    in->desc->dataset_len);
	aw_text_fini(&stated);
	aw_finding_set_fix(
	    f,
	    "if %s reads so on purpose (it repeats or leaves out samples by "
	    "its design), nothing to fix: say so with `# accwatch: allow "
	    "%s` on the loader's line; if not, make it state its share as "
	    "DistributedSampler does (num_replicas, rank, num_samples, "
	    "total_size, a len() of num_samples) and accwatch holds it to "
	    "that",
	    name, id);
}

const char *aw_own_map_name(const struct aw_mapping_level *level)
{
	/* "module.Class.attribute": from the dot before the class on. */
	const char *attribute = strrchr(level->own, '.');
	const char *name = level->own;
	for (const char *dot = level->own;
	     attribute && (dot = strchr(dot, '.')) && dot < attribute; dot++)
		name = dot + 1;
	return name;
}

void aw_evidence_own_map(struct aw_finding *f,
			 const struct aw_mapping_level *level, const char *id)
{
	const char *attribute = strrchr(level->own, '.');
	int class_len =
	    attribute ? (int)(attribute - level->own) : (int)strlen(level->own);
	const char *name = aw_own_map_name(level);
	int name_len = class_len - (int)(name - level->own);
	attribute = attribute ? attribute + 1 : "?";
	aw_finding_add_evidence(
	    f,
	    "%.*s is a dataset of the program's own (%.*s); its samples were "
	    "counted as the %" PRIu32 " indices of the dataset below that "
	    "its list `%s` holds, which assumes that its __getitem__ reads "
	    "through that list: so this is a warning, not an error",
	    name_len, name, class_len, level->own, level->n, attribute);
	if (!id)
		return;
	aw_finding_set_fix(
	    f,
	    "if %.*s reads its samples through `%s` (data[%s[i]]), the "
	    "ranks' parts are as said: give each rank its own part of the "
	    "whole data; if it reads otherwise, say so with `# accwatch: "
	    "allow %s` on the loader's line, or build the part with "
	    "torch.utils.data.Subset, whose map accwatch knows",
	    name_len, name, attribute, attribute, id);
}

const char *aw_short_class(const char *name)
{
	if (!name || !*name)
		return "?";
	const char *dot = strrchr(name, '.');
	return dot ? dot + 1 : name;
}

void aw_format_ranks(const int32_t *ranks, size_t n, struct aw_text *out)
{
	aw_text_add(out, "rank%s ", n == 1 ? "" : "s");
	for (size_t i = 0; i < n;) {
		size_t j = i;
		while (j + 1 < n && ranks[j + 1] == ranks[j] + 1)
			j++;
		aw_text_add(out, "%s%d", i ? "," : "", ranks[i]);
		if (j > i)
			aw_text_add(out, "-%d", ranks[j]);
		i = j + 1;
	}
}

uint32_t aw_worker_global(const struct aw_model *model,
			  const struct aw_process *w)
{
	uint32_t id =
	    w->worker_loader != ACCWATCH_UNKNOWN
		? w->worker_loader
		: (w->any_fetch ? w->last_fetch_loader : ACCWATCH_UNKNOWN);
	uint32_t owner = w->owner;
	if (id == ACCWATCH_UNKNOWN || owner == AW_NONE)
		return AW_NONE;
	uint32_t loader = aw_model_find_loader(model, owner, id);
	if (loader == AW_NONE)
		return AW_NONE;
	return model->loaders[aw_model_iterated_loader(model, loader)].global;
}

uint32_t aw_worker_epoch(const struct aw_model *model,
			 const struct aw_process *w, uint32_t loader_id,
			 uint32_t iteration)
{
	if (iteration == ACCWATCH_UNKNOWN || loader_id == ACCWATCH_UNKNOWN ||
	    w->owner == AW_NONE)
		return iteration;
	uint32_t loader = aw_model_find_loader(model, w->owner, loader_id);
	if (loader == AW_NONE)
		return iteration;
	return aw_model_epoch(model, aw_model_iterated_loader(model, loader),
			      iteration);
}

bool aw_model_uses_accelerate(const struct aw_model *model)
{
	return model->uses_accelerate;
}
