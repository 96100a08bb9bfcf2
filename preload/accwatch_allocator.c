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

static void *accwatch_noting_malloc(void *ctx, size_t size)
{
	struct accwatch_hook_memory *memory = &accwatch_preload.memory;
	void *block = memory->before.malloc(memory->before.ctx, size);

	(void)ctx;
	memory->entry = block;
	return block;
}

static void *accwatch_noting_calloc(void *ctx, size_t count, size_t size)
{
	struct accwatch_hook_memory *memory = &accwatch_preload.memory;
	void *block = memory->before.calloc(memory->before.ctx, count, size);

	(void)ctx;
	memory->entry = block;
	return block;
}

static void *accwatch_before_realloc(void *ctx, void *block, size_t size)
{
	struct accwatch_hook_memory *memory = &accwatch_preload.memory;

	(void)ctx;
	return memory->before.realloc(memory->before.ctx, block, size);
}

static void accwatch_before_free(void *ctx, void *block)
{
	struct accwatch_hook_memory *memory = &accwatch_preload.memory;

	(void)ctx;
	memory->before.free(memory->before.ctx, block);
}

int accwatch_add_audit_hook(accwatch_py_audit_hook_fn hook)
{
	const struct accwatch_capi *api = &accwatch_preload.api;
	struct accwatch_hook_memory *memory = &accwatch_preload.memory;
	struct accwatch_mem_allocator noting = {
	    .malloc = accwatch_noting_malloc,
	    .calloc = accwatch_noting_calloc,
	    .realloc = accwatch_before_realloc,
	    .free = accwatch_before_free,
	};
	int status;

	api->PyMem_GetAllocator(ACCWATCH_PYMEM_DOMAIN_RAW, &memory->before);
	api->PyMem_SetAllocator(ACCWATCH_PYMEM_DOMAIN_RAW, &noting);
	status = api->PySys_AddAuditHook(hook, NULL);
	api->PyMem_SetAllocator(ACCWATCH_PYMEM_DOMAIN_RAW, &memory->before);
	return status;
}

static void *accwatch_after_malloc(void *ctx, size_t size)
{
	struct accwatch_hook_memory *memory = &accwatch_preload.memory;

	(void)ctx;
	return memory->after.malloc(memory->after.ctx, size);
}

static void *accwatch_after_calloc(void *ctx, size_t count, size_t size)
{
	struct accwatch_hook_memory *memory = &accwatch_preload.memory;

	(void)ctx;
	return memory->after.calloc(memory->after.ctx, count, size);
}

static void *accwatch_after_realloc(void *ctx, void *block, size_t size)
{
	struct accwatch_hook_memory *memory = &accwatch_preload.memory;

	(void)ctx;
	return memory->after.realloc(memory->after.ctx, block, size);
}

/* Everything to Python's allocator of now, but the entry to the one that
 * allocated it. */
static void accwatch_after_free(void *ctx, void *block)
{
	struct accwatch_hook_memory *memory = &accwatch_preload.memory;

	(void)ctx;
	if (block && block == memory->entry) {
		memory->entry = NULL;
		memory->before.free(memory->before.ctx, block);
		return;
	}
	memory->after.free(memory->after.ctx, block);
}

void accwatch_allocator_settle(void)
{
	const struct accwatch_capi *api = &accwatch_preload.api;
	struct accwatch_hook_memory *memory = &accwatch_preload.memory;
	struct accwatch_mem_allocator wrapper = {
	    .malloc = accwatch_after_malloc,
	    .calloc = accwatch_after_calloc,
	    .realloc = accwatch_after_realloc,
	    .free = accwatch_after_free,
	};

	if (memory->settled)
		return;
	memory->settled = 1;
	api->PyMem_GetAllocator(ACCWATCH_PYMEM_DOMAIN_RAW, &memory->after);
	if (!memory->entry || (memory->after.free == memory->before.free &&
			       memory->after.ctx == memory->before.ctx))
		return;
	/* Python is initialised and no other thread runs yet: the first audit
	 * event after Py_Initialize. The wrapper only passes calls on. */
	api->PyMem_SetAllocator(ACCWATCH_PYMEM_DOMAIN_RAW, &wrapper);
	ACCWATCH_DEBUG("raw allocator changed at start-up (debug hooks?): the "
		       "audit hook's entry goes back to the allocator that "
		       "made it");
}
