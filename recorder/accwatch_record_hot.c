/* SPDX-License-Identifier: MIT */
/* The per-batch path in C: _BaseDataLoaderIter._next_index and __next__ as C
 * methods while a recorded iteration is open. The Python wrappers they
 * replace cost more than the event itself (two interpreter frames and an
 * id() audit event per batch); these run no Python code per batch, and add
 * no frame to a traceback.
 *
 * The bootstrap wraps each builtin in a functools.partial carrying torch's
 * method as __wrapped__ (inspect.signature, __qualname__ and __doc__ read
 * through it, return annotation included) and that in an instancemethod
 * (_aw.instancemethod), which binds it to the iterator like a function. The
 * bootstrap's _Iteration is a list subclass; the slots read here are
 * ACCWATCH_HOT_SLOTS (accwatch_record.h), which the bootstrap gets too. The
 * C-API functions beyond the usual ones are struct accwatch_capi's batch group.
 * Anything unusual (an iterator not bound to an _Iteration, an IterableDataset
 * loader, StopIteration) is handed to a Python callback of the bootstrap. */
#include <stdint.h>

#include "accwatch_debug.h"
#include "accwatch_events.h"
#include "accwatch_record.h"

/* ACCWATCH_HOT_LOADER, ...: the _Iteration slots (accwatch_record.h). */
#define ACCWATCH_HOT_ENUM(NAME, name) ACCWATCH_HOT_##NAME,
enum { ACCWATCH_HOT_SLOTS(ACCWATCH_HOT_ENUM) };

/* callable(*args); a new reference or NULL with the error set. */
static accwatch_pyobject *accwatch_hot_call(accwatch_pyobject *callable,
					    accwatch_pyobject *const *args,
					    ssize_t nargs)
{
	return accwatch_recorder.api->batch.PyObject_Vectorcall(
	    callable, args, (size_t)nargs, NULL);
}

/* A Python callback whose result is dropped; it catches its own errors, and
 * whatever still escapes is cleared: the program never sees ours. */
static void accwatch_hot_callback(accwatch_pyobject *callable,
				  accwatch_pyobject *const *args, ssize_t nargs)
{
	const struct accwatch_capi *api = accwatch_recorder.api;
	accwatch_pyobject *result = accwatch_hot_call(callable, args, nargs);

	if (result)
		api->Py_DecRef(result);
	else
		api->PyErr_Clear();
}

/* The _Iteration of an iterator, borrowed, or NULL. */
static accwatch_pyobject *accwatch_hot_rec(accwatch_pyobject *iterator)
{
	const struct accwatch_capi *api = accwatch_recorder.api;
	accwatch_pyobject *key =
	    accwatch_recorder.api->batch.PyLong_FromVoidPtr(iterator);
	accwatch_pyobject *rec;

	if (!key) {
		api->PyErr_Clear();
		return NULL;
	}
	rec = api->PyDict_GetItem(accwatch_recorder.hot.iters, key);
	api->Py_DecRef(key);
	return rec;
}

static uint32_t accwatch_hot_u32(accwatch_pyobject *rec, ssize_t slot)
{
	long long value = accwatch_recorder.api->batch.PyLong_AsLongLong(
	    accwatch_recorder.api->PyList_GetItem(rec, slot));

	return value < 0 || value > UINT32_MAX ? ACCWATCH_UNKNOWN
					       : (uint32_t)value;
}

/* rec[slot] += 1 */
static void accwatch_hot_count(accwatch_pyobject *rec, ssize_t slot)
{
	const struct accwatch_capi *api = accwatch_recorder.api;
	long long value = accwatch_recorder.api->batch.PyLong_AsLongLong(
	    api->PyList_GetItem(rec, slot));
	accwatch_pyobject *next = api->PyLong_FromLongLong(value + 1);

	if (next)
		accwatch_recorder.api->batch.PyList_SetItem(rec, slot, next);
}

static int accwatch_hot_flag(accwatch_pyobject *rec, ssize_t slot)
{
	const struct accwatch_capi *api = accwatch_recorder.api;
	accwatch_pyobject *value = api->PyList_GetItem(rec, slot);

	return value && api->PyObject_IsTrue(value) == 1;
}

/* After torch's _next_index returned index: the batch event, drawn += 1. */
static void accwatch_hot_drawn(accwatch_pyobject *iterator,
			       accwatch_pyobject *index)
{
	const struct accwatch_capi *api = accwatch_recorder.api;
	accwatch_pyobject *rec = accwatch_hot_rec(iterator);

	if (!rec) {
		accwatch_pyobject *args[2] = {iterator, index};

		accwatch_hot_callback(accwatch_recorder.hot.on_unknown, args,
				      2);
		return;
	}
	api->Py_IncRef(rec); /* a callback may drop it from the dict */
	if (accwatch_hot_flag(rec, ACCWATCH_HOT_RECORDED)) {
		if (accwatch_hot_flag(rec, ACCWATCH_HOT_INDEXED))
			accwatch_record_batch(
			    accwatch_hot_u32(rec, ACCWATCH_HOT_LOADER),
			    accwatch_hot_u32(rec, ACCWATCH_HOT_ITERATION),
			    accwatch_hot_u32(rec, ACCWATCH_HOT_DRAWN), index);
		else
			accwatch_hot_callback(
			    accwatch_recorder.hot.on_unindexed, &rec, 1);
		accwatch_hot_count(rec, ACCWATCH_HOT_DRAWN);
	}
	api->Py_DecRef(rec);
	if (api->PyErr_Occurred())
		api->PyErr_Clear();
}

/* _BaseDataLoaderIter._next_index(self) */
static accwatch_pyobject *
accwatch_hot_next_index(accwatch_pyobject *self, accwatch_pyobject *const *args,
			ssize_t nargs)
{
	accwatch_pyobject *index =
	    accwatch_hot_call(accwatch_recorder.hot.next_index, args, nargs);

	(void)self;
	if (index && nargs == 1)
		accwatch_hot_drawn(args[0], index);
	return index;
}

/* _BaseDataLoaderIter.__next__(self) */
static accwatch_pyobject *accwatch_hot_next(accwatch_pyobject *self,
					    accwatch_pyobject *const *args,
					    ssize_t nargs)
{
	const struct accwatch_capi *api = accwatch_recorder.api;
	accwatch_pyobject *data =
	    accwatch_hot_call(accwatch_recorder.hot.next, args, nargs);
	accwatch_pyobject *rec;

	(void)self;
	if (nargs != 1)
		return data;
	if (!data) {
		accwatch_pyobject *type, *value, *traceback;

		if (!accwatch_recorder.api->batch.PyErr_ExceptionMatches(
			*accwatch_recorder.api->batch.PyExc_StopIteration))
			return NULL;
		/* The end of the epoch: the very StopIteration goes on. */
		api->PyErr_Fetch(&type, &value, &traceback);
		accwatch_hot_callback(accwatch_recorder.hot.on_stop, args, 1);
		api->PyErr_Restore(type, value, traceback);
		return NULL;
	}
	rec = accwatch_hot_rec(args[0]);
	if (rec)
		accwatch_hot_count(rec, ACCWATCH_HOT_YIELDED);
	if (api->PyErr_Occurred())
		api->PyErr_Clear();
	return data;
}

static struct accwatch_py_method_def accwatch_hot_next_index_def = {
    "_next_index", (void *)(accwatch_py_fastcall_fn)accwatch_hot_next_index,
    ACCWATCH_PY_METH_FASTCALL, NULL};
static struct accwatch_py_method_def accwatch_hot_next_def = {
    "__next__", (void *)(accwatch_py_fastcall_fn)accwatch_hot_next,
    ACCWATCH_PY_METH_FASTCALL, NULL};

/* (callable) -> instancemethod(callable): binds like a function. */
accwatch_pyobject *accwatch_py_instancemethod(accwatch_pyobject *self,
					      accwatch_pyobject *const *args,
					      ssize_t nargs)
{
	accwatch_pyobject *method = NULL;

	(void)self;
	if (nargs == 1 && accwatch_recorder.api->batch.PyInstanceMethod_New)
		method =
		    accwatch_recorder.api->batch.PyInstanceMethod_New(args[0]);
	if (!method) {
		accwatch_recorder.api->PyErr_Clear();
		method = accwatch_record_none();
	}
	return method;
}

/* (iters, next_index, next, on_unknown, on_unindexed, on_stop, module) ->
 * the C (_next_index, __next__) as builtins of module (the bootstrap makes
 * them methods), or None: keep the Python ones. */
accwatch_pyobject *accwatch_py_hot_methods(accwatch_pyobject *self,
					   accwatch_pyobject *const *args,
					   ssize_t nargs)
{
	const struct accwatch_capi *api = accwatch_recorder.api;
	accwatch_pyobject *next_index = NULL, *next = NULL, *pair = NULL;

	(void)self;
	if (nargs != 7 || !api->batch.PyObject_Vectorcall) {
		ACCWATCH_DEBUG("per-batch methods in Python");
		goto end;
	}
	accwatch_recorder.hot.iters = args[0];
	accwatch_recorder.hot.next_index = args[1];
	accwatch_recorder.hot.next = args[2];
	accwatch_recorder.hot.on_unknown = args[3];
	accwatch_recorder.hot.on_unindexed = args[4];
	accwatch_recorder.hot.on_stop = args[5];
	for (ssize_t i = 0; i < 6; i++)
		api->Py_IncRef(args[i]); /* kept for the process */
	next_index =
	    api->PyCFunction_NewEx(&accwatch_hot_next_index_def, NULL, args[6]);
	next = api->PyCFunction_NewEx(&accwatch_hot_next_def, NULL, args[6]);
	if (next_index && next)
		pair = api->PyTuple_Pack(2, next_index, next);
end:
	accwatch_py_drop(api, next_index);
	accwatch_py_drop(api, next);
	if (!pair) {
		api->PyErr_Clear();
		pair = accwatch_record_none();
	}
	return pair;
}
