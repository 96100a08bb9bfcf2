/* SPDX-License-Identifier: MIT */
/* The sessions a relay daemon has, asked with babeltrace2's lttng-live
 * source ("sessions" query): what `accwatch-report --live` reads. */
#include "reader_bt.h"

#include <babeltrace2/babeltrace.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "util.h"

/* The "url" of one entry of the sessions query's answer when its session
 * is an accwatch-run one (or any, !accwatch_only), NULL otherwise. */
static const char *aw_live_session_url(const bt_value *entry,
				       bool accwatch_only)
{
	const bt_value *name =
	    bt_value_map_borrow_entry_value_const(entry, "session-name");
	const bt_value *url =
	    bt_value_map_borrow_entry_value_const(entry, "url");
	if (!name || !url || !bt_value_is_string(name) ||
	    !bt_value_is_string(url) ||
	    (accwatch_only &&
	     strncmp(bt_value_string_get(name), "accwatch-", 9) != 0))
		return NULL;
	return bt_value_string_get(url);
}

bool aw_reader_bt_live_sessions(const char *url, bool accwatch_only,
				struct aw_trace_dirs *dirs, char *error,
				size_t error_size)
{
	bool ok = false;
	const bt_plugin *ctf = NULL;
	bt_value *params = NULL;
	bt_query_executor *query = NULL;
	const bt_value *answer = NULL;
	if (bt_plugin_find("ctf", BT_TRUE, BT_TRUE, BT_TRUE, BT_TRUE, BT_FALSE,
			   &ctf) != BT_PLUGIN_FIND_STATUS_OK) {
		bt_current_thread_clear_error();
		snprintf(error, error_size,
			 "babeltrace2's ctf plugin was not found: install "
			 "babeltrace2 (Debian: babeltrace2) or set "
			 "BABELTRACE_PLUGIN_PATH");
		goto end;
	}
	const bt_component_class_source *live =
	    bt_plugin_borrow_source_component_class_by_name_const(ctf,
								  "lttng-live");
	params = bt_value_map_create();
	if (!live || !params ||
	    bt_value_map_insert_string_entry(params, "url", url) !=
		BT_VALUE_MAP_INSERT_ENTRY_STATUS_OK)
		goto failed;
	query = bt_query_executor_create(
	    bt_component_class_source_as_component_class_const(live),
	    "sessions", params);
	if (!query ||
	    bt_query_executor_query(query, &answer) !=
		BT_QUERY_EXECUTOR_QUERY_STATUS_OK ||
	    !bt_value_is_array(answer))
		goto failed;
	for (uint64_t i = 0; i < bt_value_array_get_length(answer); i++) {
		const char *session = aw_live_session_url(
		    bt_value_array_borrow_element_by_index_const(answer, i),
		    accwatch_only);
		if (!session)
			continue;
		AW_GROW(dirs->dirs, dirs->cap, dirs->n + 1);
		dirs->dirs[dirs->n++] = aw_xstrdup(session);
	}
	ok = true;
	goto end;
failed : {
	char reason[512];
	aw_take_bt_error(dirs, reason, sizeof(reason));
	snprintf(error, error_size,
		 "cannot list the sessions of the relay daemon at %s: %s", url,
		 reason);
}
end:
	bt_value_put_ref(answer);
	bt_query_executor_put_ref(query);
	bt_value_put_ref(params);
	bt_plugin_put_ref(ctf);
	return ok;
}
