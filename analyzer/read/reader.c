/* SPDX-License-Identifier: MIT */
/* The reader's analyzer side: finds the traces, checks their metadata, runs
 * babeltrace2 (reader_bt.c) in a child process and feeds what it sends to
 * the model. babeltrace2 2.0 can crash (a damaged sequence length), abort (a
 * damaged metadata text) or loop forever (metadata cut inside a packet) on a
 * damaged trace; in a child, each becomes one line naming the trace, and a
 * child silent for too long is stopped. */
#define _GNU_SOURCE /* pipe2 */
#include "accwatch_common.h"
#include "reader.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "accwatch_events.h"
#include "ingest.h"
#include "progress.h"
#include "reader_bt.h"
#include "trace_dirs.h"
#include "deadline.h"
#include "util.h"

#if defined(__SANITIZE_ADDRESS__)
#define AW_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define AW_UNDER_ASAN 1
#endif
#endif

#define AW_READ_CHUNK (256u * 1024u)
/* Readers at most, and by default at most one a processor up to this. */
#define AW_READERS_MAX 16
#define AW_READERS_AUTO 4
#define AW_PIPE_BYTES (1 << 20)
/* A record this long is no record the child writes. */
#define AW_RECORD_BYTES_MAX (1ull << 30)

/* A non-negative integer from the environment, or fallback when unset
 * (aw_check_settings has refused bad values before). */
static long long aw_env_number(const char *name, long long fallback)
{
	int64_t number;
	if (accwatch_parse_i64(getenv(name), 0, INT64_MAX, &number) !=
	    ACCWATCH_PARSE_OK)
		return fallback;
	return number;
}

long long aw_reader_timeout(void)
{
	return aw_env_number(AW_ENV_READ_TIMEOUT, AW_READ_TIMEOUT_S);
}

/* name's value, when set, must be 0 (what zero says) or in [min, max]. */
static bool aw_check_setting(const char *name, int64_t min, int64_t max,
			     const char *unit, const char *zero, char *error,
			     size_t error_size)
{
	const char *value = getenv(name);
	int64_t number;
	if (!value)
		return true;
	enum accwatch_parse_status status =
	    accwatch_parse_i64(value, 0, max, &number);
	if (status == ACCWATCH_PARSE_OK && (number == 0 || number >= min))
		return true;
	snprintf(error, error_size,
		 "%s=%.40s: not a number of %s from %" PRId64 " to %" PRId64
		 " (0: %s); unset it for the default",
		 name, value, unit, min, max, zero);
	return false;
}

static bool aw_check_settings(char *error, size_t error_size)
{
	return aw_check_setting(AW_ENV_READ_TIMEOUT, 1, AW_READ_TIMEOUT_S_MAX,
				"seconds", "no limit", error, error_size) &&
	       aw_check_setting(AW_ENV_READ_MEMORY, AW_READ_MEMORY_MIB_MIN,
				INT64_MAX >> 20, "MiB", "no limit", error,
				error_size) &&
	       aw_check_setting(AW_ENV_READ_READERS, 1, AW_READERS_MAX,
				"babeltrace2 processes", "one a processor",
				error, error_size);
}

/* In the child: babeltrace2's and GLib's own messages would break the
 * one-line error (ACCWATCH_DEBUG=1 keeps them), and a damaged length must
 * not let it take the machine's memory. */
static void aw_child_setup(void)
{
	/* A crash of babeltrace2 is the analyzer's to report (a sanitizer's
	 * handler would report it as ours). */
	const int crashes[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL};
	for (size_t i = 0; i < sizeof(crashes) / sizeof(crashes[0]); i++)
		signal(crashes[i], SIG_DFL);
	if (!accwatch_debug_on()) {
		int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
		if (null >= 0) {
			dup2(null, STDERR_FILENO);
			close(null);
		}
	}
#ifndef AW_UNDER_ASAN
	/* ASan's shadow memory is data too: no limit under it. */
	long long mib = aw_env_number(AW_ENV_READ_MEMORY, AW_READ_MEMORY_MIB);
	struct rlimit limit;
	if (mib > 0 && getrlimit(RLIMIT_DATA, &limit) == 0) {
		rlim_t bytes = (rlim_t)mib << 20;
		if (limit.rlim_cur == RLIM_INFINITY || limit.rlim_cur > bytes) {
			limit.rlim_cur = bytes;
			setrlimit(RLIMIT_DATA, &limit);
		}
	}
#endif
}

static double aw_now(void)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)now.tv_sec + (double)now.tv_nsec / 1e9;
}

/* How long a poll may wait (ms, -1: forever) before the decoder has been
 * silent for timeout seconds since last (0: no limit); false when it
 * already has. */
static bool aw_silence_left(double last, double timeout, int *wait_ms)
{
	*wait_ms = -1;
	if (timeout <= 0)
		return true;
	double left = last + timeout - aw_now();
	if (left <= 0)
		return false;
	*wait_ms = left > 3600 ? 3600 * 1000 : (int)(left * 1000) + 1;
	return true;
}

/* How the child's part ended, besides its end record. */
struct aw_child_outcome {
	bool stalled;    /* silent past the timeout: killed */
	bool malformed;  /* wrote something that is no record: killed */
	bool stopped;    /* the tick asked to stop: killed */
	int wait_status; /* of the reader that ended worst */
	long long timeout;
	/* Live reading: told after each batch of records and every second
	 * (NULL: none). */
	aw_reader_tick_fn *tick;
	void *tick_context;
};

/* Tells the live reading's tick; false when it asks to stop. */
static bool aw_collect_tick(struct aw_ingest *ingest,
			    struct aw_child_outcome *outcome)
{
	if (!outcome->tick ||
	    outcome->tick(outcome->tick_context, ingest->model))
		return true;
	outcome->stopped = true;
	return false;
}

/* Reads the child's records into ingest until it closes the pipe, falls
 * silent past the timeout or writes garbage. */
static void aw_collect(int fd, struct aw_ingest *ingest,
		       struct aw_child_outcome *outcome,
		       struct aw_progress *progress)
{
	unsigned char *buffer = NULL;
	size_t cap = 0, head = 0, len = 0;
	double timeout = (double)outcome->timeout;
	double last = aw_now();
	for (;;) {
		int wait_ms;
		if (!aw_silence_left(last, timeout, &wait_ms)) {
			outcome->stalled = true;
			break;
		}
		if (outcome->tick && (wait_ms < 0 || wait_ms > 1000))
			wait_ms = 1000;
		struct pollfd pfd = {.fd = fd, .events = POLLIN};
		int ready = poll(&pfd, 1, wait_ms);
		if (ready < 0 && errno == EINTR)
			continue;
		if (ready < 0)
			break;
		if (ready == 0 && !aw_collect_tick(ingest, outcome))
			break;
		if (ready == 0)
			continue; /* the deadline is checked above */
		if (len - head > AW_RECORD_BYTES_MAX) {
			outcome->malformed = true;
			break;
		}
		if (head > 0 && head == len) {
			head = len = 0;
		} else if (head > cap / 2) {
			memmove(buffer, buffer + head, len - head);
			len -= head;
			head = 0;
		}
		AW_GROW(buffer, cap, len + AW_READ_CHUNK);
		ssize_t n = read(fd, buffer + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break; /* the end, or the child is gone */
		len += (size_t)n;
		size_t used = 0;
		if (aw_ingest_feed(ingest, buffer + head, len - head, &used) !=
		    AW_INGEST_OK) {
			outcome->malformed = true;
			break;
		}
		head += used;
		/* After the model took the bytes: its time is not the
		 * child's silence. */
		last = aw_now();
		aw_progress_update(progress, ingest->decoded_packets, last);
		if (!aw_collect_tick(ingest, outcome))
			break;
	}
	free(buffer);
}

static const char *aw_phase_words(const struct aw_ingest *ingest)
{
	if (!ingest->phase_seen)
		return "while starting";
	return ingest->phase == AW_PHASE_OPENING ? "while opening it"
						 : "while reading its events";
}

/* What happened to the child, as the middle of a sentence. */
static void aw_child_failure(const struct aw_child_outcome *outcome, char *out,
			     size_t size)
{
	int status = outcome->wait_status;
	if (outcome->stalled)
		snprintf(out, size,
			 "babeltrace2 made no progress for %lld s and was "
			 "stopped (%s=SECONDS sets the limit, 0 none)",
			 outcome->timeout, AW_ENV_READ_TIMEOUT);
	else if (outcome->malformed)
		snprintf(out, size,
			 "internal error: the babeltrace2 process sent "
			 "something that is no record");
	else if (WIFSIGNALED(status) && WTERMSIG(status) == SIGTRAP)
		/* GLib's way of failing an allocation. */
		snprintf(out, size,
			 "babeltrace2 ran out of memory (signal %d; it may use "
			 "%lld MiB, %s=MIB sets that)",
			 WTERMSIG(status),
			 aw_env_number(AW_ENV_READ_MEMORY, AW_READ_MEMORY_MIB),
			 AW_ENV_READ_MEMORY);
	else if (WIFSIGNALED(status))
		snprintf(out, size, "babeltrace2 crashed (signal %d, %s)",
			 WTERMSIG(status), strsignal(WTERMSIG(status)));
	else
		snprintf(out, size,
			 "the babeltrace2 process ended with status %d before "
			 "it was done",
			 WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

/* Judges the child's work once it is over. */
static enum aw_reader_status
aw_read_outcome(struct aw_ingest *ingest, const struct aw_trace_dirs *dirs,
		const struct aw_child_outcome *outcome, char *error,
		size_t error_size)
{
	struct aw_model *model = ingest->model;
	struct aw_trace_stats *stats = &model->stats;
	bool have_events =
	    aw_model_accwatch_events(model) + stats->other_run_events > 0;
	if (ingest->ended && !outcome->malformed) {
		const char *dir = aw_ingest_dir_name(ingest, ingest->end_dir);
		switch (ingest->end) {
		case AW_READ_END_OK:
			return AW_READER_OK;
		case AW_READ_END_STOPPED:
			/* A corrupt or truncated part: what came before it
			 * stands (ingest marked stats->read_error). */
			if (have_events)
				return AW_READER_OK;
			snprintf(error, error_size,
				 "cannot read the trace in %s: %s; it may be "
				 "corrupt or still being written (stop the "
				 "LTTng session first; `babeltrace2 %s` shows "
				 "the details)",
				 dir ? dir : dirs->dirs[0], ingest->message,
				 dir ? dir : dirs->dirs[0]);
			return AW_READER_ERROR;
		case AW_READ_END_OPEN:
		case AW_READ_END_INTERNAL:
			snprintf(error, error_size, "%s", ingest->message);
			return AW_READER_ERROR;
		}
	}

	/* No end record: the child crashed, hung or misbehaved. */
	char what[384];
	aw_child_failure(outcome, what, sizeof(what));
	const char *dir =
	    ingest->phase_seen && ingest->phase == AW_PHASE_OPENING
		? aw_ingest_dir_name(ingest, ingest->phase_dir)
		: NULL;
	if (!dir && dirs->n == 1)
		dir = dirs->dirs[0];
	if (ingest->phase_seen && ingest->phase == AW_PHASE_READING &&
	    have_events && !outcome->malformed) {
		stats->read_error = true;
		snprintf(stats->read_error_message,
			 sizeof(stats->read_error_message), "%s%s%s",
			 dir ? dir : "", dir ? ": " : "", what);
		/* The last counts sent may predate the last events. */
		uint64_t seen =
		    aw_model_accwatch_events(model) + stats->other_run_events +
		    stats->foreign_events + stats->unknown_accwatch_events;
		if (stats->events < seen)
			stats->events = seen;
		return AW_READER_OK;
	}
	if (dir)
		snprintf(error, error_size,
			 "cannot read the trace in %s: %s %s; the trace is "
			 "damaged (`babeltrace2 %s` shows where)",
			 dir, what, aw_phase_words(ingest), dir);
	else
		snprintf(error, error_size,
			 "cannot read the %zu traces under %s: %s %s; one is "
			 "damaged (`babeltrace2 DIR` on each shows which)",
			 dirs->n, dirs->dirs[0], what, aw_phase_words(ingest));
	return AW_READER_ERROR;
}

/* One reader's pipe and the bytes read from it that no record took yet. */
struct aw_lane_io {
	int fd;
	pid_t child;
	unsigned char *buffer;
	size_t cap, head, len;
	bool open;
};

/* Reads more of a lane; false at its end (or when the reader is gone). */
static bool aw_lane_read(struct aw_lane_io *io)
{
	if (io->head > 0 && io->head == io->len) {
		io->head = io->len = 0;
	} else if (io->head > io->cap / 2) {
		memmove(io->buffer, io->buffer + io->head, io->len - io->head);
		io->len -= io->head;
		io->head = 0;
	}
	AW_GROW(io->buffer, io->cap, io->len + AW_READ_CHUNK);
	ssize_t n;
	do
		n = read(io->fd, io->buffer + io->len, io->cap - io->len);
	while (n < 0 && errno == EINTR);
	if (n <= 0)
		return false;
	io->len += (size_t)n;
	return true;
}

/* Takes the units of the lanes in time order while every lane that can
 * still send one has one waiting (the earliest first; ties to the lowest
 * lane, as the records came); a lane takes its next records after each. */
static bool aw_lanes_take(struct aw_ingest *ingest, struct aw_lane_io *io,
			  size_t n)
{
	for (;;) {
		size_t best = n;
		for (size_t i = 0; i < n; i++) {
			const struct aw_ingest_lane *lane = &ingest->lanes[i];
			if (!lane->has_unit) {
				if (io[i].open)
					return true; /* wait for this one */
				continue;
			}
			if (best == n ||
			    lane->unit_ns < ingest->lanes[best].unit_ns)
				best = i;
		}
		if (best == n)
			return true;
		aw_ingest_lane_take(ingest, best);
		size_t used = 0;
		if (aw_ingest_lane_feed(
			ingest, best, io[best].buffer + io[best].head,
			io[best].len - io[best].head, &used) != AW_INGEST_OK)
			return false;
		io[best].head += used;
	}
}

/* A lane's waiting bytes as far as they go. */
static bool aw_lane_feed(struct aw_ingest *ingest, struct aw_lane_io *io,
			 size_t i)
{
	size_t used = 0;
	if (io->len - io->head > AW_RECORD_BYTES_MAX)
		return false;
	enum aw_ingest_status status = aw_ingest_lane_feed(
	    ingest, i, io->buffer + io->head, io->len - io->head, &used);
	io->head += used;
	return status == AW_INGEST_OK;
}

/* Several readers' records, merged in time order, until every pipe is
 * closed, all fall silent past the timeout or one writes garbage. A lane
 * with a unit waiting is read on only while little of it is buffered: the
 * lanes behind it catch up, and memory stays flat. */
#define AW_LANE_AHEAD_BYTES (4u << 20)
static void aw_collect_lanes(struct aw_lane_io *io, size_t n,
			     struct aw_ingest *ingest,
			     struct aw_child_outcome *outcome,
			     struct aw_progress *progress)
{
	double timeout = (double)outcome->timeout;
	double last = aw_now();
	struct pollfd pfd[AW_READERS_MAX];
	size_t which[AW_READERS_MAX];
	for (;;) {
		if (!aw_lanes_take(ingest, io, n)) {
			outcome->malformed = true;
			break;
		}
		size_t polled = 0;
		for (size_t i = 0; i < n; i++)
			if (io[i].open &&
			    (!ingest->lanes[i].has_unit ||
			     io[i].len - io[i].head < AW_LANE_AHEAD_BYTES)) {
				pfd[polled] = (struct pollfd){.fd = io[i].fd,
							      .events = POLLIN};
				which[polled++] = i;
			}
		if (polled == 0)
			break; /* every lane closed, its units taken */
		int wait_ms;
		if (!aw_silence_left(last, timeout, &wait_ms)) {
			outcome->stalled = true;
			break;
		}
		int ready = poll(pfd, (nfds_t)polled, wait_ms);
		if (ready < 0 && errno == EINTR)
			continue;
		if (ready < 0)
			break;
		for (size_t p = 0; p < polled; p++) {
			size_t i = which[p];
			if (!pfd[p].revents)
				continue;
			if (!aw_lane_read(&io[i]))
				io[i].open = false;
			else
				last = aw_now();
			if (!aw_lane_feed(ingest, &io[i], i)) {
				outcome->malformed = true;
				return;
			}
		}
		aw_progress_update(progress, ingest->decoded_packets, aw_now());
	}
}

/* How many readers decode the traces: ACCWATCH_REPORT_READERS, else one a
 * processor up to AW_READERS_AUTO; one for a live session (its streams
 * come and go, and a silent lane would hold the others back). */
static size_t aw_readers(const struct aw_trace_dirs *dirs)
{
	if (dirs->live)
		return 1;
	long long n = aw_env_number(AW_ENV_READ_READERS, 0);
	if (n <= 0) {
		long cpus = sysconf(_SC_NPROCESSORS_ONLN);
		n = cpus < 1                 ? 1
		    : cpus > AW_READERS_AUTO ? AW_READERS_AUTO
					     : cpus;
	}
	return n > AW_READERS_MAX ? AW_READERS_MAX : (size_t)n;
}

/* Starts reader part of count in a child writing to io->fd. */
static bool aw_start_reader(const struct aw_trace_dirs *dirs,
			    struct aw_reader_part part, struct aw_lane_io *io,
			    char *error, size_t error_size)
{
	int fds[2];
	if (pipe2(fds, O_CLOEXEC) != 0) {
		snprintf(error, error_size,
			 "cannot read the traces: no pipe to babeltrace2: %s",
			 strerror(errno));
		return false;
	}
	/* Fewer, larger writes between the two processes (best effort). */
	fcntl(fds[1], F_SETPIPE_SZ, AW_PIPE_BYTES);
	fflush(NULL);
	pid_t child = fork();
	if (child < 0) {
		snprintf(error, error_size,
			 "cannot read the traces: cannot start babeltrace2's "
			 "process: %s",
			 strerror(errno));
		close(fds[0]);
		close(fds[1]);
		return false;
	}
	if (child == 0) {
		close(fds[0]);
		aw_child_setup();
		enum aw_reader_bt_status status =
		    aw_reader_bt_dump(dirs, part, fds[1]);
		_exit(status == AW_READER_BT_OK ? 0 : 3);
	}
	close(fds[1]);
	*io = (struct aw_lane_io){.fd = fds[0], .child = child, .open = true};
	return true;
}

/* Waits for the readers; the outcome keeps the status of the first that
 * did not exit 0. */
static void aw_wait_readers(struct aw_lane_io *io, size_t n,
			    struct aw_child_outcome *outcome)
{
	bool kill_them =
	    outcome->stalled || outcome->malformed || outcome->stopped;
	bool kept = false;
	for (size_t i = 0; i < n; i++) {
		int status = 0;
		close(io[i].fd);
		if (kill_them)
			kill(io[i].child, SIGKILL);
		while (waitpid(io[i].child, &status, 0) < 0 && errno == EINTR)
			;
		if (!kept || (outcome->wait_status == 0 && status != 0)) {
			outcome->wait_status = status;
			kept = true;
		}
		free(io[i].buffer);
	}
}

static enum aw_reader_status aw_read_in_child(const struct aw_trace_dirs *dirs,
					      struct aw_model *model,
					      struct aw_child_outcome *outcome,
					      char *error, size_t error_size)
{
	struct aw_lane_io io[AW_READERS_MAX];
	size_t n = aw_readers(dirs), started = 0;
	for (; started < n; started++)
		if (!aw_start_reader(
			dirs,
			(struct aw_reader_part){(uint32_t)started, (uint32_t)n},
			&io[started], error, error_size))
			break;
	if (started < n) {
		outcome->stopped = true;
		aw_wait_readers(io, started, outcome);
		return AW_READER_ERROR;
	}

	struct aw_ingest ingest;
	struct aw_progress progress;
	aw_ingest_init(&ingest, model, dirs);
	aw_progress_start(&progress, outcome->tick ? NULL : stderr, dirs,
			  aw_now());
	if (n == 1) {
		aw_collect(io[0].fd, &ingest, outcome, &progress);
	} else {
		aw_ingest_set_lanes(&ingest, n);
		aw_collect_lanes(io, n, &ingest, outcome, &progress);
	}
	aw_progress_end(&progress);
	aw_wait_readers(io, n, outcome);
	enum aw_reader_status status =
	    outcome->stopped
		? AW_READER_OK
		: aw_read_outcome(&ingest, dirs, outcome, error, error_size);
	aw_ingest_fini(&ingest);
	return status;
}

/* What the stall notes add to an error about a trace that cannot be read:
 * its consumer stopped taking events, which is why. */
static void aw_stalled_hint(const struct aw_trace_stats *stats, char *error,
			    size_t error_size)
{
	size_t used = strlen(error);
	if (!stats->n_stalls || used + 1 >= error_size)
		return;
	snprintf(error + used, error_size - used,
		 " (%zu process%s stopped recording after an event waited "
		 "%" PRId64 " ms for buffer space: the trace's consumer was "
		 "stopped, stuck on its disk or gone, and wrote what it had "
		 "only in part or not at all)",
		 stats->n_stalls, stats->n_stalls == 1 ? "" : "es",
		 stats->stalls[0].stall_ms);
}

/* Finds the trace directories under paths and checks their metadata. */
static enum aw_reader_status aw_find_traces(const char *const *paths,
					    size_t n_paths,
					    struct aw_trace_dirs *dirs,
					    char *error, size_t error_size)
{
	for (size_t i = 0; i < n_paths; i++)
		if (aw_trace_dirs_find(dirs, paths[i], error, error_size) !=
		    AW_TRACE_DIRS_OK)
			return AW_READER_NO_TRACE;
	if (aw_env_number(AW_ENV_NO_METADATA_CHECK, 0) > 0)
		return AW_READER_OK;
	for (size_t i = 0; i < dirs->n; i++) {
		char reason[512];
		if (aw_metadata_check(dirs->dirs[i], reason, sizeof(reason)) !=
		    AW_METADATA_OK) {
			snprintf(error, error_size,
				 "cannot read the trace in %s: %s; the trace "
				 "is damaged, or was copied while being "
				 "written (stop the LTTng session first)",
				 dirs->dirs[i], reason);
			return AW_READER_ERROR;
		}
	}
	return AW_READER_OK;
}

/* Every stream file of the traces (not their metadata, not their index)
 * is empty, and there is one: a session still recording, whose consumer
 * has not written its first packet out. */
static bool aw_streams_unwritten(const struct aw_trace_dirs *dirs)
{
	size_t streams = 0;
	for (size_t i = 0; i < dirs->n && !dirs->live; i++) {
		DIR *d = opendir(dirs->dirs[i]);
		struct dirent *entry;
		if (!d)
			return false;
		while ((entry = readdir(d))) {
			struct stat info;
			if (entry->d_name[0] == '.' ||
			    !strcmp(entry->d_name, "metadata") ||
			    fstatat(dirfd(d), entry->d_name, &info,
				    AT_SYMLINK_NOFOLLOW) != 0 ||
			    !S_ISREG(info.st_mode))
				continue;
			streams++;
			if (info.st_size > 0) {
				closedir(d);
				return false;
			}
		}
		closedir(d);
	}
	return streams > 0;
}

enum aw_reader_status aw_reader_read(const char *const *paths, size_t n_paths,
				     struct aw_model *model, char *error,
				     size_t error_size)
{
	struct aw_trace_dirs dirs;
	aw_trace_dirs_init(&dirs);
	enum aw_reader_status status = AW_READER_BAD_SETTING;
	if (!aw_check_settings(error, error_size))
		goto end;
	for (size_t i = 0; i < n_paths; i++)
		aw_stall_notes_read(paths[i], &model->stats);
	status = aw_find_traces(paths, n_paths, &dirs, error, error_size);
	if (status != AW_READER_OK) {
		aw_stalled_hint(&model->stats, error, error_size);
		goto end;
	}
	model->stats.trace_dirs = dirs.n;
	char cut[768] = "";
	for (size_t i = 0; i < dirs.n && !*cut; i++) {
		if (aw_streams_check(dirs.dirs[i], cut, sizeof(cut)) ==
		    AW_STREAMS_SPECIAL) {
			snprintf(error, error_size,
				 "cannot read the trace in %s: %s",
				 dirs.dirs[i], cut);
			status = AW_READER_ERROR;
			goto end;
		}
	}
	struct aw_child_outcome outcome = {
	    .timeout = aw_env_number(AW_ENV_READ_TIMEOUT, AW_READ_TIMEOUT_S)};
	status = aw_read_in_child(&dirs, model, &outcome, error, error_size);
	if (status == AW_READER_ERROR && *cut) {
		/* babeltrace2's own words on a cut stream name its parser's
		 * state; the cut is the reason. */
		snprintf(error, error_size,
			 "cannot read the trace: %s (copied while being "
			 "written, or truncated); copy a trace only after "
			 "the LTTng session stopped",
			 cut);
		goto end;
	}
	if (status != AW_READER_OK)
		goto end;
	if (*cut && !model->stats.read_error) {
		/* What babeltrace2 read stands; the rest of the stream is
		 * gone. */
		model->stats.read_error = true;
		snprintf(model->stats.read_error_message,
			 sizeof(model->stats.read_error_message),
			 "%s (copied while being written, or truncated)", cut);
	}
	/* Events of runs --run left out are events: runs.h names the runs. */
	if (aw_model_accwatch_events(model) + model->stats.other_run_events ==
	    0) {
		status = AW_READER_NO_EVENTS;
		if (aw_streams_unwritten(&dirs))
			snprintf(error, error_size,
				 "the trace in %s holds its metadata but no "
				 "event yet: its LTTng session has not ended "
				 "(its command still runs, or the "
				 "accwatch-run that recorded it was killed "
				 "and nothing ended the session: `lttng list` "
				 "shows it, `lttng destroy NAME` writes the "
				 "trace out, and the next accwatch-run does "
				 "so for a session left behind)",
				 dirs.n ? dirs.dirs[0] : paths[0]);
		else if (n_paths == 1)
			snprintf(error, error_size,
				 "no accwatch events in %s: was it recorded "
				 "with accwatch-run?",
				 paths[0]);
		else
			snprintf(error, error_size,
				 "no accwatch events in %s and the %zu other "
				 "paths: were they recorded "
				 "with accwatch-run?",
				 paths[0], n_paths - 1);
	}
end:
	aw_trace_dirs_fini(&dirs);
	return status;
}

enum aw_reader_status aw_reader_dump(const char *const *paths, size_t n_paths,
				     int fd, char *error, size_t error_size)
{
	struct aw_trace_dirs dirs;
	aw_trace_dirs_init(&dirs);
	enum aw_reader_status status =
	    aw_find_traces(paths, n_paths, &dirs, error, error_size);
	if (status == AW_READER_OK &&
	    aw_reader_bt_dump(&dirs, (struct aw_reader_part){0, 1}, fd) !=
		AW_READER_BT_OK) {
		snprintf(error, error_size, "cannot write the records: %s",
			 strerror(errno));
		status = AW_READER_ERROR;
	}
	aw_trace_dirs_fini(&dirs);
	return status;
}

/* A relay daemon that accepts and never answers: the sessions query is
 * bounded (aw_deadline_set), and past the bound the report ends with a
 * message and accwatch-report's status for a trace it cannot read. */
#define AW_LIVE_QUERY_SECONDS 15
#define AW_LIVE_QUERY_EXIT 2

/* The sessions a relay daemon lists (aw_reader_bt_live_sessions), asked
 * within AW_LIVE_QUERY_SECONDS. */
static bool aw_live_sessions_bounded(const char *base, bool accwatch_only,
				     struct aw_trace_dirs *dirs, char *error,
				     size_t error_size)
{
	char *message = aw_xasprintf(
	    "accwatch-report: the relay daemon at %s did not answer in %d s: "
	    "it is not an lttng-relayd, or it is stuck\n",
	    base, AW_LIVE_QUERY_SECONDS);
	aw_deadline_set(AW_LIVE_QUERY_SECONDS, message, AW_LIVE_QUERY_EXIT);
	free(message);
	bool ok = aw_reader_bt_live_sessions(base, accwatch_only, dirs, error,
					     error_size);
	aw_deadline_clear();
	return ok;
}

/* Whether the relay daemon of a session's URL (net://HOST[:PORT]/host/
 * NAME/SESSION) has that session now: compared from "/host/" on, so that
 * HOST written otherwise matches. A session that ends later ends the
 * reading; one that is not there is an error, not an empty report. */
static bool aw_live_session_listed(const char *url, char *error,
				   size_t error_size)
{
	const char *tail = strstr(url, "/host/");
	char *base = aw_xasprintf("%.*s", (int)(tail - url), url);
	struct aw_trace_dirs all;
	aw_trace_dirs_init(&all);
	bool ok =
	    aw_live_sessions_bounded(base, false, &all, error, error_size);
	bool found = false;
	for (size_t i = 0; ok && i < all.n && !found; i++) {
		const char *listed = strstr(all.dirs[i], "/host/");
		found = listed && strcmp(listed, tail) == 0;
	}
	if (ok && !found)
		snprintf(error, error_size,
			 "the relay daemon at %s has no session %s now "
			 "(`accwatch-report --live %s` reads the accwatch-run "
			 "ones it has)",
			 base, tail + strlen("/host/"), base);
	aw_trace_dirs_fini(&all);
	free(base);
	return ok && found;
}

enum aw_reader_status aw_reader_read_live(const char *url,
					  struct aw_model *model,
					  aw_reader_tick_fn *tick,
					  void *context, char *error,
					  size_t error_size)
{
	struct aw_trace_dirs dirs;
	aw_trace_dirs_init(&dirs);
	enum aw_reader_status status = AW_READER_BAD_SETTING;
	if (!aw_check_settings(error, error_size))
		goto end;
	dirs.live = true;
	/* net://HOST[:PORT] alone: every accwatch-run session the relay
	 * daemon has (the nodes of a job; --run keeps one run's events). */
	if (!strstr(url, "/host/")) {
		if (!aw_live_sessions_bounded(url, true, &dirs, error,
					      error_size)) {
			status = AW_READER_ERROR;
			goto end;
		}
		if (dirs.n == 0) {
			snprintf(error, error_size,
				 "the relay daemon at %s has no accwatch-run "
				 "session (named accwatch-...) now",
				 url);
			status = AW_READER_NO_TRACE;
			goto end;
		}
	} else {
		if (!aw_live_session_listed(url, error, error_size)) {
			status = AW_READER_NO_TRACE;
			goto end;
		}
		AW_GROW(dirs.dirs, dirs.cap, 1);
		dirs.dirs[dirs.n++] = aw_xstrdup(url);
	}
	/* A live session is silent while the job is: no watchdog. */
	struct aw_child_outcome outcome = {.tick = tick,
					   .tick_context = context};
	status = aw_read_in_child(&dirs, model, &outcome, error, error_size);
end:
	aw_trace_dirs_fini(&dirs);
	return status;
}
