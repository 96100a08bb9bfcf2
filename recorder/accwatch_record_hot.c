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
#include <stddef.h>
#include <stdint.h>

#include "accwatch_debug.h"
#include "accwatch_events.h"
#include "accwatch_pylayout.h"
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

static uint32_t accwatch_hot_u32(accwatch_pyobject *rec, ssize_t slot)
{
	long long value = accwatch_recorder.api->batch.PyLong_AsLongLong(
	    accwatch_recorder.api->PyList_GetItem(rec, slot));

	return value < 0 || value > UINT32_MAX ? ACCWATCH_UNKNOWN
					       : (uint32_t)value;
}

/* rec[slot] += 1; returns what it was. */
static uint32_t accwatch_hot_count(accwatch_pyobject *rec, ssize_t slot)
{
	const struct accwatch_capi *api = accwatch_recorder.api;
	long long value = accwatch_recorder.api->batch.PyLong_AsLongLong(
	    api->PyList_GetItem(rec, slot));
	accwatch_pyobject *next = api->PyLong_FromLongLong(value + 1);

	if (next)
		accwatch_recorder.api->batch.PyList_SetItem(rec, slot, next);
	return value < 0 || value > UINT32_MAX ? ACCWATCH_UNKNOWN
					       : (uint32_t)value;
}

static int accwatch_hot_flag(accwatch_pyobject *rec, ssize_t slot)
{
	const struct accwatch_capi *api = accwatch_recorder.api;
	accwatch_pyobject *value = api->PyList_GetItem(rec, slot);

	return value && api->PyObject_IsTrue(value) == 1;
}

/* Forgets the last iterator looked up. */
static void accwatch_hot_drop_last(void)
{
	struct accwatch_hot_objects *hot = &accwatch_recorder.hot;
	accwatch_pyobject *rec = hot->last_rec;

	hot->last_iterator = NULL;
	hot->last_rec = NULL;
	accwatch_py_drop(accwatch_recorder.api, rec);
}

/* Keeps rec as the _Iteration of iterator, with the slots that the
 * bootstrap sets once (loader, iteration, recorded, indexed). */
static void accwatch_hot_remember(accwatch_pyobject *iterator,
				  accwatch_pyobject *rec)
{
	struct accwatch_hot_objects *hot = &accwatch_recorder.hot;

	accwatch_hot_drop_last();
	accwatch_recorder.api->Py_IncRef(rec);
	hot->last_loader = accwatch_hot_u32(rec, ACCWATCH_HOT_LOADER);
	hot->last_iteration = accwatch_hot_u32(rec, ACCWATCH_HOT_ITERATION);
	hot->last_recorded = accwatch_hot_flag(rec, ACCWATCH_HOT_RECORDED);
	hot->last_indexed = accwatch_hot_flag(rec, ACCWATCH_HOT_INDEXED);
	hot->last_rec = rec;
	hot->last_iterator = iterator;
}

/* The _Iteration of an iterator, borrowed, or NULL; the last one found is
 * kept (hot.last_*) until the bootstrap's iters changes. */
static accwatch_pyobject *accwatch_hot_rec(accwatch_pyobject *iterator)
{
	const struct accwatch_capi *api = accwatch_recorder.api;
	struct accwatch_hot_objects *hot = &accwatch_recorder.hot;
	accwatch_pyobject *key, *rec;

	if (iterator == hot->last_iterator)
		return hot->last_rec;
	key = api->batch.PyLong_FromVoidPtr(iterator);
	if (!key) {
		api->PyErr_Clear();
		return NULL;
	}
	rec = api->PyDict_GetItem(hot->iters, key);
	api->Py_DecRef(key);
	if (rec)
		accwatch_hot_remember(iterator, rec);
	return rec;
}

/* After torch's _next_index returned index: the batch event, drawn += 1. */
static void accwatch_hot_drawn(accwatch_pyobject *iterator,
			       accwatch_pyobject *index)
{
	const struct accwatch_capi *api = accwatch_recorder.api;
	const struct accwatch_hot_objects *hot = &accwatch_recorder.hot;
	accwatch_pyobject *rec = accwatch_hot_rec(iterator);
	uint32_t loader = hot->last_loader, iteration = hot->last_iteration;
	uint32_t drawn;

	if (!rec) {
		accwatch_pyobject *args[2] = {iterator, index};

		accwatch_hot_callback(accwatch_recorder.hot.on_unknown, args,
				      2);
		return;
	}
	api->Py_IncRef(rec); /* a callback may drop it from the dict */
	if (hot->last_recorded && hot->last_indexed) {
		drawn = accwatch_hot_count(rec, ACCWATCH_HOT_DRAWN);
		accwatch_record_batch(loader, iteration, drawn, index);
	} else if (hot->last_recorded) {
		accwatch_hot_callback(accwatch_recorder.hot.on_unindexed, &rec,
				      1);
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

/* What hot_methods and hot_descriptors are given: (iters, next_index, next,
 * on_unknown, on_unindexed, on_stop), kept for the process. */
static void accwatch_hot_keep(accwatch_pyobject *const *args)
{
	struct accwatch_hot_objects *hot = &accwatch_recorder.hot;
	accwatch_pyobject **kept[] = {&hot->iters,        &hot->next_index,
				      &hot->next,         &hot->on_unknown,
				      &hot->on_unindexed, &hot->on_stop};

	accwatch_hot_drop_last();
	for (size_t i = 0; i < sizeof(kept) / sizeof(kept[0]); i++) {
		accwatch_recorder.api->Py_IncRef(args[i]);
		*kept[i] = args[i];
	}
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
	accwatch_hot_keep(args);
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

/* A per-batch method as a method descriptor of its own type: the
 * interpreter calls it with the iterator first, as it calls a function,
 * where an instancemethod makes a bound method object every call. It has a
 * __dict__ (the bootstrap's functools.update_wrapper: __wrapped__, names,
 * __doc__) and binds like a function when read as an attribute. */
struct accwatch_hot_method {
	unsigned char head[ACCWATCH_OFFSET_SIZE]; /* PyObject_HEAD */
	accwatch_pyobject *(*vectorcall)(accwatch_pyobject *callable,
					 accwatch_pyobject *const *args,
					 size_t nargsf,
					 accwatch_pyobject *kwnames);
	accwatch_pyobject *dict;
	int is_next; /* __next__, else _next_index */
};

static accwatch_pyobject *
accwatch_hot_method_call(accwatch_pyobject *callable,
			 accwatch_pyobject *const *args, size_t nargsf,
			 accwatch_pyobject *kwnames)
{
	const struct accwatch_hot_method *method = (const void *)callable;
	ssize_t nargs =
	    (ssize_t)(nargsf & ~ACCWATCH_PY_VECTORCALL_ARGUMENTS_OFFSET);

	if (kwnames)
		return accwatch_recorder.api->batch.PyObject_Vectorcall(
		    method->is_next ? accwatch_recorder.hot.next
				    : accwatch_recorder.hot.next_index,
		    args, nargsf, kwnames);
	return method->is_next ? accwatch_hot_next(NULL, args, nargs)
			       : accwatch_hot_next_index(NULL, args, nargs);
}

/* __get__: bound to an instance, itself on the class (as a function). */
static accwatch_pyobject *accwatch_hot_method_get(accwatch_pyobject *self,
						  accwatch_pyobject *instance,
						  accwatch_pyobject *owner)
{
	const struct accwatch_capi *api = accwatch_recorder.api;

	(void)owner;
	if (!instance || instance == api->Py_None) {
		api->Py_IncRef(self);
		return self;
	}
	return api->batch.PyMethod_New(self, instance);
}

static struct accwatch_py_member_def accwatch_hot_method_members[] = {
    {"__vectorcalloffset__", ACCWATCH_PY_T_PYSSIZET,
     (ssize_t)offsetof(struct accwatch_hot_method, vectorcall),
     ACCWATCH_PY_READONLY, NULL},
    {"__dictoffset__", ACCWATCH_PY_T_PYSSIZET,
     (ssize_t)offsetof(struct accwatch_hot_method, dict), ACCWATCH_PY_READONLY,
     NULL},
    {NULL, 0, 0, 0, NULL}};

static struct accwatch_py_getset_def accwatch_hot_method_getset[] = {
    {"__dict__", NULL, NULL, NULL, NULL}, {NULL, NULL, NULL, NULL, NULL}};

/* The type, made once; NULL with the error set when it cannot be. */
static accwatch_pyobject *accwatch_hot_method_type(void)
{
	static struct accwatch_py_type_slot slots[] = {
	    {ACCWATCH_PY_TP_CALL, NULL},
	    {ACCWATCH_PY_TP_DESCR_GET, (void *)accwatch_hot_method_get},
	    {ACCWATCH_PY_TP_MEMBERS, accwatch_hot_method_members},
	    {ACCWATCH_PY_TP_GETSET, accwatch_hot_method_getset},
	    {0, NULL}};
	static struct accwatch_py_type_spec spec = {
	    "accwatch.method", (int)sizeof(struct accwatch_hot_method), 0,
	    ACCWATCH_PY_TPFLAGS_DEFAULT |
		ACCWATCH_PY_TPFLAGS_METHOD_DESCRIPTOR |
		ACCWATCH_PY_TPFLAGS_HAVE_VECTORCALL,
	    slots};
	struct accwatch_hot_objects *hot = &accwatch_recorder.hot;

	if (!hot->method_type) {
		const struct accwatch_capi *api = accwatch_recorder.api;

		slots[0].pfunc = (void *)api->batch.PyVectorcall_Call;
		accwatch_hot_method_getset[0].get =
		    (void *)api->batch.PyObject_GenericGetDict;
		accwatch_hot_method_getset[0].set =
		    (void *)api->batch.PyObject_GenericSetDict;
		hot->method_type = api->batch.PyType_FromSpec(&spec);
	}
	return hot->method_type;
}

static accwatch_pyobject *accwatch_hot_method_new(int is_next)
{
	const struct accwatch_capi *api = accwatch_recorder.api;
	accwatch_pyobject *type = accwatch_hot_method_type();
	accwatch_pyobject *method =
	    type ? api->PyObject_CallObject(type, NULL) : NULL;
	struct accwatch_hot_method *fields = (void *)method;

	if (method) {
		fields->vectorcall = accwatch_hot_method_call;
		fields->is_next = is_next;
	}
	return method;
}

/* (iters, next_index, next, on_unknown, on_unindexed, on_stop) -> the
 * (_next_index, __next__) method descriptors, or None: the interpreter
 * lacks what they need (3.9+, the object layout probed at attach). */
accwatch_pyobject *accwatch_py_hot_descriptors(accwatch_pyobject *self,
					       accwatch_pyobject *const *args,
					       ssize_t nargs)
{
	const struct accwatch_capi *api = accwatch_recorder.api;
	accwatch_pyobject *next_index = NULL, *next = NULL, *pair = NULL;

	(void)self;
	if (nargs != 6 || !api->batch.PyObject_Vectorcall ||
	    !accwatch_indices_layout_known()) {
		ACCWATCH_DEBUG("per-batch method descriptors not made");
		goto end;
	}
	next_index = accwatch_hot_method_new(0);
	next = accwatch_hot_method_new(1);
	if (!next_index || !next)
		goto end;
	pair = api->PyTuple_Pack(2, next_index, next);
	if (pair)
		accwatch_hot_keep(args);
end:
	accwatch_py_drop(api, next_index);
	accwatch_py_drop(api, next);
	if (!pair) {
		api->PyErr_Clear();
		pair = accwatch_record_none();
	}
	return pair;
}

accwatch_pyobject *accwatch_py_hot_forget(accwatch_pyobject *self,
					  accwatch_pyobject *const *args,
					  ssize_t nargs)
{
	(void)self;
	(void)args;
	(void)nargs;
	accwatch_hot_drop_last();
	return accwatch_record_none();
}
