/* Keyword calls of the recorder: the tables of the catalogue's field lists
 * and the one function that reads a call's keywords into an event struct. */
#include "accwatch_record_args.h"

#include <string.h>

#include "accwatch_debug.h"
#include "accwatch_record.h"

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

static void accwatch_arg_store(void *info, const struct accwatch_arg_spec *spec,
			       accwatch_pyobject *value)
{
	char *at = (char *)info + spec->offset;
	int64_t number;

	if (spec->kind == ACCWATCH_KIND_str) {
		*(const char **)at = value ? accwatch_arg_str(value) : "";
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

void accwatch_args_fill(const char *event, const struct accwatch_arg_list *list,
			void *info, accwatch_pyobject *const *args,
			ssize_t nargs, accwatch_pyobject *kwnames,
			struct accwatch_arg_extra *extra)
{
	const struct accwatch_capi *api = accwatch_recorder.api;
	ssize_t keywords = kwnames ? api->PyTuple_Size(kwnames) : 0;
	size_t next = 0;

	((struct accwatch_info_head *)info)->run = accwatch_recorder.run;
	((struct accwatch_info_head *)info)->pid = accwatch_recorder.pid;
	for (size_t i = 0; i < list->count; i++)
		accwatch_arg_store(info, &list->specs[i], NULL);
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
			accwatch_arg_store(info, spec, args[nargs + i]);
		else if (!accwatch_arg_extra_take(extra, name, args[nargs + i]))
			ACCWATCH_DEBUG("%s: no field %s", event, name);
	}
}
