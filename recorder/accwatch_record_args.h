/* SPDX-License-Identifier: MIT */
/* The bootstrap's calls of the recorder, by keyword: `_aw.loader_new(
 * loader=0, dataset_len=10, ...)` fills the members of the same names of
 * the event's struct accwatch_<list>_info (tracepoints/accwatch_catalogue.def).
 * A keyword not given, of the wrong type or out of its member's range
 * leaves the member at its catalogue's `absent` value; nothing raises. */
#ifndef ACCWATCH_RECORD_ARGS_H
#define ACCWATCH_RECORD_ARGS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "accwatch_capi.h"
#include "accwatch_events.h"

struct accwatch_arg_spec {
	const char *name;
	size_t offset; /* in the struct accwatch_<list>_info */
	enum accwatch_kind kind;
	int64_t absent;
};

struct accwatch_arg_list {
	const struct accwatch_arg_spec *specs;
	size_t count;
};

/* accwatch_args_<list>: the members of struct accwatch_<list>_info. */
#define ACCWATCH_ARG_LIST_DECLARE(list)                                        \
	extern const struct accwatch_arg_list accwatch_args_##list;
ACCWATCH_FIELD_LISTS(ACCWATCH_ARG_LIST_DECLARE)

/* Room for the struct of any event. */
#define ACCWATCH_ANY_INFO_MEMBER(list) struct accwatch_##list##_info list;
union accwatch_any_info {
	ACCWATCH_FIELD_LISTS(ACCWATCH_ANY_INFO_MEMBER)
};

/* Keywords outside the field list that a call takes (the indices of a
 * batch): names[i]'s value lands in values[i] (borrowed), NULL if absent. */
struct accwatch_arg_extra {
	const char *const *names;
	accwatch_pyobject **values;
	size_t count;
};

/* Fills info (a struct accwatch_<list>_info, run and pid included) from a
 * METH_FASTCALL | METH_KEYWORDS call: every member at its absent value,
 * then each keyword's. Positional arguments and unknown keywords are left
 * out, with a diagnostic naming the event. */
void accwatch_args_fill(const char *event, const struct accwatch_arg_list *list,
			void *info, accwatch_pyobject *const *args,
			ssize_t nargs, accwatch_pyobject *kwnames,
			struct accwatch_arg_extra *extra);

/* Fills info as accwatch_args_fill does, from a dict of the list's field
 * names (a token the bootstrap made for a later event: fields, borrowed, is
 * a dict). */
void accwatch_args_fill_dict(const char *event,
			     const struct accwatch_arg_list *list, void *info,
			     accwatch_pyobject *fields);

/* The argument conversions of accwatch_args_fill, for the recorder's other
 * calls: an integer (fallback when not one or out of range) or a string
 * ("" when not one). */
int64_t accwatch_arg_int(accwatch_pyobject *object, enum accwatch_kind kind,
			 int64_t fallback);
const char *accwatch_arg_str(accwatch_pyobject *object);

#endif
