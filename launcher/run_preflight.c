/* SPDX-License-Identifier: MIT */
/* The checks of run_preflight.h. LTTng fails quietly on each of these (a
 * daemon that exits, a tracer that disables itself, buffers the consumer
 * cannot allocate): checked here, they get a cause and a fix instead of a
 * trace with nothing in it. */
#define _GNU_SOURCE
#include "run_preflight.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <lttng/lttng.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "accwatch_events.h"
#include "accwatch_shm.h"
#include "run_log.h"

/* The CPUs LTTng-UST allocates per-CPU buffers for: the possible ones. */
static long accwatch_run_preflight_cpus(void)
{
	FILE *file = fopen("/sys/devices/system/cpu/possible", "re");
	char text[256];
	long count = 0;

	if (file && fgets(text, sizeof(text), file)) {
		char *range = text;

		while (*range && *range != '\n') {
			char *end;
			long first = strtol(range, &end, 10), last = first;

			if (end == range)
				break;
			if (*end == '-')
				last = strtol(end + 1, &end, 10);
			count += last - first + 1;
			range = *end == ',' ? end + 1 : end;
		}
	}
	if (file)
		fclose(file);
	if (count <= 0)
		count = sysconf(_SC_NPROCESSORS_CONF);
	return count > 0 ? count : 1;
}

/* Where the user's session daemon keeps its sockets: LTTNG_HOME, else HOME
 * (lttng-sessiond falls back to the passwd entry, LTTng-UST in the traced
 * processes does not: without either they never find it). Root's daemon
 * lives in /var/run/lttng. */
static bool accwatch_run_preflight_home(char *why, size_t why_len)
{
	const char *name = "LTTNG_HOME";
	const char *home = getenv(name);
	char rundir[PATH_MAX];
	struct stat st;

	if (geteuid() == 0)
		return true;
	if (!home) {
		name = "HOME";
		home = getenv(name);
	}
	if (!home || !*home) {
		snprintf(
		    why, why_len,
		    "neither HOME nor LTTNG_HOME is set: the traced "
		    "processes find the session daemon of uid %ld only "
		    "through them ($LTTNG_HOME/.lttng, else $HOME/.lttng); "
		    "set HOME (or LTTNG_HOME) to a directory you can "
		    "write",
		    (long)geteuid());
		return false;
	}
	snprintf(rundir, sizeof(rundir), "%s/.lttng", home);
	if (stat(rundir, &st) == 0 && S_ISDIR(st.st_mode) &&
	    access(rundir, W_OK | X_OK) == 0)
		return true;
	if (stat(home, &st) != 0 || !S_ISDIR(st.st_mode) ||
	    access(home, W_OK | X_OK) != 0) {
		int error = errno;

		snprintf(why, why_len,
			 "%s=%s is not a directory you can write (%s): "
			 "lttng-sessiond keeps its sockets in %s; set %s to "
			 "one that is%s",
			 name, home,
			 stat(home, &st) != 0   ? strerror(error)
			 : !S_ISDIR(st.st_mode) ? "not a directory"
						: "no write access",
			 rundir, name,
			 strcmp(name, "LTTNG_HOME") == 0 ? ", or unset it"
							 : "");
		return false;
	}
	return true;
}

/* Whether the session daemon's consumer will allocate the buffers in our
 * /dev/shm: when accwatch-run starts the daemon, or when the running one
 * sees the same /dev/shm. Unknown counts as no: refusing must rest on
 * facts. */
static bool accwatch_run_preflight_shares_shm(void)
{
	char pid_path[PATH_MAX], root_shm[64], text[32];
	const char *home = getenv("LTTNG_HOME");
	struct stat ours, theirs;
	FILE *file;
	long pid = 0;

	if (lttng_session_daemon_alive() != 1)
		return true;
	if (!home)
		home = getenv("HOME");
	if (geteuid() == 0)
		snprintf(pid_path, sizeof(pid_path),
			 "/var/run/lttng/lttng-sessiond.pid");
	else if (home)
		snprintf(pid_path, sizeof(pid_path),
			 "%s/.lttng/lttng-sessiond.pid", home);
	else
		return false;
	file = fopen(pid_path, "re");
	if (!file)
		return false;
	if (fgets(text, sizeof(text), file))
		pid = strtol(text, NULL, 10);
	fclose(file);
	if (pid <= 0)
		return false;
	snprintf(root_shm, sizeof(root_shm), "/proc/%ld/root%s", pid,
		 ACCWATCH_SHM_DIR);
	return stat(ACCWATCH_SHM_DIR, &ours) == 0 &&
	       stat(root_shm, &theirs) == 0 && ours.st_dev == theirs.st_dev;
}

/* What the session's buffers will find, probed once: the free bytes of
 * /dev/shm when they go in ours (-1: they do not, or unknown), the CPUs
 * and the page. */
struct accwatch_run_room {
	int64_t free_bytes;
	long cpus, page;
};

static void accwatch_run_preflight_room(struct accwatch_run_room *room)
{
	room->free_bytes = accwatch_run_preflight_shares_shm()
			       ? accwatch_shm_free_bytes()
			       : -1;
	room->cpus = accwatch_run_preflight_cpus();
	room->page = sysconf(_SC_PAGESIZE);
	if (room->page <= 0)
		room->page = 4096;
}

/* The burst's sizes (accwatch_run_buffers_grow) when options leave the
 * sizes to accwatch-run and the room has them, else the defaults stay. */
static void accwatch_run_preflight_size(struct accwatch_run_options *options,
					const struct accwatch_run_room *room)
{
	if (accwatch_run_buffers_grow(options, room->cpus, room->free_bytes,
				      room->page))
		accwatch_run_log_debug(
		    "buffers of %" PRIu64 " x %" PRIu64 " KiB per CPU",
		    options->num_subbuf, options->subbuf_size / 1024);
}

/* The session's buffers, which the consumer zero-fills in /dev/shm as each
 * is created (an allocation that fails there records nothing, quietly). */
static bool
accwatch_run_preflight_buffers(const struct accwatch_run_options *options,
			       const struct accwatch_run_room *room, char *why,
			       size_t why_len)
{
	int64_t needed;

	if (room->free_bytes < 0)
		return true;
	needed = accwatch_run_buffers_bytes(room->cpus, options->num_subbuf,
					    options->subbuf_size, room->page);
	if (room->free_bytes >= needed)
		return true;
	snprintf(
	    why, why_len,
	    "%s has %" PRId64 " KiB free, the session's buffers need %s%" PRId64
	    " KiB there (%ld CPUs x %" PRIu64 " sub-buffers of %" PRIu64
	    " KiB, plus one each and headers%s); give %s more room "
	    "(a container: docker run --shm-size above %" PRId64
	    "m), or record with a smaller "
	    "--subbuf-size/--num-subbuf",
	    ACCWATCH_SHM_DIR, room->free_bytes / 1024,
	    options->buffers == ACCWATCH_RUN_BUFFERS_PER_PID ? "at least " : "",
	    needed / 1024, room->cpus, options->num_subbuf,
	    options->subbuf_size / 1024,
	    options->buffers == ACCWATCH_RUN_BUFFERS_PER_PID
		? ", per traced process"
		: "",
	    ACCWATCH_SHM_DIR, (needed + (1 << 20) - 1) >> 20);
	return false;
}

bool accwatch_run_preflight(struct accwatch_run_options *options, char *why,
			    size_t why_len)
{
	struct accwatch_shm_check check;
	struct accwatch_run_room room;

	if (!accwatch_run_preflight_home(why, why_len))
		return false;
	if (accwatch_shm_prepare(&check) != ACCWATCH_SHM_OK) {
		accwatch_shm_describe(&check, why, why_len);
		return false;
	}
	accwatch_run_preflight_room(&room);
	accwatch_run_preflight_size(options, &room);
	return accwatch_run_preflight_buffers(options, &room, why, why_len);
}

bool accwatch_run_preflight_shm_after(char *why, size_t why_len)
{
	struct accwatch_shm_check check;

	if (accwatch_shm_prepare(&check) == ACCWATCH_SHM_OK)
		return false;
	accwatch_shm_describe(&check, why, why_len);
	return true;
}

void accwatch_run_preflight_note(const char *dir, const char *why)
{
	char path[PATH_MAX];
	int fd;

	if (snprintf(path, sizeof(path), "%s/%s", dir,
		     ACCWATCH_UNRECORDED_NOTE) >= (int)sizeof(path))
		return;
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW,
		  0644);
	if (fd < 0)
		return;
	if (write(fd, why, strlen(why)) < 0 || write(fd, "\n", 1) < 0) {
		/* The note is a courtesy: the message was already said. */
	}
	close(fd);
}
