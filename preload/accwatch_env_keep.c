/* SPDX-License-Identifier: MIT */
/* Scrubbed-environment repair for exec and posix_spawn: pure functions over
 * caller-provided memory (they run in vfork children). */
#include <string.h>

#include "accwatch_env_keep.h"

#define ACCWATCH_ENV_KEEP_PREFIX "ACCWATCH_"
#define ACCWATCH_ENV_KEEP_PRELOAD "LD_PRELOAD="

static const char *const accwatch_env_keep_also[] = {
    "LTTNG_HOME=",
    "LTTNG_UST_ALLOW_BLOCKING=",
};

static int accwatch_env_keep_starts(const char *entry, const char *prefix)
{
	return strncmp(entry, prefix, strlen(prefix)) == 0;
}

/* Length of the name of "NAME=value", or 0 when there is no '='. */
static size_t accwatch_env_keep_name_length(const char *entry)
{
	const char *equal = strchr(entry, '=');

	return equal ? (size_t)(equal - entry) : 0;
}

/* The item of a LD_PRELOAD list (split on spaces and colons, as ld.so does)
 * whose file name is library_name; NULL if none. */
static const char *accwatch_env_keep_find_item(const char *list,
					       const char *library_name,
					       size_t *length)
{
	size_t name_length = strlen(library_name);

	while (*list) {
		size_t item = strcspn(list, " :");

		if (item >= name_length &&
		    strncmp(list + item - name_length, library_name,
			    name_length) == 0 &&
		    (item == name_length ||
		     list[item - name_length - 1] == '/')) {
			*length = item;
			return list;
		}
		list += item;
		list += strspn(list, " :");
	}
	return NULL;
}

void accwatch_env_keep_init(struct accwatch_env_keep *keep,
			    char *const *environ, const char *library_name)
{
	char *const *entry;
	size_t i;

	memset(keep, 0, sizeof(*keep));
	keep->library_name = library_name;
	for (entry = environ; entry && *entry; entry++) {
		int wanted =
		    accwatch_env_keep_starts(*entry, ACCWATCH_ENV_KEEP_PREFIX);

		if (accwatch_env_keep_starts(*entry,
					     ACCWATCH_ENV_KEEP_PRELOAD)) {
			keep->library = accwatch_env_keep_find_item(
			    *entry + strlen(ACCWATCH_ENV_KEEP_PRELOAD),
			    library_name, &keep->library_length);
			continue;
		}
		for (i = 0; i < sizeof(accwatch_env_keep_also) /
				    sizeof(accwatch_env_keep_also[0]);
		     i++)
			wanted |= accwatch_env_keep_starts(
			    *entry, accwatch_env_keep_also[i]);
		if (wanted && accwatch_env_keep_name_length(*entry) > 0 &&
		    keep->count < ACCWATCH_ENV_KEEP_MAX)
			keep->entries[keep->count++] = *entry;
	}
	keep->enabled = keep->library != NULL;
}

size_t accwatch_env_keep_count(char *const *envp, size_t limit)
{
	size_t count = 0;

	while (envp && envp[count] && count <= limit)
		count++;
	return count;
}

/* Does envp have a variable named like entry ("NAME=...")? */
static int accwatch_env_keep_has(char *const *envp, size_t count,
				 const char *entry)
{
	size_t length = accwatch_env_keep_name_length(entry) + 1;
	size_t i;

	for (i = 0; i < count; i++)
		if (strncmp(envp[i], entry, length) == 0)
			return 1;
	return 0;
}

/* "LD_PRELOAD=<ours>" or "LD_PRELOAD=<ours>:<theirs>" into buffer; NULL
 * when it does not fit. */
static char *accwatch_env_keep_preload(const struct accwatch_env_keep *keep,
				       const char *theirs, char *buffer,
				       size_t size)
{
	size_t prefix = strlen(ACCWATCH_ENV_KEEP_PRELOAD);
	size_t their_length = theirs ? strlen(theirs) : 0;
	size_t need = prefix + keep->library_length + 1 + their_length + 1;
	char *end;

	if (need > size)
		return NULL;
	memcpy(buffer, ACCWATCH_ENV_KEEP_PRELOAD, prefix);
	end = buffer + prefix;
	memcpy(end, keep->library, keep->library_length);
	end += keep->library_length;
	if (their_length > 0) {
		*end++ = ':';
		memcpy(end, theirs, their_length);
		end += their_length;
	}
	*end = '\0';
	return buffer;
}

char *const *accwatch_env_keep_apply(const struct accwatch_env_keep *keep,
				     char *const *envp, char **out,
				     size_t out_capacity, char *preload_buffer,
				     size_t preload_size)
{
	const char *theirs = NULL;
	size_t count, used, i, preload_at = (size_t)-1, unused;
	char *preload;

	if (!keep->enabled)
		return envp;
	count = accwatch_env_keep_count(envp, ACCWATCH_ENV_KEEP_ENTRIES_MAX);
	if (count > ACCWATCH_ENV_KEEP_ENTRIES_MAX ||
	    out_capacity < count + ACCWATCH_ENV_KEEP_MAX + 2)
		return envp;
	for (i = 0; i < count; i++) {
		if (accwatch_env_keep_starts(envp[i], ACCWATCH_ENV_KEEP_PREFIX))
			return envp;
		if (accwatch_env_keep_starts(envp[i],
					     ACCWATCH_ENV_KEEP_PRELOAD)) {
			theirs = envp[i] + strlen(ACCWATCH_ENV_KEEP_PRELOAD);
			preload_at = i;
		}
	}
	if (theirs &&
	    accwatch_env_keep_find_item(theirs, keep->library_name, &unused))
		return envp;
	/* All or nothing: no ACCWATCH_* without the library. */
	preload = accwatch_env_keep_preload(keep, theirs, preload_buffer,
					    preload_size);
	if (!preload)
		return envp;
	for (used = 0; used < count; used++)
		out[used] = used == preload_at ? preload : envp[used];
	if (preload_at == (size_t)-1)
		out[used++] = preload;
	for (i = 0; i < keep->count; i++)
		if (!accwatch_env_keep_has(envp, count, keep->entries[i]))
			out[used++] = (char *)keep->entries[i];
	out[used] = NULL;
	return out;
}
