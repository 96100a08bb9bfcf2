/* SPDX-License-Identifier: MIT */
/* The memory of the audit hook: PySys_AddAuditHook, called from our
 * constructor before Py_Initialize, allocates the hook's entry with the raw
 * allocator of that moment (malloc); Python frees it at exit with the raw
 * allocator of then, which PYTHONMALLOC=debug, -X dev or PYTHONDEVMODE=1
 * turned into the debug hooks: they find no header of theirs and abort.
 * So the entry is freed by the allocator that made it. */
#include <stddef.h>

#include "accwatch_debug.h"
#include "accwatch_preload.h"

/* PyMem_GetAllocator's domain of the raw allocator (PYMEM_DOMAIN_RAW). */
#define ACCWATCH_PYMEM_DOMAIN_RAW 0

/* One wrapper around the raw allocator, for both moments: around
 * PySys_AddAuditHook it delegates to `before` and notes the block it hands
 * out (the entry); once Python is up, if the allocator changed, it delegates
 * to `after` but for the entry, which goes back to `before`. */
static struct accwatch_mem_allocator *accwatch_wrapped(void)
{
	struct accwatch_hook_memory *memory = &accwatch_preload.memory;

	return memory->settled ? &memory->after : &memory->before;
}

static void *accwatch_wrapper_malloc(void *ctx, size_t size)
{
	struct accwatch_mem_allocator *inner = accwatch_wrapped();
	void *block = inner->malloc(inner->ctx, size);

	(void)ctx;
	if (!accwatch_preload.memory.settled)
		accwatch_preload.memory.entry = block;
	return block;
}

static void *accwatch_wrapper_calloc(void *ctx, size_t count, size_t size)
{
	struct accwatch_mem_allocator *inner = accwatch_wrapped();
	void *block = inner->calloc(inner->ctx, count, size);

	(void)ctx;
	if (!accwatch_preload.memory.settled)
		accwatch_preload.memory.entry = block;
	return block;
}

static void *accwatch_wrapper_realloc(void *ctx, void *block, size_t size)
{
	struct accwatch_mem_allocator *inner = accwatch_wrapped();

	(void)ctx;
	return inner->realloc(inner->ctx, block, size);
}

static void accwatch_wrapper_free(void *ctx, void *block)
{
	struct accwatch_hook_memory *memory = &accwatch_preload.memory;
	struct accwatch_mem_allocator *inner = accwatch_wrapped();

	(void)ctx;
	if (memory->settled && block && block == memory->entry) {
		memory->entry = NULL;
		inner = &memory->before;
	}
	inner->free(inner->ctx, block);
}

static struct accwatch_mem_allocator accwatch_wrapper = {
    .malloc = accwatch_wrapper_malloc,
    .calloc = accwatch_wrapper_calloc,
    .realloc = accwatch_wrapper_realloc,
    .free = accwatch_wrapper_free,
};

int accwatch_add_audit_hook(accwatch_py_audit_hook_fn hook)
{
	const struct accwatch_capi *api = &accwatch_preload.api;
	struct accwatch_hook_memory *memory = &accwatch_preload.memory;
	int status;

	api->PyMem_GetAllocator(ACCWATCH_PYMEM_DOMAIN_RAW, &memory->before);
	api->PyMem_SetAllocator(ACCWATCH_PYMEM_DOMAIN_RAW, &accwatch_wrapper);
	status = api->PySys_AddAuditHook(hook, NULL);
	api->PyMem_SetAllocator(ACCWATCH_PYMEM_DOMAIN_RAW, &memory->before);
	return status;
}

void accwatch_allocator_settle(void)
{
	const struct accwatch_capi *api = &accwatch_preload.api;
	struct accwatch_hook_memory *memory = &accwatch_preload.memory;

	if (memory->settled)
		return;
	api->PyMem_GetAllocator(ACCWATCH_PYMEM_DOMAIN_RAW, &memory->after);
	memory->settled = 1;
	if (!memory->entry || (memory->after.free == memory->before.free &&
			       memory->after.ctx == memory->before.ctx))
		return;
	/* Python is initialised and no other thread runs yet: the first audit
	 * event after Py_Initialize. The wrapper only passes calls on. */
	api->PyMem_SetAllocator(ACCWATCH_PYMEM_DOMAIN_RAW, &accwatch_wrapper);
	ACCWATCH_DEBUG("raw allocator changed at start-up (debug hooks?): the "
		       "audit hook's entry goes back to the allocator that "
		       "made it");
}
