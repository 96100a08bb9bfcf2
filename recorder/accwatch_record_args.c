/* SPDX-License-Identifier: MIT */
/* Keyword calls of the recorder: the tables of the catalogue's field lists
 * and the one function that reads a call's keywords into an event struct. */
#include "accwatch_record_args.h"

#include <string.h>

#include "accwatch_debug.h"
#include "accwatch_record.h"
#include "accwatch_tp.h"

/* clang-format off */
#define ACCWATCH_ARG_SPEC(list, kind, name, absent)                            \
	{#name, offsetof(struct accwatch_##list##_info, name),                 \
	 ACCWATCH_KIND_##kind, (int64_t)(absent)},
#define ACCWATCH_ARG_LIST_DEFINE(list)                                         \
	static const struct accwatch_arg_spec accwatch_specs_##list[] = {      \
	    ACCWATCH_FIELDS_##list(ACCWATCH_ARG_SPEC, list)};                  \
	const struct accwatch_arg_list accwatch_args_##list = {                \
	    accwatch_specs_##list,                                             \
	    sizeof(accwatch_specs_##list) / sizeof(accwatch_specs_##list[0])};
/* clang-format on */
ACCWATCH_FIELD_LISTS(ACCWATCH_ARG_LIST_DEFINE)

/* Strings of the event being filled that are not their str object's own
 * UTF-8 (cut or escaped): copies, one slot per str field of the event.
 * Per thread: on a free-threaded Python two threads may fill at once. */
#define ACCWATCH_ARG_STR_SLOTS 8
#define ACCWATCH_IS_STR_u8 0
#define ACCWATCH_IS_STR_i8 0
#define ACCWATCH_IS_STR_u32 0
#define ACCWATCH_IS_STR_i32 0
#define ACCWATCH_IS_STR_u64 0
#define ACCWATCH_IS_STR_i64 0
#define ACCWATCH_IS_STR_str 1
#define ACCWATCH_ARG_COUNT_STR(X, kind, name, absent) +ACCWATCH_IS_STR_##kind
#define ACCWATCH_ARG_SLOTS_CHECK(list)                                         \
	_Static_assert(                                                        \
	    (0 ACCWATCH_FIELDS_##list(ACCWATCH_ARG_COUNT_STR, x)) <=           \
		ACCWATCH_ARG_STR_SLOTS,                                        \
	    "more str fields in " #list " than string slots");
ACCWATCH_FIELD_LISTS(ACCWATCH_ARG_SLOTS_CHECK)

struct accwatch_arg_texts {
	char text[ACCWATCH_ARG_STR_SLOTS][ACCWATCH_STR_MAX + 1];
	unsigned used;
};
static _Thread_local struct accwatch_arg_texts accwatch_arg_texts;

/* Where to cut text (size bytes) to at most max bytes: not inside a UTF-8
 * character. */
static size_t accwatch_utf8_cut(const char *text, size_t size, size_t max)
{
	size_t keep = size < max ? size : max;

	if (keep == size)
		return keep;
	/* Back off continuation bytes (10xxxxxx) to a character's start. */
	while (keep > 0 && ((unsigned char)text[keep] & 0xc0) == 0x80)
		keep--;
	return keep;
}

/* Says in the trace that field of the next event of event was cut. */
static void accwatch_arg_report_cut(const char *event, const char *field,
				    size_t length)
{
	struct accwatch_string_cut_info info = {
	    .run = accwatch_recorder.run,
	    .pid = accwatch_recorder.pid,
	    .event_name = event,
	    .field_name = field,
	    .length = length,
	};

	ACCWATCH_BOUNDED("string_cut", ACCWATCH_UNKNOWN, ACCWATCH_UNKNOWN,
			 ACCWATCH_UNKNOWN,
			 lttng_ust_tracepoint(accwatch, string_cut, &info));
}

/* The UTF-8 of a str field: the object's own when it is valid UTF-8 and
 * at most ACCWATCH_STR_MAX bytes (nearly always); else a copy, cut (and
 * the cut said) or escaped: a str with lone surrogates (a file name of
 * bytes that are not UTF-8, decoded with surrogateescape) keeps them as
 * \udcXX. "" when it is no str. */
static const char *accwatch_arg_field_str(const char *event, const char *field,
					  accwatch_pyobject *object)
{
	const struct accwatch_capi *api = accwatch_recorder.api;
	struct accwatch_arg_texts *texts = &accwatch_arg_texts;
	accwatch_pyobject *escaped = NULL;
	ssize_t size = 0;
	const char *text = api->PyUnicode_AsUTF8AndSize(object, &size);
	const char *result = "";
	size_t keep;

	if (!text) {
		char *bytes = NULL;

		api->PyErr_Clear();
		escaped = api->PyUnicode_AsEncodedString(object, "utf-8",
							 "backslashreplace");
		if (!escaped ||
		    api->PyBytes_AsStringAndSize(escaped, &bytes, &size) < 0) {
			api->PyErr_Clear();
			goto end;
		}
		text = bytes;
	}
	if (!escaped && (size_t)size <= ACCWATCH_STR_MAX) {
		result = text;
		goto end;
	}
	if (texts->used >= ACCWATCH_ARG_STR_SLOTS)
		goto end; /* not reached: checked above, per field list */
	keep = accwatch_utf8_cut(text, (size_t)size, ACCWATCH_STR_MAX);
	memcpy(texts->text[texts->used], text, keep);
	texts->text[texts->used][keep] = '\0';
	result = texts->text[texts->used++];
	if (keep < (size_t)size)
		accwatch_arg_report_cut(event, field, (size_t)size);
end:
	if (escaped)
		api->Py_DecRef(escaped);
	return result;
}

static int accwatch_arg_fits(enum accwatch_kind kind, int64_t value)
{
	switch (kind) {
	case ACCWATCH_KIND_u8:
		return value >= 0 && value <= UINT8_MAX;
	case ACCWATCH_KIND_i8:
		return value >= INT8_MIN && value <= INT8_MAX;
	case ACCWATCH_KIND_u32:
		return value >= 0 && value <= UINT32_MAX;
	case ACCWATCH_KIND_i32:
		return value >= INT32_MIN && value <= INT32_MAX;
	case ACCWATCH_KIND_u64: /* what fits in a long long, as bits */
	case ACCWATCH_KIND_i64:
		return 1;
	case ACCWATCH_KIND_str:
		break;
	}
	return 0;
}

int64_t accwatch_arg_int(accwatch_pyobject *object, enum accwatch_kind kind,
			 int64_t fallback)
{
	const struct accwatch_capi *api = accwatch_recorder.api;
	int overflow = 0;
	long long value = api->PyLong_AsLongLongAndOverflow(object, &overflow);

	if (value == -1 && api->PyErr_Occurred()) {
		api->PyErr_Clear();
		return fallback;
	}
	return overflow || !accwatch_arg_fits(kind, value) ? fallback : value;
}

const char *accwatch_arg_str(accwatch_pyobject *object)
{
	const struct accwatch_capi *api = accwatch_recorder.api;
	const char *text = api->PyUnicode_AsUTF8(object);

	if (!text) {
		api->PyErr_Clear();
		text = "";
	}
	return text;
}

static void accwatch_arg_store(const char *event, void *info,
			       const struct accwatch_arg_spec *spec,
			       accwatch_pyobject *value)
{
	char *at = (char *)info + spec->offset;
	int64_t number;

	if (spec->kind == ACCWATCH_KIND_str) {
		*(const char **)at =
		    value ? accwatch_arg_field_str(event, spec->name, value)
			  : "";
		return;
	}
	number = value ? accwatch_arg_int(value, spec->kind, spec->absent)
		       : spec->absent;
	accwatch_kind_store(at, spec->kind, number);
}

/* The member named name, NULL if the list has none. Keywords usually come
 * in the list's order: the search starts at the member after the last. */
static const struct accwatch_arg_spec *
accwatch_arg_find(const struct accwatch_arg_list *list, const char *name,
		  size_t *next)
{
	for (size_t i = 0; i < list->count; i++) {
		size_t at = (*next + i) % list->count;

		if (strcmp(list->specs[at].name, name) == 0) {
			*next = at + 1;
			return &list->specs[at];
		}
	}
	return NULL;
}

static int accwatch_arg_extra_take(struct accwatch_arg_extra *extra,
				   const char *name, accwatch_pyobject *value)
{
	for (size_t i = 0; extra && i < extra->count; i++)
		if (strcmp(extra->names[i], name) == 0) {
			extra->values[i] = value;
			return 1;
		}
	return 0;
}

/* info's run and pid this process's, every member at its absent value. */
static void accwatch_args_reset(const char *event,
				const struct accwatch_arg_list *list,
				void *info)
{
	((struct accwatch_info_head *)info)->run = accwatch_recorder.run;
	((struct accwatch_info_head *)info)->pid = accwatch_recorder.pid;
	accwatch_arg_texts.used = 0;
	for (size_t i = 0; i < list->count; i++)
		accwatch_arg_store(event, info, &list->specs[i], NULL);
}

void accwatch_args_fill(const char *event, const struct accwatch_arg_list *list,
			void *info, accwatch_pyobject *const *args,
			ssize_t nargs, accwatch_pyobject *kwnames,
			struct accwatch_arg_extra *extra)
{
	const struct accwatch_capi *api = accwatch_recorder.api;
	ssize_t keywords = kwnames ? api->PyTuple_Size(kwnames) : 0;
	size_t next = 0;

	accwatch_args_reset(event, list, info);
	for (size_t i = 0; extra && i < extra->count; i++)
		extra->values[i] = NULL;
	if (nargs > 0)
		ACCWATCH_DEBUG("%s: %zd positional arguments left out", event,
			       nargs);
	for (ssize_t i = 0; i < keywords; i++) {
		const char *name =
		    accwatch_arg_str(api->PyTuple_GetItem(kwnames, i));
		const struct accwatch_arg_spec *spec =
		    accwatch_arg_find(list, name, &next);

		if (spec)
			accwatch_arg_store(event, info, spec, args[nargs + i]);
		else if (!accwatch_arg_extra_take(extra, name, args[nargs + i]))
			ACCWATCH_DEBUG("%s: no field %s", event, name);
	}
}

void accwatch_args_fill_dict(const char *event,
			     const struct accwatch_arg_list *list, void *info,
			     accwatch_pyobject *fields)
{
	const struct accwatch_capi *api = accwatch_recorder.api;
	accwatch_pyobject *key, *value;
	ssize_t position = 0;
	size_t next = 0;

	accwatch_args_reset(event, list, info);
	while (api->PyDict_Next(fields, &position, &key, &value)) {
		const char *name = accwatch_arg_str(key);
		const struct accwatch_arg_spec *spec =
		    accwatch_arg_find(list, name, &next);

		if (spec)
			accwatch_arg_store(event, info, spec, value);
		else
			ACCWATCH_DEBUG("%s: no field %s", event, name);
	}
}
