/* The C functions the bootstrap calls (one per event): they read their
 * Python arguments, fill the event and emit it. They never raise. */
#include <stdlib.h>
#include <unistd.h>

#include "accwatch_debug.h"
#include "accwatch_env.h"
#include "accwatch_events.h"
#include "accwatch_record.h"
#include "accwatch_tp.h"

static int64_t accwatch_arg_i64(accwatch_pyobject *object, int64_t fallback)
{
	const struct accwatch_capi *api = accwatch_recorder.api;
	int overflow = 0;
	long long value = api->PyLong_AsLongLongAndOverflow(object, &overflow);

	if (value == -1 && api->PyErr_Occurred()) {
		api->PyErr_Clear();
		return fallback;
	}
	return overflow ? fallback : value;
}

static int32_t accwatch_arg_i32(accwatch_pyobject *object)
{
	int64_t value = accwatch_arg_i64(object, -1);

	return value < INT32_MIN || value > INT32_MAX ? -1 : (int32_t)value;
}

static int8_t accwatch_arg_i8(accwatch_pyobject *object)
{
	int64_t value = accwatch_arg_i64(object, -1);

	return value < INT8_MIN || value > INT8_MAX ? -1 : (int8_t)value;
}

/* Loader, iteration and batch ordinals: ACCWATCH_UNKNOWN when unknown. */
static uint32_t accwatch_arg_u32(accwatch_pyobject *object)
{
	int64_t value = accwatch_arg_i64(object, -1);

	return value < 0 || value > UINT32_MAX ? ACCWATCH_UNKNOWN
					       : (uint32_t)value;
}

static const char *accwatch_arg_str(accwatch_pyobject *object)
{
	const struct accwatch_capi *api = accwatch_recorder.api;
	const char *text = api->PyUnicode_AsUTF8(object);

	if (!text) {
		api->PyErr_Clear();
		text = "";
	}
	return text;
}

static int accwatch_args_ok(const char *name, ssize_t nargs, ssize_t expected)
{
	if (nargs == expected)
		return 1;
	ACCWATCH_DEBUG("%s: %zd arguments instead of %zd", name, nargs,
		       expected);
	return 0;
}

/* (role, argv, host, python, torch); role "" means "rank" when a rank
 * variable answered, else "other". */
static accwatch_pyobject *accwatch_py_process(accwatch_pyobject *self,
					      accwatch_pyobject *const *args,
					      ssize_t nargs)
{
	struct accwatch_process_info info;
	struct accwatch_rank_info rank;

	(void)self;
	if (!accwatch_args_ok("process", nargs, 5))
		goto end;
	accwatch_env_rank(accwatch_env_getenv, NULL, &rank);
	info.run = accwatch_recorder.run;
	info.pid = accwatch_recorder.pid;
	info.ppid = getppid();
	info.rank = rank.rank;
	info.local_rank = rank.local_rank;
	info.world_size = rank.world_size;
	info.local_world_size = rank.local_world_size;
	info.rank_source = rank.source;
	info.role = accwatch_arg_str(args[0]);
	if (info.role[0] == '\0')
		info.role = rank.rank >= 0 ? "rank" : "other";
	info.argv = accwatch_arg_str(args[1]);
	info.host = accwatch_arg_str(args[2]);
	info.python = accwatch_arg_str(args[3]);
	info.torch = accwatch_arg_str(args[4]);
	lttng_ust_tracepoint(accwatch, process, &info);
end:
	return accwatch_record_none();
}

/* (rank, world_size, backend) */
static accwatch_pyobject *accwatch_py_dist_init(accwatch_pyobject *self,
						accwatch_pyobject *const *args,
						ssize_t nargs)
{
	(void)self;
	if (!accwatch_args_ok("dist_init", nargs, 3))
		goto end;
	lttng_ust_tracepoint(accwatch, dist_init, accwatch_recorder.run,
			     accwatch_recorder.pid, accwatch_arg_i32(args[0]),
			     accwatch_arg_i32(args[1]),
			     accwatch_arg_str(args[2]));
end:
	return accwatch_record_none();
}

/* The fields of struct accwatch_loader_info after run and pid, in order. */
static accwatch_pyobject *accwatch_py_loader_new(accwatch_pyobject *self,
						 accwatch_pyobject *const *args,
						 ssize_t nargs)
{
	struct accwatch_loader_info info;

	(void)self;
	if (!accwatch_args_ok("loader_new", nargs, 19))
		goto end;
	info.run = accwatch_recorder.run;
	info.pid = accwatch_recorder.pid;
	info.loader = accwatch_arg_u32(args[0]);
	info.dataset_id = (uint64_t)accwatch_arg_i64(args[1], 0);
	info.dataset_type = accwatch_arg_str(args[2]);
	info.dataset_len = accwatch_arg_i64(args[3], -1);
	info.iterable = (uint8_t)accwatch_arg_i8(args[4]);
	info.loader_class = accwatch_arg_str(args[5]);
	info.sampler_class = accwatch_arg_str(args[6]);
	info.batch_sampler_class = accwatch_arg_str(args[7]);
	info.batch_size = accwatch_arg_i64(args[8], -1);
	info.drop_last = accwatch_arg_i8(args[9]);
	info.shuffle = accwatch_arg_i8(args[10]);
	info.num_workers = accwatch_arg_i32(args[11]);
	info.persistent_workers = accwatch_arg_i8(args[12]);
	info.prefetch_factor = accwatch_arg_i32(args[13]);
	info.start_method = accwatch_arg_str(args[14]);
	info.sampler_replicas = accwatch_arg_i32(args[15]);
	info.sampler_rank = accwatch_arg_i32(args[16]);
	info.site = accwatch_arg_str(args[17]);
	info.stack = accwatch_arg_str(args[18]);
	lttng_ust_tracepoint(accwatch, loader_new, &info);
end:
	return accwatch_record_none();
}

/* (outer, inner, kind, split_batches, even_batches, num_processes,
 * process_index) */
static accwatch_pyobject *
accwatch_py_loader_wrap(accwatch_pyobject *self, accwatch_pyobject *const *args,
			ssize_t nargs)
{
	struct accwatch_wrap_info info;

	(void)self;
	if (!accwatch_args_ok("loader_wrap", nargs, 7))
		goto end;
	info.run = accwatch_recorder.run;
	info.pid = accwatch_recorder.pid;
	info.outer = accwatch_arg_u32(args[0]);
	info.inner = accwatch_arg_u32(args[1]);
	info.kind = accwatch_arg_str(args[2]);
	info.split_batches = accwatch_arg_i8(args[3]);
	info.even_batches = accwatch_arg_i8(args[4]);
	info.num_processes = accwatch_arg_i32(args[5]);
	info.process_index = accwatch_arg_i32(args[6]);
	lttng_ust_tracepoint(accwatch, loader_wrap, &info);
end:
	return accwatch_record_none();
}

/* (loader, value, site) */
static accwatch_pyobject *accwatch_py_loader_len(accwatch_pyobject *self,
						 accwatch_pyobject *const *args,
						 ssize_t nargs)
{
	(void)self;
	if (!accwatch_args_ok("loader_len", nargs, 3))
		goto end;
	lttng_ust_tracepoint(accwatch, loader_len, accwatch_recorder.run,
			     accwatch_recorder.pid, accwatch_arg_u32(args[0]),
			     accwatch_arg_i64(args[1], -1),
			     accwatch_arg_str(args[2]));
end:
	return accwatch_record_none();
}

/* (loader, iteration, sampler_epoch, seed) */
static accwatch_pyobject *accwatch_py_iter_begin(accwatch_pyobject *self,
						 accwatch_pyobject *const *args,
						 ssize_t nargs)
{
	(void)self;
	if (!accwatch_args_ok("iter_begin", nargs, 4))
		goto end;
	lttng_ust_tracepoint(
	    accwatch, iter_begin, accwatch_recorder.run, accwatch_recorder.pid,
	    accwatch_arg_u32(args[0]), accwatch_arg_u32(args[1]),
	    accwatch_arg_i64(args[2], -1), accwatch_arg_i64(args[3], -1));
end:
	return accwatch_record_none();
}

/* (loader, iteration, drawn, yielded, exhausted) */
static accwatch_pyobject *accwatch_py_iter_end(accwatch_pyobject *self,
					       accwatch_pyobject *const *args,
					       ssize_t nargs)
{
	(void)self;
	if (!accwatch_args_ok("iter_end", nargs, 5))
		goto end;
	lttng_ust_tracepoint(
	    accwatch, iter_end, accwatch_recorder.run, accwatch_recorder.pid,
	    accwatch_arg_u32(args[0]), accwatch_arg_u32(args[1]),
	    accwatch_arg_u32(args[2]), accwatch_arg_u32(args[3]),
	    (uint8_t)(accwatch_arg_i64(args[4], 0) != 0));
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

static void accwatch_emit_batch(const void *info, const uint32_t *narrow,
				const int64_t *wide)
{
	if (narrow)
		lttng_ust_tracepoint(accwatch, batch, info, narrow);
	else
		lttng_ust_tracepoint(accwatch, batch_wide, info, wide);
}

static void accwatch_emit_fetch(const void *info, const uint32_t *narrow,
				const int64_t *wide)
{
	if (narrow)
		lttng_ust_tracepoint(accwatch, worker_fetch, info, narrow);
	else
		lttng_ust_tracepoint(accwatch, worker_fetch_wide, info, wide);
}

void accwatch_record_batch(uint32_t loader, uint32_t iteration, uint32_t batch,
			   accwatch_pyobject *indices)
{
	struct accwatch_batch_info info;
	struct accwatch_indices_event event = {
	    &info.offset, &info.total, &info.count, accwatch_emit_batch, &info};

	if (!lttng_ust_tracepoint_enabled(accwatch, batch) &&
	    !lttng_ust_tracepoint_enabled(accwatch, batch_wide))
		return;
	info.run = accwatch_recorder.run;
	info.pid = accwatch_recorder.pid;
	info.loader = loader;
	info.iteration = iteration;
	info.batch = batch;
	accwatch_walk_indices(indices, &event, "batch", batch);
}

/* (loader, iteration, batch, indices): the per-batch path when the
 * bootstrap's Python wrappers are in use (accwatch_record_hot.c otherwise).
 */
static accwatch_pyobject *accwatch_py_batch(accwatch_pyobject *self,
					    accwatch_pyobject *const *args,
					    ssize_t nargs)
{
	(void)self;
	if (accwatch_args_ok("batch", nargs, 4))
		accwatch_record_batch(accwatch_arg_u32(args[0]),
				      accwatch_arg_u32(args[1]),
				      accwatch_arg_u32(args[2]), args[3]);
	return accwatch_record_none();
}

/* (worker_id, num_workers, seed, loader, iteration, loader_pid) */
static accwatch_pyobject *
accwatch_py_worker_start(accwatch_pyobject *self,
			 accwatch_pyobject *const *args, ssize_t nargs)
{
	(void)self;
	if (!accwatch_args_ok("worker_start", nargs, 6))
		goto end;
	lttng_ust_tracepoint(
	    accwatch, worker_start, accwatch_recorder.run,
	    accwatch_recorder.pid, accwatch_arg_i32(args[0]),
	    accwatch_arg_i32(args[1]), (uint64_t)accwatch_arg_i64(args[2], 0),
	    accwatch_arg_u32(args[3]), accwatch_arg_u32(args[4]),
	    accwatch_arg_i32(args[5]));
end:
	return accwatch_record_none();
}

/* (worker_id, loader, iteration, fetch ordinal, indices) */
static accwatch_pyobject *
accwatch_py_worker_fetch(accwatch_pyobject *self,
			 accwatch_pyobject *const *args, ssize_t nargs)
{
	struct accwatch_fetch_info info;
	struct accwatch_indices_event event = {
	    &info.offset, &info.total, &info.count, accwatch_emit_fetch, &info};

	(void)self;
	if (!accwatch_args_ok("worker_fetch", nargs, 5))
		goto end;
	if (!lttng_ust_tracepoint_enabled(accwatch, worker_fetch) &&
	    !lttng_ust_tracepoint_enabled(accwatch, worker_fetch_wide))
		goto end;
	info.run = accwatch_recorder.run;
	info.pid = accwatch_recorder.pid;
	info.worker_id = accwatch_arg_i32(args[0]);
	info.loader = accwatch_arg_u32(args[1]);
	info.iteration = accwatch_arg_u32(args[2]);
	info.batch = accwatch_arg_u32(args[3]);
	accwatch_walk_indices(args[4], &event, "worker fetch", info.batch);
end:
	return accwatch_record_none();
}

/* Item fingerprints per event: chunks of this many (stack, not shared: the
 * fingerprinting may run Python code that lets another thread in). */
#define ACCWATCH_ITEM_CHUNK 256

static void accwatch_emit_items(struct accwatch_fetch_info *info,
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
		lttng_ust_tracepoint(accwatch, item_fetch, info, hashes);
		offset += used;
	}
}

/* (worker_id, loader, iteration, batch, data, batched): data is what the
 * IterableDataset fetcher hands to collate_fn, a list of items when batched,
 * else one item. */
static accwatch_pyobject *accwatch_py_item_fetch(accwatch_pyobject *self,
						 accwatch_pyobject *const *args,
						 ssize_t nargs)
{
	const struct accwatch_capi *api = accwatch_recorder.api;
	struct accwatch_fetch_info info;
	accwatch_pyobject *data;
	uint64_t hash;
	int is_list;

	(void)self;
	if (!accwatch_args_ok("item_fetch", nargs, 6) ||
	    !lttng_ust_tracepoint_enabled(accwatch, item_fetch))
		goto end;
	info.run = accwatch_recorder.run;
	info.pid = accwatch_recorder.pid;
	info.worker_id = accwatch_arg_i32(args[0]);
	info.loader = accwatch_arg_u32(args[1]);
	info.iteration = accwatch_arg_u32(args[2]);
	info.batch = accwatch_arg_u32(args[3]);
	data = args[4];
	is_list = api->PyObject_IsInstance(data, api->PyList_Type);
	if (is_list < 0)
		api->PyErr_Clear();
	if (accwatch_arg_i64(args[5], 0) &&
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
		lttng_ust_tracepoint(accwatch, item_fetch, &info, &hash);
	}
	if (api->PyErr_Occurred())
		api->PyErr_Clear();
end:
	return accwatch_record_none();
}

/* self is (target, before): calls before(*args, **kwargs); when it returns
 * (worker_id, loader, iteration, batch), calls target(*args, **kwargs) and
 * emits worker_fetch_end after it returned or raised. Being C, it adds no
 * frame to the traceback of target's exceptions (see call_before). */
static accwatch_pyobject *accwatch_py_call_around(accwatch_pyobject *self,
						  accwatch_pyobject *args,
						  accwatch_pyobject *kwargs)
{
	const struct accwatch_capi *api = accwatch_recorder.api;
	accwatch_pyobject *target = api->PyTuple_GetItem(self, 0);
	accwatch_pyobject *before = api->PyTuple_GetItem(self, 1);
	accwatch_pyobject *token, *result;
	int32_t worker_id = -1;
	uint32_t loader = 0, iteration = 0, batch = 0;
	int known = 0;

	if (!target || !before)
		return NULL;
	token = api->PyObject_Call(before, args, kwargs);
	if (!token)
		return NULL;
	if (api->PyObject_IsInstance(token, api->PyTuple_Type) == 1 &&
	    api->PyTuple_Size(token) == 4) {
		worker_id = accwatch_arg_i32(api->PyTuple_GetItem(token, 0));
		loader = accwatch_arg_u32(api->PyTuple_GetItem(token, 1));
		iteration = accwatch_arg_u32(api->PyTuple_GetItem(token, 2));
		batch = accwatch_arg_u32(api->PyTuple_GetItem(token, 3));
		known = 1;
	}
	api->Py_DecRef(token);
	if (api->PyErr_Occurred())
		api->PyErr_Clear();
	result = api->PyObject_Call(target, args, kwargs);
	if (known)
		lttng_ust_tracepoint(accwatch, worker_fetch_end,
				     accwatch_recorder.run,
				     accwatch_recorder.pid, worker_id, loader,
				     iteration, batch, result != NULL);
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

/* A C callable whose self is (target, before); None when it cannot be
 * made. */
static accwatch_pyobject *
accwatch_trampoline_new(const struct accwatch_py_method_def *def,
			accwatch_pyobject *const *args, ssize_t nargs)
{
	const struct accwatch_capi *api = accwatch_recorder.api;
	accwatch_pyobject *pair = NULL, *function = NULL;

	if (!accwatch_args_ok(def->ml_name, nargs, 2))
		goto end;
	pair = api->PyTuple_Pack(2, args[0], args[1]);
	if (!pair)
		goto end;
	function = api->PyCFunction_NewEx((struct accwatch_py_method_def *)def,
					  pair, NULL);
end:
	if (pair)
		api->Py_DecRef(pair);
	if (!function) {
		api->PyErr_Clear();
		function = accwatch_record_none();
	}
	return function;
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
	int on = lttng_ust_tracepoint_enabled(accwatch, batch) ||
		 lttng_ust_tracepoint_enabled(accwatch, iter_begin) ||
		 lttng_ust_tracepoint_enabled(accwatch, worker_fetch) ||
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

const struct accwatch_py_method_def accwatch_record_methods[] = {
    ACCWATCH_METHOD("_aw_process", accwatch_py_process),
    ACCWATCH_METHOD("_aw_dist_init", accwatch_py_dist_init),
    ACCWATCH_METHOD("_aw_loader_new", accwatch_py_loader_new),
    ACCWATCH_METHOD("_aw_loader_wrap", accwatch_py_loader_wrap),
    ACCWATCH_METHOD("_aw_loader_len", accwatch_py_loader_len),
    ACCWATCH_METHOD("_aw_iter_begin", accwatch_py_iter_begin),
    ACCWATCH_METHOD("_aw_iter_end", accwatch_py_iter_end),
    ACCWATCH_METHOD("_aw_batch", accwatch_py_batch),
    ACCWATCH_METHOD("_aw_hot_methods", accwatch_py_hot_methods),
    ACCWATCH_METHOD("_aw_instancemethod", accwatch_py_instancemethod),
    ACCWATCH_METHOD("_aw_worker_start", accwatch_py_worker_start),
    ACCWATCH_METHOD("_aw_worker_fetch", accwatch_py_worker_fetch),
    ACCWATCH_METHOD("_aw_item_fetch", accwatch_py_item_fetch),
    ACCWATCH_METHOD("_aw_call_before", accwatch_py_call_before_new),
    ACCWATCH_METHOD("_aw_call_around", accwatch_py_call_around_new),
    ACCWATCH_METHOD("_aw_recording", accwatch_py_recording),
    ACCWATCH_METHOD("_aw_debug", accwatch_py_debug),
};

const unsigned accwatch_record_method_count =
    sizeof(accwatch_record_methods) / sizeof(accwatch_record_methods[0]);
