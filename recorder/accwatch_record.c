/* SPDX-License-Identifier: MIT */
/* libaccwatch-record.so's entry point: keeps the C-API table, runs the
 * embedded Python bootstrap (the files of boot/) that patches the DataLoader.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "accwatch_boot.h"
#include "accwatch_debug.h"
#include "accwatch_env.h"
#include "accwatch_events.h"
#include "accwatch_indices.h"
#include "accwatch_record.h"
#include "accwatch_record_api.h"

struct accwatch_recorder accwatch_recorder;

int accwatch_debug_enabled(void)
{
	return accwatch_recorder.debug;
}

accwatch_pyobject *accwatch_record_none(void)
{
	accwatch_recorder.api->Py_IncRef(accwatch_recorder.api->Py_None);
	return accwatch_recorder.api->Py_None;
}

/* Sets globals[name] = value and drops the reference to value. */
static int accwatch_record_set(accwatch_pyobject *globals, const char *name,
			       accwatch_pyobject *value)
{
	const struct accwatch_capi *api = accwatch_recorder.api;
	int ret = -1;

	if (!value)
		goto end;
	ret = api->PyDict_SetItemString(globals, name, value);
	api->Py_DecRef(value);
end:
	return ret;
}

/* The bootstrap's one injected name, the module `_aw`
 * (accwatch_record_module_fill). */
static accwatch_pyobject *accwatch_record_module(void)
{
	const struct accwatch_capi *api = accwatch_recorder.api;
	accwatch_pyobject *module = api->PyModule_New("accwatch_record");

	if (module && accwatch_record_module_fill(module) < 0) {
		api->Py_DecRef(module);
		module = NULL;
	}
	return module;
}

static int accwatch_record_fill_globals(accwatch_pyobject *globals)
{
	const struct accwatch_capi *api = accwatch_recorder.api;

	if (api->PyDict_SetItemString(globals, "__builtins__",
				      api->PyEval_GetBuiltins()) < 0)
		return -1;
	if (accwatch_record_set(globals, "__name__",
				api->PyUnicode_FromString("accwatch_boot")) < 0)
		return -1;
	return accwatch_record_set(globals, "_aw", accwatch_record_module());
}

/* globals[name], a new reference kept for the process; NULL if absent. */
static accwatch_pyobject *accwatch_record_keep(accwatch_pyobject *globals,
					       const char *name)
{
	const struct accwatch_capi *api = accwatch_recorder.api;
	accwatch_pyobject *value = api->PyDict_GetItemString(globals, name);

	if (value)
		api->Py_IncRef(value);
	return value;
}

/* Compiles one part of the bootstrap as "<accwatch_boot/NAME>" and runs it
 * in globals; 0, or -1 with the Python error set. */
static int accwatch_record_run_part(const char *name, const char *source,
				    accwatch_pyobject *globals)
{
	const struct accwatch_capi *api = accwatch_recorder.api;
	char filename[128];
	accwatch_pyobject *code, *result = NULL;

	snprintf(filename, sizeof(filename), "%s%s>", ACCWATCH_BOOT_PREFIX,
		 name);
	code = api->Py_CompileString(source, filename, ACCWATCH_PY_FILE_INPUT);
	if (code)
		result = api->PyEval_EvalCode(code, globals, globals);
	accwatch_py_drop(api, code);
	accwatch_py_drop(api, result);
	return result ? 0 : -1;
}

/* The names of the bootstrap's _WATCHED (modules it patches once
 * imported), copied for libaccwatch.so to watch; past ACCWATCH_WATCHED_MAX,
 * or a name that is not a string, left out (debug says so). */
static void accwatch_record_take_watched(accwatch_pyobject *globals)
{
	const struct accwatch_capi *api = accwatch_recorder.api;
	accwatch_pyobject *watched =
	    api->PyDict_GetItemString(globals, "_WATCHED");
	accwatch_pyobject *key, *value;
	ssize_t position = 0;
	unsigned n = 0;

	if (!watched ||
	    api->PyObject_IsInstance(watched, api->PyDict_Type) != 1)
		goto end;
	while (api->PyDict_Next(watched, &position, &key, &value)) {
		const char *name = api->PyUnicode_AsUTF8(key);
		if (!name || n == ACCWATCH_WATCHED_MAX ||
		    snprintf(accwatch_recorder.watched[n],
			     sizeof(accwatch_recorder.watched[n]), "%s",
			     name) >=
			(int)sizeof(accwatch_recorder.watched[n])) {
			ACCWATCH_DEBUG("watched module %s left out",
				       name ? name : "(not a string)");
			continue;
		}
		n++;
	}
end:
	accwatch_recorder.n_watched = n;
	if (api->PyErr_Occurred())
		api->PyErr_Clear();
}

static enum accwatch_record_status accwatch_record_boot(void)
{
	const struct accwatch_capi *api = accwatch_recorder.api;
	enum accwatch_record_status status = ACCWATCH_RECORD_ERROR_BOOTSTRAP;
	accwatch_pyobject *globals = api->PyDict_New();

	if (!globals || accwatch_record_fill_globals(globals) < 0)
		goto end;
	for (size_t i = 0;
	     i < sizeof(accwatch_boot_parts) / sizeof(accwatch_boot_parts[0]);
	     i++)
		if (accwatch_record_run_part(accwatch_boot_parts[i].name,
					     accwatch_boot_parts[i].source,
					     globals) < 0)
			goto end;
	accwatch_recorder.fork_stack_fn =
	    accwatch_record_keep(globals, "_fork_stack");
	accwatch_recorder.fork_quiet_fn =
	    accwatch_record_keep(globals, "_fork_quiet");
	accwatch_recorder.module_fn =
	    accwatch_record_keep(globals, "_on_module");
	accwatch_record_take_watched(globals);
	accwatch_recorder.uncaught_fn =
	    accwatch_record_keep(globals, "_on_uncaught");
	accwatch_recorder.fingerprint.api = api;
	accwatch_recorder.fingerprint.view_fn =
	    accwatch_record_keep(globals, "_item_view");
	accwatch_recorder.globals = globals;
	globals = NULL;
	status = ACCWATCH_RECORD_OK;
end:
	if (api->PyErr_Occurred()) {
		if (accwatch_recorder.debug)
			api->PyErr_Print();
		else
			api->PyErr_Clear();
	}
	accwatch_py_drop(api, globals);
	return status;
}

void accwatch_record_call_one(accwatch_pyobject *function,
			      accwatch_pyobject *argument)
{
	const struct accwatch_capi *api = accwatch_recorder.api;
	accwatch_pyobject *arguments = NULL, *result = NULL;

	if (function && argument)
		arguments = api->PyTuple_Pack(1, argument);
	if (arguments)
		result = api->PyObject_CallObject(function, arguments);
	accwatch_py_drop(api, result);
	accwatch_py_drop(api, arguments);
	accwatch_py_drop(api, argument);
	if (api->PyErr_Occurred())
		api->PyErr_Clear();
}

void accwatch_record_on_module(const char *name)
{
	if (accwatch_recorder.module_fn)
		accwatch_record_call_one(
		    accwatch_recorder.module_fn,
		    accwatch_recorder.api->PyUnicode_FromString(name));
}

__attribute__((visibility("default"))) enum accwatch_record_status
accwatch_record_init(int abi, const struct accwatch_capi *api, int debug,
		     struct accwatch_record_hooks *hooks)
{
	enum accwatch_record_status status = ACCWATCH_RECORD_ERROR_ABI;
	int layout;

	if (abi != ACCWATCH_RECORD_ABI)
		goto end;
	accwatch_recorder.api = api;
	accwatch_recorder.debug = debug;
	accwatch_recorder.pid = getpid();
	accwatch_recorder.run = accwatch_env_run(accwatch_env_getenv, NULL);
	accwatch_stall_init();
	accwatch_register_wait();
	layout = accwatch_indices_probe(api);
	ACCWATCH_DEBUG("indices read in place: layout %d (0: C-API only)",
		       layout);
	status = accwatch_record_boot();
	if (status != ACCWATCH_RECORD_OK)
		goto end;
	hooks->on_fork_audit = accwatch_record_on_fork_audit;
	for (unsigned i = 0; i < accwatch_recorder.n_watched; i++)
		hooks->watched[i] = accwatch_recorder.watched[i];
	hooks->n_watched = accwatch_recorder.n_watched;
	hooks->on_module = accwatch_record_on_module;
	hooks->before_fork = accwatch_record_before_fork;
	hooks->after_fork_parent = accwatch_record_after_fork_parent;
	hooks->after_fork_child = accwatch_record_after_fork_child;
	hooks->on_child_exit = accwatch_record_on_child_exit;
	hooks->on_exit_self = accwatch_record_on_exit_self;
	hooks->on_exec = accwatch_record_on_exec;
	hooks->safe_close = accwatch_record_safe_close;
	hooks->is_self = accwatch_record_is_self;
	hooks->on_uncaught = accwatch_record_on_uncaught;
	accwatch_record_exit_init();
end:
	return status;
}
