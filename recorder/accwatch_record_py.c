/* SPDX-License-Identifier: MIT */
/* The C functions the bootstrap calls (one per event): they read their
 * Python arguments, fill the event and emit it. They never raise. */
#include <stdlib.h>
#include <unistd.h>

#include "accwatch_debug.h"
#include "accwatch_env.h"
#include "accwatch_events.h"
#include "accwatch_packed.h"
#include "accwatch_record.h"
#include "accwatch_record_args.h"
#include "accwatch_tp.h"

/* role "" means "rank" when a rank variable answered, else "other"; the
 * rank fields and ppid are the recorder's own. */
static void accwatch_process_complete(struct accwatch_process_info *info)
{
	struct accwatch_rank_info rank;

	accwatch_env_rank(accwatch_env_getenv, NULL, &rank);
	info->ppid = getppid();
	info->rank = rank.rank;
	info->local_rank = rank.local_rank;
	info->world_size = rank.world_size;
	info->local_world_size = rank.local_world_size;
	info->rank_source = rank.source;
	if (info->role[0] == '\0')
		info->role = rank.rank >= 0 ? "rank" : "other";
}

/* The events without a sequence, callable by keyword (one C function,
 * its self the event's index here). */
struct accwatch_event_call {
	const char *name;
	const struct accwatch_arg_list *args;
	void (*emit)(const void *info);
};

/* What stands inside is kept for the events without a sequence only. */
#define ACCWATCH_IF_none(...) __VA_ARGS__
#define ACCWATCH_IF_u32_indices(...)
#define ACCWATCH_IF_i64_indices(...)
#define ACCWATCH_IF_packed_indices(...)
#define ACCWATCH_IF_bits_indices(...)
#define ACCWATCH_IF_u64_hashes(...)

/* clang-format off */
#define ACCWATCH_EMIT(name, NAME, list, model, sequence)                       \
	ACCWATCH_IF_##sequence(                                                \
	    static void accwatch_emit_##name(const void *info)                 \
	    {                                                                  \
		    ACCWATCH_BOUNDED(#name, ACCWATCH_UNKNOWN,                  \
				     ACCWATCH_UNKNOWN, ACCWATCH_UNKNOWN,       \
				     lttng_ust_tracepoint(accwatch, name,      \
							  info));              \
	    })
ACCWATCH_EVENTS(ACCWATCH_EMIT)

#define ACCWATCH_CALL(name, NAME, list, model, sequence)                       \
	ACCWATCH_IF_##sequence(                                                \
	    {#name, &accwatch_args_##list, accwatch_emit_##name},)
/* clang-format on */
static const struct accwatch_event_call accwatch_event_calls[] = {
    ACCWATCH_EVENTS(ACCWATCH_CALL)};
#define ACCWATCH_EVENT_CALLS                                                   \
	(sizeof(accwatch_event_calls) / sizeof(accwatch_event_calls[0]))

static accwatch_pyobject *accwatch_py_event(accwatch_pyobject *self,
					    accwatch_pyobject *const *args,
					    ssize_t nargs,
					    accwatch_pyobject *kwnames)
{
	int64_t index = accwatch_arg_int(self, ACCWATCH_KIND_u32, -1);
	const struct accwatch_event_call *call;
	union accwatch_any_info info;

	if (index < 0 || (size_t)index >= ACCWATCH_EVENT_CALLS)
		goto end;
	call = &accwatch_event_calls[index];
	accwatch_args_fill(call->name, call->args, &info, args, nargs, kwnames,
			   NULL);
	if (call->args == &accwatch_args_process)
		accwatch_process_complete(&info.process);
	call->emit(&info);
end:
	return accwatch_record_none();
}

/* batch and worker_fetch walk their indices the same way, one event per
 * chunk; only the event (and its info) differs. */
struct accwatch_indices_event {
	uint32_t *offset, *total, *count; /* fields of info */
	void (*emit)(const void *info, const uint32_t *narrow,
		     const int64_t *wide);
	const void *info;
};

static void accwatch_emit_chunk(void *context, uint32_t offset, uint32_t total,
				uint32_t count, const uint32_t *narrow,
				const int64_t *wide)
{
	const struct accwatch_indices_event *event = context;

	*event->offset = offset;
	*event->total = total;
	*event->count = count;
	event->emit(event->info, narrow, wide);
}

static void accwatch_walk_indices(accwatch_pyobject *indices,
				  struct accwatch_indices_event *event,
				  const char *what, uint32_t ordinal)
{
	if (accwatch_indices_walk(
		accwatch_recorder.api, indices, ACCWATCH_CHUNK_MAX,
		&accwatch_recorder.indices, accwatch_emit_chunk,
		event) != ACCWATCH_INDICES_OK)
		ACCWATCH_DEBUG("%s %u: indices not recorded", what, ordinal);
}

/* One field of a _bits event's head (ACCWATCH_BITS_HEAD_<event>,
 * accwatch_catalogue.def), of the info `of`, into writer w. */
#define ACCWATCH_HEAD_PUT(of, name, coding)                                    \
	accwatch_packed_put_##coding(w, (of)->name);

/* Room for the words of a chunk of count indices: small chunks (a batch)
 * use the stack; NULL when none could be had. */
#define ACCWATCH_PACK_ON_STACK 256u
static uint64_t *accwatch_pack_room(uint32_t count, uint64_t *stack)
{
	return count <= ACCWATCH_PACK_ON_STACK
		   ? stack
		   : malloc(ACCWATCH_PACKED_BITS_WORDS(count) *
			    sizeof(uint64_t));
}

/* After the head in w: the chunk's place in its batch and its indices
 * (narrow or wide); returns the words of the whole stream. Not inlined:
 * bench/instructions.py counts it on its own. */
__attribute__((noinline)) static size_t
accwatch_pack(struct accwatch_packed_writer *w, uint32_t offset, uint32_t total,
	      uint32_t count, const uint32_t *narrow, const int64_t *wide)
{
	accwatch_packed_put_place(w, offset, total, count);
	if (narrow)
		accwatch_packed_encode_u32_put(w, narrow, count);
	else
		accwatch_packed_encode_i64_put(w, wide, count);
	return accwatch_packed_finish(w);
}

/* The emitter of an event with indices: its _bits event (tracepoint names
 * are literals; the plain, _wide and _packed ones are for traces of
 * before), the head of its words as the catalogue lists it. */
#define ACCWATCH_INDICES_EMITTER(function, event, type, iteration, batch)      \
	static inline void function##_head(struct accwatch_packed_writer *w,   \
					   const struct type *of)              \
	{                                                                      \
		ACCWATCH_BITS_HEAD_##event##_bits(ACCWATCH_HEAD_PUT, of)       \
	}                                                                      \
	static void function##_now(const void *info, const uint32_t *narrow,   \
				   const int64_t *wide)                        \
	{                                                                      \
		const struct type *of = info;                                  \
		uint64_t                                                       \
		    stack[ACCWATCH_PACKED_BITS_WORDS(ACCWATCH_PACK_ON_STACK)]; \
		uint64_t *words = accwatch_pack_room(of->count, stack);        \
		struct accwatch_packed_writer w = {words, 0, 0, 0};            \
		size_t n;                                                      \
                                                                               \
		if (!words)                                                    \
			return;                                                \
		function##_head(&w, of);                                       \
		n = accwatch_pack(&w, of->offset, of->total, of->count,        \
				  narrow, wide);                               \
		lttng_ust_tracepoint(accwatch, event##_bits, info, words,      \
				     (uint16_t)n);                             \
		if (words != stack)                                            \
			free(words);                                           \
	}                                                                      \
	static void function(const void *info, const uint32_t *narrow,         \
			     const int64_t *wide)                              \
	{                                                                      \
		const struct type *of = info;                                  \
		ACCWATCH_BOUNDED(#event, of->loader, iteration, batch,         \
				 function##_now(info, narrow, wide));          \
	}
ACCWATCH_INDICES_EMITTER(accwatch_emit_batch, batch, accwatch_batch_info,
			 of->iteration, of->batch)
ACCWATCH_INDICES_EMITTER(accwatch_emit_fetch, worker_fetch, accwatch_chunk_info,
			 of->iteration, of->batch)
ACCWATCH_INDICES_EMITTER(accwatch_emit_dataset_map, dataset_map,
			 accwatch_dataset_map_info, ACCWATCH_UNKNOWN,
			 ACCWATCH_UNKNOWN)

void accwatch_record_batch(uint32_t loader, uint32_t iteration, uint32_t batch,
			   accwatch_pyobject *indices)
{
	struct accwatch_batch_info info;
	struct accwatch_indices_event event = {
	    &info.offset, &info.total, &info.count, accwatch_emit_batch, &info};

	if (!lttng_ust_tracepoint_enabled(accwatch, batch_bits))
		return;
	info.run = accwatch_recorder.run;
	info.pid = accwatch_recorder.pid;
	info.loader = loader;
	info.iteration = iteration;
	info.batch = batch;
	accwatch_walk_indices(indices, &event, "batch", batch);
}

/* The keyword holding a chunk event's sequence (the catalogue's name of
 * its indices) or its items (data, batched: item_fetch). */
#define ACCWATCH_STRING(token) ACCWATCH_STRING_OF(token)
#define ACCWATCH_STRING_OF(token) #token
static const char *const accwatch_indices_keyword[] = {
    ACCWATCH_STRING(ACCWATCH_SEQ_NAME_u32_indices)};
static const char *const accwatch_items_keywords[] = {"data", "batched"};

/* batch(loader=, iteration=, batch=, indices=): the per-batch path when the
 * bootstrap's Python wrappers are in use (accwatch_record_hot.c otherwise).
 */
static accwatch_pyobject *accwatch_py_batch(accwatch_pyobject *self,
					    accwatch_pyobject *const *args,
					    ssize_t nargs,
					    accwatch_pyobject *kwnames)
{
	struct accwatch_batch_info info;
	accwatch_pyobject *indices;
	struct accwatch_arg_extra extra = {accwatch_indices_keyword, &indices,
					   1};

	(void)self;
	accwatch_args_fill("batch", &accwatch_args_batch, &info, args, nargs,
			   kwnames, &extra);
	if (indices)
		accwatch_record_batch(info.loader, info.iteration, info.batch,
				      indices);
	return accwatch_record_none();
}

/* dataset_map(loader=, depth=, kind=, base_len=, indices=): one index map
 * below a loader, once, in chunks. */
static accwatch_pyobject *
accwatch_py_dataset_map(accwatch_pyobject *self, accwatch_pyobject *const *args,
			ssize_t nargs, accwatch_pyobject *kwnames)
{
	struct accwatch_dataset_map_info info;
	accwatch_pyobject *indices;
	struct accwatch_arg_extra extra = {accwatch_indices_keyword, &indices,
					   1};
	struct accwatch_indices_event event = {
	    &info.offset, &info.total, &info.count, accwatch_emit_dataset_map,
	    &info};

	(void)self;
	if (!lttng_ust_tracepoint_enabled(accwatch, dataset_map_bits))
		goto end;
	accwatch_args_fill("dataset_map", &accwatch_args_dataset_map, &info,
			   args, nargs, kwnames, &extra);
	if (indices)
		accwatch_walk_indices(indices, &event, "dataset_map",
				      info.depth);
end:
	return accwatch_record_none();
}

/* worker_fetch(worker_id=, loader=, iteration=, batch=, indices=); batch is
 * the worker's fetch ordinal. */
static accwatch_pyobject *
accwatch_py_worker_fetch(accwatch_pyobject *self,
			 accwatch_pyobject *const *args, ssize_t nargs,
			 accwatch_pyobject *kwnames)
{
	struct accwatch_chunk_info info;
	accwatch_pyobject *indices;
	struct accwatch_arg_extra extra = {accwatch_indices_keyword, &indices,
					   1};
	struct accwatch_indices_event event = {
	    &info.offset, &info.total, &info.count, accwatch_emit_fetch, &info};

	(void)self;
	if (!lttng_ust_tracepoint_enabled(accwatch, worker_fetch_bits))
		goto end;
	accwatch_args_fill("worker_fetch", &accwatch_args_chunk, &info, args,
			   nargs, kwnames, &extra);
	if (indices)
		accwatch_walk_indices(indices, &event, "worker fetch",
				      info.batch);
end:
	return accwatch_record_none();
}

/* Item fingerprints per event: chunks of this many (stack, not shared: the
 * fingerprinting may run Python code that lets another thread in). */
#define ACCWATCH_ITEM_CHUNK 256

static void accwatch_emit_items(struct accwatch_chunk_info *info,
				accwatch_pyobject *items, int is_list,
				ssize_t count)
{
	const struct accwatch_capi *api = accwatch_recorder.api;
	uint64_t hashes[ACCWATCH_ITEM_CHUNK];
	ssize_t offset = 0;

	info->total = (uint32_t)count;
	while (offset < count) {
		uint32_t used = 0;

		while (used < ACCWATCH_ITEM_CHUNK && offset + used < count) {
			accwatch_pyobject *item =
			    !items ? NULL
			    : is_list
				? api->PyList_GetItem(items, offset + used)
				: api->PyTuple_GetItem(items, offset + used);

			if (!item) {
				api->PyErr_Clear();
				return;
			}
			api->Py_IncRef(item);
			hashes[used++] = accwatch_fingerprint(
			    &accwatch_recorder.fingerprint, item);
			api->Py_DecRef(item);
		}
		info->offset = (uint32_t)offset;
		info->count = used;
		ACCWATCH_BOUNDED(
		    "item_fetch", info->loader, info->iteration, info->batch,
		    lttng_ust_tracepoint(accwatch, item_fetch, info, hashes));
		offset += used;
	}
}

/* item_fetch(worker_id=, loader=, iteration=, batch=, data=, batched=):
 * data is what the IterableDataset fetcher hands to collate_fn, a list of
 * items when batched, else one item. */
static accwatch_pyobject *accwatch_py_item_fetch(accwatch_pyobject *self,
						 accwatch_pyobject *const *args,
						 ssize_t nargs,
						 accwatch_pyobject *kwnames)
{
	const struct accwatch_capi *api = accwatch_recorder.api;
	struct accwatch_chunk_info info;
	accwatch_pyobject *items[2];
	struct accwatch_arg_extra extra = {accwatch_items_keywords, items, 2};
	accwatch_pyobject *data;
	uint64_t hash;
	int is_list;

	(void)self;
	if (!lttng_ust_tracepoint_enabled(accwatch, item_fetch))
		goto end;
	accwatch_args_fill("item_fetch", &accwatch_args_chunk, &info, args,
			   nargs, kwnames, &extra);
	data = items[0];
	if (!data)
		goto end;
	is_list = api->PyObject_IsInstance(data, api->PyList_Type);
	if (is_list < 0)
		api->PyErr_Clear();
	if (items[1] && accwatch_arg_int(items[1], ACCWATCH_KIND_i64, 0) &&
	    (is_list == 1 ||
	     api->PyObject_IsInstance(data, api->PyTuple_Type) == 1)) {
		accwatch_emit_items(&info, data, is_list == 1,
				    is_list == 1 ? api->PyList_Size(data)
						 : api->PyTuple_Size(data));
	} else {
		hash =
		    accwatch_fingerprint(&accwatch_recorder.fingerprint, data);
		info.offset = 0;
		info.total = info.count = 1;
		ACCWATCH_BOUNDED(
		    "item_fetch", info.loader, info.iteration, info.batch,
		    lttng_ust_tracepoint(accwatch, item_fetch, &info, &hash));
	}
	if (api->PyErr_Occurred())
		api->PyErr_Clear();
end:
	return accwatch_record_none();
}

/* self is (target, before): calls before(*args, **kwargs); when it returns
 * a dict of worker_fetch_end's fields by name (worker_id, loader, iteration,
 * batch: the catalogue's list), calls target(*args, **kwargs) and emits
 * worker_fetch_end after it returned or raised. Being C, it adds no
 * frame to the traceback of target's exceptions (see call_before). */
static accwatch_pyobject *accwatch_py_call_around(accwatch_pyobject *self,
						  accwatch_pyobject *args,
						  accwatch_pyobject *kwargs)
{
	const struct accwatch_capi *api = accwatch_recorder.api;
	accwatch_pyobject *target = api->PyTuple_GetItem(self, 0);
	accwatch_pyobject *before = api->PyTuple_GetItem(self, 1);
	accwatch_pyobject *token, *result;
	struct accwatch_fetch_end_info end = {.run = accwatch_recorder.run,
					      .pid = accwatch_recorder.pid};
	int known = 0;

	if (!target || !before)
		return NULL;
	token = api->PyObject_Call(before, args, kwargs);
	if (!token)
		return NULL;
	if (api->PyObject_IsInstance(token, api->PyDict_Type) == 1) {
		accwatch_args_fill_dict("worker_fetch_end",
					&accwatch_args_fetch_end, &end, token);
		known = 1;
	}
	api->Py_DecRef(token);
	if (api->PyErr_Occurred())
		api->PyErr_Clear();
	result = api->PyObject_Call(target, args, kwargs);
	if (known) {
		end.ok = result != NULL;
		ACCWATCH_BOUNDED(
		    "worker_fetch_end", end.loader, end.iteration, end.batch,
		    lttng_ust_tracepoint(accwatch, worker_fetch_end, &end));
	}
	return result;
}

static const struct accwatch_py_method_def accwatch_call_around_def = {
    "call_around",
    (void *)(accwatch_py_keywords_fn)accwatch_py_call_around,
    ACCWATCH_PY_METH_VARARGS | ACCWATCH_PY_METH_KEYWORDS,
    NULL,
};

/* self is (target, before): calls before(*args, **kwargs), then returns
 * target(*args, **kwargs). Being C, it adds no frame to the traceback of an
 * exception raised by target (torch copies worker tracebacks into messages).
 * before catches its own errors: what reaches here (KeyboardInterrupt...)
 * propagates. */
static accwatch_pyobject *accwatch_py_call_before(accwatch_pyobject *self,
						  accwatch_pyobject *args,
						  accwatch_pyobject *kwargs)
{
	const struct accwatch_capi *api = accwatch_recorder.api;
	accwatch_pyobject *target = api->PyTuple_GetItem(self, 0);
	accwatch_pyobject *before = api->PyTuple_GetItem(self, 1);
	accwatch_pyobject *result;

	if (!target || !before)
		return NULL;
	result = api->PyObject_Call(before, args, kwargs);
	if (!result)
		return NULL;
	api->Py_DecRef(result);
	return api->PyObject_Call(target, args, kwargs);
}

static const struct accwatch_py_method_def accwatch_call_before_def = {
    "call_before",
    (void *)(accwatch_py_keywords_fn)accwatch_py_call_before,
    ACCWATCH_PY_METH_VARARGS | ACCWATCH_PY_METH_KEYWORDS,
    NULL,
};

/* self is (target, before, after): token = before(*args, **kwargs) (before
 * None: token None), then target(*args, **kwargs); after(token, result,
 * None) is what the call returns; when target raised, after(token, None,
 * exception) is told (its class when C raised it without a value) and the
 * exception goes on unchanged (after's own return value or error dropped).
 * Being C, it puts no frame of accwatch's between the caller and target:
 * tracebacks, inspect.stack() and sys._getframe() inside target see what they
 * see without accwatch. target None: the token is the target, called with the
 * arguments after the first. before and after catch their own errors; what
 * reaches here from before (KeyboardInterrupt...) propagates. */
/* function(a, b, c), NULL with an error set when it raised. */
static accwatch_pyobject *accwatch_call3(accwatch_pyobject *function,
					 accwatch_pyobject *a,
					 accwatch_pyobject *b,
					 accwatch_pyobject *c)
{
	const struct accwatch_capi *api = accwatch_recorder.api;
	accwatch_pyobject *args = api->PyTuple_Pack(3, a, b, c);
	accwatch_pyobject *result;

	if (!args)
		return NULL;
	result = api->PyObject_CallObject(function, args);
	api->Py_DecRef(args);
	return result;
}

static accwatch_pyobject *accwatch_py_around(accwatch_pyobject *self,
					     accwatch_pyobject *args,
					     accwatch_pyobject *kwargs)
{
	const struct accwatch_capi *api = accwatch_recorder.api;
	accwatch_pyobject *target = api->PyTuple_GetItem(self, 0);
	accwatch_pyobject *before = api->PyTuple_GetItem(self, 1);
	accwatch_pyobject *after = api->PyTuple_GetItem(self, 2);
	accwatch_pyobject *token, *result, *told;
	accwatch_pyobject *type, *value, *traceback;

	if (!target || !before || !after)
		return NULL;
	if (before == api->Py_None) {
		token = accwatch_record_none();
	} else {
		token = api->PyObject_Call(before, args, kwargs);
		if (!token)
			return NULL;
	}
	if (target == api->Py_None) {
		/* before named the target, already bound to the first
		 * argument (a class's next __init_subclass__ in its MRO). */
		accwatch_pyobject *rest =
		    api->PyTuple_GetSlice(args, 1, api->PyTuple_Size(args));
		result = rest ? api->PyObject_Call(token, rest, kwargs) : NULL;
		accwatch_py_drop(api, rest);
	} else {
		result = api->PyObject_Call(target, args, kwargs);
	}
	if (after == api->Py_None) {
		api->Py_DecRef(token);
		return result;
	}
	if (result) {
		told = accwatch_call3(after, token, result, api->Py_None);
		api->Py_DecRef(token);
		if (!told) {
			/* after failed past its own guard: the call's
			 * result stands. */
			api->PyErr_Clear();
			return result;
		}
		api->Py_DecRef(result);
		return told;
	}
	api->PyErr_Fetch(&type, &value, &traceback);
	told = accwatch_call3(after, token, api->Py_None,
			      value  ? value
			      : type ? type
				     : api->Py_None);
	if (told)
		api->Py_DecRef(told);
	else
		api->PyErr_Clear();
	api->Py_DecRef(token);
	api->PyErr_Restore(type, value, traceback);
	return NULL;
}

static const struct accwatch_py_method_def accwatch_around_def = {
    "around",
    (void *)(accwatch_py_keywords_fn)accwatch_py_around,
    ACCWATCH_PY_METH_VARARGS | ACCWATCH_PY_METH_KEYWORDS,
    NULL,
};

/* A C callable whose self is (target, before); None when it cannot be
 * made. */
static accwatch_pyobject *
accwatch_trampoline_new(const struct accwatch_py_method_def *def,
			accwatch_pyobject *const *args, ssize_t nargs)
{
	const struct accwatch_capi *api = accwatch_recorder.api;
	accwatch_pyobject *pair = NULL, *function = NULL;
	ssize_t want = def == &accwatch_around_def ? 3 : 2;

	if (nargs != want) {
		ACCWATCH_DEBUG("%s: %zd arguments instead of %zd", def->ml_name,
			       nargs, want);
		goto end;
	}
	pair = want == 3 ? api->PyTuple_Pack(3, args[0], args[1], args[2])
			 : api->PyTuple_Pack(2, args[0], args[1]);
	if (!pair)
		goto end;
	function = api->PyCFunction_NewEx((struct accwatch_py_method_def *)def,
					  pair, NULL);
end:
	accwatch_py_drop(api, pair);
	if (!function) {
		api->PyErr_Clear();
		function = accwatch_record_none();
	}
	return function;
}

/* (target, before, after) -> a callable running before, target, then
 * after (accwatch_py_around). */
static accwatch_pyobject *accwatch_py_around_new(accwatch_pyobject *self,
						 accwatch_pyobject *const *args,
						 ssize_t nargs)
{
	(void)self;
	return accwatch_trampoline_new(&accwatch_around_def, args, nargs);
}

/* (target, before) -> a callable running before, then target. */
static accwatch_pyobject *
accwatch_py_call_before_new(accwatch_pyobject *self,
			    accwatch_pyobject *const *args, ssize_t nargs)
{
	(void)self;
	return accwatch_trampoline_new(&accwatch_call_before_def, args, nargs);
}

/* (target, before) -> a callable running before, target, then emitting
 * worker_fetch_end. */
static accwatch_pyobject *
accwatch_py_call_around_new(accwatch_pyobject *self,
			    accwatch_pyobject *const *args, ssize_t nargs)
{
	(void)self;
	return accwatch_trampoline_new(&accwatch_call_around_def, args, nargs);
}

/* () -> True when a session has the per-batch events on: the bootstrap
 * then records the iteration (or worker fetcher) that starts. */
static accwatch_pyobject *accwatch_py_recording(accwatch_pyobject *self,
						accwatch_pyobject *const *args,
						ssize_t nargs)
{
	int on = lttng_ust_tracepoint_enabled(accwatch, batch_bits) ||
		 lttng_ust_tracepoint_enabled(accwatch, iter_begin) ||
		 lttng_ust_tracepoint_enabled(accwatch, worker_fetch_bits) ||
		 lttng_ust_tracepoint_enabled(accwatch, item_fetch);

	(void)self;
	(void)args;
	(void)nargs;
	return accwatch_recorder.api->PyLong_FromLongLong(on);
}

/* (message): the bootstrap's diagnostics, through ACCWATCH_DEBUG. */
static accwatch_pyobject *accwatch_py_debug(accwatch_pyobject *self,
					    accwatch_pyobject *const *args,
					    ssize_t nargs)
{
	(void)self;
	if (nargs == 1)
		ACCWATCH_DEBUG("%s", accwatch_arg_str(args[0]));
	return accwatch_record_none();
}

#define ACCWATCH_METHOD(name, function)                                        \
	{                                                                      \
		name, (void *)(accwatch_py_fastcall_fn)function,               \
		    ACCWATCH_PY_METH_FASTCALL, NULL                            \
	}
#define ACCWATCH_KEYWORD_METHOD(name, function)                                \
	{                                                                      \
		name, (void *)(accwatch_py_fastcall_keywords_fn)function,      \
		    ACCWATCH_PY_METH_FASTCALL | ACCWATCH_PY_METH_KEYWORDS,     \
		    NULL                                                       \
	}

/* The module _aw's functions besides the events without a sequence. */
static const struct accwatch_py_method_def accwatch_record_methods[] = {
    ACCWATCH_KEYWORD_METHOD("batch", accwatch_py_batch),
    ACCWATCH_KEYWORD_METHOD("worker_fetch", accwatch_py_worker_fetch),
    ACCWATCH_KEYWORD_METHOD("item_fetch", accwatch_py_item_fetch),
    ACCWATCH_KEYWORD_METHOD("dataset_map", accwatch_py_dataset_map),
    ACCWATCH_METHOD("hot_methods", accwatch_py_hot_methods),
    ACCWATCH_METHOD("instancemethod", accwatch_py_instancemethod),
    ACCWATCH_METHOD("hot_descriptors", accwatch_py_hot_descriptors),
    ACCWATCH_METHOD("hot_forget", accwatch_py_hot_forget),
    ACCWATCH_METHOD("call_before", accwatch_py_call_before_new),
    ACCWATCH_METHOD("call_around", accwatch_py_call_around_new),
    ACCWATCH_METHOD("around", accwatch_py_around_new),
    ACCWATCH_METHOD("recording", accwatch_py_recording),
    ACCWATCH_METHOD("debug", accwatch_py_debug),
};

static const struct accwatch_py_method_def accwatch_event_method =
    ACCWATCH_KEYWORD_METHOD("event", accwatch_py_event);

/* module.name = value, dropping the reference to value. */
static int accwatch_module_set(accwatch_pyobject *module, const char *name,
			       accwatch_pyobject *value)
{
	const struct accwatch_capi *api = accwatch_recorder.api;
	int ret;

	if (!value)
		return -1;
	ret = api->PyObject_SetAttrString(module, name, value);
	api->Py_DecRef(value);
	return ret;
}

/* "loader iteration ...": the names of ACCWATCH_HOT_SLOTS. */
#define ACCWATCH_HOT_NAME(NAME, name) #name " "
#define ACCWATCH_HOT_NAMES ACCWATCH_HOT_SLOTS(ACCWATCH_HOT_NAME)

int accwatch_record_module_fill(accwatch_pyobject *module)
{
	const struct accwatch_capi *api = accwatch_recorder.api;
	size_t i;

	int ok = accwatch_module_set(
		     module, "UNKNOWN",
		     api->PyLong_FromLongLong(ACCWATCH_UNKNOWN)) == 0;

	ok = ok && accwatch_module_set(
		       module, "BOOT_PREFIX",
		       api->PyUnicode_FromString(ACCWATCH_BOOT_PREFIX)) == 0;
	ok = ok && accwatch_module_set(
		       module, "DEBUG",
		       api->PyLong_FromLongLong(accwatch_recorder.debug)) == 0;
	ok = ok && accwatch_module_set(
		       module, "HOT_SLOTS",
		       api->PyUnicode_FromString(ACCWATCH_HOT_NAMES)) == 0;
	if (!ok)
		return -1;

	for (i = 0; i < sizeof(accwatch_record_methods) /
			    sizeof(accwatch_record_methods[0]);
	     i++) {
		struct accwatch_py_method_def *def =
		    (struct accwatch_py_method_def
			 *)&accwatch_record_methods[i];

		if (accwatch_module_set(
			module, def->ml_name,
			api->PyCFunction_NewEx(def, NULL, NULL)) < 0)
			return -1;
	}
	/* One function per event: the same C function, its self the index
	 * of the event's entry. */
	for (i = 0; i < ACCWATCH_EVENT_CALLS; i++) {
		accwatch_pyobject *index =
		    api->PyLong_FromLongLong((long long)i);
		accwatch_pyobject *function =
		    index
			? api->PyCFunction_NewEx((struct accwatch_py_method_def
						      *)&accwatch_event_method,
						 index, NULL)
			: NULL;

		accwatch_py_drop(api, index);
		if (accwatch_module_set(module, accwatch_event_calls[i].name,
					function) < 0)
			return -1;
	}
	return 0;
}
