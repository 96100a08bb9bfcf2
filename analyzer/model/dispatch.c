/* SPDX-License-Identifier: MIT */
/* The dispatcher's slicing, step by step: a step buffer that is cut into W
 * shares once the next step starts or the epoch ends. */
#include "dispatch.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

void aw_dispatch_init(struct aw_dispatch *d, uint32_t world, bool split_batches)
{
	memset(d, 0, sizeof(*d));
	d->world = world ? world : 1;
	d->per_step = split_batches ? 1 : d->world;
	d->shares = aw_xcalloc(d->world, sizeof(*d->shares));
	for (uint32_t r = 0; r < d->world; r++) {
		aw_sample_set_init(&d->shares[r].set);
		XXH64_reset(&d->shares[r].order, 0);
	}
	d->first = aw_xcalloc(d->world, sizeof(*d->first));
}

void aw_dispatch_fini(struct aw_dispatch *d)
{
	if (d->shares)
		for (uint32_t r = 0; r < d->world; r++)
			aw_sample_set_fini(&d->shares[r].set);
	free(d->shares);
	free(d->step);
	free(d->first);
	memset(d, 0, sizeof(*d));
}

static void aw_dispatch_give(struct aw_dispatch *d, uint32_t rank,
			     const uint64_t *slice, size_t count)
{
	struct aw_dispatch_share *share = &d->shares[rank];
	aw_sample_set_add64(&share->set, slice, count);
	share->batches++;
	if (count > share->max_batch_len)
		share->max_batch_len = (uint32_t)count;
	if (count)
		XXH64_update(&share->order, slice, count * sizeof(*slice));
	if (!d->observer)
		return;
	struct aw_read read = d->read_template;
	read.kind = AW_READ_DISPATCHED;
	read.batch = (uint32_t)d->steps;
	read.to_rank = (int32_t)rank;
	read.wide = (const int64_t *)slice; /* indices <= INT64_MAX */
	read.count = count;
	d->observer->on_read(d->observer->data, &read);
}

/* Cuts the held step into the ranks' shares. */
static void aw_dispatch_emit(struct aw_dispatch *d, bool last, bool drop_last)
{
	size_t n = d->step_len;
	if (!d->first_taken) {
		d->n_first = (uint32_t)AW_MIN(n, (size_t)d->world);
		memcpy(d->first, d->step, d->n_first * sizeof(*d->first));
		d->first_taken = true;
	}
	size_t bs = n / d->world, total = n;
	if (last && !drop_last && n % d->world != 0) {
		AW_GROW(d->step, d->step_cap, n + d->n_first);
		memcpy(d->step + n, d->first, d->n_first * sizeof(*d->first));
		total += d->n_first;
		bs++;
	}
	size_t given = 0;
	for (uint32_t r = 0; r < d->world; r++) {
		size_t lo = AW_MIN(r * bs, total);
		size_t hi = AW_MIN(lo + bs, total);
		aw_dispatch_give(d, r, d->step + lo, hi - lo);
		given += hi - lo;
	}
	if (given > n)
		d->padded += given - n;
	d->steps++;
	d->step_len = 0;
	d->step_batches = 0;
}

void aw_dispatch_observe(struct aw_dispatch *d,
			 const struct aw_model_observer *observer,
			 const struct aw_read *template)
{
	d->observer = observer;
	d->read_template = *template;
}

void aw_dispatch_add_batch(struct aw_dispatch *d, const uint64_t *indices,
			   size_t count)
{
	if (d->finished)
		return;
	if (d->step_batches == d->per_step)
		aw_dispatch_emit(d, false, false);
	AW_GROW(d->step, d->step_cap, d->step_len + count);
	if (count)
		memcpy(d->step + d->step_len, indices,
		       count * sizeof(*indices));
	d->step_len += count;
	d->step_batches++;
}

void aw_dispatch_finish(struct aw_dispatch *d, bool drop_last, bool exhausted)
{
	if (d->finished)
		return;
	d->finished = true;
	if (d->step_batches == 0)
		return;
	if (d->step_batches == d->per_step)
		aw_dispatch_emit(d, exhausted, drop_last);
	else if (exhausted && !drop_last)
		aw_dispatch_emit(d, true, false);
	free(d->step);
	d->step = NULL;
	d->step_len = d->step_cap = 0;
}
