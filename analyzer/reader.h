/* The trace reader: the only part of the analyzer that knows babeltrace2. It
 * runs one graph over every trace found under the given paths and hands each
 * accwatch event to the model as a plain struct aw_event. */
#ifndef AW_READER_H
#define AW_READER_H

#include <stddef.h>

#include "model.h"

enum aw_reader_status {
	AW_READER_OK,        /* read to the end, or stopped by a corrupt part
			      * after some events (model->stats.read_error) */
	AW_READER_NO_TRACE,  /* a path unreadable, or without a trace */
	AW_READER_NO_EVENTS, /* traces, but no accwatch event in them */
	AW_READER_ERROR,     /* babeltrace2 could not open or read the traces */
};

/* Fills model (not finished) from the traces under paths. On any status but
 * OK, error holds one line naming the path and what to do. */
enum aw_reader_status aw_reader_read(const char *const *paths, size_t n_paths,
				     struct aw_model *model, char *error,
				     size_t error_size);

#endif
