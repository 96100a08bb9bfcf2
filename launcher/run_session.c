/* SPDX-License-Identifier: MIT */
/* liblttng-ctl calls for the session of one run. The filter `run == <id>`
 * keeps out the events of the user's other processes (per-UID buffers). */
#define _GNU_SOURCE
#include "run_session.h"

#include <inttypes.h>
#include <lttng/lttng.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int accwatch_run_session_code(int ret)
{
	return ret < 0 ? -ret : ret;
}

static enum accwatch_run_session_status accwatch_run_session_add_channel(
    struct accwatch_run_session *session,
    const struct accwatch_run_session_config *config,
    struct lttng_domain *domain)
{
	enum accwatch_run_session_status status =
	    ACCWATCH_RUN_SESSION_NO_MEMORY;
	struct lttng_channel *channel = lttng_channel_create(domain);
	int ret;

	if (!channel)
		goto end;
	status = ACCWATCH_RUN_SESSION_CHANNEL_FAILED;
	snprintf(channel->name, sizeof(channel->name), "%s",
		 ACCWATCH_RUN_CHANNEL_NAME);
	channel->enabled = 1;
	channel->attr.overwrite =
	    0; /* blocking needs discard mode underneath */
	channel->attr.subbuf_size = config->subbuf_size;
	channel->attr.num_subbuf = config->num_subbuf;
	/* Blocking, in µs: -1 waits as long as needed for space, 0 drops the
	 * event; the stall bound waits that long (the recorder then stops). */
	ret = lttng_channel_set_blocking_timeout(
	    channel, config->discard    ? 0
		     : config->stall_ms ? (int64_t)config->stall_ms * 1000
					: -1);
	if (ret < 0) {
		session->lttng_error = accwatch_run_session_code(ret);
		goto end;
	}
	ret = lttng_enable_channel(session->handle, channel);
	if (ret < 0) {
		session->lttng_error = accwatch_run_session_code(ret);
		goto end;
	}
	status = ACCWATCH_RUN_SESSION_OK;
end:
	lttng_channel_destroy(channel);
	return status;
}

static enum accwatch_run_session_status
accwatch_run_session_add_events(struct accwatch_run_session *session,
				uint32_t run_id)
{
	enum accwatch_run_session_status status =
	    ACCWATCH_RUN_SESSION_NO_MEMORY;
	struct lttng_event *event = lttng_event_create();
	char filter[32];
	int ret;

	if (!event)
		goto end;
	status = ACCWATCH_RUN_SESSION_EVENT_FAILED;
	snprintf(event->name, sizeof(event->name), "%s",
		 ACCWATCH_RUN_EVENT_PATTERN);
	event->type = LTTNG_EVENT_TRACEPOINT;
	event->loglevel_type = LTTNG_EVENT_LOGLEVEL_ALL;
	event->loglevel = -1;
	snprintf(filter, sizeof(filter), "run == %" PRIu32, run_id);
	ret = lttng_enable_event_with_filter(session->handle, event,
					     ACCWATCH_RUN_CHANNEL_NAME, filter);
	if (ret < 0) {
		session->lttng_error = accwatch_run_session_code(ret);
		goto end;
	}
	status = ACCWATCH_RUN_SESSION_OK;
end:
	if (event)
		lttng_event_destroy(event);
	return status;
}

enum accwatch_run_session_status
accwatch_run_session_create(struct accwatch_run_session *session,
			    const struct accwatch_run_session_config *config)
{
	enum accwatch_run_session_status status =
	    ACCWATCH_RUN_SESSION_NO_MEMORY;
	struct lttng_session_descriptor *descriptor = NULL;
	struct lttng_domain domain;
	enum lttng_error_code code;

	memset(session, 0, sizeof(*session));
	snprintf(session->name, sizeof(session->name), "%s", config->name);
	descriptor =
	    config->relayd_url
		? lttng_session_descriptor_live_network_create(
		      session->name, config->relayd_url,
		      config->relayd_data_url,
		      config->live_timer_us ? config->live_timer_us
					    : ACCWATCH_RUN_LIVE_TIMER_US)
		: lttng_session_descriptor_local_create(session->name,
							config->output_path);
	if (!descriptor)
		goto end;
	code = lttng_create_session_ext(descriptor);
	if (code != LTTNG_OK) {
		session->lttng_error = accwatch_run_session_code((int)code);
		status = ACCWATCH_RUN_SESSION_CREATE_FAILED;
		goto end;
	}
	session->created = true;

	memset(&domain, 0, sizeof(domain));
	domain.type = LTTNG_DOMAIN_UST;
	domain.buf_type = config->buffers == ACCWATCH_RUN_BUFFERS_PER_PID
			      ? LTTNG_BUFFER_PER_PID
			      : LTTNG_BUFFER_PER_UID;
	session->handle = lttng_create_handle(session->name, &domain);
	if (!session->handle)
		goto end;
	status = accwatch_run_session_add_channel(session, config, &domain);
	if (status != ACCWATCH_RUN_SESSION_OK)
		goto end;
	status = accwatch_run_session_add_events(session, config->run_id);
end:
	if (descriptor)
		lttng_session_descriptor_destroy(descriptor);
	if (status != ACCWATCH_RUN_SESSION_OK && session->created) {
		int first_error = session->lttng_error;

		accwatch_run_session_destroy(session);
		session->lttng_error = first_error;
	}
	return status;
}

enum accwatch_run_session_status
accwatch_run_session_start(struct accwatch_run_session *session)
{
	int ret = lttng_start_tracing(session->name);

	if (ret < 0) {
		session->lttng_error = accwatch_run_session_code(ret);
		return ACCWATCH_RUN_SESSION_START_FAILED;
	}
	session->started = true;
	return ACCWATCH_RUN_SESSION_OK;
}

/* Discarded events of our channel; 0 when the daemon cannot tell. */
static uint64_t
accwatch_run_session_discarded(struct accwatch_run_session *session)
{
	struct lttng_channel *channels = NULL;
	uint64_t discarded = 0;
	int count = lttng_list_channels(session->handle, &channels);

	for (int i = 0; i < count; i++) {
		if (strcmp(channels[i].name, ACCWATCH_RUN_CHANNEL_NAME) == 0 &&
		    lttng_channel_get_discarded_event_count(&channels[i],
							    &discarded) != 0)
			discarded = 0;
	}
	free(channels);
	return discarded;
}

enum accwatch_run_session_status
accwatch_run_session_stop(struct accwatch_run_session *session,
			  uint64_t *discarded)
{
	int ret;

	*discarded = 0;
	if (!session->started)
		return ACCWATCH_RUN_SESSION_OK;
	ret = lttng_stop_tracing(session->name);
	if (ret < 0) {
		session->lttng_error = accwatch_run_session_code(ret);
		return ACCWATCH_RUN_SESSION_STOP_FAILED;
	}
	session->started = false;
	*discarded = accwatch_run_session_discarded(session);
	return ACCWATCH_RUN_SESSION_OK;
}

bool accwatch_run_session_daemon_gone(
    const struct accwatch_run_session *session)
{
	if (session->lttng_error == LTTNG_ERR_NO_SESSIOND)
		return true;
	return session->lttng_error != 0 && lttng_session_daemon_alive() == 0;
}

void accwatch_run_session_forget(struct accwatch_run_session *session)
{
	if (session->handle) {
		lttng_destroy_handle(session->handle);
		session->handle = NULL;
	}
}

enum accwatch_run_session_status
accwatch_run_session_destroy(struct accwatch_run_session *session)
{
	enum accwatch_run_session_status status = ACCWATCH_RUN_SESSION_OK;
	int ret;

	if (session->handle) {
		lttng_destroy_handle(session->handle);
		session->handle = NULL;
	}
	if (!session->created)
		goto end;
	ret = lttng_destroy_session(session->name);
	if (ret < 0) {
		session->lttng_error = accwatch_run_session_code(ret);
		status = ACCWATCH_RUN_SESSION_DESTROY_FAILED;
		goto end;
	}
	session->created = false;
	session->started = false;
end:
	return status;
}

const char *
accwatch_run_session_strerror(const struct accwatch_run_session *session)
{
	return lttng_strerror(-session->lttng_error);
}

/* Whether process pid is an accwatch-run (or its guardian, whose name
 * begins the same) that still runs: its comm says so and it is no zombie (a
 * pid reused by something else is not the owner; a dead guardian whose new
 * parent has not reaped it yet owns nothing). */
static bool accwatch_run_session_owner_alive(long pid)
{
	char path[64], line[512], state = 'X';
	FILE *file;
	bool alive = false;
	char *open_paren, *close_paren;

	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	file = fopen(path, "re");
	if (!file)
		goto end;
	if (fgets(line, sizeof(line), file) &&
	    (open_paren = strchr(line, '(')) &&
	    (close_paren = strrchr(line, ')')) &&
	    sscanf(close_paren + 1, " %c", &state) == 1)
		alive = strncmp(open_paren + 1, "accwatch-run", 12) == 0 &&
			state != 'Z' && state != 'X';
	fclose(file);
end:
	return alive;
}

int accwatch_run_session_reap_orphans(void (*reaped)(const char *name,
						     const char *path))
{
	struct lttng_session *sessions = NULL;
	int count = lttng_list_sessions(&sessions);
	int done = 0;

	if (count < 0)
		return -1;
	for (int i = 0; i < count; i++) {
		const char *name = sessions[i].name;
		long pid;
		unsigned salt;
		char tail;

		if (sscanf(name, "accwatch-%ld-%8x%c", &pid, &salt, &tail) !=
			2 ||
		    pid <= 0 || pid == (long)getpid() ||
		    accwatch_run_session_owner_alive(pid))
			continue;
		lttng_stop_tracing(name);
		if (lttng_destroy_session(name) < 0)
			continue;
		done++;
		if (reaped)
			reaped(name, sessions[i].path);
	}
	free(sessions);
	return done;
}
