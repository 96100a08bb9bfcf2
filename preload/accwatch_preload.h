/* SPDX-License-Identifier: MIT */
/* State of libaccwatch.so, the object preloaded into every process: one
 * struct, shared by the audit hook (accwatch_preload.c) and the
 * interposers (accwatch_fork.c, accwatch_exec.c, accwatch_exit.c). */
#ifndef ACCWATCH_PRELOAD_H
#define ACCWATCH_PRELOAD_H

#include <limits.h>
#include <stdatomic.h>
#include <sys/types.h>

#include "accwatch_capi.h"
#include "accwatch_env_keep.h"
#include "accwatch_libc.h"
#include "accwatch_record_api.h"

enum accwatch_preload_mode {
	ACCWATCH_MODE_DORMANT = 0, /* not Python, disabled, or too old */
	ACCWATCH_MODE_WATCHING,    /* audit hook waits for torch's DataLoader */
	ACCWATCH_MODE_ATTACHING,   /* loading the recorder */
	ACCWATCH_MODE_ATTACHED,    /* recorder loaded, hooks valid */
	ACCWATCH_MODE_FAILED,      /* recorder could not be attached */
};

/* The raw allocator when the audit hook was added and once Python is up,
 * and the hook's entry (accwatch_allocator.c). */
struct accwatch_hook_memory {
	struct accwatch_mem_allocator before, after;
	void *entry;
	int settled;
};

struct accwatch_preload {
	_Atomic int mode; /* enum accwatch_preload_mode */
	int debug;
	struct accwatch_libc
	    libc; /* the real functions behind the interposers */
	struct accwatch_capi api;
	/* Interned "torch.utils.data.dataloader", created on first use. */
	accwatch_pyobject *dataloader_key;
	/* The recorder's watched modules (hooks.watched): their interned
	 * names, and a bit for each not patched yet. */
	accwatch_pyobject *watched_keys[ACCWATCH_WATCHED_MAX];
	unsigned watched_pending;
	/* Directory of libaccwatch.so, where the recorder is looked for. */
	char self_dir[PATH_MAX];
	void *record_handle;
	struct accwatch_record_hooks hooks; /* valid once mode is ATTACHED */
	/* What exec and posix_spawn put back into a scrubbed environment. */
	struct accwatch_env_keep env_keep;
	struct accwatch_hook_memory memory;
};

extern struct accwatch_preload accwatch_preload;

/* Whether the recorder is attached: the interposers' hooks are valid. */
static inline int accwatch_preload_attached(void)
{
	return atomic_load_explicit(&accwatch_preload.mode,
				    memory_order_acquire) ==
	       ACCWATCH_MODE_ATTACHED;
}

/* PySys_AddAuditHook(hook) with the allocation of its entry noted. */
int accwatch_add_audit_hook(accwatch_py_audit_hook_fn hook);
/* Once, at the first audit event after Py_Initialize: if the raw allocator
 * changed meanwhile, the entry is freed at exit by the one that made it. */
void accwatch_allocator_settle(void);

#endif
