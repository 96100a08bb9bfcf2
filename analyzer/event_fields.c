/* The accwatch events' member tables (tracepoints/accwatch_tp.h as struct
 * aw_event sees it) and the accessors that store and load members by slot. */
#include "event_fields.h"

#include <string.h>

#include "accwatch_events.h"

/* Every event carries run and pid. */
const struct aw_member_spec aw_common_members[AW_N_COMMON_MEMBERS] = {
    {"run", offsetof(struct aw_event, run), AW_SLOT_U32, 0},
    {"pid", offsetof(struct aw_event, pid), AW_SLOT_I32, -1},
};

/* clang-format off */
#define AW_M(part, field, slot, absent) \
	{ #field, offsetof(struct aw_event, u.part.field), slot, absent }
/* clang-format on */
#define AW_UNKNOWN_U32 ((int64_t)ACCWATCH_UNKNOWN)

static const struct aw_member_spec aw_process_members[] = {
    AW_M(process, ppid, AW_SLOT_I32, -1),
    AW_M(process, rank, AW_SLOT_I32, -1),
    AW_M(process, local_rank, AW_SLOT_I32, -1),
    AW_M(process, world_size, AW_SLOT_I32, -1),
    AW_M(process, local_world_size, AW_SLOT_I32, -1),
    AW_M(process, rank_source, AW_SLOT_STRING, 0),
    AW_M(process, host, AW_SLOT_STRING, 0),
    AW_M(process, role, AW_SLOT_STRING, 0),
    AW_M(process, argv, AW_SLOT_STRING, 0),
    AW_M(process, python, AW_SLOT_STRING, 0),
    AW_M(process, torch, AW_SLOT_STRING, 0),
};

static const struct aw_member_spec aw_dist_init_members[] = {
    AW_M(dist_init, rank, AW_SLOT_I32, -1),
    AW_M(dist_init, world_size, AW_SLOT_I32, -1),
    AW_M(dist_init, backend, AW_SLOT_STRING, 0),
};

static const struct aw_member_spec aw_fork_members[] = {
    AW_M(fork, child_pid, AW_SLOT_I32, -1),
    AW_M(fork, threads, AW_SLOT_U32, 0),
    AW_M(fork, thread_names, AW_SLOT_STRING, 0),
    AW_M(fork, cuda_mapped, AW_SLOT_U8, 0),
    AW_M(fork, py_stack, AW_SLOT_STRING, 0),
    AW_M(fork, native_stack, AW_SLOT_STRING, 0),
    AW_M(fork, py_threads, AW_SLOT_STRING, 0),
};

static const struct aw_member_spec aw_exec_members[] = {
    AW_M(exec, path, AW_SLOT_STRING, 0),
};

static const struct aw_member_spec aw_exit_members[] = {
    AW_M(exit, exited_pid, AW_SLOT_I32, -1),
    AW_M(exit, status, AW_SLOT_I32, -1),
    AW_M(exit, signal, AW_SLOT_I32, -1),
};

static const struct aw_member_spec aw_loader_new_members[] = {
    AW_M(loader_new, loader, AW_SLOT_U32, AW_UNKNOWN_U32),
    AW_M(loader_new, dataset_id, AW_SLOT_U64, 0),
    AW_M(loader_new, dataset_type, AW_SLOT_STRING, 0),
    AW_M(loader_new, dataset_len, AW_SLOT_I64, -1),
    AW_M(loader_new, iterable, AW_SLOT_U8, 0),
    AW_M(loader_new, loader_class, AW_SLOT_STRING, 0),
    AW_M(loader_new, sampler_class, AW_SLOT_STRING, 0),
    AW_M(loader_new, batch_sampler_class, AW_SLOT_STRING, 0),
    AW_M(loader_new, batch_size, AW_SLOT_I64, -1),
    AW_M(loader_new, drop_last, AW_SLOT_I8, -1),
    AW_M(loader_new, shuffle, AW_SLOT_I8, -1),
    AW_M(loader_new, num_workers, AW_SLOT_I32, -1),
    AW_M(loader_new, persistent_workers, AW_SLOT_I8, -1),
    AW_M(loader_new, prefetch_factor, AW_SLOT_I32, -1),
    AW_M(loader_new, start_method, AW_SLOT_STRING, 0),
    AW_M(loader_new, sampler_replicas, AW_SLOT_I32, -1),
    AW_M(loader_new, sampler_rank, AW_SLOT_I32, -1),
    AW_M(loader_new, site, AW_SLOT_STRING, 0),
    AW_M(loader_new, stack, AW_SLOT_STRING, 0),
};

static const struct aw_member_spec aw_loader_wrap_members[] = {
    AW_M(loader_wrap, outer, AW_SLOT_U32, AW_UNKNOWN_U32),
    AW_M(loader_wrap, inner, AW_SLOT_U32, AW_UNKNOWN_U32),
    AW_M(loader_wrap, kind, AW_SLOT_STRING, 0),
    AW_M(loader_wrap, split_batches, AW_SLOT_I8, -1),
    AW_M(loader_wrap, even_batches, AW_SLOT_I8, -1),
    AW_M(loader_wrap, num_processes, AW_SLOT_I32, -1),
    AW_M(loader_wrap, process_index, AW_SLOT_I32, -1),
};

static const struct aw_member_spec aw_loader_len_members[] = {
    AW_M(loader_len, loader, AW_SLOT_U32, AW_UNKNOWN_U32),
    AW_M(loader_len, value, AW_SLOT_I64, -1),
    AW_M(loader_len, site, AW_SLOT_STRING, 0),
};

static const struct aw_member_spec aw_iter_begin_members[] = {
    AW_M(iter_begin, loader, AW_SLOT_U32, AW_UNKNOWN_U32),
    AW_M(iter_begin, iteration, AW_SLOT_U32, AW_UNKNOWN_U32),
    AW_M(iter_begin, sampler_epoch, AW_SLOT_I64, -1),
    AW_M(iter_begin, seed, AW_SLOT_I64, -1),
};

/* batch, batch_wide, worker_fetch(_wide), item_fetch. */
static const struct aw_member_spec aw_chunk_members[] = {
    AW_M(chunk, worker_id, AW_SLOT_I32, -1),
    AW_M(chunk, loader, AW_SLOT_U32, AW_UNKNOWN_U32),
    AW_M(chunk, iteration, AW_SLOT_U32, AW_UNKNOWN_U32),
    AW_M(chunk, batch, AW_SLOT_U32, AW_UNKNOWN_U32),
    AW_M(chunk, offset, AW_SLOT_U32, 0),
    AW_M(chunk, total, AW_SLOT_U32, 0),
};

static const struct aw_member_spec aw_iter_end_members[] = {
    AW_M(iter_end, loader, AW_SLOT_U32, AW_UNKNOWN_U32),
    AW_M(iter_end, iteration, AW_SLOT_U32, AW_UNKNOWN_U32),
    AW_M(iter_end, drawn, AW_SLOT_U32, 0),
    AW_M(iter_end, yielded, AW_SLOT_U32, 0),
    AW_M(iter_end, exhausted, AW_SLOT_U8, 0),
};

static const struct aw_member_spec aw_worker_start_members[] = {
    AW_M(worker_start, worker_id, AW_SLOT_I32, -1),
    AW_M(worker_start, num_workers, AW_SLOT_I32, -1),
    AW_M(worker_start, seed, AW_SLOT_U64, 0),
    AW_M(worker_start, loader, AW_SLOT_U32, AW_UNKNOWN_U32),
    AW_M(worker_start, iteration, AW_SLOT_U32, AW_UNKNOWN_U32),
    AW_M(worker_start, loader_pid, AW_SLOT_I32, -1),
};

static const struct aw_member_spec aw_fetch_end_members[] = {
    AW_M(fetch_end, worker_id, AW_SLOT_I32, -1),
    AW_M(fetch_end, loader, AW_SLOT_U32, AW_UNKNOWN_U32),
    AW_M(fetch_end, iteration, AW_SLOT_U32, AW_UNKNOWN_U32),
    AW_M(fetch_end, batch, AW_SLOT_U32, AW_UNKNOWN_U32),
    AW_M(fetch_end, ok, AW_SLOT_U8, 1),
};

/* Indexed by kind: a kind of event.h without its line here has a NULL name
 * and is treated as unknown. */
#define AW_SPEC(name, kind, members, array, array_kind)                        \
	[kind] = {name,    kind,                                               \
		  members, sizeof(members) / sizeof(members[0]),               \
		  array,   array_kind}

/* In the order of enum aw_event_kind. */
static const struct aw_event_spec aw_event_specs[AW_EVENT_KIND_COUNT] = {
    AW_SPEC("process", AW_EVENT_PROCESS, aw_process_members, NULL,
	    AW_ARRAY_NONE),
    AW_SPEC("dist_init", AW_EVENT_DIST_INIT, aw_dist_init_members, NULL,
	    AW_ARRAY_NONE),
    AW_SPEC("fork", AW_EVENT_FORK, aw_fork_members, NULL, AW_ARRAY_NONE),
    AW_SPEC("exec", AW_EVENT_EXEC, aw_exec_members, NULL, AW_ARRAY_NONE),
    AW_SPEC("exit", AW_EVENT_EXIT, aw_exit_members, NULL, AW_ARRAY_NONE),
    AW_SPEC("loader_new", AW_EVENT_LOADER_NEW, aw_loader_new_members, NULL,
	    AW_ARRAY_NONE),
    AW_SPEC("loader_wrap", AW_EVENT_LOADER_WRAP, aw_loader_wrap_members, NULL,
	    AW_ARRAY_NONE),
    AW_SPEC("loader_len", AW_EVENT_LOADER_LEN, aw_loader_len_members, NULL,
	    AW_ARRAY_NONE),
    AW_SPEC("iter_begin", AW_EVENT_ITER_BEGIN, aw_iter_begin_members, NULL,
	    AW_ARRAY_NONE),
    AW_SPEC("batch", AW_EVENT_BATCH, aw_chunk_members, "indices", AW_ARRAY_U32),
    AW_SPEC("batch_wide", AW_EVENT_BATCH_WIDE, aw_chunk_members, "indices",
	    AW_ARRAY_I64),
    AW_SPEC("iter_end", AW_EVENT_ITER_END, aw_iter_end_members, NULL,
	    AW_ARRAY_NONE),
    AW_SPEC("worker_start", AW_EVENT_WORKER_START, aw_worker_start_members,
	    NULL, AW_ARRAY_NONE),
    AW_SPEC("worker_fetch", AW_EVENT_WORKER_FETCH, aw_chunk_members, "indices",
	    AW_ARRAY_U32),
    AW_SPEC("worker_fetch_wide", AW_EVENT_WORKER_FETCH_WIDE, aw_chunk_members,
	    "indices", AW_ARRAY_I64),
    AW_SPEC("item_fetch", AW_EVENT_ITEM_FETCH, aw_chunk_members, "hashes",
	    AW_ARRAY_U64),
    AW_SPEC("worker_fetch_end", AW_EVENT_WORKER_FETCH_END, aw_fetch_end_members,
	    NULL, AW_ARRAY_NONE),
};

const struct aw_event_spec *aw_event_spec_by_kind(enum aw_event_kind kind)
{
	if ((unsigned)kind >= AW_EVENT_KIND_COUNT || !aw_event_specs[kind].name)
		return NULL;
	return &aw_event_specs[kind];
}

const struct aw_event_spec *aw_event_spec_by_name(const char *name)
{
	for (size_t i = 0; i < AW_EVENT_KIND_COUNT; i++)
		if (aw_event_specs[i].name &&
		    strcmp(aw_event_specs[i].name, name) == 0)
			return &aw_event_specs[i];
	return NULL;
}

void aw_slot_store(struct aw_event *event, const struct aw_member_spec *spec,
		   int64_t value)
{
	char *at = (char *)event + spec->offset;
	switch (spec->slot) {
	case AW_SLOT_U8:
		*(uint8_t *)at = (uint8_t)value;
		break;
	case AW_SLOT_I8:
		*(int8_t *)at = (int8_t)value;
		break;
	case AW_SLOT_U32:
		*(uint32_t *)at = (uint32_t)value;
		break;
	case AW_SLOT_I32:
		*(int32_t *)at = (int32_t)value;
		break;
	case AW_SLOT_U64:
		*(uint64_t *)at = (uint64_t)value;
		break;
	case AW_SLOT_I64:
		*(int64_t *)at = value;
		break;
	case AW_SLOT_STRING:
		*(const char **)at = "";
		break;
	}
}

int64_t aw_slot_load(const struct aw_event *event,
		     const struct aw_member_spec *spec)
{
	const char *at = (const char *)event + spec->offset;
	switch (spec->slot) {
	case AW_SLOT_U8:
		return *(const uint8_t *)at;
	case AW_SLOT_I8:
		return *(const int8_t *)at;
	case AW_SLOT_U32:
		return *(const uint32_t *)at;
	case AW_SLOT_I32:
		return *(const int32_t *)at;
	case AW_SLOT_U64:
		return (int64_t) * (const uint64_t *)at;
	case AW_SLOT_I64:
		return *(const int64_t *)at;
	case AW_SLOT_STRING:
		break;
	}
	return 0;
}

const char *aw_slot_string(const struct aw_event *event,
			   const struct aw_member_spec *spec)
{
	const char *value =
	    *(const char *const *)((const char *)event + spec->offset);
	return value ? value : "";
}

void aw_slot_set_string(struct aw_event *event,
			const struct aw_member_spec *spec, const char *value)
{
	*(const char **)((char *)event + spec->offset) = value;
}

void aw_event_init_absent(struct aw_event *event, enum aw_event_kind kind)
{
	memset(event, 0, sizeof(*event));
	event->kind = kind;
	const struct aw_event_spec *spec = aw_event_spec_by_kind(kind);
	for (size_t i = 0; i < AW_N_COMMON_MEMBERS; i++)
		aw_slot_store(event, &aw_common_members[i],
			      aw_common_members[i].absent);
	for (size_t i = 0; spec && i < spec->n_members; i++)
		aw_slot_store(event, &spec->members[i],
			      spec->members[i].absent);
}
