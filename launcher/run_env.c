/* SPDX-License-Identifier: MIT */
/* The command's environment: copy the caller's, drop the variables we set,
 * and add LD_PRELOAD (ours first, the caller's after), ACCWATCH_RUN, blocking,
 * and LTTng-UST's statedump switches unless the caller set them.
 */
#define _GNU_SOURCE
#include "run_env.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "accwatch_events.h"

#define ACCWATCH_RUN_ENV_PRELOAD "LD_PRELOAD"
#define ACCWATCH_RUN_ENV_BLOCKING "LTTNG_UST_ALLOW_BLOCKING"

/* LTTng-UST's base-address statedump reads the ELF headers and build ids of
 * every loaded library in every traced process (and again in each forked
 * worker) when a session starts: ~47,000 read/lseek calls and 60-100 ms of
 * CPU for a torch process, for events accwatch does not use (native stacks
 * are symbolised in-process). A caller's own setting is passed unchanged
 * (LTTng-UST reads only whether the variable is present). */
static const char *const accwatch_run_env_defaults[] = {
    "LTTNG_UST_WITHOUT_BADDR_STATEDUMP=1",
    "LTTNG_UST_WITHOUT_PROCNAME_STATEDUMP=1",
};
#define ACCWATCH_RUN_ENV_DEFAULTS                                              \
	(sizeof(accwatch_run_env_defaults) /                                   \
	 sizeof(accwatch_run_env_defaults[0]))

/* "NAME=..." for this name? */
static bool accwatch_run_env_is(const char *entry, const char *name)
{
	size_t len = strlen(name);
	return strncmp(entry, name, len) == 0 && entry[len] == '=';
}

const char *accwatch_run_env_get(char *const *env, const char *name)
{
	for (char *const *entry = env; entry && *entry; entry++) {
		if (accwatch_run_env_is(*entry, name))
			return *entry + strlen(name) + 1;
	}
	return NULL;
}

/* LD_PRELOAD=<ours>[:<the caller's list without ours>]. ld.so splits the
 * list on spaces and colons, so a nested accwatch-run does not add us twice. */
static char *accwatch_run_env_preload(const char *ours, const char *theirs)
{
	size_t ours_len = strlen(ours);
	size_t theirs_len = theirs ? strlen(theirs) : 0;
	char *value = malloc(sizeof(ACCWATCH_RUN_ENV_PRELOAD "=") + ours_len +
			     1 + theirs_len);
	char *end;

	if (!value)
		return NULL;
	end = stpcpy(stpcpy(value, ACCWATCH_RUN_ENV_PRELOAD "="), ours);
	while (theirs && *theirs) {
		size_t item_len = strcspn(theirs, " :");
		bool same = item_len == ours_len &&
			    strncmp(theirs, ours, ours_len) == 0;

		if (item_len > 0 && !same) {
			*end++ = ':';
			memcpy(end, theirs, item_len);
			end += item_len;
		}
		theirs += item_len;
		theirs += strspn(theirs, " :");
	}
	*end = '\0';
	return value;
}

enum accwatch_run_env_status
accwatch_run_env_build(char *const *base,
		       const struct accwatch_run_env_settings *settings,
		       char ***env)
{
	enum accwatch_run_env_status status = ACCWATCH_RUN_ENV_NO_MEMORY;
	size_t base_count = 0, count = 0;
	char **result = NULL;

	while (base && base[base_count])
		base_count++;
	/* The caller's entries, five of ours, the defaults, the NULL. */
	result =
	    calloc(base_count + 6 + ACCWATCH_RUN_ENV_DEFAULTS, sizeof(*result));
	if (!result)
		goto end;
	for (size_t i = 0; i < base_count; i++) {
		if (accwatch_run_env_is(base[i], ACCWATCH_RUN_ENV_PRELOAD) ||
		    accwatch_run_env_is(base[i], ACCWATCH_ENV_RUN) ||
		    (settings->allow_blocking &&
		     accwatch_run_env_is(base[i], ACCWATCH_RUN_ENV_BLOCKING)) ||
		    accwatch_run_env_is(base[i], ACCWATCH_ENV_STALL_MS) ||
		    accwatch_run_env_is(base[i], ACCWATCH_ENV_STALL_DIR))
			continue;
		result[count] = strdup(base[i]);
		if (!result[count])
			goto end;
		count++;
	}
	result[count] = accwatch_run_env_preload(
	    settings->preload_path,
	    accwatch_run_env_get(base, ACCWATCH_RUN_ENV_PRELOAD));
	if (!result[count])
		goto end;
	count++;
	if (asprintf(&result[count], ACCWATCH_ENV_RUN "=%" PRIu32,
		     settings->run_id) < 0) {
		result[count] = NULL;
		goto end;
	}
	count++;
	if (settings->allow_blocking) {
		result[count] = strdup(ACCWATCH_RUN_ENV_BLOCKING "=1");
		if (!result[count])
			goto end;
		count++;
	}
	if (settings->allow_blocking && settings->stall_ms) {
		if (asprintf(&result[count], ACCWATCH_ENV_STALL_MS "=%" PRIu32,
			     settings->stall_ms) < 0) {
			result[count] = NULL;
			goto end;
		}
		count++;
		if (settings->stall_dir) {
			if (asprintf(&result[count],
				     ACCWATCH_ENV_STALL_DIR "=%s",
				     settings->stall_dir) < 0) {
				result[count] = NULL;
				goto end;
			}
			count++;
		}
	}
	for (size_t i = 0; i < ACCWATCH_RUN_ENV_DEFAULTS; i++) {
		const char *entry = accwatch_run_env_defaults[i];
		size_t name_len = strcspn(entry, "=");
		bool set = false;

		for (size_t j = 0; j < base_count && !set; j++)
			set = strncmp(base[j], entry, name_len + 1) == 0;
		if (set)
			continue;
		result[count] = strdup(entry);
		if (!result[count])
			goto end;
		count++;
	}
	*env = result;
	result = NULL;
	status = ACCWATCH_RUN_ENV_OK;
end:
	accwatch_run_env_free(result);
	return status;
}

void accwatch_run_env_free(char **env)
{
	for (char **entry = env; entry && *entry; entry++)
		free(*entry);
	free(env);
}
