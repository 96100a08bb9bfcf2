/* SPDX-License-Identifier: MIT */
/* Lineage from loader_new and loader_wrap: a loader built by accelerate's
 * prepare() is linked to the user's loader over the same dataset object
 * (IterableDatasetShard: to the user's iterable loader just before it). */
#include "lineage.h"

#include <inttypes.h>
#include <string.h>

static bool aw_has(const char *s, const char *part)
{
	return s && strstr(s, part);
}

bool aw_loader_is_accelerate(const struct aw_loader *l)
{
	return l->wraps || l->wrapped || aw_has(l->loader_class, "accelerate.");
}

const struct aw_loader *aw_loader_wrap(const struct aw_model *model,
				       const struct aw_loader *l)
{
	if (l->wraps)
		return l;
	return l->wrapper != AW_NONE ? &model->loaders[l->wrapper] : NULL;
}

const char *aw_loader_wrap_kind(const struct aw_model *model,
				const struct aw_loader *l)
{
	if (l->wraps && l->wrap_kind && *l->wrap_kind)
		return l->wrap_kind;
	if (l->wrapper != AW_NONE) {
		const struct aw_loader *outer = &model->loaders[l->wrapper];
		if (outer->wrap_kind && *outer->wrap_kind)
			return outer->wrap_kind;
	}
	return NULL;
}

bool aw_loader_shards(const struct aw_model *model, const struct aw_loader *l)
{
	if (l->sampler_replicas >= 1 ||
	    aw_has(l->sampler_class, "DistributedSampler") ||
	    aw_has(l->batch_sampler_class, "DistributedSampler") ||
	    aw_has(l->batch_sampler_class, "BatchSamplerShard") ||
	    aw_has(l->dataset_type, "IterableDatasetShard"))
		return true;
	const char *kind = aw_loader_wrap_kind(model, l);
	return kind &&
	       (strcmp(kind, "shard") == 0 || strstr(kind, "dispatch") != NULL);
}

/* The user's loader this accelerate-built one was made from: the newest
 * loader built before it in its process over the same dataset, not itself
 * accelerate's. */
static uint32_t aw_find_origin(const struct aw_model *model, uint32_t index)
{
	const struct aw_loader *l = &model->loaders[index];
	bool shard_dataset = aw_has(l->dataset_type, "IterableDatasetShard");
	uint32_t best = AW_NONE;
	for (size_t i = 0; i < model->n_loaders; i++) {
		const struct aw_loader *u = &model->loaders[i];
		if (u->process != l->process || u->id >= l->id ||
		    aw_loader_is_accelerate(u) || !u->described)
			continue;
		bool same = l->dataset_id && u->dataset_id == l->dataset_id;
		if (!same && !(shard_dataset && u->iterable))
			continue;
		if (best == AW_NONE || u->id > model->loaders[best].id)
			best = (uint32_t)i;
	}
	return best;
}

void aw_lineage_resolve(struct aw_model *model)
{
	for (size_t i = 0; i < model->n_loaders; i++) {
		struct aw_loader *l = &model->loaders[i];
		l->sharded = aw_loader_shards(model, l);
		l->built_from = aw_loader_is_accelerate(l)
				    ? aw_find_origin(model, (uint32_t)i)
				    : AW_NONE;
	}
	/* accelerate passes the user's drop_last to the dispatcher
	 * (`_drop_last`); its inner loader only has the batch sampler's. */
	for (size_t i = 0; i < model->n_loaders; i++) {
		struct aw_loader *l = &model->loaders[i];
		const char *kind = aw_loader_wrap_kind(model, l);
		if (!kind || !strstr(kind, "dispatch"))
			continue;
		if (l->built_from != AW_NONE &&
		    model->loaders[l->built_from].drop_last >= 0)
			l->dispatch_drop_last =
			    model->loaders[l->built_from].drop_last;
		else
			l->dispatch_drop_last = l->drop_last == 1;
	}
}

static void aw_chain_flag(struct aw_text *out, const char *name, int8_t value,
			  bool *first)
{
	if (value < 0)
		return;
	aw_text_add(out, "%s%s=%s", *first ? "" : ", ", name,
		    value ? "True" : "False");
	*first = false;
}

void aw_chain_number(struct aw_text *out, const char *name, int64_t value,
		     bool *first)
{
	if (value < 0)
		return;
	aw_text_add(out, "%s%s=%" PRId64, *first ? "" : ", ", name, value);
	*first = false;
}

void aw_sampler_chain_text(const struct aw_loader *loader, struct aw_text *out)
{
	for (uint32_t i = 0; i < loader->n_chain; i++) {
		const struct aw_sampler_link *s = &loader->chain[i];
		const char *name =
		    s->seen && *s->class_name ? s->class_name : "?";
		const char *dot = strrchr(name, '.');
		bool first = true;
		aw_text_add(out, "%s%s(", i ? " over " : "",
			    dot ? dot + 1 : name);
		aw_chain_number(out, "num_replicas", s->num_replicas, &first);
		aw_chain_number(out, "rank", s->rank, &first);
		aw_chain_flag(out, "shuffle", s->shuffle, &first);
		aw_chain_number(out, "seed", s->seed, &first);
		aw_chain_flag(out, "replacement", s->replacement, &first);
		aw_chain_number(out, "num_samples", s->num_samples, &first);
		aw_chain_number(out, "total_size", s->total_size, &first);
		aw_chain_number(out, "batch_size", s->batch_size, &first);
		aw_chain_flag(out, "drop_last", s->drop_last, &first);
		aw_chain_number(out, "skip", s->skip, &first);
		if (s->own_iter == 1) /* its rule is its own: what it states */
			aw_chain_number(out, "len", s->length, &first);
		aw_text_add(out, ")");
	}
}
