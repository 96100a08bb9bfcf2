/* SPDX-License-Identifier: MIT */
/* libaccwatch.so: preloaded everywhere, dormant unless it is Python; there
 * an audit hook waits for torch's DataLoader, then loads the recorder. */
#include <dlfcn.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "accwatch_common.h"
#include "accwatch_debug.h"
#include "accwatch_events.h"
#include "accwatch_libc.h"
#include "accwatch_preload.h"
#include "accwatch_shm.h"

extern char **environ;

/* The module whose complete import means DataLoader can be patched. */
#define ACCWATCH_DATALOADER_MODULE "torch.utils.data.dataloader"

struct accwatch_preload accwatch_preload;

/* The re-entrancy guard must be per thread: code run by the hook (imports,
 * the bootstrap) raises audit events of its own in the same thread. */
static __thread int accwatch_in_hook;

enum accwatch_preload_status {
	ACCWATCH_PRELOAD_OK = 0,
	ACCWATCH_PRELOAD_ERROR,
};

struct accwatch_symbol {
	const char *name;
	size_t offset;
};

/* clang-format off */
#define ACCWATCH_SYMBOL(member) { #member, offsetof(struct accwatch_capi, member) }
#define ACCWATCH_BATCH_SYMBOL(member) { #member, offsetof(struct accwatch_capi, batch.member) }
/* clang-format on */

static const struct accwatch_symbol accwatch_hook_symbols[] = {
    ACCWATCH_SYMBOL(Py_IsInitialized),
    ACCWATCH_SYMBOL(PySys_AddAuditHook),
    ACCWATCH_SYMBOL(PyMem_GetAllocator),
    ACCWATCH_SYMBOL(PyMem_SetAllocator),
    ACCWATCH_SYMBOL(PyErr_Fetch),
    ACCWATCH_SYMBOL(PyErr_Restore),
    ACCWATCH_SYMBOL(PyErr_Clear),
    ACCWATCH_SYMBOL(PyImport_GetModuleDict),
    ACCWATCH_SYMBOL(PyDict_GetItem),
    ACCWATCH_SYMBOL(PyUnicode_InternFromString),
    ACCWATCH_SYMBOL(PyObject_GetAttrString),
    ACCWATCH_SYMBOL(PyObject_IsTrue),
    ACCWATCH_SYMBOL(Py_IncRef),
    ACCWATCH_SYMBOL(Py_DecRef),
};

static const struct accwatch_symbol accwatch_record_symbols[] = {
    ACCWATCH_SYMBOL(PyErr_Occurred),
    ACCWATCH_SYMBOL(PyErr_Print),
    ACCWATCH_SYMBOL(Py_CompileString),
    ACCWATCH_SYMBOL(PyEval_EvalCode),
    ACCWATCH_SYMBOL(PyEval_GetBuiltins),
    ACCWATCH_SYMBOL(PyDict_New),
    ACCWATCH_SYMBOL(PyDict_SetItemString),
    ACCWATCH_SYMBOL(PyDict_GetItemString),
    ACCWATCH_SYMBOL(PyCFunction_NewEx),
    ACCWATCH_SYMBOL(PyObject_CallObject),
    ACCWATCH_SYMBOL(PyObject_Call),
    ACCWATCH_SYMBOL(PyTuple_Pack),
    ACCWATCH_SYMBOL(PyObject_Type),
    ACCWATCH_SYMBOL(PySequence_List),
    ACCWATCH_SYMBOL(PyList_Size),
    ACCWATCH_SYMBOL(PyList_GetItem),
    ACCWATCH_SYMBOL(PyTuple_Size),
    ACCWATCH_SYMBOL(PyTuple_GetItem),
    ACCWATCH_SYMBOL(PyTuple_GetSlice),
    ACCWATCH_SYMBOL(PyLong_AsLongLongAndOverflow),
    ACCWATCH_SYMBOL(PyLong_FromLongLong),
    ACCWATCH_SYMBOL(PyUnicode_FromString),
    ACCWATCH_SYMBOL(PyUnicode_AsUTF8),
    ACCWATCH_SYMBOL(PyUnicode_AsUTF8AndSize),
    ACCWATCH_SYMBOL(PyObject_GetBuffer),
    ACCWATCH_SYMBOL(PyBuffer_Release),
    ACCWATCH_SYMBOL(PyObject_Repr),
    ACCWATCH_SYMBOL(PyDict_Next),
    ACCWATCH_SYMBOL(PyObject_IsInstance),
    ACCWATCH_SYMBOL(PyModule_New),
    ACCWATCH_SYMBOL(PyObject_SetAttrString),
    ACCWATCH_SYMBOL(PyUnicode_AsEncodedString),
    ACCWATCH_SYMBOL(PyBytes_AsStringAndSize),
    {"_Py_NoneStruct", offsetof(struct accwatch_capi, Py_None)},
    ACCWATCH_SYMBOL(PyList_Type),
    ACCWATCH_SYMBOL(PyTuple_Type),
    ACCWATCH_SYMBOL(PyDict_Type),
    ACCWATCH_SYMBOL(PyUnicode_Type),
    ACCWATCH_SYMBOL(PyLong_Type),
};

/* Optional: all or none (struct accwatch_capi, batch). */
static const struct accwatch_symbol accwatch_batch_symbols[] = {
    ACCWATCH_BATCH_SYMBOL(PyInstanceMethod_New),
    ACCWATCH_BATCH_SYMBOL(PyObject_Vectorcall),
    ACCWATCH_BATCH_SYMBOL(PyLong_FromVoidPtr),
    ACCWATCH_BATCH_SYMBOL(PyList_SetItem),
    ACCWATCH_BATCH_SYMBOL(PyErr_ExceptionMatches),
    ACCWATCH_BATCH_SYMBOL(PyLong_AsLongLong),
    ACCWATCH_BATCH_SYMBOL(PyExc_StopIteration),
    ACCWATCH_BATCH_SYMBOL(PyType_FromSpec),
    ACCWATCH_BATCH_SYMBOL(PyMethod_New),
    ACCWATCH_BATCH_SYMBOL(PyVectorcall_Call),
    ACCWATCH_BATCH_SYMBOL(PyObject_GenericGetDict),
    ACCWATCH_BATCH_SYMBOL(PyObject_GenericSetDict),
};

int accwatch_debug_enabled(void)
{
	return accwatch_preload.debug;
}

static enum accwatch_preload_status
accwatch_resolve(const struct accwatch_symbol *symbols, size_t count)
{
	enum accwatch_preload_status status = ACCWATCH_PRELOAD_OK;
	size_t i;

	for (i = 0; i < count; i++) {
		void *address = dlsym(RTLD_DEFAULT, symbols[i].name);

		if (!address) {
			ACCWATCH_DEBUG("Python symbol %s not found",
				       symbols[i].name);
			status = ACCWATCH_PRELOAD_ERROR;
			goto end;
		}
		memcpy((char *)&accwatch_preload.api + symbols[i].offset,
		       &address, sizeof(address));
	}
end:
	return status;
}

/* The recorder sits next to libaccwatch.so (build tree) or in accwatch/
 * below it (installed). Resolved now: the program may chdir later. */
static enum accwatch_preload_status accwatch_find_self_dir(void)
{
	enum accwatch_preload_status status = ACCWATCH_PRELOAD_ERROR;
	char *path = NULL;
	char *slash;
	Dl_info info;

	if (!dladdr((void *)&accwatch_preload, &info) || !info.dli_fname)
		goto end;
	path = realpath(info.dli_fname, NULL);
	if (!path)
		goto end;
	slash = strrchr(path, '/');
	if (!slash ||
	    (size_t)(slash - path) >= sizeof(accwatch_preload.self_dir))
		goto end;
	*slash = '\0';
	strcpy(accwatch_preload.self_dir, path);
	status = ACCWATCH_PRELOAD_OK;
end:
	free(path);
	return status;
}

/* True once module `name` is in sys.modules and its body has run (the
 * import event fires before; __spec__._initializing is true meanwhile). *key
 * caches the interned name. */
static int accwatch_module_ready(accwatch_pyobject **key, const char *name)
{
	const struct accwatch_capi *api = &accwatch_preload.api;
	accwatch_pyobject *module, *spec = NULL, *initializing = NULL;
	int ready = 0;

	if (!*key) {
		*key = api->PyUnicode_InternFromString(name);
		if (!*key)
			goto end;
	}
	module = api->PyDict_GetItem(api->PyImport_GetModuleDict(), *key);
	if (!module)
		goto end;
	ready = 1;
	spec = api->PyObject_GetAttrString(module, "__spec__");
	if (!spec)
		goto end;
	initializing = api->PyObject_GetAttrString(spec, "_initializing");
	if (!initializing)
		goto end;
	ready = api->PyObject_IsTrue(initializing) == 0;
end:
	accwatch_py_drop(api, initializing);
	accwatch_py_drop(api, spec);
	api->PyErr_Clear();
	return ready;
}

/* Hands the watched modules that finished importing to the recorder. */
static void accwatch_check_watched(void)
{
	const char *const *names = accwatch_preload.hooks.watched;
	unsigned i;

	for (i = 0; i < accwatch_preload.hooks.n_watched; i++) {
		if (!(accwatch_preload.watched_pending & (1u << i)) ||
		    !accwatch_module_ready(&accwatch_preload.watched_keys[i],
					   names[i]))
			continue;
		accwatch_preload.watched_pending &= ~(1u << i);
		accwatch_preload.hooks.on_module(names[i]);
	}
}

static void *accwatch_open_recorder(void)
{
	char path[PATH_MAX + 64];
	void *handle = NULL;
	int length;

	length = snprintf(path, sizeof(path), "%s/%s",
			  accwatch_preload.self_dir, ACCWATCH_RECORD_LIBRARY);
	if (length > 0 && (size_t)length < sizeof(path) &&
	    access(path, F_OK) == 0)
		goto open;
	length =
	    snprintf(path, sizeof(path), "%s/%s/%s", accwatch_preload.self_dir,
		     ACCWATCH_RECORD_SUBDIR, ACCWATCH_RECORD_LIBRARY);
	if (length <= 0 || (size_t)length >= sizeof(path))
		goto end;
open:
	handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!handle)
		ACCWATCH_DEBUG("cannot load the recorder: %s", dlerror());
end:
	return handle;
}

/* Loading the recorder starts LTTng-UST, which maps its wait files in
 * /dev/shm and reads them: a page tmpfs cannot back there kills the program
 * with SIGBUS, a read-only /dev/shm records nothing. Checked (and the pages
 * reserved) first; on failure the process stays dormant and says why once. */
static int accwatch_shm_usable(void)
{
	struct accwatch_shm_check check;
	char line[512];
	int saved_errno = errno;
	int usable = accwatch_shm_prepare(&check) == ACCWATCH_SHM_OK;

	if (!usable) {
		accwatch_shm_describe(&check, line, sizeof(line));
		accwatch_log("accwatch: ", "%s; process %ld runs unrecorded",
			     line, (long)getpid());
	}
	errno = saved_errno;
	return usable;
}

/* Called from the audit hook, GIL held, guard set. */
static void accwatch_attach(void)
{
	int mode = ACCWATCH_MODE_FAILED;
	accwatch_record_init_fn init;
	enum accwatch_record_status status;

	atomic_store(&accwatch_preload.mode, ACCWATCH_MODE_ATTACHING);
	if (accwatch_resolve(accwatch_record_symbols,
			     sizeof(accwatch_record_symbols) /
				 sizeof(accwatch_record_symbols[0])) !=
	    ACCWATCH_PRELOAD_OK)
		goto end;
	if (accwatch_resolve(accwatch_batch_symbols,
			     sizeof(accwatch_batch_symbols) /
				 sizeof(accwatch_batch_symbols[0])) !=
	    ACCWATCH_PRELOAD_OK)
		memset(&accwatch_preload.api.batch, 0,
		       sizeof(accwatch_preload.api.batch));
	if (!accwatch_shm_usable())
		goto end;
	accwatch_preload.record_handle = accwatch_open_recorder();
	if (!accwatch_preload.record_handle)
		goto end;
	*(void **)&init =
	    dlsym(accwatch_preload.record_handle, ACCWATCH_RECORD_INIT_SYMBOL);
	if (!init) {
		ACCWATCH_DEBUG("the recorder has no %s",
			       ACCWATCH_RECORD_INIT_SYMBOL);
		goto end;
	}
	status = init(ACCWATCH_RECORD_ABI, &accwatch_preload.api,
		      accwatch_preload.debug, &accwatch_preload.hooks);
	if (status != ACCWATCH_RECORD_OK) {
		ACCWATCH_DEBUG("the recorder failed to start (status %d)",
			       (int)status);
		goto end;
	}
	mode = ACCWATCH_MODE_ATTACHED;
	ACCWATCH_DEBUG("recording torch DataLoaders");
	accwatch_preload.watched_pending =
	    (1u << accwatch_preload.hooks.n_watched) - 1;
	accwatch_check_watched();
end:
	/* The recorder stays loaded on failure: liblttng-ust cannot unload. */
	atomic_store(&accwatch_preload.mode, mode);
}

static int accwatch_is_fork_event(const char *event)
{
	return event[0] == 'o' && (strcmp(event, "os.fork") == 0 ||
				   strcmp(event, "os.forkpty") == 0);
}

/* An exception no handler caught, about to be printed (CPython 3.8+). */
static int accwatch_is_excepthook_event(const char *event)
{
	return event[0] == 's' && strcmp(event, "sys.excepthook") == 0;
}

static int accwatch_audit_hook(const char *event, accwatch_pyobject *args,
			       void *data)
{
	const struct accwatch_capi *api = &accwatch_preload.api;
	accwatch_pyobject *type, *value, *traceback;
	int mode =
	    atomic_load_explicit(&accwatch_preload.mode, memory_order_acquire);
	int fork_event = 0, excepthook_event = 0;

	(void)data;
	if (mode == ACCWATCH_MODE_ATTACHED) {
		/* The hot case: most events are neither a fork, nor an
		 * uncaught exception, nor an import we still wait for. */
		fork_event = accwatch_is_fork_event(event);
		excepthook_event =
		    !fork_event && accwatch_is_excepthook_event(event);
		if (!fork_event && !excepthook_event &&
		    (!accwatch_preload.watched_pending ||
		     strcmp(event, "import") != 0))
			return 0;
	} else if (mode != ACCWATCH_MODE_WATCHING) {
		return 0;
	}
	if (accwatch_in_hook || !api->Py_IsInitialized())
		return 0;
	accwatch_in_hook = 1;
	accwatch_allocator_settle();
	api->PyErr_Fetch(&type, &value, &traceback);
	if (fork_event)
		accwatch_preload.hooks.on_fork_audit();
	else if (excepthook_event)
		accwatch_preload.hooks.on_uncaught(args);
	else if (mode == ACCWATCH_MODE_ATTACHED)
		accwatch_check_watched();
	else if (accwatch_module_ready(&accwatch_preload.dataloader_key,
				       ACCWATCH_DATALOADER_MODULE))
		accwatch_attach();
	api->PyErr_Restore(type, value, traceback);
	accwatch_in_hook = 0;
	return 0;
}

/* Costs a few getenv and dlsym and one pass over environ outside Python:
 * no thread, no LTTng, no allocation. */
__attribute__((constructor)) static void accwatch_preload_init(void)
{
	accwatch_preload.debug = accwatch_debug_on();
	/* Before any vfork child could need them: dlsym takes locks. */
	accwatch_libc_resolve();
	if (accwatch_env_switch(ACCWATCH_ENV_DISABLE))
		goto end;
	accwatch_env_keep_init(&accwatch_preload.env_keep, environ,
			       ACCWATCH_PRELOAD_LIBRARY);
	if (!dlsym(RTLD_DEFAULT, "Py_IsInitialized") ||
	    !dlsym(RTLD_DEFAULT, "PySys_AddAuditHook"))
		goto end;
	if (accwatch_resolve(accwatch_hook_symbols,
			     sizeof(accwatch_hook_symbols) /
				 sizeof(accwatch_hook_symbols[0])) !=
	    ACCWATCH_PRELOAD_OK)
		goto end;
	if (accwatch_find_self_dir() != ACCWATCH_PRELOAD_OK) {
		ACCWATCH_DEBUG("cannot locate libaccwatch.so itself");
		goto end;
	}
	if (accwatch_add_audit_hook(accwatch_audit_hook) != 0) {
		ACCWATCH_DEBUG("PySys_AddAuditHook refused the hook");
		goto end;
	}
	atomic_store(&accwatch_preload.mode, ACCWATCH_MODE_WATCHING);
end:
	return;
}
